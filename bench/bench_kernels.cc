// The CPU backend's kernel study: what limits LBS and DQS on one core, measured side by side in one process on
// the skinning scene of bench_scenes.h at 1M vertices and 4 influences, one thread.
//
//   BM_SkinKernel/<scalar|avx2|avx512>/<per_vertex|gathers>/<lbs|dqs>/<normals|positions>[/pipelined|/in_order]
//   BM_SkinKernel/<avx2|avx512>/per_vertex/<lbs|dqs>/<normals|positions>/in_cache
//
// - kernel: the instruction set (cpu::skin_cpu's kernel); avx2 runs 8 vertices at a time, avx512 16, so the two
//   also compare 8- against 16-vertex blocks. A kernel this CPU or build lacks is skipped with its reason.
// - per_vertex, gathers: how the wide lanes read the palette for the blends (cpu::WideBlends): each entry
//   loaded whole per vertex and the sums transposed into lanes, or each field gathered into lanes. The scalar
//   kernel has only the one way (registered as per_vertex).
// - normals, positions: with the scene's normals, or with them dropped from the prepared inputs (positions
//   only), for the cost of the normals' cofactor matrix, normalization and traffic.
// - pipelined, in_order: AVX-512 DQS with per-vertex blends under the schedule this CPU did not get
//   (cpu::DqsSchedule; the case without the suffix runs the one it got), so that each run measures the choice.
// - in_cache: the same scene at kInCacheVertices, whose arrays (under 1 MB) stay in a core's L2 on the machines
//   measured: the kernel's own rate, without the memory hierarchy's (on the Intel Xeon VM, one core's L3
//   bandwidth holds LBS with normals at 1M vertices near the one-thread copy).
// Counters as BM_Skin's (set_skinning_counters, bench_common.h): vertices/s, and the traffic of the prepared
// inputs (cpu::cpu_skinning_traffic_bytes) against BM_Copy/cpu_1t. Every variant gives the same bits
// (tests/cpu/cpu_skinning_test.cc), so the study compares speed only.
#include "bench/bench_common.h"
#include "bench/bench_scenes.h"
#include "cpu/skinning_cpu.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

