// The bind pose: the pose the skins' inverse bind matrices were made from, where every palette entry is the
// identity and the skinned mesh shows as authored. Seeing it beside the rest pose is the first step of triage
// ("is it the skinning or the animation?"): `pose`, `skin` and `render` take it as --pose bind.
//
// Contract:
// - A joint's bind global is the inverse of its inverse bind matrix, from the first skin (in scene.skins order)
//   that lists the joint. Every node that is no skin's joint keeps its rest TRS (rest_pose()).
// - Each joint's local TRS is L = G(parent)^-1 * G_bind (G(parent) the parent's global in this pose, so a
//   joint under a non-joint ancestor is placed relative to that ancestor as posed), decomposed by
//   decompose_trs() within tol::kBindPoseShear. A bind local that no TRS reproduces (shear, a singular or
//   non-affine inverse bind matrix) throws InputError naming the scene, the skin's JSON path and the joint.
// - The EvaluatedPose is then made as every other pose: local_to_model() of those locals and compute_palette()
//   per skin, so its parts agree with each other. Each palette entry of the skin that placed the joint is the
//   identity up to rounding (a few ulps of the matrices' magnitudes); another skin's entry for a shared joint
//   is G_bind * its own IBM. animation is -1 and time 0; morph weights are the rest pose's.
#pragma once

#include "core/pose.h"

namespace skinref::tol {

// Relative shear allowed when a bind local is decomposed into TRS: inverse bind matrices are stored in float32,
// and inverting and multiplying them leaves a few 1e-7 of non-orthogonality (as the loader's matrix tolerance).
inline constexpr double kBindPoseShear = 1e-4;

}  // namespace skinref::tol

namespace skinref {

EvaluatedPose bind_pose(const Scene& scene);

}  // namespace skinref
