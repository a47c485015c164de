// Stage bounds that hold for any correct float32 engine: per value, how far a float32 evaluation of a pose
// can be from the reference's, whatever its order of operations, fused or not, by a-priori bounds
// (any_order_arithmetic.h; derived in docs/error_bounds.md, "Any order").
//
// Contract:
// - Same inputs and output layout as float32_pose_error_bounds() (pose_error_bounds.h): a validated Scene,
//   an animation index (-1: rest pose), the float32 clip time the engine sampled at; absolute bounds per
//   node (local TRS, morph weights, global matrix) and per skin and joint (palette and normal matrix).
// - What it assumes of the engine (tol::kAnyOrder* in verify/float_model.h): float32 keys, times, rest TRS
//   and inverse bind matrices as the file stores them; + - * correctly rounded or toward zero (1 ulp), in
//   any order and association, fused or not; the interpolation factor within 6 ulp; slerp by any formula
//   and quaternions normalized within `allowances` (tol::SamplingAllowances: 4 ulp each as stated, or the
//   wide 16 and 12), the result renormalized or not; CUBICSPLINE by any arrangement of the Hermite polynomial;
//   rotation matrices by any of the usual forms; local matrices T * R * S in any association; globals
//   G = G(parent) * L down a chain of any depth, evaluated parent first as a hierarchy walk does (each
//   product's dot products in any order); palettes G * IBM; normal matrices by cofactors (the pose dump's
//   normal matrix; an engine that dumps the inverse transpose differs by 1 / det, which is not a rounding).
//   No denormals, no overflow.
// - Infinite (no claim) where a branch may go another way: key times that are not float32 values, two
//   rotation keys whose dot product is within its error of zero (the short path may flip).
#pragma once

#include "verify/any_order_arithmetic.h"
#include "verify/pose_error_bounds.h"

#include <array>
#include <limits>
#include <vector>

namespace skinref {

PoseErrorBounds any_order_pose_error_bounds(const Scene& scene, int animation, double time,
                                            const tol::SamplingAllowances& allowances = tol::kStatedSamplingAllowances);

// Its two halves, for poses made otherwise (recipes: verify/recipe_bounds.h).
// - The local TRS (10 per node: translation, rotation x y z w, scale) and morph weights of clip `animation`
//   (-1: the rest pose) sampled at clip time `time`, where the engine's own clip time may be up to
//   `time_error` from it (a time mapping's rounding): bounds per value.
// - The global matrices, palettes and normal matrices of the local pose `values` whose values are within
//   `local_errors` of the reference's.
// - rotation_split (optional, per node, or empty): a second description of the same rotation errors, which
//   the rotation matrix's bound also uses (the smaller of the two per entry). Whoever changes `trs` without
//   deriving it anew leaves it empty.
struct RotationSplit {
  // The engine's quaternion is (1 + r) q^ with q^ unit, within the angle `direction` (radians, as 4-vectors)
  // of the exact unit quaternion or of its negation, and |r| <= `radial`.
  double direction = std::numeric_limits<double>::infinity();
  double radial = std::numeric_limits<double>::infinity();
};
struct LocalErrorBounds {
  std::vector<std::array<double, 10>> trs;         // per node
  std::vector<std::vector<double>> morph_weights;  // per node
  std::vector<RotationSplit> rotation_split;       // per node, or empty
};
LocalErrorBounds any_order_local_error_bounds(
    const Scene& scene, int animation, double time, double time_error = 0.0,
    const tol::SamplingAllowances& allowances = tol::kStatedSamplingAllowances);
PoseErrorBounds any_order_pose_bounds_from_locals(const Scene& scene, const LocalPose& values,
                                                  const LocalErrorBounds& local_errors);

// One step of it, for its tests: the rotation matrix (row, column) of a float quaternion (x y z w) whose
// components are within their errors of a unit quaternion's, by any usual form (tol::kAnyOrderQuaternionMatrixRoundings).
std::array<std::array<Gauged, 3>, 3> any_order_rotation_matrix_bounds(const std::array<Gauged, 4>& q);
// The same matrix from a quaternion described by its RotationSplit (`q` gives the exact unit value and the
// magnitudes for the forms' rounding): per entry, 2 sin(direction) for the turn, (2 r + r^2) times the form's
// factor for the length (unit-assuming forms add (1 - |q|^2) (I - R), the homogeneous one scales R by |q|^2,
// Godot's divides it out), and the forms' rounding as above.
std::array<std::array<double, 3>, 3> any_order_rotation_matrix_split_errors(const std::array<Gauged, 4>& q,
                                                                            const RotationSplit& split);
// The angle (radians, as 4-vectors) by which a normalization within `normalize_ulps` per component, relative to
// each component's magnitude, can turn a unit quaternion whose distance from one of the four axes is at most
// `off_axis` (the length of its other three components): a quaternion near one axis barely turns, and a zero
// component stays zero.
double any_order_normalization_turn(double off_axis, double normalize_ulps);

}  // namespace skinref
