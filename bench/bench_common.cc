#include "bench_common.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

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

void run_cpu_copy(benchmark::State& state, int threads) {
  CopyBuffers& buffers = copy_buffers();
  const double seconds = run_timed_passes(state, [&] { threaded_copy(buffers, threads); });
  if (seconds <= 0.0) return;
  const double bytes_per_second = kCopyBytes * double(state.iterations()) / seconds;
  state.counters["bytes/s"] = bytes_per_second;
  state.counters["threads"] = threads;
  state.SetLabel("memcpy of 256 MiB, read + write, threads=" + std::to_string(threads));
  double& best = best_copy()[threads];
  best = std::max(best, bytes_per_second);
}

}  // namespace

int all_threads() { return int(std::max(1u, std::thread::hardware_concurrency())); }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

namespace {

// The best of BM_Copy/cpu_T's runs, or of five copies when none ran.
double measured_copy(int threads) {
  double& best = best_copy()[threads];
  if (best == 0.0) {
    for (int run = 0; run < 5; ++run) {
      const auto start = std::chrono::steady_clock::now();
      threaded_copy(copy_buffers(), threads);
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
  state.counters["fraction_of_bandwidth"] = copy_bytes_per_second > 0.0 ? bytes_per_second / copy_bytes_per_second : 0.0;
}

const char* method_name(bool dqs) { return dqs ? "dqs" : "lbs"; }

}  // namespace skinref::bench
