// What the float32 skinning tests of every backend share (tests/gpu_*_test.cc, tests/cpu/cpu_skinning_test.cc):
// the times and names their cases use, and the values builtin:twist's half turn is expected to leave at the
// cap of the derived bounds.
#pragma once

#include "core/scene.h"
#include "io/builtin_scenes.h"
#include "skin/lbs.h"
#include "support/sanitizer_workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace skinref::test {

inline const char* method_name(SkinningMethod method) { return skinning_method_name(method); }

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

// sample_times() of the built-in scene `name`, but only the time between keys where the scene runs once
// (once_under_sanitizers: builtin:million under ASan).
inline std::vector<double> builtin_sample_times(const Scene& scene, const std::string& name) {
  if (once_under_sanitizers(name)) return {0.4 * scene.animations[0].end_time};
  return sample_times(scene, 0);
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

// builtin:bend with what the built-in scenes lack: tangents (perpendicular to the normals, both handednesses),
// two morph targets with deltas on every attribute and non-zero default weights (one negative), and a rigid
// node, the same mesh without a skin, hanging under the elbow (so its global matrix is animated).
inline Scene decorated_bend() {
  Scene scene = make_builtin_scene("bend");
  Mesh& mesh = scene.meshes[0];
  for (Primitive& prim : mesh.primitives) {
    const size_t n = prim.vertex_count();
    prim.tangents.resize(n);
    for (size_t v = 0; v < n; ++v) {
      Vec3 t = prim.normals[v].cross(Vec3::UnitZ());
      if (t.norm() < 0.1) t = prim.normals[v].cross(Vec3::UnitX());
      t.normalize();
      prim.tangents[v] = Vec4(t.x(), t.y(), t.z(), v % 2 == 0 ? 1.0 : -1.0);
    }
    for (int k = 0; k < 2; ++k) {
      MorphTarget target;
      for (size_t v = 0; v < n; ++v) {
        const double a = 0.37 * double(v) + k;
        target.position_deltas.push_back(0.05 * Vec3(std::sin(a), std::cos(a), std::sin(2.0 * a)));
        target.normal_deltas.push_back(0.1 * Vec3(std::cos(a), std::sin(3.0 * a), std::sin(a)));
        target.tangent_deltas.push_back(0.1 * Vec3(std::sin(5.0 * a), std::cos(a), std::cos(2.0 * a)));
      }
      prim.targets.push_back(std::move(target));
    }
  }
  mesh.default_weights = {0.25, -0.6};
  int elbow = -1;
  for (size_t i = 0; i < scene.nodes.size(); ++i)
    if (scene.nodes[i].name == "elbow") elbow = int(i);
  EXPECT_GE(elbow, 0);
  Node rigid;
  rigid.name = "rigid_copy";
  rigid.mesh = 0;
  rigid.rest.translation = Vec3(0.0, 0.5, 0.25);
  rigid.rest.scale = Vec3(1.0, 0.5, 2.0);  // non-uniform: normals by the inverse transpose
  scene.nodes.push_back(rigid);
  scene.nodes[size_t(elbow)].children.push_back(int(scene.nodes.size()) - 1);
  finalize_scene(scene);
  return scene;
}

// Every built-in scene but builtin:million (a million vertices: the other scenes cover its code paths), and
// a gtest name for each ("eight-influences" -> "eight_influences").
inline std::vector<std::string> small_builtin_scene_names() {
  std::vector<std::string> names;
  for (const std::string& name : builtin_scene_names())
    if (name != "million") names.push_back(name);
  return names;
}

inline std::string builtin_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

}  // namespace skinref::test
