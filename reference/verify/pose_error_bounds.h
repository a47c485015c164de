// Stage bounds: how far a float32 evaluation of a pose can be from the reference's, per value, derived by
// running error analysis (running_error.h; docs/error_bounds.md) of the float computation that
// gpu/shaders/animation.comp performs (and any float implementation with the same order of operations).
//
// Contract:
// - Inputs: a validated Scene, an animation index (-1: rest pose), and the time the float evaluation used
//   (a float32 value, e.g. EvaluatedPose::time of gpu_evaluate_pose()); the reference to compare with is
//   evaluate_pose(scene, animation, time).
// - Every input (keys, slerp tables, rest TRS, inverse bind matrices) is rounded to float32 as the GPU path
//   does; every operation is bounded with the float model of verify/float_model.h; sin and cos of the slerp come
//   from the shader's polynomials (their truncation included).
// - Output: absolute bounds, indexed like the pose: per node its local translation (3), rotation (4, x y z
//   w), scale (3) and morph weights, and its global matrix (16, column-major as Mat4::data()); per skin and
//   joint the palette matrix (16) and normal matrix (9, column-major as Mat3::data()). A value compares
//   within its bound when |float - reference| <= bound + tol::kReferenceRelative * |reference|.
// - A sampler whose key times are not float32 values (glTF stores float32 times, so only hand-built scenes),
//   and any division by a quantity whose bound reaches its magnitude, give an infinite bound (no claim)
//   rather than a wrong one.
#pragma once

#include "core/pose.h"
#include "core/scene.h"

#include <array>
#include <vector>

namespace skinref {

struct PaletteErrorBounds {
  std::vector<std::array<double, 16>> skinning;  // per joint
  std::vector<std::array<double, 9>> normal;     // per joint
};

struct PoseErrorBounds {
  std::vector<std::array<double, 10>> local;         // per node: translation, rotation, scale
  std::vector<std::vector<double>> morph_weights;     // per node
  std::vector<std::array<double, 16>> global;        // per node
  std::vector<PaletteErrorBounds> palettes;           // per skin
};

PoseErrorBounds float32_pose_error_bounds(const Scene& scene, int animation, double time);

// True when |actual - reference| <= bound + tol::kReferenceRelative * |reference|.
bool within_bound(double actual, double reference, double bound);

// A pose dump printed with D < 17 significant digits moved each value v by up to half a unit of its D-th
// digit, at most 0.5 * 10^(1 - D) * |v|: adds that to every bound of `bounds` (indexed like `printed`). D >= 17
// (skinref's dumps round-trip) adds nothing.
void charge_printing_rounding(PoseErrorBounds& bounds, const EvaluatedPose& printed, int significant_digits);

}  // namespace skinref
