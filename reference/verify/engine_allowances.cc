#include "verify/engine_allowances.h"

#include "anim/sampling.h"
#include "core/number_text.h"
#include "verify/any_order_pose_bounds.h"

#include <cmath>

namespace skinref {
namespace {

// The allowances on top of the local bounds: rotations by half their angle per component and in their turn,
// translations and scales by their relative size.
void widen_local_bounds(LocalErrorBounds& bounds, const LocalPose& values, const EngineAllowances& allowances) {
  const double turn = 0.5 * allowances.rotation;
  for (size_t n = 0; n < bounds.trs.size(); ++n) {
    const Transform& trs = values.local[n];
    std::array<double, 10>& e = bounds.trs[n];
    for (int i = 0; i < 3; ++i) {
      e[size_t(i)] += allowances.translation_scale * std::abs(trs.translation[i]);
      e[size_t(7 + i)] += allowances.translation_scale * std::abs(trs.scale[i]);
    }
    for (size_t i = 3; i < 7; ++i) e[i] += turn;
    if (n < bounds.rotation_split.size()) bounds.rotation_split[n].direction += turn;
  }
}

}  // namespace

PoseErrorBounds pose_error_bounds_allowing(BoundsModel model, const Scene& scene, int animation, double time,
                                           const EngineAllowances& allowances) {
  if (!allowances.any()) return pose_error_bounds(model, scene, animation, time);
  tol::SamplingAllowances sampling =
      model == BoundsModel::AnyOrderWide ? tol::kWideSamplingAllowances : tol::kStatedSamplingAllowances;
  sampling.interpolation_relative = allowances.interpolation;
  LocalPose values = rest_pose(scene);
  if (animation >= 0) sample_animation(scene, animation, time, values);
  LocalErrorBounds local = any_order_local_error_bounds(scene, animation, time, 0.0, sampling);
  widen_local_bounds(local, values, allowances);
  return any_order_pose_bounds_from_locals(scene, values, local);
}

std::string describe_engine_allowances(const EngineAllowances& allowances) {
  std::string text;
  auto add = [&text](double size, const std::string& what, const char* unit) {
    if (size > 0.0) text += (text.empty() ? "" : ", ") + what + " within " + number_text(size) + unit;
  };
  add(allowances.rotation, "key rotations", " rad");
  add(allowances.translation_scale, "translations and scales", " relative");
  add(allowances.interpolation, "the interpolation factor", " relative");
  return text;
}

}  // namespace skinref
