// libFuzzer target `assimp`: the Assimp import (io/assimp_import.h load_assimp_file) exactly as the CLI runs
// it for a model that is not .gltf/.glb.
//
// Contract: the bytes are written to a per-process temp file whose extension follows the content (.dae when
// "COLLADA" appears in the first 4 KiB, else .fbx: Assimp picks its importer by extension, then signature),
// and load_assimp_file() imports it with the default limits; a scene that comes back (through the glTF
// loader's checks) is posed at time 0 of its first animation (or the rest pose) and skinned with LBS.
// Bound on work per input: one import (its child is limited by the product itself: assimp_import_limits(),
// 4 s of CPU and 256 MiB plus 256 bytes per input byte of address space beyond what it has mapped at the
// fork, 90 s wall; libFuzzer's -timeout=10 flags anything over 10 s) and one pose and skinning pass.
//
// Why the real path (fork per input) and not scene_from_assimp() in process: load_assimp_file() runs Assimp
// in a forked child under limits because Debian's Assimp crashes and hangs on malformed files; a crash there
// is contained and reported as InputError (exit 2), which is the product's behaviour, and an in-process
// target would report Assimp's own crashes (not skinref's to fix) as findings and stop on the first. The
// price: the translation (Translator in assimp_translate.cc) runs in the child, whose coverage libFuzzer does
// not see, and a sanitizer report there ends the child (reported as a failed import), not the run; what
// libFuzzer does see and check is the parent: the pipe protocol, the limits, the glTF load of the result and
// the evaluation. Measured on this project's 2-core machines, on inputs of at most 64 bytes: 33 executions/s
// once (300 in 9 s), 330/s on 2026-11-27 (2,000 in 6.3 s, an Intel Xeon VM; three quarters of the time in the
// kernel: the fork's page-table copy, copy-on-write faults, the child's teardown); 9 to 17 executions/s
// from the corpus's 14 to 500 KB files, 110 to 210/s with run_fuzz.sh's -max_len 8192 and the small seeds
// (tests/fuzz/seeds/assimp/skinned-triangle.*); the other targets run at hundreds to thousands.
// In the child, this harness puts the deadly signals back to their defaults and removes the sanitizers'
// death callback (pthread_atfork), so that a crash contained there ends the child as it would in the CLI
// instead of running libFuzzer's crash handler, which would write a crash- file for a contained crash.
// Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "anim/evaluate_pose.h"
#include "io/assimp_import.h"
#include "skin/evaluate_vertices.h"

#include <csignal>
#include <cstring>
#include <pthread.h>
#include <string>

// The sanitizers' hook (sanitizer/common_interface_defs.h), weak: absent from the release replay build.
extern "C" __attribute__((weak)) void __sanitizer_set_death_callback(void (*callback)(void));

namespace {

void in_child() {
  for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(signal, SIG_DFL);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(nullptr);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  static const int registered = pthread_atfork(nullptr, nullptr, in_child);
  (void)registered;
  static fuzz::TempFile fbx("assimp", ".fbx");
  static fuzz::TempFile dae("assimp", ".dae");
  const size_t head = size < 4096 ? size : 4096;
  const bool collada = memmem(data, head, "COLLADA", 7) != nullptr;
  fuzz::TempFile& file = collada ? dae : fbx;
  fuzz::run_guarded([&] {
    const Scene scene = load_assimp_file(file.write(data, size));
    const EvaluatedPose pose = evaluate_pose(scene, scene.animations.empty() ? -1 : 0, 0.0);
    evaluate_vertices(scene, pose, SkinningOptions{});
  });
  return 0;
}
