// A user's skinning compute shader (gpu/user_shader.h) run on the scenes skinref runs its own skin.comp on:
// the same inputs in the layouts the user's interface describes, its outputs read back as skinref's.
//
// Contract:
// - The host prepares, per drawn primitive with vertices, one host-visible buffer per binding of the
//   interface: the bind attributes after morph targets (the reference's morph stage, apply_morph_targets(),
//   rounded to float32: the shader skins, it does not morph), the influences (joints and float32 weights,
//   padded with joint 0 and weight 0 up to the interface's count), the skin's palette from the reference's
//   pose rounded to float32 (matrices in the declared order, or the rigid part of split_dqs_joint() as dual
//   quaternions), and the skinned mesh node's global matrix. A rigid (non-skinned) node is one palette entry,
//   its global matrix, with joint 0 and weight 1, as the reference skins it.
// - A primitive with more influences per vertex than the interface reads is an InputError naming the node and
//   the convention that limits them at load (influences=topK-renormalized); a method other than the
//   interface's is an InputError naming both.
// - dispatch() runs each primitive as its own submission: the descriptor set written with its buffers, its
//   push constants, ceil(vertex_count / local size x) groups; more groups than the device allows in x is an
//   InputError. Output buffers start zeroed. read_back() converts each primitive's skinned position (and the
//   normal and tangent, when the primitive has them and the interface writes them) into WorldPrimitive, in
//   evaluate_vertices() order; std::logic_error before the first dispatch.
// - Validation, device choice and timing are the Context's (gpu/context.h): the vulkan backend's finish()
//   turns any validation message into a failure.
#pragma once

#include "gpu/context.h"
#include "gpu/user_shader.h"
#include "skin/evaluate_vertices.h"

#include <memory>
#include <vector>

namespace skinref::gpu {

class UserShaderSkinning {
 public:
  // `shader` is copied into the pipeline; the scene and pose are read by the constructor only.
  UserShaderSkinning(Context& context, const UserShader& shader, const Scene& scene, const EvaluatedPose& pose,
                     const SkinningOptions& options);
  ~UserShaderSkinning();
  UserShaderSkinning(const UserShaderSkinning&) = delete;
  UserShaderSkinning& operator=(const UserShaderSkinning&) = delete;

  void dispatch();
  double device_ms() const;   // the sum over the last dispatch's primitives; 0 without timestamps
  double prepare_ms() const;  // conversion, buffers and upload; pipeline creation left out
  std::vector<WorldPrimitive> read_back() const;
  // Bytes the buffers of one dispatch hold (inputs read, outputs written): the job's traffic model.
  double traffic_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace skinref::gpu
