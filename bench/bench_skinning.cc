// Skinning throughput: BM_Skin/<backend>/<lbs|dqs>/vertices:<N>/influences:<K> for N in 100k, 1M, 16M, K in
// 1, 2, 4, 8, on the synthetic scene of bench_scenes.h (64 joints, positions + normals, posed at t = 0.5).
//
// Backends:
// - reference: skin_lbs / skin_dqs (the double-precision reference, widest kernel for LBS), one thread.
// - cpu_1t, cpu_all: skinref::cpu::skin_cpu() on one thread and on every hardware thread, inputs prepared
//   once by prepare_cpu_skinning() outside the timed loop (the float32 conversion is not timed), outputs
//   reused.
// - vulkan_device, vulkan_e2e: gpu_evaluate_vertices(), device time or end to end (bench_vulkan.h); only
//   registered when the Vulkan path is built.
// Every case's time is its manual time: wall-clock around each call for the CPU backends, so that threads'
// work counts; device or end-to-end time for Vulkan.
//
// Bytes moved per pass (counter bytes/s) and the bandwidth they are compared with (fraction_of_bandwidth):
// - reference: the double arrays it reads and writes, per vertex position and normal in (2 x 3 doubles), a
//   uint32 joint and a double weight per influence, position and normal out (2 x 3 doubles): 96 + 12 K
//   bytes. The palette (64 joints, cache-resident) is not counted. Compared with BM_Copy/cpu_1t.
// - cpu_1t, cpu_all: cpu::cpu_skinning_traffic_bytes() (float32 planes and per-influence entries: 48 + 8 K
//   bytes here), compared with BM_Copy/cpu_1t and with the larger of BM_Copy/cpu_all and BM_Copy/cpu_1t
//   (cpu_copy_bytes_per_second(), bench_common.h) respectively.
// - vulkan: 64 + 8 K bytes (bench_vulkan.h), compared with BM_Copy/vulkan.
//
// Registration order: per vertex count, per influence count, both methods and every backend, so that one
// scene serves all its cases (SkinningBenchFixture keeps one at a time) and its CPU inputs serve both CPU
// backends. Iterations: Google Benchmark's minimum time where a pass is short; fixed counts for 16M vertices
// (a pass is 0.1 to a few seconds) and for Vulkan (every iteration costs the end-to-end time, on a fast GPU
// 10^3 times the device time, so a minimum counted in device time would run very long).
#include "bench_common.h"
#include "bench_scenes.h"
#include "cpu/skinning_cpu.h"
#include "skin/dqs.h"
#include "skin/lbs.h"
#if SKINREF_HAVE_VULKAN
#include "bench_vulkan.h"
#endif

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <string>

