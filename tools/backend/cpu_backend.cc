// The cpu backend: skinning by the fast float32 CPU backend (cpu/skinning_cpu.h); the pose and the image are
// the reference's. Its skinning job's traffic model is cpu_skinning_traffic_bytes().
#include "backend/backend.h"
#include "backend/backend_kinds.h"

#include "cpu/skinning_cpu.h"

#include <chrono>

namespace skinref {
namespace {

class CpuSkinningJob final : public SkinningJob {
 public:
  CpuSkinningJob(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options)
      : threads_(options.threads), kernel_(options.kernel) {
    const auto start = std::chrono::steady_clock::now();
    inputs_ = cpu::prepare_cpu_skinning(scene, pose, options);
    prepare_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  void run() override { cpu::skin_cpu(inputs_, outputs_, threads_, kernel_); }
  std::vector<WorldPrimitive> vertices() const override { return cpu::cpu_world_primitives(inputs_, outputs_); }
  double traffic_bytes() const override { return cpu::cpu_skinning_traffic_bytes(inputs_); }
  double prepare_seconds() const override { return prepare_seconds_; }
  void set_threads(int threads) override { threads_ = threads; }
  std::string label() const override {
    return std::string("cpu, float32, ") + cpu::cpu_kernel_name(kernel_) + " kernel, threads=" +
           std::to_string(threads_);
  }

 private:
  cpu::CpuSkinningInputs inputs_;
  cpu::CpuSkinningOutputs outputs_;
  double prepare_seconds_ = 0.0;
  int threads_;
  SkinningKernel kernel_;
};

class CpuBackend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Cpu; }
  std::unique_ptr<SkinningJob> prepare_skinning(const Scene& scene, const EvaluatedPose& pose,
                                                const SkinningOptions& options) override {
    kernel_ = options.kernel;
    return std::make_unique<CpuSkinningJob>(scene, pose, options);
  }
  std::string summary() const override { return std::string(", cpu backend (") + cpu::cpu_kernel_name(kernel_) + ")"; }
  std::string description() const override { return std::string("cpu (") + cpu::cpu_kernel_name(kernel_) + ")"; }

 private:
  SkinningKernel kernel_ = SkinningKernel::Auto;  // the last job's: what summary() names
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace skinref
