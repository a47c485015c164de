// Test utility: the fixtures the skinning tests share (skinning_lbs_test.cc, skinning_dqs_test.cc): palettes
// as compute_palette builds them, vertex data that a SkinningInput points into, one-call LBS and DQS, the
// all-zero-weights check both methods must pass, varied input from fixed formulas (no randomness) and a
// byte-for-byte comparison of two skinning outputs.
#pragma once

#include "anim/palette.h"
#include "core/math_types.h"
#include "core/vertices.h"
#include "skin/dqs.h"
#include "skin/lbs.h"
#include "support/math_expect.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace skinref::test {

// A palette as compute_palette would produce it: normal matrices from the skinning matrices' linear parts.
inline JointPalette make_palette(const std::vector<Mat4>& skinning) {
  JointPalette palette;
  palette.skinning = skinning;
  for (const Mat4& m : skinning) palette.normal.push_back(normal_matrix(m.topLeftCorner<3, 3>()));
  return palette;
}

// Owns the vertex data that a SkinningInput points into.
struct VertexData {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;
  std::vector<Vec4> tangents;
  int influences_per_vertex = 0;
  std::vector<uint32_t> joints;
  std::vector<double> weights;

  SkinningInput input(const JointPalette& palette) const {
    SkinningInput in;
    in.positions = positions;
    in.normals = normals;
    in.tangents = tangents;
    in.influences_per_vertex = influences_per_vertex;
    in.joints = joints;
    in.weights = weights;
    in.palette = &palette;
    return in;
  }
};

inline SkinnedVertices lbs(const VertexData& data, const JointPalette& palette, const SkinningOptions& options = {}) {
  SkinnedVertices out;
  skin_lbs(data.input(palette), options, out);
  return out;
}

inline SkinnedVertices dqs(const VertexData& data, const JointPalette& palette, const SkinningOptions& options = {}) {
  SkinnedVertices out;
  skin_dqs(data.input(palette), options, out);
  return out;
}

using SkinFunction = SkinnedVertices (*)(const VertexData&, const JointPalette&, const SkinningOptions&);

// One vertex whose weights are all zero keeps its bind position, normal and tangent exactly, under either
// weight policy, whatever `palette` does to it (a joint 0 that moves it).
inline void expect_zero_weights_keep_bind_attributes(SkinFunction skin, const JointPalette& palette) {
  VertexData data;
  data.positions = {Vec3(0.3, -0.7, 1.9)};
  data.normals = {Vec3(0.0, 0.6, 0.8)};
  data.tangents = {Vec4(0.8, 0.0, -0.6, -1.0)};
  data.influences_per_vertex = 4;
  data.joints = {0, 0, 0, 0};
  data.weights = {0.0, 0.0, 0.0, 0.0};
  for (WeightPolicy policy : {WeightPolicy::AsStored, WeightPolicy::Renormalize}) {
    SCOPED_TRACE(static_cast<int>(policy));
    SkinningOptions options;
    options.weights = policy;
    const SkinnedVertices out = skin(data, palette, options);
    EXPECT_EQ(out.positions[0], data.positions[0]);
    EXPECT_EQ(out.normals[0], data.normals[0]);
    EXPECT_EQ(out.tangents[0], data.tangents[0]);
  }
}

// Varied skinning input from fixed formulas: `vertex_count` vertices, `influences` per vertex over 5 joints
// with rotations (joint j turns by 0.3 + angle_step j), non-uniform scales, translations and one mirrored joint
// (negative determinant); every 97th vertex has all-zero weights, and weights do not always sum to 1.
struct VariedInput {
  JointPalette palette;
  VertexData data;
};

inline VariedInput make_varied_input(int vertex_count, int influences, double angle_step) {
  constexpr int kJointCount = 5;
  std::vector<Mat4> matrices;
  for (int j = 0; j < kJointCount; ++j) {
    const double mirror = j == 3 ? -1.0 : 1.0;
    const Mat3 linear =
        rotation(0.3 + angle_step * j, Vec3(1.0, j, 2.0 - j)) * Vec3(mirror * (1.0 + 0.1 * j), 1.0, 0.8).asDiagonal();
    matrices.push_back(affine(linear, Vec3(0.5 * j, -0.25 * j, 1.0)));
  }
  VariedInput input{make_palette(matrices), {}};
  VertexData& data = input.data;
  data.influences_per_vertex = influences;
  for (int v = 0; v < vertex_count; ++v) {
    const double s = static_cast<double>(v);
    data.positions.push_back(Vec3(std::sin(s * 0.37), std::cos(s * 0.11), 0.001 * s));
    data.normals.push_back(Vec3(std::cos(s * 0.5), std::sin(s * 0.5), 0.3).normalized());
    data.tangents.push_back(Vec4(std::sin(s * 0.5), -std::cos(s * 0.5), 0.0, (v % 2 == 0) ? 1.0 : -1.0));
    for (int i = 0; i < influences; ++i) {
      data.joints.push_back(static_cast<uint32_t>((v + 2 * i) % kJointCount));
      data.weights.push_back(v % 97 == 0 ? 0.0 : (0.1 + 0.5 * ((v + i) % 7) / 7.0) / influences);
    }
  }
  return input;
}

// memcmp of the whole buffers (an empty vector's data() may be null, which memcmp must not get).
template <typename T>
void expect_same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  ASSERT_EQ(a.size(), b.size());
  if (!a.empty()) {
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)), 0);
  }
}

inline void expect_bit_identical(const SkinnedVertices& a, const SkinnedVertices& b) {
  expect_same_bytes(a.positions, b.positions);
  expect_same_bytes(a.normals, b.normals);
  expect_same_bytes(a.tangents, b.tangents);
}

// The same drawn primitives (node, mesh, primitive, skinned) with bit-identical vertices.
inline void expect_same_primitives(const std::vector<WorldPrimitive>& actual, const std::vector<WorldPrimitive>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("primitive " + std::to_string(i));
    EXPECT_EQ(actual[i].node, expected[i].node);
    EXPECT_EQ(actual[i].mesh, expected[i].mesh);
    EXPECT_EQ(actual[i].primitive, expected[i].primitive);
    EXPECT_EQ(actual[i].skinned, expected[i].skinned);
    expect_bit_identical(actual[i].vertices, expected[i].vertices);
  }
}

}  // namespace skinref::test
