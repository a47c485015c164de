// skinref_bench: every benchmark of bench/ in one program (Google Benchmark's command line). Registration is
// explicit, in one order: copy bandwidths first (the skinning cases compare with them), then skinning,
// animation and rendering. The run's JSON context gets the source revision, the kernels this CPU uses, and the
// Vulkan device (or why there is none), which tools/bench_table.cc prints with the machine.
#include "bench/bench_common.h"
#include "bench/bench_scenes.h"
#include "anim/evaluate_pose.h"
#include "cpu/kernel_choice.h"
#include "cpu/skinning_cpu.h"
#include "skin/lbs.h"
#if SKINREF_HAVE_VULKAN
#include "bench/bench_vulkan.h"
#endif

#include <benchmark/benchmark.h>
#include <sys/utsname.h>

#include "skinref_source_revision.h"  // generated at build time (cmake/source_revision.cmake)

#include <cstdio>
#include <fstream>
#include <string>

namespace {

// The CPU's model name (/proc/cpuinfo) and the operating system's kernel: figures from different machines
// must never be read as one series, and Google Benchmark's context names neither.
std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model, family, model_number;
  const auto value = [&line]() {
    const size_t colon = line.find(':');
    const size_t start = colon == std::string::npos ? colon : line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  };
  while (std::getline(cpuinfo, line) && !line.empty()) {  // the first processor's block
    if (line.rfind("model name", 0) == 0) model = value();
    else if (line.rfind("cpu family", 0) == 0) family = value();
    else if (line.rfind("model", 0) == 0 && line.find(':') != std::string::npos) model_number = value();
  }
  if (model.empty()) model = "unknown (no model name in /proc/cpuinfo)";
  // A virtual machine often shows a generic name ("AMD EPYC"): the family and model tell the core apart.
  if (!family.empty()) model += " (family " + family + ", model " + model_number + ")";
  return model;
}

std::string os_kernel() {
  utsname name{};
  if (uname(&name) != 0) return "unknown";
  return std::string(name.sysname) + " " + name.release + " " + name.machine;
}

// The CPU backend measures its kernel on its first job (cpu/kernel_choice.h): one small job of the skinning
// scene (4 influences, LBS) makes that choice before the context below names it and the benchmarks run.
void measure_cpu_kernel() {
  using namespace skinref;
  const Scene scene = bench::make_skinning_bench_scene(4 * cpu::kTrialVertices, 4);
  const EvaluatedPose pose = evaluate_pose(scene, scene.animations.empty() ? -1 : 0, bench::kSkinningBenchTime);
  cpu::cpu_evaluate_vertices(scene, pose, SkinningOptions{});
}

}  // namespace

// skinref's own options, taken out of argv before Google Benchmark reads it: --shader FILE --interface FILE.json
// (or --shader=FILE --interface=FILE) add BM_Skin/user_shader_device, the user's shader beside skin.comp.
// Returns false, with a message, on a missing value or one option without the other.
static bool take_user_shader_options(int& argc, char** argv) {
  std::string shader, interface;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string* target = arg.rfind("--shader", 0) == 0      ? &shader
                          : arg.rfind("--interface", 0) == 0 ? &interface
                                                             : nullptr;
    if (target == nullptr) {
      argv[kept++] = argv[i];
      continue;
    }
    const size_t equals = arg.find('=');
    if (equals != std::string::npos) {
      *target = arg.substr(equals + 1);
    } else if (i + 1 < argc) {
      *target = argv[++i];
    } else {
      std::fprintf(stderr, "skinref_bench: %s needs a file\n", arg.c_str());
      return false;
    }
  }
  argc = kept;
  if (shader.empty() != interface.empty()) {
    std::fprintf(stderr, "skinref_bench: --shader and --interface go together\n");
    return false;
  }
#if SKINREF_HAVE_VULKAN
  skinref::bench::set_user_shader({shader, interface});
#else
  if (!shader.empty()) {
    std::fprintf(stderr, "skinref_bench: --shader needs the Vulkan path, which this build lacks\n");
    return false;
  }
#endif
  return true;
}

int main(int argc, char** argv) {
  using namespace skinref;
  if (!take_user_shader_options(argc, argv)) return 2;
  bench::register_cpu_copy_benchmarks();
#if SKINREF_HAVE_VULKAN
  bench::register_vulkan_copy_benchmark();
#endif
  bench::register_skinning_benchmarks();
  bench::register_kernel_study_benchmarks();
  bench::register_animation_benchmarks();
  bench::register_render_benchmarks();

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::AddCustomContext("skinref_source", SKINREF_SOURCE_REVISION);
  benchmark::AddCustomContext("skinref_cpu_model", cpu_model_name());
  benchmark::AddCustomContext("skinref_os_kernel", os_kernel());
  benchmark::AddCustomContext("skinref_reference_kernel", skinning_kernel_name(SkinningKernel::Auto));
  measure_cpu_kernel();
  benchmark::AddCustomContext("skinref_cpu_kernel", cpu::cpu_kernel_name(SkinningKernel::Auto));
  // How the kernel above was chosen, so that a reader knows what the figures are of.
  benchmark::AddCustomContext("skinref_kernel_choice",
                              cpu::kernel_choice_description() +
                                  "; BM_SkinKernel in the same run measures each kernel (the table's CPU kernel study)");
  benchmark::AddCustomContext("skinref_dqs_schedule",
                              std::string(cpu::dqs_schedule_name(cpu::DqsSchedule::Auto)) +
                                  " (AVX-512 DQS blocks: pipelined on AMD CPUs, in order on the others, each as "
                                  "measured on that vendor; BM_SkinKernel/avx512/per_vertex/dqs/* measures the "
                                  "other schedule beside it)");
  benchmark::AddCustomContext("skinref_all_threads", std::to_string(bench::all_threads()));
#if SKINREF_HAVE_VULKAN
  benchmark::AddCustomContext("skinref_vulkan_device", bench::vulkan_device_description());
#else
  benchmark::AddCustomContext("skinref_vulkan_device", "unavailable: the Vulkan path was not built");
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  bench::skinning_bench_fixture().release();
#if SKINREF_HAVE_VULKAN
  if (!bench::release_vulkan_context()) return 1;  // a validation message (SKINREF_BENCH_VALIDATE=1)
#endif
  return 0;
}