namespace skinref::bench {
namespace {

constexpr size_t kStudyVertices = 1'000'000;
constexpr size_t kInCacheVertices = 8'192;
constexpr int kStudyInfluences = 4;

// The prepared inputs of the study scene for one method, with or without normals; kept across cases.
const cpu::CpuSkinningInputs& study_inputs(size_t vertices, SkinningMethod method, bool normals) {
  static std::map<std::tuple<size_t, SkinningMethod, bool>, std::unique_ptr<cpu::CpuSkinningInputs>> prepared;
  std::unique_ptr<cpu::CpuSkinningInputs>& slot = prepared[{vertices, method, normals}];
  if (!slot) {
    const SkinningBenchScene& posed = skinning_bench_fixture().scene(vertices, kStudyInfluences);
    SkinningOptions options;
    options.method = method;
    slot = std::make_unique<cpu::CpuSkinningInputs>(cpu::prepare_cpu_skinning(posed.scene, posed.pose, options));
    if (!normals) {
      slot->normals = {};
      for (cpu_detail::Segment& segment : slot->segments) segment.normals = false;
    }
  }
  return *slot;
}

// Whether the case runs under a block schedule (cpu::DqsSchedule): the AVX-512 kernel's per-vertex blends of
// dual quaternions, for a method whose palette holds them.
bool has_block_schedules(SkinningMethod method, SkinningKernel kernel, cpu::WideBlends blends) {
  if (kernel != SkinningKernel::Avx512 || blends != cpu::WideBlends::PerVertex) return false;
  switch (skinning_method_descriptor(method).palette) {
    case PaletteBlend::Matrices: return false;
    case PaletteBlend::DualQuaternions: return true;
  }
  return false;
}

void run_kernel_case(benchmark::State& state, size_t vertices, SkinningKernel kernel, cpu::WideBlends blends,
                     cpu::DqsSchedule schedule, SkinningMethod method, bool normals) {
  if (!cpu::cpu_kernel_available(kernel)) {
    state.SkipWithError((std::string("the ") + cpu::cpu_kernel_name(kernel) + " kernel: not on this CPU or build").c_str());
    return;
  }
  double copy_bandwidth = 0.0;
  cpu::CpuSkinningOutputs outputs;
  const cpu::CpuSkinningInputs* inputs = nullptr;
  try {
    copy_bandwidth = cpu_copy_bytes_per_second(1);
    inputs = &study_inputs(vertices, method, normals);
    cpu::skin_cpu(*inputs, outputs, 1, kernel, cpu::OutputStores::Auto, blends, schedule);  // sizes the outputs
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  double seconds = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    cpu::skin_cpu(*inputs, outputs, 1, kernel, cpu::OutputStores::Auto, blends, schedule);
    benchmark::ClobberMemory();
    const double elapsed = seconds_since(start);
    state.SetIterationTime(elapsed);
    seconds += elapsed;
  }
  if (seconds <= 0.0) {
    state.SkipWithError("no measurable time");
    return;
  }
  set_skinning_counters(state, double(vertices), cpu::cpu_skinning_traffic_bytes(*inputs), seconds,
                        copy_bandwidth);
  const bool scheduled = has_block_schedules(method, kernel, blends);
  state.SetLabel(std::string(cpu::cpu_kernel_name(kernel)) +
                 (blends == cpu::WideBlends::Gathers ? ", gathered blends" : ", per-vertex blends") +
                 (scheduled ? std::string(" ") + cpu::dqs_schedule_name(schedule) : std::string()) +
                 (normals ? ", positions and normals" : ", positions only"));
}

}  // namespace

void register_kernel_study_benchmarks() {
  // One case: 1M vertices in milliseconds, or in cache (name + "/in_cache") in microseconds.
  auto add = [](const std::string& name, bool in_cache, SkinningKernel kernel, cpu::WideBlends blends,
                cpu::DqsSchedule schedule, SkinningMethod method, bool normals) {
    const size_t vertices = in_cache ? kInCacheVertices : kStudyVertices;
    benchmark::RegisterBenchmark((name + (in_cache ? "/in_cache" : "")).c_str(), [=](benchmark::State& state) {
      run_kernel_case(state, vertices, kernel, blends, schedule, method, normals);
    })->UseManualTime()->Unit(in_cache ? benchmark::kMicrosecond : benchmark::kMillisecond);
  };
  const std::pair<SkinningKernel, const char*> kernels[] = {
      {SkinningKernel::Scalar, "scalar"}, {SkinningKernel::Avx2, "avx2"}, {SkinningKernel::Avx512, "avx512"}};
  for (const SkinningMethod method : kSkinningMethods)
    for (const bool normals : {true, false})
      for (const auto& [kernel, kernel_name] : kernels)
        for (const cpu::WideBlends blends : {cpu::WideBlends::PerVertex, cpu::WideBlends::Gathers}) {
          if (kernel == SkinningKernel::Scalar && blends == cpu::WideBlends::Gathers) continue;
          const std::string name = std::string("BM_SkinKernel/") + kernel_name +
                                   (blends == cpu::WideBlends::Gathers ? "/gathers/" : "/per_vertex/") +
                                   skinning_method_name(method) + (normals ? "/normals" : "/positions");
          add(name, false, kernel, blends, cpu::DqsSchedule::Auto, method, normals);
          if (kernel != SkinningKernel::Scalar && blends == cpu::WideBlends::PerVertex)
            add(name, true, kernel, blends, cpu::DqsSchedule::Auto, method, normals);
          // AVX-512 dual quaternion blends per vertex: the schedule the CPU did not get, beside the one it did
          // (cpu::DqsSchedule), so that each run measures the choice.
          if (has_block_schedules(method, kernel, blends)) {
            const cpu::DqsSchedule other =
                cpu::resolve_dqs_schedule(cpu::DqsSchedule::Auto) == cpu::DqsSchedule::Pipelined
                    ? cpu::DqsSchedule::InOrder
                    : cpu::DqsSchedule::Pipelined;
            const std::string other_name =
                name + (other == cpu::DqsSchedule::Pipelined ? "/pipelined" : "/in_order");
            for (const bool in_cache : {false, true}) add(other_name, in_cache, kernel, blends, other, method, normals);
          }
        }
}

}  // namespace skinref::bench
