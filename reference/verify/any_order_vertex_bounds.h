// Skinning bounds that hold for any correct float32 engine: per vertex, how far its skinned position, normal
// and tangent can be from the reference's, whatever the engine's order of operations (any_order_arithmetic.h;
// docs/error_bounds.md, "Any order").
//
// Contract:
// - Same inputs and output as float32_vertex_error_bounds() (vertex_error_bounds.h): the scene, the
//   reference pose, the skinning options of the run, and the palettes' bounds when the engine computed its
//   own (any_order_pose_error_bounds(); null: it skinned with the reference's palettes rounded to float32).
// - Covers, as polynomials in the float inputs evaluated in any arrangement (fused or not): morph targets in
//   any order; LBS as sum_i w_i (JM_i p) or (sum_i w_i JM_i) p or any other grouping; weights as stored or
//   renormalized (a division); normals by the cofactors (or inverse transpose, which differs by a positive
//   factor) of the blended matrix, or by blended normal matrices; tangents by the blended matrix; any
//   normalization within tol::kAnyOrderNormalizeUlps. DQS: each joint's dual quaternion and non-rigid part
//   within tol::kAnyOrderDqsPreparationUlps of the exact split of the engine's matrix, blended in any order,
//   normalized (or divided by |real|^2) and applied by any usual rotation formula.
// - Infinite where a branch may differ (as float32_vertex_error_bounds()): a weight sum within its error of
//   zero; a DQS hemisphere test within its error of zero; a blended real part within its error of zero;
//   a joint whose split has no bound.
#pragma once

#include "verify/vertex_error_bounds.h"

namespace skinref {

std::vector<PrimitiveErrorBounds> any_order_vertex_error_bounds(const Scene& scene,
                                                                const EvaluatedPose& reference_pose,
                                                                const SkinningOptions& options,
                                                                const PoseErrorBounds* palette_bounds);

}  // namespace skinref
