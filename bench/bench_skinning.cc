// Skinning throughput: BM_Skin/<backend>/<lbs|dqs>/vertices:<N>/influences:<K> for N in 100k, 1M, 16M, K in
// 1, 2, 4, 8, on the synthetic scene of bench_scenes.h (64 joints, positions + normals, posed at t = 0.5).
//
// Backends, each through the Backend interface (tools/backend/backend.h): the case prepares one SkinningJob
// (inputs converted, uploaded) outside the timed loop and times its run(), the work a frame repeats:
// - reference: the double-precision reference (widest kernel for LBS), one thread.
// - cpu_1t, cpu_all: the fast float32 CPU backend on one thread and on every hardware thread, outputs reused.
// - vulkan_device, vulkan_e2e: the vulkan backend over the benchmarks' context (bench_vulkan.h): device time
//   per pass with the device kept busy (warm_up_busy_passes(), bench_common.h), or end to end (prepare, run
//   and read back per iteration); only registered when the Vulkan path is built.
// Every case's time is its manual time: wall-clock around each run for the CPU backends, so that threads'
// work counts; device or end-to-end time for Vulkan.
//
// Bytes moved per pass (counter bytes/s) and the bandwidth they are compared with (fraction_of_bandwidth):
// SkinningJob::traffic_bytes(), each backend's traffic model, stated with the backend:
// - reference (tools/backend/reference_backend.cc): per vertex position and normal in and out (4 x 3 doubles),
//   a uint32 joint and a double weight per influence: 96 + 12 K bytes. Compared with BM_Copy/cpu_1t.
// - cpu_1t, cpu_all: cpu::cpu_skinning_traffic_bytes() (float32 planes and per-influence entries: 48 + 8 K
//   bytes here), compared with BM_Copy/cpu_1t and with the larger of BM_Copy/cpu_all and BM_Copy/cpu_1t
//   (cpu_copy_bytes_per_second(), bench_common.h) respectively.
// - vulkan (tools/backend/vulkan_backend.h): 64 + 8 K bytes, compared with BM_Copy/vulkan.
//
// Registration order: per vertex count, per influence count, both methods and every backend, so that one
// scene serves all its cases (SkinningBenchFixture keeps one at a time) and its CPU inputs serve both CPU
// backends. Iterations: Google Benchmark's minimum time where a pass is short; fixed counts for 16M vertices
// (a pass is 0.1 to a few seconds) and for Vulkan (every iteration costs the end-to-end time, on a fast GPU
// 10^3 times the device time, so a minimum counted in device time would run very long).
#include "backend/backend.h"
#include "bench/bench_common.h"
#include "bench/bench_scenes.h"
#include "skin/method.h"
#if SKINREF_HAVE_VULKAN
#include "bench/bench_vulkan.h"
#endif

#include <benchmark/benchmark.h>

#include <chrono>
#include <exception>
#include <memory>
#include <string>

