// The float32 arithmetic model behind every derived error bound (verify/running_error.h,
// verify/pose_error_bounds.h, verify/vertex_error_bounds.h; derived in docs/error_bounds.md): ulps per
// operation, the unit-vector cap and the reference's own error. The bounds read these names and no literals.
#pragma once

namespace skinref::tol {

// The float32 arithmetic model of the derived error bounds (running_error.h, pose_error_bounds.h,
// docs/error_bounds.md). One ulp of a float32 result is at most 2^-23 of its magnitude. The Vulkan
// specification ("Precision and Operation of SPIR-V Instructions") allows: add, subtract and multiply
// correctly rounded, but the rounding mode may be round-toward-zero, so up to one ulp; division 2.5 ulp;
// sqrt inherited from 1 / inversesqrt (2 ulp, then the 2.5-ulp division): 4.5 ulp. A fused multiply-add is
// at least as accurate as the separate operations. Inputs converted from double on the host round to
// nearest: half an ulp.
inline constexpr double kFloatUlp = 0x1p-23;
inline constexpr double kFloatAddMulUlps = 1.0;
inline constexpr double kFloatDivideUlps = 2.5;
inline constexpr double kFloatSqrtUlps = 4.5;
inline constexpr double kFloatInputUlps = 0.5;

// Two unit vectors differ by at most 2. A float normalization (normalized() of skin.comp: squares, two adds,
// sqrt, a division and a multiply) returns a vector of length at most 1 + 9.5 ulp to first order (3 for the
// sum of squares, halved by the sqrt, + 4.5 + 2.5 + 1), or the tiny input itself when the length rounds to 0,
// so a float unit vector differs from the reference's by at most 2 + 9.5 ulp: the vertex bounds cap every
// normal and tangent bound at this (rounded up to 16 ulp for the second-order terms), and use
// it where a determinant's sign can flip within its bound (vertex_error_bounds.h).
inline constexpr double kUnitVectorDifferenceCap = 2.0 + 16.0 * 0x1p-23;

// The double-precision reference's own error, relative to the magnitude of a value, added to every float32
// bound so that comparing a float result with the reference never asks the reference to be exact: a few
// dozen double roundings (2^-53 each) along the longest chain.
inline constexpr double kReferenceRelative = 0x1p-40;

// A normalized float32 vector has a length within 9.5 ulp (about 1.1e-6) of 1 (above). A test normal or
// tangent whose length is off by more than this, where the reference's is unit, was not normalized: compare
// reports it as such (verify/vertex_compare.h) rather than as a value over its bound. 1e-4 leaves a margin of
// about 90 for engines that normalize with a cheaper reciprocal square root.
inline constexpr double kUnnormalizedLength = 1e-4;

// ---- The any-order bounds (any_order_arithmetic.h; docs/error_bounds.md, "Any order") ---------------------
// What the any-order bounds assume of an engine's float32 functions beyond + - * (each within 1 ulp, in any
// order, fused or not). Each is an allowance in ulps (of 2^-23) that a correct implementation meets with
// room; tests/verify/any_order_bounds_test.cc measures several implementations against each.
//
// The interpolation factor u = (t - t0) / (t1 - t0) from float32 times: two subtractions and a division
// (1 + 1 + 2.5 ulp), or a multiplication by a reciprocal (1 + 1 + 2.5 + 1): relative error at most 6 ulp.
inline constexpr double kAnyOrderInterpolationFactorUlps = 6.0;
// slerp of two float unit quaternions at a float u as a weighted sum c0 a + c1 b, its weights by any formula
// (acos and sin, atan2 of chords, a polynomial, a switch to nlerp for keys under about 1e-3 rad apart): each
// weight within 16 ulp of c0 + c1 of the exact sin((1 - u) theta) / sin theta, sin(u theta) / sin theta.
inline constexpr double kAnyOrderSlerpUlps = 16.0;
// v / |v| by any formula (sqrt then divide, inversesqrt then multiply): the result within 12 ulp of v^/|v^|:
// the sum of squares (3 roundings, halved by the root), sqrt 4.5 and divide 2.5 or inversesqrt 2 and a
// multiply, and a margin.
inline constexpr double kAnyOrderNormalizeUlps = 12.0;
// The sampling stage's functions under the two any-order bounds models (verify/bounds_model.h):
// - "any-order" (stated): slerp's weights within 4 ulp and a quaternion normalization within 4 ulp, what the
//   formulas an engine is expected to use meet with room (glm's acos/sin slerp 1.44 ulp, atan2 of chords 2.89;
//   sqrt then divide, or inversesqrt then multiply, 1.59: tests/verify/any_order_bounds_test.cc). The wide
//   allowances below would make up most of a skinned character's bound.
// - "any-order-wide": kAnyOrderSlerpUlps and kAnyOrderNormalizeUlps, which every formula we know of meets,
//   Eigen's slerp (a switch to lerp for keys under 4.5e-3 rad apart: 10.7 ulp) and Vulkan's normalize() in a
//   shader included. A comparison that fails the first and passes this one names the allowance it needed.
// The skinning stage's normalization of normals and tangents is kAnyOrderNormalizeUlps under both.
struct SamplingAllowances {
  double slerp_ulps;
  double normalize_ulps;
  // An engine's interpolation factor may also be off by this fraction of itself (an approximate reciprocal:
  // verify/engine_allowances.h); 0 for a correct engine.
  double interpolation_relative = 0.0;
};
inline constexpr SamplingAllowances kStatedSamplingAllowances{4.0, 4.0};
inline constexpr SamplingAllowances kWideSamplingAllowances{kAnyOrderSlerpUlps, kAnyOrderNormalizeUlps};
// A rotation matrix from a float quaternion by any of the usual forms: 1 - 2 (y^2 + z^2) (glm, Eigen, ozz,
// three.js), w^2 + x^2 - y^2 - z^2, or with s = 2 / |q|^2 (Godot): at most 11 roundings on the path of each
// monomial (the last: |q|^2 in 4, the division 2.5, y^2, the sum and the product by s 3, the difference 1:
// 10.5).
inline constexpr int kAnyOrderQuaternionMatrixRoundings = 11;
// The diagonal's path, form by form: 1 - t with t = 2 (y^2 + z^2) (unit-assuming: a product and a sum, 2) or
// t = s (y^2 + z^2) (Godot: |q|^2 in 4, the division 2.5, two products and the sum: 9.5, rounded up to 10), then
// the difference, one rounding of |1 - t|; the homogeneous w^2 + x^2 - y^2 - z^2: a product and three sums, 4,
// of its monomials' sum |q|^2.
inline constexpr int kAnyOrderQuaternionDiagonalRoundings = 10;
inline constexpr int kAnyOrderHomogeneousDiagonalRoundings = 4;
// A joint's dual quaternion and non-rigid part (DQS) from its float matrix by any method (Shepperd's
// quaternion, a polar decomposition by Newton's iteration or an SVD): within 16 ulp (relative to 1, to the
// translation's length and to the linear part's largest singular value) of the exact decomposition of that
// float matrix.
inline constexpr double kAnyOrderDqsPreparationUlps = 16.0;

// A clip time an engine maps from its float32 playback time is within 4 ulp of |time| + |clip time| of the
// exact one (a subtraction, a product by the rate, a remainder, an addition): the time-mapping stage of
// stage_bisection.h, and the clips of a recipe (verify/recipe_bounds.h).
inline constexpr double kTimeMappingUlps = 4.0;
// Blends, additive layers and IK solvers by any formula are bounded to first order, through their Jacobian
// (computed by central differences of the reference's own step), with the engine's float evaluation of the
// step taken as backward stable: exact on inputs each within 16 ulp of its own, plus 16 ulp of the result.
inline constexpr double kAnyOrderRecipeUlps = 16.0;
// The first-order bound is raised by a quarter, for its second-order terms and for the central differences'
// own error: relative to the first-order terms, the former is of the order of the input errors (under 1e-3 of
// the values for float32 bounds), the latter of the step squared (1e-12) times the steps' third derivatives.
inline constexpr double kLinearizedBoundSafety = 1.25;

}  // namespace skinref::tol
