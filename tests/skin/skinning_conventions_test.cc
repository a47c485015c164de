// The skinning-stage conventions (reference/skin/skinning_conventions.h, evaluate_vertices with conventions)
// against closed forms: L2 weights and joint 0 for a weightless vertex; the three normal transforms with and
// without normalization on two rigid joints a rotation apart and on a scaled joint; morph deltas after
// skinning; the mesh node's transform on top. With no convention, evaluate_vertices is bit-identical to its
// glTF form on every built-in scene.
#include "anim/evaluate_pose.h"
#include "io/builtin_scenes.h"
#include "skin/evaluate_vertices.h"
#include "skin/skinning_conventions.h"
#include "support/convention_scene.h"
#include "support/skinning_fixtures.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::affine;
using test::make_palette;
using test::rotation;
using test::VertexData;

SkinningConventions skinning_with(std::initializer_list<const char*> assignments) {
  Conventions c;
  for (const char* a : assignments) set_convention(c, a);
  return c.skinning;
}

TEST(SkinningConventionsTest, L2WeightsAndAWeightlessVertexOnJointZero) {
  const std::vector<uint32_t> joints{1, 2, 3, 4};
  const std::vector<double> weights{0.3, 0.4, 0.0, 0.0, 0.0, 0.0};
  const AdjustedInfluences l2 = adjust_influences(joints, std::vector<double>{0.3, 0.4}, 2, skinning_with({"weights=l2"}));
  EXPECT_DOUBLE_EQ(l2.weights[0], 0.6);
  EXPECT_DOUBLE_EQ(l2.weights[1], 0.8);
  const AdjustedInfluences zero =
      adjust_influences(std::vector<uint32_t>{3, 2}, std::vector<double>{0.0, 0.0}, 2, skinning_with({"zero-weights=joint0"}));
  EXPECT_EQ(zero.joints, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(zero.weights, (std::vector<double>{1.0, 0.0}));
  EXPECT_FALSE(influences_need_adjusting(SkinningConventions{}));
  EXPECT_FALSE(influences_need_adjusting(skinning_with({"weights=sum"})));  // a WeightPolicy of every backend
}

// Two rigid joints, rotations by +theta and -theta about z, blended 50/50: B3 = diag(cos, cos, 1).
TEST(SkinningConventionsTest, NormalTransformsOfABlendOfTwoRotations) {
  const double theta = 0.6;
  const JointPalette palette = make_palette({affine(rotation(theta, Vec3::UnitZ()), Vec3::Zero()),
                                             affine(rotation(-theta, Vec3::UnitZ()), Vec3::Zero())});
  VertexData data;
  data.positions = {Vec3(1.0, 2.0, 3.0)};
  data.normals = {Vec3(1.0, 0.0, 0.0)};
  data.tangents = {Vec4(1.0, 0.0, 0.0, -1.0)};
  data.influences_per_vertex = 2;
  data.joints = {0, 1};
  data.weights = {0.5, 0.5};
  const double c = std::cos(theta);
  struct Case {
    std::initializer_list<const char*> conventions;
    Vec3 normal;
    Vec3 tangent;
  };
  const Case cases[] = {
      // The inverse transpose diag(1/c, 1/c, 1): normalized (1, 0, 0), or of length 1/c.
      {{"normalize=no"}, Vec3(1.0 / c, 0, 0), Vec3(c, 0, 0)},
      // The blended normal matrices (rotations: their own inverse transposes): (c, 0, 0).
      {{"normals=blend-normal-matrices", "normalize=no"}, Vec3(c, 0, 0), Vec3(c, 0, 0)},
      {{"normals=blend-upper3x3", "normalize=no"}, Vec3(c, 0, 0), Vec3(c, 0, 0)},
      {{"normals=blend-upper3x3"}, Vec3(1, 0, 0), Vec3(1, 0, 0)},
  };
  for (const Case& k : cases) {
    const SkinningConventions conventions = skinning_with(k.conventions);
    SkinnedVertices out;
    skin_lbs_normal_variant(data.input(palette), SkinningOptions{}, conventions, out);
    test::expect_vec3_near(out.positions[0], Vec3(c * 1.0, c * 2.0, 3.0), tol::kClosedForm);
    test::expect_vec3_near(out.normals[0], k.normal, tol::kClosedForm);
    test::expect_vec3_near(out.tangents[0].head<3>(), k.tangent, tol::kClosedForm);
    EXPECT_EQ(out.tangents[0].w(), -1.0);
  }
}

// One joint scaling x by 2: the normal (1, 1, 0)/sqrt2 goes to (1/2, 1, 0)/sqrt2 under the inverse
// transpose and to (2, 1, 0)/sqrt2 under the matrix itself.
TEST(SkinningConventionsTest, NormalTransformsOfANonUniformScale) {
  Mat3 scale = Mat3::Identity();
  scale(0, 0) = 2.0;
  const JointPalette palette = make_palette({affine(scale, Vec3(0, 1, 0))});
  VertexData data;
  data.positions = {Vec3(1, 1, 1)};
  data.normals = {Vec3(1, 1, 0) / std::sqrt(2.0)};
  data.influences_per_vertex = 1;
  data.joints = {0};
  data.weights = {1.0};
  SkinnedVertices out;
  skin_lbs_normal_variant(data.input(palette), {}, skinning_with({"normalize=no"}), out);
  test::expect_vec3_near(out.positions[0], Vec3(2, 2, 1), tol::kClosedForm);
  test::expect_vec3_near(out.normals[0], Vec3(0.5, 1, 0) / std::sqrt(2.0), tol::kClosedForm);
  skin_lbs_normal_variant(data.input(palette), {}, skinning_with({"normals=blend-upper3x3"}), out);
  test::expect_vec3_near(out.normals[0], Vec3(2, 1, 0).normalized(), tol::kClosedForm);
}

// A joint scaling x by 2 and a rigid quarter turn about z, blended 50/50, on the normal (1, 1, 0)/sqrt2:
// blending the joints' inverse transposes (ozz-animation) gives 0.5 diag(1/2, 1, 1) n + 0.5 R n; blending the
// normal matrices (cofactors, det 2 and 1) gives 0.5 diag(1, 2, 2) n + 0.5 R n, another direction.
TEST(SkinningConventionsTest, BlendedInverseTransposesAreNotBlendedCofactors) {
  Mat3 scale = Mat3::Identity();
  scale(0, 0) = 2.0;
  const Mat3 quarter = rotation(std::acos(-1.0) / 2.0, Vec3::UnitZ());
  const JointPalette palette = make_palette({affine(scale, Vec3::Zero()), affine(quarter, Vec3::Zero())});
  VertexData data;
  data.positions = {Vec3(1, 1, 1)};
  data.normals = {Vec3(1, 1, 0) / std::sqrt(2.0)};
  data.influences_per_vertex = 2;
  data.joints = {0, 1};
  data.weights = {0.5, 0.5};
  const Vec3 n = data.normals[0];
  const Vec3 turned(-n.y(), n.x(), 0.0);  // R n
  const Vec3 inverse_transposes = 0.5 * Vec3(0.5 * n.x(), n.y(), n.z()) + 0.5 * turned;
  const Vec3 cofactors = 0.5 * Vec3(n.x(), 2.0 * n.y(), 2.0 * n.z()) + 0.5 * turned;
  SkinnedVertices out;
  skin_lbs_normal_variant(data.input(palette), {}, skinning_with({"normals=blend-inverse-transposes", "normalize=no"}), out);
  test::expect_vec3_near(out.normals[0], inverse_transposes, tol::kClosedForm);
  skin_lbs_normal_variant(data.input(palette), {}, skinning_with({"normals=blend-inverse-transposes"}), out);
  test::expect_vec3_near(out.normals[0], inverse_transposes.normalized(), tol::kClosedForm);
  skin_lbs_normal_variant(data.input(palette), {}, skinning_with({"normals=blend-normal-matrices", "normalize=no"}), out);
  test::expect_vec3_near(out.normals[0], cofactors, tol::kClosedForm);
  EXPECT_GT((inverse_transposes.normalized() - cofactors.normalized()).norm(), 0.1);
  // Positions as glTF's: 0.5 (2, 1, 1) + 0.5 (-1, 1, 1).
  test::expect_vec3_near(out.positions[0], Vec3(0.5, 1, 1), tol::kClosedForm);
}

TEST(SkinningConventionsTest, MorphAfterSkinningAndTheMeshNodeOnTop) {
  // One joint: a quarter turn about z and a lift by (0, 1, 0); one target moving x by 1 at weight 0.5.
  Primitive prim;
  prim.positions = {Vec3(1, 0, 0)};
  prim.normals = {Vec3(1, 0, 0)};
  MorphTarget target;
  target.position_deltas = {Vec3(1, 0, 0)};
  prim.targets = {target};
  const Mat4 joint = affine(rotation(M_PI / 2, Vec3::UnitZ()), Vec3(0, 1, 0));
  SkinnedVertices skinned;
  skinned.positions = {joint.topLeftCorner<3, 3>() * prim.positions[0] + Vec3(0, 1, 0)};  // (0, 2, 0)
  skinned.normals = {Vec3(0, 1, 0)};
  add_morph_deltas_after_skinning(prim, std::vector<double>{0.5}, true, skinned);
  test::expect_vec3_near(skinned.positions[0], Vec3(0.5, 2, 0), tol::kClosedForm);  // not rotated: + (0.5, 0, 0)
  // Before skinning the delta turns with the joint: R (1.5, 0, 0) + (0, 1, 0) = (0, 2.5, 0).
  // The mesh node's transform on top: scale 2 and a shift by (1, 0, 0).
  Mat3 twice = Mat3::Identity() * 2.0;
  SkinnedVertices moved;
  moved.positions = {Vec3(1, 2, 3)};
  moved.normals = {Vec3(0, 0, 1)};
  apply_mesh_node_transform(affine(twice, Vec3(1, 0, 0)), true, moved);
  test::expect_vec3_near(moved.positions[0], Vec3(3, 4, 6), tol::kClosedForm);
  test::expect_vec3_near(moved.normals[0], Vec3(0, 0, 1), tol::kClosedForm);
  apply_mesh_node_transform(affine(twice, Vec3(1, 0, 0)), false, moved);  // the true inverse transpose: 1/2
  test::expect_vec3_near(moved.normals[0], Vec3(0, 0, 0.5), tol::kClosedForm);
}

// three.js's normals under a skinned mesh node M (mesh-node=normals-by-normal-matrix-times-inverse): N(M) M^-1 =
// (M M^T)^-1. With M = R diag(2, 0.5, 1) (R a quarter turn about z): M M^T = R diag(4, 0.25, 1) R^T, so a normal
// along R (1, 1, 0) / sqrt 2 goes to R (1/4, 4, 0), normalized; positions and tangents stay.
TEST(SkinningConventionsTest, ThreeJsNormalsUnderTheMeshNode) {
  const Mat3 turn = rotation(M_PI / 2, Vec3::UnitZ());
  const Mat3 linear = turn * Vec3(2.0, 0.5, 1.0).asDiagonal();
  SkinnedVertices v;
  v.positions = {Vec3(1, 2, 3)};
  v.normals = {turn * Vec3(1, 1, 0).normalized()};
  v.tangents = {Vec4(0, 0, 1, -1)};
  apply_mesh_node_normal_mismatch(affine(linear, Vec3(5, 6, 7)), true, v);
  test::expect_vec3_near(v.positions[0], Vec3(1, 2, 3), tol::kClosedForm);
  test::expect_vec3_near(v.normals[0], turn * Vec3(0.25, 4, 0).normalized(), tol::kClosedForm);
  EXPECT_EQ(v.tangents[0], Vec4(0, 0, 1, -1));
  v.normals = {turn * Vec3(1, 1, 0).normalized()};
  apply_mesh_node_normal_mismatch(affine(linear, Vec3(5, 6, 7)), false, v);  // unnormalized: the map's own scale
  test::expect_vec3_near(v.normals[0], turn * Vec3(0.25, 4, 0) / std::sqrt(2.0), tol::kClosedForm);
  // A rotation times a uniform scale leaves the direction: glTF's normals.
  v.normals = {Vec3(0, 0.6, 0.8)};
  apply_mesh_node_normal_mismatch(affine(turn * 3.0, Vec3(1, 0, 0)), true, v);
  test::expect_vec3_near(v.normals[0], Vec3(0, 0.6, 0.8), tol::kClosedForm);
}

TEST(SkinningConventionsTest, WholePipelineOnTheConventionScene) {
  const Scene scene = testing::make_convention_scene();
  Conventions applied;
  set_convention(applied, "mesh-node=applied");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 1.2);
  const std::vector<WorldPrimitive> gltf = evaluate_vertices(scene, pose, {});
  const std::vector<WorldPrimitive> on_top = evaluate_vertices(scene, pose, {}, applied);
  const Mat4& body = pose.model.global[5];
  for (size_t v = 0; v < gltf[0].vertices.positions.size(); ++v)
    test::expect_vec3_near(on_top[0].vertices.positions[v],
                           body.topLeftCorner<3, 3>() * gltf[0].vertices.positions[v] + body.block<3, 1>(0, 3), 1e-12);
  // DQS has no blended matrix to take the upper 3x3 of: refused.
  Conventions upper;
  set_convention(upper, "normals=blend-upper3x3");
  SkinningOptions dqs;
  dqs.method = SkinningMethod::Dqs;
  EXPECT_THROW(evaluate_vertices(scene, pose, dqs, upper), std::invalid_argument);
}

TEST(SkinningConventionsTest, NoConventionIsTheGltfVerticesBitForBit) {
  for (const std::string& name : builtin_scene_names()) {
    if (name == "million") continue;  // a million vertices: the other scenes cover every code path
    const Scene scene = make_builtin_scene(name);
    const EvaluatedPose pose = evaluate_pose(scene, scene.animations.empty() ? -1 : 0, 0.4);
    for (const SkinningMethod method : kSkinningMethods) {
      SkinningOptions options;
      options.method = method;
      test::expect_same_primitives(evaluate_vertices(scene, pose, options, Conventions{}),
                                   evaluate_vertices(scene, pose, options));
    }
  }
}

}  // namespace
}  // namespace skinref
