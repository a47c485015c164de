#include "core/pose.h"

namespace skinref {

LocalPose rest_pose(const Scene& scene) {
  LocalPose pose;
  pose.local.resize(scene.nodes.size());
  pose.morph_weights.resize(scene.nodes.size());
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    const Node& node = scene.nodes[n];
    pose.local[n] = node.rest;
    if (node.mesh < 0) continue;
    const Mesh& mesh = scene.meshes[node.mesh];
    const size_t targets = mesh.primitives.empty() ? 0 : mesh.primitives[0].targets.size();
    if (targets == 0) continue;
    // glTF: node.weights, else mesh.weights, else zeros.
    if (!node.morph_weights.empty()) pose.morph_weights[n] = node.morph_weights;
    else if (!mesh.default_weights.empty()) pose.morph_weights[n] = mesh.default_weights;
    else pose.morph_weights[n].assign(targets, 0.0);
  }
  return pose;
}

}  // namespace skinref
