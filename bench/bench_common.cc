#include "bench/bench_common.h"

#include "core/worker_pool.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace skinref::bench {
namespace {

constexpr size_t kCopyFloats = size_t(64) << 20;  // 256 MiB
constexpr double kCopyBytes = 2.0 * double(kCopyFloats * sizeof(float));  // read + write

struct CopyBuffers {
  std::vector<float> source = std::vector<float>(kCopyFloats, 1.0f);
  std::vector<float> target = std::vector<float>(kCopyFloats, 0.0f);
};

// Allocated (and touched) on first use only, so that runs filtered to other benchmarks do not pay for it.
CopyBuffers& copy_buffers() {
  static CopyBuffers buffers;
  return buffers;
}

// Copies floats [begin, end) (multiples of 4; both buffers 16-byte aligned): with streaming stores, which do
// not read the lines they write, or with std::memcpy (normal stores below glibc's non-temporal threshold).
void copy_floats(const float* source, float* target, size_t begin, size_t end, bool streaming) {
#if defined(__SSE2__)
  if (streaming) {
    for (size_t i = begin; i < end; i += 4) _mm_stream_ps(target + i, _mm_load_ps(source + i));
    _mm_sfence();
    return;
  }
#endif
  std::memcpy(target + begin, source + begin, (end - begin) * sizeof(float));
}

// T equal ranges (whole cache lines), one per thread, on the worker threads skin_cpu uses.
void threaded_copy(CopyBuffers& b, int threads, bool streaming) {
  const size_t chunk = ((kCopyFloats + size_t(threads) - 1) / size_t(threads) + 15) / 16 * 16;
  auto copy_range = [&](size_t t) {
    const size_t begin = std::min(kCopyFloats, t * chunk), end = std::min(kCopyFloats, begin + chunk);
    copy_floats(b.source.data(), b.target.data(), begin, end, streaming);
  };
  using CopyRange = decltype(copy_range);
  detail::run_on_workers(
      size_t(threads), [](void* context, size_t t) { (*static_cast<CopyRange*>(context))(t); }, &copy_range);
}

// The best copy bytes/s seen in this process, per thread count.
std::map<int, double>& best_copy() {
  static std::map<int, double> best;
  return best;
}

// Each iteration copies once with each kind of store and reports the faster copy's time: the limit is what
// the better of the two reaches on this machine (one thread: often the normal stores; several: streaming).
void run_cpu_copy(benchmark::State& state, int threads) {
  CopyBuffers& buffers = copy_buffers();
  double kind_seconds[2] = {0.0, 0.0};  // memcpy, streaming
  double seconds = 0.0;
  for (auto _ : state) {
    double fastest = 0.0;
    for (const bool streaming : {false, true}) {
      const auto start = std::chrono::steady_clock::now();
      threaded_copy(buffers, threads, streaming);
      benchmark::ClobberMemory();
      const double elapsed = seconds_since(start);
      kind_seconds[streaming ? 1 : 0] += elapsed;
      fastest = streaming ? std::min(fastest, elapsed) : elapsed;
    }
    state.SetIterationTime(fastest);
    seconds += fastest;
  }
  if (seconds <= 0.0 || kind_seconds[0] <= 0.0 || kind_seconds[1] <= 0.0) {
    state.SkipWithError("the copies took no measurable time");
    return;
  }
  const double iterations = double(state.iterations());
  const double bytes_per_second = kCopyBytes * iterations / seconds;
  state.counters["bytes/s"] = bytes_per_second;
  state.counters["memcpy_bytes/s"] = kCopyBytes * iterations / kind_seconds[0];
  state.counters["streaming_bytes/s"] = kCopyBytes * iterations / kind_seconds[1];
  state.counters["threads"] = threads;
  state.SetLabel("copy of 256 MiB, read + write, the faster of memcpy and streaming stores, threads=" +
                 std::to_string(threads));
  double& best = best_copy()[threads];
  best = std::max(best, bytes_per_second);
}

}  // namespace

int all_threads() { return int(std::max(1u, std::thread::hardware_concurrency())); }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int warm_up_busy_passes(const std::function<double(int passes)>& per_pass_seconds) {
  const auto start = std::chrono::steady_clock::now();
  int passes = 1;
  do {
    const double per_pass = per_pass_seconds(passes);
    if (!(per_pass > 0.0)) return 0;
    passes = int(std::clamp(std::ceil(kDeviceBatchSeconds / per_pass), 1.0, double(kMaxBusyPasses)));
  } while (seconds_since(start) < kDeviceWarmUpSeconds);
  return passes;
}

namespace {

// The best of BM_Copy/cpu_T's runs, or of five copies of each kind when none ran.
double measured_copy(int threads) {
  double& best = best_copy()[threads];
  if (best == 0.0) {
    for (int run = 0; run < 5; ++run)
      for (const bool streaming : {false, true}) {
        const auto start = std::chrono::steady_clock::now();
        threaded_copy(copy_buffers(), threads, streaming);
        const double seconds = seconds_since(start);
        if (seconds > 0.0) best = std::max(best, kCopyBytes / seconds);
      }
  }
  return best;
}

}  // namespace

double cpu_copy_bytes_per_second(int threads) {
  // T threads can always move at least what one of them moves alone; on a shared machine the T-thread copy
  // can come out slower (a thread waits for its busy core), and the limit is then the one-thread figure.
  return threads > 1 ? std::max(measured_copy(threads), measured_copy(1)) : measured_copy(1);
}

void register_cpu_copy_benchmarks() {
  benchmark::RegisterBenchmark("BM_Copy/cpu_1t", [](benchmark::State& state) { run_cpu_copy(state, 1); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_Copy/cpu_all",
                               [](benchmark::State& state) { run_cpu_copy(state, all_threads()); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

void set_skinning_counters(benchmark::State& state, double vertices_per_pass, double bytes_per_pass, double seconds,
                           double copy_bytes_per_second) {
  const double passes = double(state.iterations());
  const double bytes_per_second = bytes_per_pass * passes / seconds;
  state.counters["vertices/s"] = vertices_per_pass * passes / seconds;
  state.counters["bytes/s"] = bytes_per_second;
  state.counters["copy_bytes/s"] = copy_bytes_per_second;
  state.counters["fraction_of_bandwidth"] =
      copy_bytes_per_second > 0.0 ? bytes_per_second / copy_bytes_per_second : 0.0;
}


}  // namespace skinref::bench
