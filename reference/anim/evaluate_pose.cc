#include "anim/evaluate_pose.h"

#include "anim/local_to_model.h"
#include "anim/palette.h"
#include "anim/sampling.h"
#include "anim/time_mapping.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace skinref {
namespace {

// morph-targets=K: the K largest |w| of each node stay, the others become 0.
void keep_largest_morph_weights(LocalPose& pose, int max_targets) {
  for (std::vector<double>& weights : pose.morph_weights) {
    if (weights.size() <= size_t(max_targets)) continue;
    std::vector<size_t> order(weights.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return std::abs(weights[a]) > std::abs(weights[b]); });
    for (size_t i = size_t(max_targets); i < order.size(); ++i) weights[order[i]] = 0.0;
  }
}

}  // namespace

EvaluatedPose evaluate_pose(const Scene& scene, int animation, double time) {
  return evaluate_pose(scene, animation, time, Conventions{});
}

EvaluatedPose evaluate_pose(const Scene& scene, int animation, double time, const Conventions& conventions) {
  EvaluatedPose pose;
  pose.animation = animation;
  pose.time = time;
  pose.local = rest_pose(scene);
  if (conventions.morph.defaults == MorphDefaults::Ignored)
    for (std::vector<double>& weights : pose.local.morph_weights) std::fill(weights.begin(), weights.end(), 0.0);
  pose.clip_time = convention_sample_time(scene, animation, time, conventions.time);
  if (animation >= 0) sample_animation(scene, animation, pose.clip_time, pose.local, conventions.sampling);
  if (conventions.morph.max_targets > 0) keep_largest_morph_weights(pose.local, conventions.morph.max_targets);
  pose.model = local_to_model(scene, pose.local);
  pose.palettes.reserve(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s)
    pose.palettes.push_back(compute_palette(scene, pose.model, int(s), conventions.palette));
  return pose;
}

}  // namespace skinref
