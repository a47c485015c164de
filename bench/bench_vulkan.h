// The Vulkan side of the benchmarks (compiled only with the Vulkan path, SKINREF_HAVE_VULKAN).
//
// Contract:
// - One Vulkan context for the process, created on first use, without validation (the layer costs time per
//   call; tests/gpu_*_test.cc run the same code with it). SKINREF_BENCH_DEVICE selects the device as
//   ContextOptions::device does (index or name substring). A case whose context cannot be created, or whose
//   device has no timestamp queries, is skipped with the reason.
// - BM_Copy/vulkan: one vkCmdCopyBuffer between two device-local buffers (1 GiB, less where an eighth of the
//   largest device-local heap or maxMemoryAllocationSize is smaller: 256 MiB on lavapipe's 2 GiB heap), timed
//   by timestamp queries around the copy; bytes/s counts the read and the write. The highest value measured
//   in this process is what vulkan cases are compared with (measured once, best of five, when BM_Copy/vulkan
//   was filtered out).
// - run_vulkan_skinning(): gpu_evaluate_vertices() on the skinning bench scene (bench_scenes.h). Device time
//   (GpuTiming::device_ms: timestamps around the skinning dispatches) or end to end (GpuTiming::end_to_end_ms:
//   float32 conversion, buffer creation, upload, dispatch, readback and conversion back; pipeline creation
//   excluded) is the case's manual time. Bytes per vertex (skin.comp's traffic): vec4 position and normal in,
//   a uint joint and a float weight per influence, vec4 position and normal out, i.e. 64 + 8 K bytes; the
//   palette (64 joints, cache-resident) is not counted. A case whose largest storage array (16 bytes per
//   vertex, or 4 K bytes per vertex for joints and weights) exceeds the device's maxStorageBufferRange is
//   skipped naming both (lavapipe: 128 MiB, so 16M vertices run only on a GPU; the device is in the run's
//   context).
// - run_vulkan_render(): gpu_render() per iteration, wall-clock, end to end (vertex upload, pipelines,
//   draw, readback of the image); items/s = frames/s; `label` and the device make the case's label.
// - vulkan_device_description(): "NAME [TYPE], driver DRIVER, Vulkan X.Y.Z" of the context, or
//   "unavailable: REASON"; for the run's JSON context.
#pragma once

#include "core/pose.h"
#include "core/vertices.h"
#include "raster/render.h"
#include "skin/lbs.h"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>
#include <vector>

namespace skinref::bench {

void register_vulkan_copy_benchmark();

void run_vulkan_skinning(benchmark::State& state, size_t vertices, int influences, SkinningMethod method,
                         bool end_to_end);

void run_vulkan_render(benchmark::State& state, const Scene& scene, const EvaluatedPose& pose,
                       const std::vector<WorldPrimitive>& primitives, const RenderCamera& camera,
                       const RenderOptions& options, const std::string& label);

std::string vulkan_device_description();

}  // namespace skinref::bench
