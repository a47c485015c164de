// Pose selection: which pose a command (`pose`, `skin`, `render`, `compare`) or a golden case evaluates, a
// clip or a recipe, at a time. One function, so that the CLI and the golden harness agree by construction.
//
// Contract:
// - PoseSource: a loaded recipe (anim/recipe.h, its names already resolved against the scene) when
//   `recipe` is set; else the bind pose (anim/bind_pose.h) when `bind` is set; else `animation`, an index into
//   scene.animations or -1 for the rest pose.
// - select_pose(scene, source, time): the recipe evaluated at `time` when given, else at its own time
//   (evaluate_recipe()); or the clip at `time`, 0 when not given (evaluate_pose()). Errors as those two.
//   The bind pose does not depend on the time.
// - PoseSource::description(): "recipe PATH", "bind pose", "animation N" or "rest pose", for summary lines.
#pragma once

#include "anim/recipe.h"
#include "core/pose.h"

#include <optional>
#include <string>

namespace skinref {

struct PoseSource {
  int animation = -1;            // the clip, when there is no recipe; -1: the rest pose
  std::optional<Recipe> recipe;  // takes precedence over `bind` and `animation`
  bool bind = false;             // the skins' bind pose; takes precedence over `animation`
  std::string recipe_path;       // as the user gave it, for descriptions

  std::string description() const;
};

EvaluatedPose select_pose(const Scene& scene, const PoseSource& source, std::optional<double> time);

}  // namespace skinref
