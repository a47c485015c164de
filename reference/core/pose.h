// Pose values passed between stages: what the animation stages produce and the skinning stages, the dumps,
// the bounds and every backend consume.
//
// Contract:
// - LocalPose: one Transform per scene node (parent-relative TRS) and the morph weights per node (empty for
//   nodes without a mesh with targets). Produced by rest_pose() and sample_animation() (anim/sampling.h).
// - ModelPose: one 4x4 per node, the node's global (world) transform G = G(parent) * L; produced by
//   local_to_model() (anim/local_to_model.h).
// - JointPalette: per joint of one skin, JM_i = G(joint_i) * IBM_i and its normal matrix; produced by
//   compute_palette() (anim/palette.h), which states the glTF rule.
// - EvaluatedPose: all three for one clip (or -1, the rest pose) at one time, palettes per skin, and the clip
//   time that time mapped to, when known.
#pragma once

#include "core/scene.h"

#include <limits>

#include <vector>

namespace skinref {

struct LocalPose {
  std::vector<Transform> local;                     // per node
  std::vector<std::vector<double>> morph_weights;   // per node; size = the node's mesh target count
};

struct ModelPose {
  std::vector<Mat4> global;  // per node
};

struct JointPalette {
  std::vector<Mat4> skinning;   // JM_i
  std::vector<Mat3> normal;     // per joint normal matrix
};

struct EvaluatedPose {
  int animation = -1;
  double time = 0.0;
  // The clip time sampled at `time` (time mapping: anim/time_mapping.h), when known; NaN otherwise (recipes
  // map time per layer, and a dump may not say).
  double clip_time = std::numeric_limits<double>::quiet_NaN();
  LocalPose local;
  ModelPose model;
  std::vector<JointPalette> palettes;  // per skin
};

// Every node at its rest TRS; morph weights from node.weights, else mesh.weights, else zeros.
LocalPose rest_pose(const Scene& scene);

}  // namespace skinref
