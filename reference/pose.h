// Pose values passed between stages.
//
// Contract:
// - LocalPose: one Transform per scene node (parent-relative TRS) and the morph weights per node (empty for
//   nodes without a mesh with targets). Produced by rest_pose() and sample_animation().
// - ModelPose: one 4x4 per node, the node's global (world) transform G = G(parent) * L; produced by
//   local_to_model().
#pragma once

#include "scene.h"

#include <vector>

namespace skinref {

struct LocalPose {
  std::vector<Transform> local;                     // per node
  std::vector<std::vector<double>> morph_weights;   // per node; size = the node's mesh target count
};

struct ModelPose {
  std::vector<Mat4> global;  // per node
};

// Every node at its rest TRS; morph weights from node.weights, else mesh.weights, else zeros.
LocalPose rest_pose(const Scene& scene);

}  // namespace skinref
