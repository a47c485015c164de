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

}  // namespace skinref::tol
