// What every benchmark file shares: thread counts, the CPU's measured copy bandwidth, and the counters every
// skinning case reports.
//
// Contract:
// - Benchmark names (bench_table reads them; tools/bench_table.cc):
//     BM_Copy/<cpu_1t|cpu_all|vulkan>                                     copy bandwidth, counter bytes/s
//     BM_Skin/<backend>/<lbs|dqs>/vertices:<N>/influences:<K>             backend: reference, cpu_1t, cpu_all,
//                                                                        vulkan_device, vulkan_e2e
//     BM_SkinKernel/<kernel>/<per_vertex|gathers>/<lbs|dqs>/<normals|positions>  the CPU kernel study
//     BM_Animation/joints:<N>                                             items/s = poses/s
//     BM_Render/<model>/<W>x<H>/<reference_1t|reference_all|vulkan>      items/s = frames/s
//   Google Benchmark appends "/manual_time", "/real_time", "/iterations:N" or "/min_time:S" to some of them.
// - BM_Copy/cpu_T: a STREAM-like copy of 256 MiB of floats into another 256 MiB buffer, T equal ranges, one
//   per thread on the worker threads skin_cpu uses, each iteration once with std::memcpy and once with
//   streaming (non-temporal) stores, the faster of the two timed (counters memcpy_bytes/s and
//   streaming_bytes/s give both); bytes/s counts the read and the write (2 x 256 MiB). With streaming stores
//   those are the bytes moved; a normal store (glibc's memcpy below 3/4 of the last-level cache) first reads
//   each line it writes, a third more traffic than counted, yet one thread often copies faster that way. cpu_copy_bytes_per_second(T), the limit a T-thread case is compared with,
//   is the highest value measured in this process with T threads or with one (T threads can always do what
//   one does; on a shared machine the T-thread copy can come out slower); for a thread count no
//   BM_Copy/cpu_T measured (filtered out), the best of five copies, measured once.
// - set_skinning_counters(): vertices/s, bytes/s (bytes_per_pass from the backend's traffic model),
//   copy_bytes/s (the bandwidth the case is compared with) and fraction_of_bandwidth = bytes/s / copy_bytes/s,
//   all over `seconds`, the time the case reports (its manual time), so the counters agree with the
//   reported time whatever Google Benchmark's rate conventions.
#pragma once

#include "backend/backend.h"
#include "skin/method.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <functional>
#include <string>

namespace skinref::bench {

int all_threads();  // std::thread::hardware_concurrency(), at least 1

double cpu_copy_bytes_per_second(int threads);
void register_cpu_copy_benchmarks();  // BM_Copy/cpu_1t, BM_Copy/cpu_all

void set_skinning_counters(benchmark::State& state, double vertices_per_pass, double bytes_per_pass,
                           double seconds, double copy_bytes_per_second);

// Registration, in the order main() runs them (bench_main.cc): copies first, so that the skinning cases'
// fractions use their measurements.
void register_skinning_benchmarks();   // bench_skinning.cc
void register_kernel_study_benchmarks();  // bench_kernels.cc
void register_animation_benchmarks();  // bench_animation.cc
void register_render_benchmarks();     // bench_render.cc

// What a BM_Skin case's manual time is: the wall-clock time of a run (CPU backends), the device time per
// pass with the device kept busy (SkinningJob::busy_pass_seconds(), warm_up_busy_passes()), or end to end: a
// fresh job's preparation (conversion, buffers, upload; SkinningJob::prepare_seconds(), pipeline creation left
// out), its run and its read back.
enum class PassTime { Wall, Device, EndToEnd };

// One BM_Skin case (bench_skinning.cc): the fixture's job of `backend` on the skinning scene (vertices,
// influences) with `method`, set to `threads`, run once untimed (outputs sized, pipelines created), then
// timed per iteration as `pass_time` says; counters from set_skinning_counters() with the job's traffic
// model; the label is `label`, or the job's own when empty. Errors skip the case with their message.
void run_backend_skinning(benchmark::State& state, Backend& backend, int threads, size_t vertices, int influences,
                          SkinningMethod method, PassTime pass_time, double copy_bytes_per_second,
                          const std::string& label);

double seconds_since(std::chrono::steady_clock::time_point start);

// GPU work is timed with the device kept busy, as in an engine's frame. A lone pass after an upload, a
// read-back or host work can run at the idle clock (an H200 idles its SMs at 345 MHz against 1980 under
// load; the first H200 run, of lone passes, read LBS with 2 to 8 influences 4.5 to 5.7 times too slow). So passes
// run back to back for kDeviceWarmUpSeconds of wall time, in batches grown to kDeviceBatchSeconds of device
// time; a timed iteration is then one such batch, and its time per pass.
constexpr double kDeviceWarmUpSeconds = 0.5;
constexpr double kDeviceBatchSeconds = 0.02;
constexpr int kMaxBusyPasses = 10'000;

// Warms up with per_pass_seconds(passes) (a batch of `passes` back-to-back passes, its device time per pass)
// and returns the passes of a batch of about kDeviceBatchSeconds; 0 if the device measured no time.
int warm_up_busy_passes(const std::function<double(int passes)>& per_pass_seconds);

// Runs pass() once per benchmark iteration, each iteration's manual time its wall-clock time (so that work on
// other threads counts); returns the total. No measurable time: SkipWithError and 0.
template <class Pass>
double run_timed_passes(benchmark::State& state, Pass&& pass) {
  double seconds = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    pass();
    benchmark::ClobberMemory();
    const double elapsed = seconds_since(start);
    state.SetIterationTime(elapsed);
    seconds += elapsed;
  }
  if (seconds <= 0.0) state.SkipWithError("no measurable time");
  return seconds;
}

}  // namespace skinref::bench