namespace skinref::bench {
namespace {

constexpr size_t kVertexCounts[] = {100'000, 1'000'000, 16'000'000};
constexpr int kInfluenceCounts[] = {1, 2, 4, 8};
constexpr size_t kLarge = 16'000'000;

Backend& cpu_side_backend(BackendKind kind) {
  static const std::unique_ptr<Backend> reference = make_backend(BackendKind::Reference);
  static const std::unique_ptr<Backend> cpu = make_backend(BackendKind::Cpu);
  return kind == BackendKind::Cpu ? *cpu : *reference;
}

void run_cpu_side(benchmark::State& state, BackendKind kind, int threads, size_t vertices, int influences,
                  SkinningMethod method) {
  double copy_bandwidth = 0.0;
  try {
    copy_bandwidth = cpu_copy_bytes_per_second(threads);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  run_backend_skinning(state, cpu_side_backend(kind), threads, vertices, influences, method, PassTime::Wall,
                       copy_bandwidth, "");
}

}  // namespace

void run_backend_skinning(benchmark::State& state, Backend& backend, int threads, size_t vertices, int influences,
                          SkinningMethod method, PassTime pass_time, double copy_bytes_per_second,
                          const std::string& label) {
  SkinningBenchFixture& fixture = skinning_bench_fixture();
  SkinningJob* job = nullptr;
  try {
    job = &fixture.job(backend, vertices, influences, method);
    job->set_threads(threads);
    job->run();  // sizes (and touches) the outputs, creates pipelines: set-up kept out of the timed loop
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  const SkinningBenchScene& posed = fixture.scene(vertices, influences);
  SkinningOptions options;
  options.method = method;
  int busy_passes = 0;  // PassTime::Device: the passes of one timed batch
  if (pass_time == PassTime::Device) {
    try {
      // One more lone pass, as the first H200 run timed them (the set-up run above includes first-use costs).
      job->run();
      const double lone_pass = job->device_seconds().value_or(0.0);
      busy_passes = warm_up_busy_passes([&](int passes) { return job->busy_pass_seconds(passes).value_or(0.0); });
      if (busy_passes == 0) {
        state.SkipWithError("the device reported no time for the skinning passes");
        return;
      }
      if (lone_pass > 0.0) state.counters["lone_pass_vertices/s"] = double(vertices) / lone_pass;
      state.counters["passes_per_batch"] = busy_passes;
    } catch (const std::exception& error) {
      state.SkipWithError(error.what());
      return;
    }
  }
  double seconds = 0.0;
  for (auto _ : state) {
    try {
      const auto start = std::chrono::steady_clock::now();
      double elapsed = 0.0;
      if (pass_time == PassTime::EndToEnd) {
        // Backend::vertices() in its steps, so that one-time set-up (pipelines) stays out, as in an application.
        const std::unique_ptr<SkinningJob> fresh = backend.prepare_skinning(posed.scene, posed.pose, options);
        const auto run_start = std::chrono::steady_clock::now();
        fresh->run();
        const std::vector<WorldPrimitive> result = fresh->vertices();
        benchmark::DoNotOptimize(result.data());
        elapsed = fresh->prepare_seconds() + seconds_since(run_start);
      } else if (pass_time == PassTime::Device) {
        elapsed = job->busy_pass_seconds(busy_passes).value_or(0.0);
      } else {
        job->run();
        benchmark::ClobberMemory();
        elapsed = seconds_since(start);
      }
      state.SetIterationTime(elapsed);
      seconds += elapsed;
    } catch (const std::exception& error) {
      state.SkipWithError(error.what());
      break;
    }
  }
  if (state.error_occurred()) return;
  if (seconds <= 0.0) {
    state.SkipWithError("no measurable time");
    return;
  }
  set_skinning_counters(state, double(vertices), job->traffic_bytes(), seconds, copy_bytes_per_second);
  state.counters["threads"] = threads;
  state.SetLabel(label.empty() ? job->label() : label);
}

// The user's shader (skinref_bench --shader), run as the default method (LBS), after every case of skin.comp:
// on lavapipe (Mesa 22.3) the timestamps of a compute dispatch that follows a transform feedback draw in the
// same process came out implausibly short (0.02 ms for a million vertices), while skin.comp's cases run first
// read as they do alone.
static void register_user_shader_benchmarks() {
#if SKINREF_HAVE_VULKAN
  if (user_shader().shader.empty()) return;
  for (const size_t vertices : kVertexCounts)
    for (const int influences : kInfluenceCounts) {
      const std::string suffix = std::string("/") + skinning_method_name(kDefaultSkinningMethod) + "/vertices:" +
                                 std::to_string(vertices) + "/influences:" + std::to_string(influences);
      benchmark::RegisterBenchmark(
          ("BM_Skin/user_shader_device" + suffix).c_str(),
          [=](benchmark::State& state) { run_user_shader_skinning(state, vertices, influences); })
          ->UseManualTime()
          ->Iterations(vertices >= 1'000'000 ? 3 : 5)
          ->Unit(benchmark::kMillisecond);
    }
#endif
}

void register_skinning_benchmarks() {
  for (const size_t vertices : kVertexCounts) {
    for (const int influences : kInfluenceCounts) {
      for (const SkinningMethod method : kSkinningMethods) {
        const std::string suffix = std::string("/") + skinning_method_name(method) + "/vertices:" +
                                   std::to_string(vertices) + "/influences:" + std::to_string(influences);
        const auto cpu_side = [&](const char* name, BackendKind kind, int threads, int large_iterations) {
          benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
              ("BM_Skin/" + std::string(name) + suffix).c_str(), [=](benchmark::State& state) {
                run_cpu_side(state, kind, threads, vertices, influences, method);
              });
          b->UseManualTime()->Unit(benchmark::kMillisecond);
          if (vertices >= kLarge) b->Iterations(large_iterations);
        };
        cpu_side("reference", BackendKind::Reference, 1, 1);
        cpu_side("cpu_1t", BackendKind::Cpu, 1, 2);
        cpu_side("cpu_all", BackendKind::Cpu, all_threads(), 2);
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
  register_user_shader_benchmarks();
}

}  // namespace skinref::bench
