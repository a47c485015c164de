// The pose-stage implementation mistakes (core/mistakes.h) as stages beside the reference's own: sampling
// with channels ignored, the factor reversed or the wrong key pair; local to model without the parent chain,
// with it reversed or with the TRS product in another order; morph weights applied to the wrong targets.
// evaluate_pose() (anim/evaluate_pose.h) calls them only where a mistake is set.
//
// Contract:
// - sample_animation_with_mistakes(): as sample_animation() (anim/sampling.h, the same sampling conventions),
//   except that the channels of an ignored path are not played (the node keeps the value it had), and that a
//   time t strictly between keys k and k+1 of a sampler, u = (t - t_k) / (t_k+1 - t_k), is sampled as the time
//   t' = t_k' + u' (t_k'+1 - t_k') with interpolation-factor=reversed: u' = 1 - u; key-pair=one-late:
//   k' = min(k + 1, n - 2); one-early: k' = max(k - 1, 0) (k' = k, u' = u otherwise). A time at or outside the
//   keys is sampled as given. Each sampler is remapped on its own keys.
// - local_to_model_with_mistakes(): G(n) for every node in parent-first order, with L(n) the node's local
//   matrix in the trs-order's product (T R S, S R T, R S T or T S R) and G(n) = G(parent) L(n) (composed),
//   L(n) (ignored) or L(n) G(parent) (reversed); a root's G is its L. The last row is exactly (0, 0, 0, 1).
// - apply_morph_weight_mistake(): per node, with N weights: shifted gives target k the weight of target
//   k - 1 (cyclically), reversed the weight of target N - 1 - k; in-order changes nothing.
#pragma once

#include "core/conventions.h"
#include "core/pose.h"

namespace skinref {

bool sampling_mistaken(const Mistakes& mistakes);
bool hierarchy_mistaken(const Mistakes& mistakes);

void sample_animation_with_mistakes(const Scene& scene, int animation, double t, LocalPose& pose,
                                    const SamplingConventions& conventions, const Mistakes& mistakes);
// A node's local matrix in the product order `order`.
Mat4 compose_in_order(const Transform& trs, TrsOrder order);
void local_to_model_with_mistakes(const Scene& scene, const LocalPose& pose, const Mistakes& mistakes,
                                  ModelPose& model);
void apply_morph_weight_mistake(MorphWeightTargets targets, LocalPose& pose);

}  // namespace skinref
