// Stage: pose blending (local poses), partial masks, additive layers, cross-fades.
//
// Contract:
// - Full blend of N layers: per node, each layer's effective weight is weight * mask[node] (mask empty = 1).
//   Weights are normalized by their sum per node. Translation and scale: weighted averages. Rotation: the
//   weighted sum of the layers' quaternions, each sign-flipped into the hemisphere of the first contributing
//   layer's rotation (short path), then normalized (BlendRotation::WeightedAverage, the usual engine
//   blend, order-dependent only through that hemisphere choice). With exactly two contributing layers,
//   BlendRotation::Slerp gives the exact short-path slerp from the first to the second by the second's
//   normalized weight (with any other count, Slerp falls back to the weighted average). Morph weights:
//   weighted averages. A node whose summed weight is 0 keeps `fallback` (usually the rest pose) exactly; a
//   node with one contributing layer gets that layer's values exactly.
// - Masks: one weight per node; subtree_mask() builds 1 for a node and its descendants, 0 elsewhere.
// - Additive: make_additive_delta(pose, reference) gives per node dR = R_ref^-1 * R, dT = T - T_ref,
//   dS = S / S_ref (component-wise; a zero reference scale component gives ratio 1). apply_additive()
//   applies it onto a base with weight w (and optional mask): R = R_base * slerp(I, dR, w),
//   T = T_base + w * dT, S = S_base * (1 + w * (dS - 1)), morph weights += w * d; slerp(I, dR, w) is taken
//   as dR^w on the short path, so any finite w works (w > 1 exaggerates). Adding the reference's own delta
//   (identity) with any weight gives the base back. A node whose w * mask is 0 is left untouched.
// - Cross-fade: crossfade_weight() is the weight of the incoming pose at global time tau, a linear ramp from
//   0 at `start` to 1 at `start + duration` (a step at `start` when duration == 0).
// All inputs are LocalPoses of the same scene (one entry per node); outputs have the same shape. Breaking
// the contract (shapes, mask sizes, weights < 0 or masks outside [0, 1], a negative duration) throws
// std::invalid_argument.
#pragma once

#include "core/pose.h"

#include <span>
#include <string>
#include <vector>

namespace skinref {

enum class BlendRotation { WeightedAverage, Slerp };

struct BlendLayer {
  const LocalPose* pose = nullptr;
  double weight = 1.0;                 // >= 0
  std::span<const double> mask;        // per node in [0, 1], or empty for 1 everywhere
};

LocalPose blend_poses(std::span<const BlendLayer> layers, const LocalPose& fallback,
                      BlendRotation rotation = BlendRotation::WeightedAverage);

// 1 for `root` and its descendants, 0 elsewhere (scene.nodes.size() entries). A root that is not a node
// index throws InputError(scene.source, "", ...).
std::vector<double> subtree_mask(const Scene& scene, int root);

// The first node named `name`; throws InputError(scene.source, "", ...) listing the scene's node names
// (unnamed ones as #INDEX) when absent.
int find_node(const Scene& scene, const std::string& name);

LocalPose make_additive_delta(const LocalPose& pose, const LocalPose& reference);

void apply_additive(LocalPose& base, const LocalPose& delta, double weight, std::span<const double> mask = {});

double crossfade_weight(double start, double duration, double tau);

}  // namespace skinref
