// Allowances: bounds widened by a stated size for what an engine does that cannot be emulated bit for bit (keys
// compressed by a scheme that is not published, an approximate reciprocal in the interpolation factor, an
// estimated square root), next to the conventions (core/conventions.h), which change the computation itself.
// An allowance is a weaker claim than a convention: it says the engine's dumps stay within the bounds widened
// by the size, not what it computes. The bounds walk each value's error entry by entry, so the size a fit needs
// runs below the engine's own error (a turn of 3e-4 rad on every rotation needs 7.8e-5: the rotation matrix's
// entries each take the whole allowance).
//
//
// Contract:
// - rotation (radians): every local rotation the engine uses, sampled or rest, within this rotation angle of the
//   reference's. Each quaternion component's bound, and the turn of its RotationSplit, widen by rotation / 2:
//   two unit quaternions a rotation angle e apart are 2 sin(e / 4) <= e / 2 apart as 4-vectors.
// - translation_scale (relative): every local translation and scale component within translation_scale times
//   its magnitude (half floats: 2^-11).
// - interpolation (relative): the interpolation factor u within interpolation * u, on top of the any-order
//   model's own 6 ulp (tol::SamplingAllowances::interpolation_relative).
// - pose_error_bounds_allowing(): the any-order pose bounds (the wide sampling allowances under
//   BoundsModel::AnyOrderWide, the stated ones otherwise: allowances are held to any-order bounds) with the
//   local values widened as above, walked to globals and palettes as any_order_pose_bounds_from_locals() does.
//   No allowance (any() false) gives pose_error_bounds(model, ...) itself.
// - describe_engine_allowances(): "key rotations within 7.5e-05 rad, translations and scales within 0.00049
//   relative, the interpolation factor within 0.0003 relative", the allowances that are not 0; "" for none.
#pragma once

#include "verify/bounds_model.h"

#include <string>

namespace skinref {

struct EngineAllowances {
  double rotation = 0.0;
  double translation_scale = 0.0;
  double interpolation = 0.0;
  bool any() const { return rotation > 0.0 || translation_scale > 0.0 || interpolation > 0.0; }
};

PoseErrorBounds pose_error_bounds_allowing(BoundsModel model, const Scene& scene, int animation, double time,
                                           const EngineAllowances& allowances);

std::string describe_engine_allowances(const EngineAllowances& allowances);

}  // namespace skinref
