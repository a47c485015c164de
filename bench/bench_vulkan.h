// The Vulkan side of the benchmarks (compiled only with the Vulkan path, SKINREF_HAVE_VULKAN).
//
// Contract:
// - One Vulkan context for the process, created on first use, without validation (the layer costs time per
//   call) unless SKINREF_BENCH_VALIDATE=1 (ctest's bench_smoke sets it, so that the bench's own Vulkan code,
//   the copies and busy passes included, runs under the layer too). SKINREF_BENCH_DEVICE selects the device as
//   ContextOptions::device does (index or name substring). A case whose context cannot be created, or whose
//   device has no timestamp queries, is skipped with the reason.
// - BM_Copy/vulkan: one vkCmdCopyBuffer between two device-local buffers (1 GiB, less where an eighth of the
//   largest device-local heap or maxMemoryAllocationSize is smaller: 256 MiB on lavapipe's 2 GiB heap), timed
//   by timestamp queries around the copy; bytes/s counts the read and the write. The highest value measured
//   in this process is what vulkan cases are compared with (measured once, best of five, when BM_Copy/vulkan
//   was filtered out).
// - run_vulkan_skinning(): run_backend_skinning() (bench_common.h) on the vulkan backend over this context
//   (tools/backend/vulkan_backend.h), with PassTime::Device (timestamps around the skinning dispatches of a
//   run) or PassTime::EndToEnd (Backend::vertices(): float32 conversion, buffer creation, upload, dispatch,
//   readback and conversion back). The traffic model is the backend's (skin.comp: vec4 position and normal
//   in and out, a uint joint and a float weight per influence: 64 + 8 K bytes per vertex). A case whose
//   largest storage array (16 bytes per vertex, or 4 K bytes per vertex for joints and weights) exceeds the
//   device's maxStorageBufferRange is skipped naming both (lavapipe: 128 MiB, so 16M vertices run only on a
//   GPU; the device is in the run's context).
// - bench_vulkan_backend(): that backend (for BM_Render's vulkan cases: Backend::render(), end to end), and
//   the device in `device`; null, with the case skipped, when there is no context.
// - vulkan_device_description(): "NAME [TYPE], driver DRIVER, Vulkan X.Y.Z" of the context, or
//   "unavailable: REASON"; for the run's JSON context.
#pragma once

#include "backend/backend.h"
#include "skin/method.h"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>
#include <vector>

namespace skinref::bench {

void register_vulkan_copy_benchmark();

// The user's shader that BM_Skin/user_shader_device runs (skinref_bench --shader FILE --interface FILE.json),
// compute or vertex, over the same context as skin.comp and the copy: its job's traffic model is its buffers'
// bytes (inputs read, outputs written, the palette block whole), its time the timestamps around each pass's
// dispatches or draws (one submission per pass, read back: not back to back as skin.comp's busy passes).
struct UserShaderFiles {
  std::string shader, interface;
};
void set_user_shader(const UserShaderFiles& files);
const UserShaderFiles& user_shader();
void run_user_shader_skinning(benchmark::State& state, size_t vertices, int influences);

void run_vulkan_skinning(benchmark::State& state, size_t vertices, int influences, SkinningMethod method,
                         bool end_to_end);

Backend* bench_vulkan_backend(benchmark::State& state, std::string* device);

std::string vulkan_device_description();

// Destroys the process's Vulkan backend and context, if they were made; false (the messages printed on
// stderr) when the validation layer was on and reported any warning or error during the run. main() calls it
// after the last case and after releasing every job of that context (SkinningBenchFixture::release()), so
// that no Vulkan object outlives main(). Left to a function-local static's destructor, the teardown ran
// during exit(), after the destructors that the Vulkan driver registered when the loader opened it (they run
// in reverse order of registration, and the driver is opened after the static was constructed): the likely
// cause of the segmentation fault that ended every bench run on an NVIDIA H200 (driver 580.159.04), after
// its JSON was written.
bool release_vulkan_context();

}  // namespace skinref::bench
