// What the float32 skinning tests of every backend share (tests/gpu_*_test.cc, tests/cpu_skinning_test.cc):
// the times and names their cases use, and the values builtin:twist's half turn is expected to leave at the
// cap of the derived bounds.
#pragma once

#include "io/builtin_scenes.h"
#include "core/scene.h"
#include "skin/lbs.h"

#include <cstdio>
#include <string>
#include <vector>

namespace skinref::test {

inline const char* method_name(SkinningMethod method) { return method == SkinningMethod::Dqs ? "dqs" : "lbs"; }

inline std::string time_text(double time) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", time);
  return text;
}

// Three times over an animation's timeline: its start, a time between keys (no key of the built-in scenes
// falls on 0.4 of their duration) and its end (for builtin:twist the candy-wrapper extreme, 180 degrees, where
// LBS collapses the middle ring onto the axis). Just 0 for a model without animation or with a single key.
inline std::vector<double> sample_times(const Scene& scene, int animation) {
  const double end = animation >= 0 ? scene.animations[size_t(animation)].end_time : 0.0;
  if (end == 0.0) return {0.0};
  return {0.0, 0.4 * end, end};
}

// LBS at builtin:twist's half turn: the middle ring (x = L/2, weights 0.5 / 0.5) collapses onto the axis, its
// blended matrix diag(1, 0, 0) is singular and its normals have no direction to bound: at the cap.
inline size_t twist_collapsed_ring(const Scene& scene) {
  size_t ring = 0;
  for (const Vec3& p : scene.meshes[0].primitives[0].positions) ring += p.x() == 0.5 * kTwistLength ? 1 : 0;
  return ring;
}

// builtin:twist with every weight multiplied by `factor` (weights that do not sum to 1).
inline Scene twist_with_scaled_weights(double factor) {
  Scene scene = make_builtin_scene("twist");
  for (double& w : scene.meshes[0].primitives[0].weights) w *= factor;
  finalize_scene(scene);
  return scene;
}

// Both weight policies x both normal conventions x LBS and DQS, and a label for each.
inline std::vector<SkinningOptions> weight_and_normal_options() {
  std::vector<SkinningOptions> sets;
  for (WeightPolicy weights : {WeightPolicy::AsStored, WeightPolicy::Renormalize})
    for (NormalMode normals : {NormalMode::InverseTransposeOfBlend, NormalMode::BlendedNormalMatrices})
      for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
        SkinningOptions options;
        options.weights = weights;
        options.normals = normals;
        options.method = method;
        sets.push_back(options);
      }
  return sets;
}
inline std::string options_label(const SkinningOptions& options) {
  return std::string(method_name(options.method)) +
         (options.weights == WeightPolicy::Renormalize ? " renormalize" : " as-stored") +
         (options.normals == NormalMode::BlendedNormalMatrices ? " blend-normal-matrices" : "");
}

}  // namespace skinref::test
