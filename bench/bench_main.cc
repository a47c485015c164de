// skinref_bench: every benchmark of bench/ in one program (Google Benchmark's command line). Registration is
// explicit, in one order: copy bandwidths first (the skinning cases compare with them), then skinning,
// animation and rendering. The run's JSON context gets the kernels this CPU uses, and the Vulkan device (or
// why there is none), which tools/bench_table.cc prints with the machine.
#include "bench/bench_common.h"
#include "cpu/skinning_cpu.h"
#include "skin/lbs.h"
#if SKINREF_HAVE_VULKAN
#include "bench/bench_vulkan.h"
#endif

#include <benchmark/benchmark.h>

#include <string>

int main(int argc, char** argv) {
  using namespace skinref;
  bench::register_cpu_copy_benchmarks();
#if SKINREF_HAVE_VULKAN
  bench::register_vulkan_copy_benchmark();
#endif
  bench::register_skinning_benchmarks();
  bench::register_animation_benchmarks();
  bench::register_render_benchmarks();

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::AddCustomContext("skinref_reference_kernel", skinning_kernel_name(SkinningKernel::Auto));
  benchmark::AddCustomContext("skinref_cpu_kernel", cpu::cpu_kernel_name(SkinningKernel::Auto));
  benchmark::AddCustomContext("skinref_all_threads", std::to_string(bench::all_threads()));
#if SKINREF_HAVE_VULKAN
  benchmark::AddCustomContext("skinref_vulkan_device", bench::vulkan_device_description());
#else
  benchmark::AddCustomContext("skinref_vulkan_device", "unavailable: the Vulkan path was not built");
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
