#include "anim/pose_selection.h"

#include "anim/evaluate_pose.h"

namespace skinref {

std::string PoseSource::description() const {
  if (recipe) return "recipe " + recipe_path;
  return animation < 0 ? std::string("rest pose") : "animation " + std::to_string(animation);
}

EvaluatedPose select_pose(const Scene& scene, const PoseSource& source, std::optional<double> time) {
  if (source.recipe) return evaluate_recipe(scene, *source.recipe, time);
  return evaluate_pose(scene, source.animation, time.value_or(0.0));
}

}  // namespace skinref
