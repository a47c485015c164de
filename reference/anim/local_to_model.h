// Stage: local to model. One forward pass over Scene::node_order (parents first), so each node's global
// transform G(n) = G(parent(n)) * compose_trs(local(n)) is computed exactly once. Every ancestor counts,
// joints or not.
//
// Contract: `pose.local.size() == scene.nodes.size()`; returns one matrix per node, indexed like
// scene.nodes. The last row of every matrix is exactly (0, 0, 0, 1).
#pragma once

#include "core/pose.h"

namespace skinref {

ModelPose local_to_model(const Scene& scene, const LocalPose& pose);

}  // namespace skinref
