// The reference's animation pipeline for one clip at one time: sample -> local to model -> palettes.
//
// Contract:
// - `animation` is an index into scene.animations, or -1 for the rest pose; `time` is the clip's own time
//   in seconds (sample_animation() clamps it to the key range).
// - The result holds the local pose, the model pose and one palette per skin (compute_palette()).
//   Recipes (blends, masks, IK) build an EvaluatedPose through anim/recipe.h instead; anim/pose_selection.h
//   chooses between the two.
#pragma once

#include "core/pose.h"

namespace skinref {

EvaluatedPose evaluate_pose(const Scene& scene, int animation, double time);

}  // namespace skinref
