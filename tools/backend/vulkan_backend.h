// The vulkan backend over a context the caller already has (the benchmarks share one context between their
// buffer-copy measurement and this backend). make_backend() (backend.h) is the usual way in; it owns its
// context. Only in builds with the Vulkan path (SKINREF_HAVE_VULKAN).
//
// Its skinning job's traffic model (gpu/shaders/skin.comp): per vertex a vec4 in and a vec4 out for the
// position and for each of the normal and the tangent it has, and per influence of a skinned node a uint
// joint and a float weight; the palette (cache-resident) and morph deltas are not counted. The job's
// device_seconds() is the timestamp interval around its skinning dispatches.
#pragma once

#include "backend/backend.h"

#include "gpu/context.h"

#include <string>

namespace skinref {

// `context` must outlive the backend.
std::unique_ptr<Backend> make_vulkan_backend(gpu::Context& context, bool gpu_pose);
// The same with the user's shader (compute or vertex, as its interface says) in place of skin.comp; the
// shader is read and checked first (InputError). Its job's busy_pass_seconds() is the mean of the timestamps
// around each pass's dispatches or draws.
std::unique_ptr<Backend> make_vulkan_backend(gpu::Context& context, bool gpu_pose, const std::string& shader,
                                             const std::string& interface);

}  // namespace skinref
