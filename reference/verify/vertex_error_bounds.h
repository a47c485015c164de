// Stage bounds for skinning: per vertex, how far a float32 evaluation of the skinned vertices can be from
// the reference's, derived by running error analysis (running_error.h; docs/error_bounds.md) of the float
// computation gpu/shaders/skin.comp performs (morph targets, then LBS or DQS, normals, tangents), in the
// same order of operations, with the float model of verify/float_model.h.
//
// Contract:
// - Inputs: a validated Scene; the reference pose the comparison uses (evaluate_pose(), at the float32 time
//   when the palette came from the GPU); the skinning options of both runs; and where the float run's
//   palettes came from: `palette_bounds` null -> the reference's palettes rounded to float32 (the default of
//   the Vulkan path, --palette reference); non-null -> a float32 animation pass (--palette gpu) whose values
//   are within those bounds of the reference's (float32_pose_error_bounds()).
// - Bind-space inputs (positions, normals, tangents, weights, morph deltas and weights) are rounded to float32
//   as the GPU path does; DQS's per-joint dual quaternions and non-rigid parts are prepared in double from the
//   palette and rounded (with --palette gpu, the palette's error is carried through the polar decomposition by
//   its perturbation bound: docs/error_bounds.md).
// - Output per drawn primitive (evaluate_vertices() order), per vertex: bounds on the Euclidean norm of the
//   difference of the position, of the normal and of the tangent's xyz (normal / tangent vectors empty when
//   the primitive has none).
// - Normalized normals and tangents are unit vectors on both sides, so their bound never exceeds
//   tol::kUnitVectorDifferenceCap (2 + 16 ulp); it is the bound where the analysis cannot bound a direction
//   (a vector within its error of zero, e.g. a blended matrix too close to singular, or a determinant whose
//   sign may flip within its bound): no claim on the direction, but still a true bound.
// - Infinite (no claim at all, for every attribute of the vertex) where a branch of the float computation may
//   go another way than the reference's: a weight sum within its error of 0; a DQS hemisphere test whose dot
//   product is within its error of 0 (e.g. two joints a half turn apart with a GPU palette: the float may
//   blend towards either side); a blended real part within its error of 0; and, with a GPU palette under DQS,
//   a joint whose linear part is mirrored or may become singular within its bound (the proper-rotation polar
//   factor of a mirrored matrix has no published perturbation bound). No claim rather than a wrong one.
// - No per-vertex heap allocation; vertex ranges run on SkinningOptions::threads threads (parallel_ranges.h),
//   the result independent of it.
// - A difference compares within its bound when |d| <= bound + tol::kReferenceRelative * |reference value|.
#pragma once

#include "core/pose.h"
#include "core/vertices.h"
#include "skin/dqs.h"
#include "skin/options.h"
#include "verify/pose_error_bounds.h"
#include "verify/primitive_error_bounds.h"

#include <vector>

namespace skinref {

std::vector<PrimitiveErrorBounds> float32_vertex_error_bounds(const Scene& scene, const EvaluatedPose& reference_pose,
                                                              const SkinningOptions& options,
                                                              const PoseErrorBounds* palette_bounds);

// The DQS split of one palette matrix known within elementwise bounds (linear_error: A's 9 entries,
// row-major; translation_error: t's 3), and how far each part of the split can move: the polar factor by its
// perturbation bound for real matrices (Li 1995; Higham, "Functions of Matrices", section 8.3):
// ||dQ||_F <= 2 ||dA||_F / (s2 + s3 - ||dA||_F), the quaternion |dq| <= ||dQ||_F / 2 in the reference's
// hemisphere (||R(q) - R(q')||_F^2 = 8 (1 - (q.q')^2)), the dual part 0.5 (0, t) q and S = Q^T A by the
// product rule. `bounded` is false where a matrix within the bound may be mirrored or singular (s3 <= ||dA||_F
// or det(A) <= 0): a mirrored joint's proper-rotation polar factor has no published perturbation bound.
// Errors are Euclidean for the quaternion parts and elementwise for S; zero when the matrix is exact.
struct DqsSplitBounds {
  DqsJointSplit split;
  bool bounded = true;
  bool linear_perturbed = false, translation_perturbed = false;
  double real_error = 0.0, dual_error = 0.0, s_error = 0.0;
};
DqsSplitBounds dqs_split_bounds(const Mat4& jm, const double linear_error[9], const double translation_error[3]);

}  // namespace skinref
