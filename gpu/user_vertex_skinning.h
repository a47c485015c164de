// A user's skinning vertex shader (gpu/user_vertex_shader.h) run on skinref's scenes, its outputs captured by
// transform feedback: the shader as written, with skinref's data in the layouts its interface describes.
//
// Contract:
// - Needs VK_EXT_transform_feedback (Context::transform_feedback_supported(); lavapipe and the usual GPUs offer
//   it); without it the constructor throws GpuError saying so.
// - Per drawn primitive with vertices: its vertex buffers hold the bind attributes after morph targets (the
//   reference's apply_morph_targets(), rounded to float32, as the compute path's), the influences (joints in the
//   input's integer format, the `sentinel` in a slot of weight 0 where the interface gives one, else joint 0;
//   weights as float32 or rounded to the normalized format), padded to the interface's influence count; its
//   blocks hold the skin's palette from the reference pose rounded to float32 in the declared layout (a rigid
//   node: one entry, its global matrix, joint 0 weight 1) and identity matrices where the interface says, zero
//   elsewhere. A palette longer than the block holds, or joints the input format cannot hold, is an InputError.
// - dispatch() draws each primitive as its own submission: a graphics pipeline of the vertex stage alone with
//   rasterizer discard, TRIANGLE_LIST of the vertex count rounded up to a multiple of 3 (the buffers padded),
//   transform feedback capturing buffer 0 (gpu/user_vertex_shader.h's layout). read_back() gives the captured
//   position's xyz and the normal's xyz normalized (a zero normal stays zero), in evaluate_vertices() order;
//   std::logic_error before the first dispatch.
// - Validation and device choice are the Context's: the vulkan backend's finish() fails on any message.
#pragma once

#include "gpu/context.h"
#include "gpu/user_vertex_shader.h"
#include "skin/evaluate_vertices.h"

#include <memory>
#include <vector>

namespace skinref::gpu {

// The VkFormat of a vertex format (gpu/vertex_format.h), e.g. VK_FORMAT_R16G16_SNORM.
VkFormat vulkan_vertex_format(VertexFormat format);

class UserVertexSkinning {
 public:
  UserVertexSkinning(Context& context, const UserVertexShader& shader, const Scene& scene, const EvaluatedPose& pose,
                     const SkinningOptions& options);
  ~UserVertexSkinning();
  UserVertexSkinning(const UserVertexSkinning&) = delete;
  UserVertexSkinning& operator=(const UserVertexSkinning&) = delete;

  void dispatch();
  double device_ms() const;   // timestamps around each draw, summed over the last dispatch; 0 without timestamps
  double prepare_ms() const;  // conversion, buffers and upload; pipeline creation left out
  std::vector<WorldPrimitive> read_back() const;
  double traffic_bytes() const;  // bytes of the buffers one dispatch reads and writes

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace skinref::gpu
