#include "verify/bounds_model.h"

#include "verify/any_order_pose_bounds.h"
#include "verify/any_order_vertex_bounds.h"

namespace skinref {

const char* bounds_model_name(BoundsModel model) {
  return model == BoundsModel::AnyOrder ? "any-order" : "skinref-order";
}

std::optional<BoundsModel> parse_bounds_model(const std::string& name) {
  if (name == "any-order") return BoundsModel::AnyOrder;
  if (name == "skinref-order") return BoundsModel::SkinrefOrder;
  return std::nullopt;
}

PoseErrorBounds pose_error_bounds(BoundsModel model, const Scene& scene, int animation, double time) {
  return model == BoundsModel::AnyOrder ? any_order_pose_error_bounds(scene, animation, time)
                                        : float32_pose_error_bounds(scene, animation, time);
}

std::vector<PrimitiveErrorBounds> vertex_error_bounds(BoundsModel model, const Scene& scene,
                                                      const EvaluatedPose& reference_pose,
                                                      const SkinningOptions& options,
                                                      const PoseErrorBounds* palette_bounds) {
  return model == BoundsModel::AnyOrder ? any_order_vertex_error_bounds(scene, reference_pose, options, palette_bounds)
                                        : float32_vertex_error_bounds(scene, reference_pose, options, palette_bounds);
}

}  // namespace skinref
