// Stage: IK post-processing on model poses. Each solver edits local rotations in a LocalPose and then
// recomputes the ModelPose of the affected subtree only (update_subtree), so later stages see a consistent
// pose.
//
// Contract:
// - Positions, targets and pole vectors are in world space (the ModelPose's space). Solvers assume the chain
//   has no shear and at most uniform scale in its parents (rotations are transferred between world and local
//   space through the parents' rotation parts).
// - Two-bone IK (root -> middle -> end, `middle` a descendant of `root`, `end` of `middle`): bone lengths l1 =
//   |middle - root|, l2 = |end - middle| are kept. The target distance d = |target - root| is clamped to
//   [|l1 - l2|, l1 + l2]; when `soft` < 1, distances beyond soft * (l1 + l2) approach l1 + l2 exponentially
//   (soft IK) instead of snapping straight. The middle joint is placed in the plane through root, target and
//   `pole`, on the pole's side, by the law of cosines; the root rotates by the shortest arc taking the old
//   middle to the new, the middle by the shortest arc taking the end to the target. A reachable target is
//   reached exactly (up to rounding); an unreachable one leaves the chain straight towards it.
// - Aim IK: rotates `joint` so that its local `forward` axis points at `target` and its local `up` axis lies
//   in the plane of forward and `pole`, on the pole's side (pole is a world direction).
// - `weight` in [0, 1]: the new local rotations are slerp(old, solved, weight); 0 changes nothing (bit-exact).
#pragma once

#include "core/pose.h"

namespace skinref::tol {

// IK solvers (ik.cc): a direction whose length is below this fraction of the vector it was taken from (a pole
// collinear with the root-target line, an up axis parallel to forward, nearly opposite arc ends) is treated
// as undefined and a documented fallback is used.
inline constexpr double kIkParallel = 1e-9;

}  // namespace skinref::tol

namespace skinref {

struct TwoBoneIk {
  int root = -1, middle = -1, end = -1;  // node indices
  Vec3 target = Vec3::Zero();
  Vec3 pole = Vec3::UnitY();  // a world-space point the bend plane passes through, on the bending side
  double weight = 1.0;
  double soft = 1.0;  // in (0, 1]: fraction of the full reach where softening starts; 1 = off
};

struct AimIk {
  int joint = -1;
  Vec3 forward = Vec3::UnitZ();  // in the joint's local space
  Vec3 up = Vec3::UnitY();       // in the joint's local space, not parallel to forward
  Vec3 target = Vec3::Zero();    // world position
  Vec3 pole = Vec3::UnitY();     // world direction the up axis leans towards
  double weight = 1.0;
};

// Throw InputError(scene.source, "", ...) for invalid node indices, a broken chain, weights outside [0, 1],
// or degenerate axes (also: soft outside (0, 1], non-finite vectors, a zero-length bone, an aim target at the
// joint itself, a parent with a singular global matrix, poses not sized to the scene). Fallbacks, not
// errors: a pole on the root-target line (or along the aim direction) keeps the current bend side (current
// up); failing that, a fixed perpendicular is used.
void apply_two_bone_ik(const Scene& scene, const TwoBoneIk& ik, LocalPose& local, ModelPose& model);
void apply_aim_ik(const Scene& scene, const AimIk& ik, LocalPose& local, ModelPose& model);

// Recomputes model.global for `node` and all its descendants from `local` (parents outside the subtree are
// taken from `model` as they are).
void update_subtree(const Scene& scene, const LocalPose& local, int node, ModelPose& model);

}  // namespace skinref
