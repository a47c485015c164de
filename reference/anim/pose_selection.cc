#include "anim/pose_selection.h"

#include "anim/bind_pose.h"
#include "anim/evaluate_pose.h"

namespace skinref {

std::string PoseSource::description() const {
  if (recipe) return "recipe " + recipe_path;
  if (bind) return "bind pose";
  return animation < 0 ? std::string("rest pose") : "animation " + std::to_string(animation);
}

EvaluatedPose select_pose(const Scene& scene, const PoseSource& source, std::optional<double> time) {
  if (source.recipe) return evaluate_recipe(scene, *source.recipe, time);
  if (source.bind) return bind_pose(scene);
  return evaluate_pose(scene, source.animation, time.value_or(0.0));
}

}  // namespace skinref
