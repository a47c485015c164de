// The reference backend: the double-precision reference of every stage (reference/).
//
// Its skinning job's traffic model: per vertex, the double attributes it reads and writes (3 doubles each for
// a position and a normal, 4 for a tangent, in and out) and per influence a uint32 joint and a double weight.
// The palette (cache-resident) and the morphed attributes (computed once, at prepare) are not counted.
#include "backend/backend.h"
#include "backend/backend_kinds.h"

#include "skin/evaluate_vertices.h"

#include <chrono>

namespace skinref {
namespace {

class ReferenceSkinningJob final : public SkinningJob {
 public:
  ReferenceSkinningJob(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    prepared_ = prepare_vertices(scene, pose, options);
    prepare_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  void run() override { skin_prepared(prepared_, output_); }
  std::vector<WorldPrimitive> vertices() const override { return output_; }

  double traffic_bytes() const override {
    double bytes = 0.0;
    for (const PreparedPrimitive& prim : prepared_.primitives) {
      const SkinningInput& in = prim.input;
      const double attribute_doubles = 3.0 * double(in.positions.size()) + 3.0 * double(in.normals.size()) +
                                       4.0 * double(in.tangents.size());
      bytes += 2.0 * attribute_doubles * sizeof(double) +
               double(in.joints.size()) * (sizeof(uint32_t) + sizeof(double));
    }
    return bytes;
  }

  double prepare_seconds() const override { return prepare_seconds_; }
  void set_threads(int threads) override { prepared_.options.threads = threads; }

  std::string label() const override {
    return std::string("reference, double, ") + kernel_name() + " kernel, threads=" +
           std::to_string(prepared_.options.threads);
  }

 private:
  // Each method runs the kernel its options name (Auto: the widest this CPU has for it).
  const char* kernel_name() const {
    const SkinningKernelName name = skinning_method_descriptor(prepared_.options.method).kernel_name;
    return name ? name(prepared_.options.kernel) : "unknown";
  }

  PreparedVertices prepared_;
  double prepare_seconds_ = 0.0;
  std::vector<WorldPrimitive> output_;
};

class ReferenceBackend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Reference; }
  std::unique_ptr<SkinningJob> prepare_skinning(const Scene& scene, const EvaluatedPose& pose,
                                                const SkinningOptions& options) override {
    return std::make_unique<ReferenceSkinningJob>(scene, pose, options);
  }
  std::string summary() const override { return ""; }
  std::string description() const override { return "reference"; }
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace skinref
