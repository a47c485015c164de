// Stage: local to model. One forward pass over Scene::node_order (parents first), so each node's global
// transform G(n) = G(parent(n)) * compose_trs(local(n)) is computed exactly once. Every ancestor counts,
// joints or not.
//
// Contract: `pose.local.size() == scene.nodes.size()`; returns one matrix per node, indexed like
// scene.nodes. The last row of every matrix is exactly (0, 0, 0, 1). Each matrix has the bits of
// multiply_affine(G(parent), compose_trs(local)) (core/math_types.h), on every CPU.
#pragma once

#include "core/pose.h"

namespace skinref {

ModelPose local_to_model(const Scene& scene, const LocalPose& pose);

// The same into `model`, whose storage is reused when it already has one matrix per node (as an engine
// reuses its pose buffers from frame to frame).
void local_to_model(const Scene& scene, const LocalPose& pose, ModelPose& model);

// Internal, for the tests that compare the pass's builds: each gives the bits of compose_trs followed by
// multiply_affine (core/math_types.h); local_to_model() takes the widest one this CPU runs.
namespace local_to_model_detail {
enum class Isa { Baseline, Avx2 };
// false, with `model` untouched, when this CPU lacks the instructions.
bool local_to_model_with(Isa isa, const Scene& scene, const LocalPose& pose, ModelPose& model);
}  // namespace local_to_model_detail

}  // namespace skinref
