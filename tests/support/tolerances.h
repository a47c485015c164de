// The tests' tolerances, named, in one place: closed-form and independent-computation checks of each stage.
// Stage thresholds live with their stages (io/gltf_load.h, anim/ik.h), the float32 model with the bounds
// (verify/float_model.h), the GPU defaults with the comparison (verify/gpu_tolerances.h).
#pragma once

#include "verify/float_model.h"
#include "verify/gpu_tolerances.h"

namespace skinref::tol {

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

// A colour attachment's linear -> sRGB8 conversion against encode_srgb8: values whose exact encoding 255 s
// lies further than this from a rounding boundary k + 0.5 must encode identically. lavapipe approximates
// the curve (Mesa's lp_build_linear_to_srgb: a x^0.375 + b x^0.5 + c, documented error +-0.17 steps, with
// approximate reciprocal square roots) and rounds half to even.
inline constexpr double kGpuSrgbEncodeBand = 0.25;

}  // namespace skinref::tol