namespace skinref::bench {
namespace {

constexpr size_t kVertexCounts[] = {100'000, 1'000'000, 16'000'000};
constexpr int kInfluenceCounts[] = {1, 2, 4, 8};
constexpr size_t kLarge = 16'000'000;


void run_reference(benchmark::State& state, size_t vertices, int influences, SkinningMethod method) {
  const SkinningBenchScene* fixture = nullptr;
  double copy_bandwidth = 0.0;
  try {
    fixture = &skinning_bench_fixture().scene(vertices, influences);
    copy_bandwidth = cpu_copy_bytes_per_second(1);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  const SkinningInput input = fixture->reference_input();
  SkinningOptions options;
  options.method = method;
  options.threads = 1;
  // Sized and touched outside the timed loop (skin_lbs / skin_dqs keep outputs of the right size), so that no
  // iteration pays for first-touch page faults: with one iteration per repetition at 16M, that would double it.
  SkinnedVertices output;
  output.positions.assign(vertices, Vec3::Zero());
  output.normals.assign(vertices, Vec3::Zero());
  const double seconds = run_timed_passes(state, [&] {
    if (method == SkinningMethod::Dqs)
      skin_dqs(input, options, output);
    else
      skin_lbs(input, options, output);
    benchmark::DoNotOptimize(output.positions.data());
    benchmark::DoNotOptimize(output.normals.data());
  });
  if (seconds <= 0.0) return;
  const double bytes_per_vertex = 2.0 * 6.0 * sizeof(double) + double(influences) * (sizeof(uint32_t) + sizeof(double));
  set_skinning_counters(state, double(vertices), bytes_per_vertex * double(vertices), seconds, copy_bandwidth);
  state.counters["threads"] = 1;
  state.SetLabel(std::string("reference, double, ") +
                 (method == SkinningMethod::Dqs ? "scalar" : skinning_kernel_name(SkinningKernel::Auto)) +
                 " kernel, threads=1");
}

void run_cpu(benchmark::State& state, size_t vertices, int influences, SkinningMethod method, int threads) {
  const cpu::CpuSkinningInputs* inputs = nullptr;
  double copy_bandwidth = 0.0;
  try {
    inputs = &skinning_bench_fixture().cpu_inputs(vertices, influences, method);
    copy_bandwidth = cpu_copy_bytes_per_second(threads);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  cpu::CpuSkinningOutputs outputs;
  cpu::skin_cpu(*inputs, outputs, threads);  // sizes the outputs (and touches them) outside the timed loop
  const double seconds = run_timed_passes(state, [&] {
    cpu::skin_cpu(*inputs, outputs, threads);
    benchmark::DoNotOptimize(outputs.positions.x.data());
  });
  if (seconds <= 0.0) return;
  set_skinning_counters(state, double(vertices), cpu::cpu_skinning_traffic_bytes(*inputs), seconds, copy_bandwidth);
  state.counters["threads"] = threads;
  state.SetLabel(std::string("cpu, float32, ") + cpu::cpu_kernel_name(SkinningKernel::Auto) +
                 " kernel, threads=" + std::to_string(threads));
}

}  // namespace

void register_skinning_benchmarks() {
  for (const size_t vertices : kVertexCounts) {
    for (const int influences : kInfluenceCounts) {
      for (const bool dqs : {false, true}) {
        const SkinningMethod method = dqs ? SkinningMethod::Dqs : SkinningMethod::Lbs;
        const std::string suffix = std::string("/") + method_name(dqs) + "/vertices:" + std::to_string(vertices) +
                                   "/influences:" + std::to_string(influences);
        const auto cpu_side = [&](benchmark::internal::Benchmark* b, int large_iterations) {
          b->UseManualTime()->Unit(benchmark::kMillisecond);
          if (vertices >= kLarge) b->Iterations(large_iterations);
        };
        cpu_side(benchmark::RegisterBenchmark(("BM_Skin/reference" + suffix).c_str(),
                                              [=](benchmark::State& state) {
                                                run_reference(state, vertices, influences, method);
                                              }),
                 1);
        cpu_side(benchmark::RegisterBenchmark(("BM_Skin/cpu_1t" + suffix).c_str(),
                                              [=](benchmark::State& state) {
                                                run_cpu(state, vertices, influences, method, 1);
                                              }),
                 2);
        cpu_side(benchmark::RegisterBenchmark(("BM_Skin/cpu_all" + suffix).c_str(),
                                              [=](benchmark::State& state) {
                                                run_cpu(state, vertices, influences, method, all_threads());
                                              }),
                 2);
#if SKINREF_HAVE_VULKAN
        const int vulkan_iterations = vertices >= 1'000'000 ? 3 : 5;
        for (const bool end_to_end : {false, true}) {
          benchmark::RegisterBenchmark(
              ("BM_Skin/" + std::string(end_to_end ? "vulkan_e2e" : "vulkan_device") + suffix).c_str(),
              [=](benchmark::State& state) { run_vulkan_skinning(state, vertices, influences, method, end_to_end); })
              ->UseManualTime()
              ->Iterations(vulkan_iterations)
              ->Unit(benchmark::kMillisecond);
        }
#endif
      }
    }
  }
}

}  // namespace skinref::bench
