// Every tolerance of the project, named, in one place. Tests and tools use these names, never literals.
#pragma once

namespace skinref::tol {

// A glTF `matrix` is accepted as TRS when its rotation part is orthonormal to this (relative) tolerance;
// files store matrices in float32, whose products of rounded values are off by a few 1e-7.
inline constexpr double kMatrixShear = 1e-4;

// Closed-form checks of double-precision stages: a handful of roundings of O(1) values.
inline constexpr double kClosedForm = 1e-12;

// Results that go through trigonometry of float32-rounded inputs (built-in scenes store float32 values).
inline constexpr double kFloatInput = 1e-6;

// Skinned positions from two independent double implementations of the same file: both read the same
// float32 data, so they differ by a few double roundings relative to the model's extent.
inline constexpr double kIndependentRelative = 1e-9;

// The built-in twist's cross-section radius against its analytic value (geometry stored in float32).
inline constexpr double kTwistRadius = 1e-6;

// Per-vertex weights stored as float32 (built-in scenes, exported files) sum to 1 within one float32 ulp
// of 1 (2^-23): each weight is rounded to float32 and one of them adjusted to absorb the rest.
inline constexpr double kStoredWeightSum = 0x1p-23;

// DQS results of O(1) values that go through the polar decomposition of palette matrices (Jacobi SVD, a
// few sweeps of rotations) and a dual quaternion round trip: a few dozen roundings, far below this.
inline constexpr double kPolarDecomposition = 1e-12;

// IK solvers (ik.cc): a direction whose length is below this fraction of the vector it was taken from (a pole
// collinear with the root-target line, an up axis parallel to forward, nearly opposite arc ends) is treated
// as undefined and a documented fallback is used.
inline constexpr double kIkParallel = 1e-9;

// IK results against closed-form positions (targets reached, bone lengths kept, law-of-cosines middles) for
// bones of length 1 to 2: a few roundings through quaternions and matrix products, with room to spare.
inline constexpr double kIkReach = 1e-9;

// Silhouette coverage (fraction of pixels showing the model) of skinref's render of a glTF-Asset-Generator
// still against the generator's own image, relative to the generator's: a coarse check of camera, pose and
// framing across different renderers (BabylonJS, whose model pixels are found by colour in front of a
// photographic background), not a pixel comparison. The stills agree within 4 %; a camera 10 % further away
// shrinks the coverage by 17 %.
inline constexpr double kSilhouetteCoverageRelative = 0.15;

// Rasterizer barycentrics (raster.h) against the analytic intersection of a pixel's view ray with the
// triangle's plane, in scenes whose vertices project exactly onto the 1/256-pixel grid: only a few double
// roundings of O(1) values remain.
inline constexpr double kRasterBarycentric = 1e-12;

// The same for triangles clipped at the guard band: their snapped vertices lie up to ~2^24 pixels out and
// move by up to 1/512 pixel when snapped, about 1e-10 of the triangle's extent.
inline constexpr double kRasterGuardBandBarycentric = 1e-8;

// Rasterizer depth (D32) against the analytic z / w: the float32 rounding of a linear interpolation that is
// exact to a few double roundings, so one float32 ulp at 1.
inline constexpr double kRasterDepth = 0x1p-23;

// The two segments of the sRGB curve (IEC 61966-2-1) with their published constants meet at the threshold
// 0.0031308 only to about 3e-8 (the constants are rounded), so continuity is checked to this.
inline constexpr double kSrgbSegmentJoin = 1e-7;

// 8-bit colours of an attribute interpolated across a rendered triangle (weights, depth) against the closed
// form at the pixel centre: vertices are snapped to 1/256 pixel, which moves an attribute by about 1e-4 of
// its range, under one step of the 8-bit sRGB encoding even where that is steepest (12.92 x 255 per unit).
inline constexpr int kSnappedAttributeBytes = 1;

// GPU skinned positions (float32 compute shaders, gpu/skinning_gpu.h) against the reference, relative to the
// model's extent (the largest absolute coordinate of the reference's positions, at least 1): the interim bound
// of issue 5 until the comparison tool derives a per-vertex one. float32 rounds each of the few dozen operations
// per vertex by up to 6e-8 of its magnitude, so a few 1e-7 of the extent are expected.
inline constexpr double kGpuVertexRelative = 1e-5;

// GPU skinned normals and tangents (unit vectors) against the reference, absolute: float32 cofactors,
// quaternion rotations and the normalization, a few 1e-7 where the blended matrix is well conditioned.
inline constexpr double kGpuUnitVector = 1e-5;

// GPU images against the reference image of the same vertices and camera (issue 5): at least this fraction
// of the pixels must have every channel within kGpuImageChannelBytes. The rest is the band along edges
// where float32 vertex transforms move a snapped vertex by 1/256 pixel, and filtering differences of
// textures (8 sub-texel bits on the GPU).
inline constexpr double kGpuImagePixelFraction = 0.999;
inline constexpr int kGpuImageChannelBytes = 1;

// A colour attachment's linear -> sRGB8 conversion against encode_srgb8: values whose exact encoding 255 s
// lies further than this from a rounding boundary k + 0.5 must encode identically. lavapipe approximates
// the curve (Mesa's lp_build_linear_to_srgb: a x^0.375 + b x^0.5 + c, documented error +-0.17 steps, with
// approximate reciprocal square roots) and rounds half to even.
inline constexpr double kGpuSrgbEncodeBand = 0.25;

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

}  // namespace skinref::tol
