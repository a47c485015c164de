#include "verify/bounds_model.h"

#include "verify/any_order_pose_bounds.h"
#include "verify/any_order_vertex_bounds.h"

namespace skinref {

const char* bounds_model_name(BoundsModel model) {
  switch (model) {
    case BoundsModel::AnyOrder: return "any-order";
    case BoundsModel::AnyOrderWide: return "any-order-wide";
    case BoundsModel::SkinrefOrder: return "skinref-order";
  }
  return "?";
}

std::optional<BoundsModel> parse_bounds_model(const std::string& name) {
  for (BoundsModel model : {BoundsModel::AnyOrder, BoundsModel::AnyOrderWide, BoundsModel::SkinrefOrder})
    if (name == bounds_model_name(model)) return model;
  return std::nullopt;
}

PoseErrorBounds pose_error_bounds(BoundsModel model, const Scene& scene, int animation, double time) {
  switch (model) {
    case BoundsModel::AnyOrder: return any_order_pose_error_bounds(scene, animation, time, tol::kStatedSamplingAllowances);
    case BoundsModel::AnyOrderWide: return any_order_pose_error_bounds(scene, animation, time, tol::kWideSamplingAllowances);
    case BoundsModel::SkinrefOrder: return float32_pose_error_bounds(scene, animation, time);
  }
  return float32_pose_error_bounds(scene, animation, time);
}

std::vector<PrimitiveErrorBounds> vertex_error_bounds(BoundsModel model, const Scene& scene,
                                                      const EvaluatedPose& reference_pose,
                                                      const SkinningOptions& options,
                                                      const PoseErrorBounds* palette_bounds) {
  // The sampling allowances reach the vertices through palette_bounds; the skinning stage is the same.
  return model == BoundsModel::SkinrefOrder
             ? float32_vertex_error_bounds(scene, reference_pose, options, palette_bounds)
             : any_order_vertex_error_bounds(scene, reference_pose, options, palette_bounds);
}

}  // namespace skinref
