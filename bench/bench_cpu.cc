// Throughput of the fast CPU backend (cpu/skinning_cpu.h) against this machine's own copy bandwidth.
//
// BM_MemoryCopy/threads:T: a STREAM-like copy of 256 MiB of floats into another 256 MiB buffer (std::memcpy
// of T equal ranges, one per thread, threads started per iteration as skin_cpu starts them). bytes/s counts
// the read and the write (2 x 256 MiB): the traffic a streaming kernel can hope for with T threads. The
// highest value measured in this process per thread count is kept for BM_CpuSkin (measured there, once,
// outside the timed loop, when BM_MemoryCopy is filtered out).
//
// BM_CpuSkin/dqs:{0,1}/threads:T: skin_cpu() on builtin:million (1,001,000 vertices, 4 influences, positions +
// normals) posed at t = 0.5, inputs prepared once (prepare_cpu_skinning(): the float32 conversion is not
// timed) and outputs reused, with the widest kernel this CPU has. T is 1 and the hardware threads.
// - vertices/s; bytes/s counts the float32 traffic the kernel must have per vertex: position and normal in
//   (3 + 3 floats), a uint32 palette offset and a float weight per influence, position and normal out
//   (3 + 3 floats): 24 + 32 + 24 = 80 bytes for builtin:million. The palette (32 joints, 5 KiB) stays in cache
//   and is not counted. fraction_of_copy = bytes/s / BM_MemoryCopy's bytes/s at the same thread count.
// Wall-clock time (UseRealTime): the threads run inside each iteration.
#include "builtin_scenes.h"
#include "evaluate.h"
#include "skinning_cpu.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

namespace skinref {
namespace {

constexpr size_t kCopyFloats = size_t(64) << 20;  // 256 MiB

int all_threads() { return int(std::max(1u, std::thread::hardware_concurrency())); }

struct CopyBuffers {
  std::vector<float> source = std::vector<float>(kCopyFloats, 1.0f);
  std::vector<float> target = std::vector<float>(kCopyFloats, 0.0f);
};

CopyBuffers& copy_buffers() {
  static CopyBuffers buffers;
  return buffers;
}

void threaded_copy(CopyBuffers& b, int threads) {
  const size_t chunk = (kCopyFloats + size_t(threads) - 1) / size_t(threads);
  auto copy_range = [&](size_t t) {
    const size_t begin = std::min(kCopyFloats, t * chunk), end = std::min(kCopyFloats, begin + chunk);
    std::memcpy(b.target.data() + begin, b.source.data() + begin, (end - begin) * sizeof(float));
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(copy_range, size_t(t));
  copy_range(0);
  for (std::thread& w : workers) w.join();
}

// The best copy bytes/s seen in this process, per thread count.
std::map<int, double>& best_copy() {
  static std::map<int, double> best;
  return best;
}

double copy_bytes_per_second(int threads) {
  double& best = best_copy()[threads];
  if (best == 0.0) {
    for (int run = 0; run < 5; ++run) {
      const auto start = std::chrono::steady_clock::now();
      threaded_copy(copy_buffers(), threads);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      best = std::max(best, 2.0 * double(kCopyFloats * sizeof(float)) / seconds);
    }
  }
  return best;
}

void BM_MemoryCopy(benchmark::State& state) {
  const int threads = state.range(0) == 0 ? all_threads() : int(state.range(0));
  CopyBuffers& buffers = copy_buffers();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    threaded_copy(buffers, threads);
    benchmark::ClobberMemory();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double bytes = 2.0 * double(kCopyFloats * sizeof(float)) * double(state.iterations());
  state.counters["bytes/s"] = benchmark::Counter(bytes, benchmark::Counter::kIsRate);
  state.counters["threads"] = threads;
  double& best = best_copy()[threads];
  if (seconds > 0.0) best = std::max(best, bytes / seconds);
}

struct MillionInputs {
  cpu::CpuSkinningInputs lbs, dqs;
};

const MillionInputs& million_inputs() {
  static const MillionInputs inputs = [] {
    const Scene scene = make_builtin_scene("million");
    const EvaluatedPose pose = evaluate_pose(scene, 0, 0.5);
    SkinningOptions options;
    MillionInputs prepared;
    prepared.lbs = cpu::prepare_cpu_skinning(scene, pose, options);
    options.method = SkinningMethod::Dqs;
    prepared.dqs = cpu::prepare_cpu_skinning(scene, pose, options);
    return prepared;
  }();
  return inputs;
}

// Float32 bytes the kernel must read and write per vertex (see the top of this file).
double bytes_per_vertex(const cpu::CpuSkinningInputs& in) {
  const double influences = double(in.entries.size()) / double(in.vertex_count);
  const double attribute_floats = 3.0 + (in.normals.x.empty() ? 0.0 : 3.0) + (in.tangents.x.empty() ? 0.0 : 4.0);
  return 4.0 * (2.0 * attribute_floats + 2.0 * influences);
}

void BM_CpuSkin(benchmark::State& state) {
  const bool dqs = state.range(0) != 0;
  const int threads = state.range(1) == 0 ? all_threads() : int(state.range(1));
  const cpu::CpuSkinningInputs& in = dqs ? million_inputs().dqs : million_inputs().lbs;
  cpu::CpuSkinningOutputs out;
  cpu::skin_cpu(in, out, threads);  // sizes the outputs once
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    cpu::skin_cpu(in, out, threads);
    benchmark::DoNotOptimize(out.positions.x.data());
    benchmark::ClobberMemory();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double vertices = double(in.vertex_count) * double(state.iterations());
  const double bytes = vertices * bytes_per_vertex(in);
  state.counters["vertices/s"] = benchmark::Counter(vertices, benchmark::Counter::kIsRate);
  state.counters["bytes/s"] = benchmark::Counter(bytes, benchmark::Counter::kIsRate);
  state.counters["threads"] = threads;
  // The rate counters are divided by the elapsed time only when reported; the fraction needs it now.
  if (seconds > 0.0) state.counters["fraction_of_copy"] = bytes / seconds / copy_bytes_per_second(threads);
  state.SetLabel(cpu::cpu_kernel_name(SkinningKernel::Auto));
}

// 0 threads: all hardware threads.
BENCHMARK(BM_MemoryCopy)->ArgName("threads")->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CpuSkin)
    ->ArgNames({"dqs", "threads"})
    ->Args({0, 1})
    ->Args({0, 0})
    ->Args({1, 1})
    ->Args({1, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace skinref
