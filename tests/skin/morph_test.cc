// Tests of morph targets (morph.h): p0 + sum_k w_k dP_k with two targets and hand values, zero weights leave
// the bind attributes bit for bit, a target without normal deltas contributes nothing to normals, tangent w is
// kept, attributes the primitive lacks stay empty, and normals are not renormalized by this stage.
#include "core/scene.h"
#include "skin/morph.h"
#include "support/math_expect.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_vec3_near;

// Two vertices, two targets. Target 0 moves positions, normals and tangents; target 1 moves only positions
// and tangents (no normal deltas).
Primitive two_target_primitive() {
  Primitive primitive;
  primitive.topology = Topology::Points;
  primitive.positions = {Vec3(1.0, 2.0, 3.0), Vec3(-0.3, 0.7, 1.1)};
  primitive.normals = {Vec3(0.0, 0.0, 1.0), Vec3(0.6, 0.8, 0.0)};
  primitive.tangents = {Vec4(1.0, 0.0, 0.0, -1.0), Vec4(0.0, 1.0, 0.0, 1.0)};
  primitive.indices = {0, 1};

  MorphTarget target0;
  target0.position_deltas = {Vec3(1.0, 0.0, 0.0), Vec3(0.0, 2.0, 0.0)};
  target0.normal_deltas = {Vec3(0.0, 1.0, 0.0), Vec3(0.0, 0.0, 1.0)};
  target0.tangent_deltas = {Vec3(0.0, 0.0, 1.0), Vec3(1.0, 0.0, 0.0)};
  MorphTarget target1;
  target1.position_deltas = {Vec3(0.0, 0.0, -4.0), Vec3(3.0, 0.0, 1.0)};
  target1.tangent_deltas = {Vec3(0.0, 2.0, 0.0), Vec3(0.0, 0.0, -2.0)};
  primitive.targets = {target0, target1};
  return primitive;
}

TEST(Morph, TwoTargetsWeightedSum) {
  const Primitive primitive = two_target_primitive();
  const std::vector<double> weights = {0.5, 0.25};
  const MorphedAttributes morphed = apply_morph_targets(primitive, weights);
  ASSERT_EQ(morphed.positions.size(), 2u);
  ASSERT_EQ(morphed.normals.size(), 2u);
  ASSERT_EQ(morphed.tangents.size(), 2u);

  // Vertex 0: (1,2,3) + 0.5 (1,0,0) + 0.25 (0,0,-4) = (1.5, 2, 2).
  expect_vec3_near(morphed.positions[0], Vec3(1.5, 2.0, 2.0), tol::kClosedForm);
  // Vertex 1: (-0.3,0.7,1.1) + 0.5 (0,2,0) + 0.25 (3,0,1) = (0.45, 1.7, 1.35).
  expect_vec3_near(morphed.positions[1], Vec3(0.45, 1.7, 1.35), tol::kClosedForm);
}

TEST(Morph, TargetWithoutNormalDeltasContributesNothingToNormals) {
  const Primitive primitive = two_target_primitive();
  const std::vector<double> weights = {0.5, 0.25};
  const MorphedAttributes morphed = apply_morph_targets(primitive, weights);
  // Only target 0 has normal deltas: n0 + 0.5 dN0. Not renormalized by this stage.
  expect_vec3_near(morphed.normals[0], Vec3(0.0, 0.5, 1.0), tol::kClosedForm);
  expect_vec3_near(morphed.normals[1], Vec3(0.6, 0.8, 0.5), tol::kClosedForm);

  // With target 0 at weight zero, the normals are those of the bind pose whatever target 1's weight.
  const std::vector<double> only_second = {0.0, 0.9};
  const MorphedAttributes second = apply_morph_targets(primitive, only_second);
  EXPECT_EQ(second.normals[0], primitive.normals[0]);
  EXPECT_EQ(second.normals[1], primitive.normals[1]);
}

TEST(Morph, TangentXyzMovesAndHandednessIsKept) {
  const Primitive primitive = two_target_primitive();
  const std::vector<double> weights = {0.5, 0.25};
  const MorphedAttributes morphed = apply_morph_targets(primitive, weights);
  // Vertex 0: (1,0,0) + 0.5 (0,0,1) + 0.25 (0,2,0) = (1, 0.5, 0.5), w = -1.
  expect_vec3_near(morphed.tangents[0].head<3>(), Vec3(1.0, 0.5, 0.5), tol::kClosedForm);
  EXPECT_EQ(morphed.tangents[0].w(), -1.0);
  // Vertex 1: (0,1,0) + 0.5 (1,0,0) + 0.25 (0,0,-2) = (0.5, 1, -0.5), w = +1.
  expect_vec3_near(morphed.tangents[1].head<3>(), Vec3(0.5, 1.0, -0.5), tol::kClosedForm);
  EXPECT_EQ(morphed.tangents[1].w(), 1.0);
}

TEST(Morph, ZeroWeightsLeaveBindAttributesBitExact) {
  const Primitive primitive = two_target_primitive();
  const std::vector<double> weights = {0.0, 0.0};
  const MorphedAttributes morphed = apply_morph_targets(primitive, weights);
  ASSERT_EQ(morphed.positions.size(), primitive.positions.size());
  ASSERT_EQ(morphed.normals.size(), primitive.normals.size());
  ASSERT_EQ(morphed.tangents.size(), primitive.tangents.size());
  EXPECT_EQ(std::memcmp(morphed.positions.data(), primitive.positions.data(),
                        primitive.positions.size() * sizeof(Vec3)),
            0);
  EXPECT_EQ(std::memcmp(morphed.normals.data(), primitive.normals.data(), primitive.normals.size() * sizeof(Vec3)),
            0);
  EXPECT_EQ(std::memcmp(morphed.tangents.data(), primitive.tangents.data(),
                        primitive.tangents.size() * sizeof(Vec4)),
            0);
}

TEST(Morph, MissingAttributesStayEmpty) {
  Primitive primitive;
  primitive.topology = Topology::Points;
  primitive.positions = {Vec3(0.0, 0.0, 0.0)};
  primitive.indices = {0};
  MorphTarget target;
  target.position_deltas = {Vec3(0.0, -2.0, 0.0)};
  primitive.targets = {target};
  const std::vector<double> weights = {0.75};
  const MorphedAttributes morphed = apply_morph_targets(primitive, weights);
  ASSERT_EQ(morphed.positions.size(), 1u);
  expect_vec3_near(morphed.positions[0], Vec3(0.0, -1.5, 0.0), tol::kClosedForm);
  EXPECT_TRUE(morphed.normals.empty());
  EXPECT_TRUE(morphed.tangents.empty());
}

TEST(Morph, NegativeAndLargeWeightsAreUsedAsGiven) {
  // glTF does not clamp morph weights: a weight of -1 subtracts the delta, 2 doubles it.
  const Primitive primitive = two_target_primitive();
  const std::vector<double> weights = {-1.0, 2.0};
  const MorphedAttributes morphed = apply_morph_targets(primitive, weights);
  // Vertex 0: (1,2,3) - (1,0,0) + 2 (0,0,-4) = (0, 2, -5).
  expect_vec3_near(morphed.positions[0], Vec3(0.0, 2.0, -5.0), tol::kClosedForm);
}

}  // namespace
}  // namespace skinref
