#include "anim/evaluate_pose.h"

#include "anim/local_to_model.h"
#include "anim/palette.h"
#include "anim/sampling.h"

namespace skinref {

EvaluatedPose evaluate_pose(const Scene& scene, int animation, double time) {
  EvaluatedPose pose;
  pose.animation = animation;
  pose.time = time;
  pose.local = rest_pose(scene);
  if (animation >= 0) sample_animation(scene, animation, time, pose.local);
  pose.model = local_to_model(scene, pose.local);
  pose.palettes.reserve(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) pose.palettes.push_back(compute_palette(scene, pose.model, int(s)));
  return pose;
}

}  // namespace skinref
