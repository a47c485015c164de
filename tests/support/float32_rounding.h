// What a float32 engine holds of the reference's values: each rounded to float32 (to nearest), for the tests
// that play a correct engine with the reference itself (planted engines, detection thresholds, recipe bounds).
// A tangent's handedness (w, +-1) is exact either way.
#pragma once

#include "core/pose.h"
#include "core/vertices.h"

#include <vector>

namespace skinref::test {

inline double rounded_to_float32(double value) { return double(static_cast<float>(value)); }

inline std::vector<WorldPrimitive> rounded_to_float32(std::vector<WorldPrimitive> vertices) {
  for (WorldPrimitive& primitive : vertices) {
    for (Vec3& p : primitive.vertices.positions) p = p.unaryExpr([](double x) { return rounded_to_float32(x); });
    for (Vec3& n : primitive.vertices.normals) n = n.unaryExpr([](double x) { return rounded_to_float32(x); });
    for (Vec4& t : primitive.vertices.tangents) t = t.unaryExpr([](double x) { return rounded_to_float32(x); });
  }
  return vertices;
}

inline EvaluatedPose rounded_to_float32(EvaluatedPose pose) {
  auto round_all = [](auto& matrix) { matrix = matrix.unaryExpr([](double x) { return rounded_to_float32(x); }); };
  for (size_t n = 0; n < pose.local.local.size(); ++n) {
    Transform& t = pose.local.local[n];
    round_all(t.translation);
    round_all(t.scale);
    round_all(t.rotation.coeffs());
    for (double& w : pose.local.morph_weights[n]) w = rounded_to_float32(w);
    round_all(pose.model.global[n]);
  }
  for (JointPalette& palette : pose.palettes) {
    for (Mat4& m : palette.skinning) round_all(m);
    for (Mat3& m : palette.normal) round_all(m);
  }
  return pose;
}

}  // namespace skinref::test
