// Which error bounds a comparison holds a float32 run to (docs/error_bounds.md):
// - BoundsModel::AnyOrder ("any-order"): bounds that hold for every correct float32 engine, whatever its order
//   of operations (any_order_pose_bounds.h, any_order_vertex_bounds.h), whose slerp and quaternion
//   normalization meet the stated allowances (tol::kStatedSamplingAllowances, 4 ulp each). The default for
//   dumps that do not come from skinref.
// - BoundsModel::AnyOrderWide ("any-order-wide"): the same with the wide allowances of every slerp and
//   normalization formula known (tol::kWideSamplingAllowances: 16 and 12 ulp). A value over the first and
//   within this one is an engine whose sampling functions are less accurate than stated, not a departure.
// - BoundsModel::SkinrefOrder ("skinref-order"): bounds exact for the one order of operations of skinref's
//   float32 paths (gpu/shaders/animation.comp and skin.comp; pose_error_bounds.h, vertex_error_bounds.h):
//   tighter, and the default for skinref's own float32 dumps.
// Both give the same layout of bounds; these functions dispatch on the model.
#pragma once

#include "verify/pose_error_bounds.h"
#include "verify/vertex_error_bounds.h"

#include <optional>
#include <string>

namespace skinref {

enum class BoundsModel { AnyOrder, AnyOrderWide, SkinrefOrder };

const char* bounds_model_name(BoundsModel model);
std::optional<BoundsModel> parse_bounds_model(const std::string& name);

PoseErrorBounds pose_error_bounds(BoundsModel model, const Scene& scene, int animation, double time);

std::vector<PrimitiveErrorBounds> vertex_error_bounds(BoundsModel model, const Scene& scene,
                                                      const EvaluatedPose& reference_pose,
                                                      const SkinningOptions& options,
                                                      const PoseErrorBounds* palette_bounds);

}  // namespace skinref
