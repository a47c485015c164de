// Tests of the joint palette (palette.h): JM_i = G(joint_i) * IBM_i in skin-joint order, identity at the bind
// pose when IBM is the inverse bind global (with a non-joint scaled ancestor), independence from the skinned
// mesh node's own transform, and the per-joint normal matrices under uniform and non-uniform scale.
#include "anim/local_to_model.h"
#include "anim/palette.h"
#include "core/pose.h"
#include "core/scene.h"
#include "support/math_expect.h"
#include "support/scene_nodes.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::affine;
using test::expect_matrix3_near;
using test::expect_matrix_near;
using test::expect_vec3_near;
using test::make_node;
using test::make_trs;
using test::rotation;

Mat4 translation_matrix(const Vec3& t) {
  Mat4 m = Mat4::Identity();
  m.block<3, 1>(0, 3) = t;
  return m;
}

// Joint nodes 0..joint_count-1, no hierarchy, one skin over them in the order `skin_joints` with the given
// inverse bind matrices. Used with hand-made ModelPoses so that the palette is tested on its own.
Scene flat_joint_scene(int joint_count, std::vector<int> skin_joints, std::vector<Mat4> inverse_bind) {
  Scene scene;
  scene.source = "test:palette";
  for (int i = 0; i < joint_count; ++i) {
    scene.nodes.push_back(make_node("joint" + std::to_string(i), Transform{}, {}));
    scene.roots.push_back(i);
  }
  Skin skin;
  skin.name = "skin";
  skin.joints = std::move(skin_joints);
  skin.inverse_bind = std::move(inverse_bind);
  scene.skins.push_back(skin);
  finalize_scene(scene);
  return scene;
}

TEST(Palette, GlobalTimesInverseBindInSkinJointOrder) {
  // The skin lists node 2 first, then node 0; node 1 is not a joint.
  const Mat4 ibm_for_node2 = translation_matrix(Vec3(0.0, 0.0, -1.0));
  const Mat4 ibm_for_node0 = translation_matrix(Vec3(0.0, -1.0, 0.0));
  const Scene scene = flat_joint_scene(3, {2, 0}, {ibm_for_node2, ibm_for_node0});

  ModelPose model;
  model.global = {affine(rotation(std::numbers::pi / 2.0, Vec3::UnitZ()), Vec3(1.0, 0.0, 0.0)),
                  affine(7.0 * Mat3::Identity(), Vec3(50.0, 60.0, 70.0)),
                  affine(2.0 * Mat3::Identity(), Vec3::Zero())};
  const JointPalette palette = compute_palette(scene, model, 0);
  ASSERT_EQ(palette.skinning.size(), 2u);
  ASSERT_EQ(palette.normal.size(), 2u);

  // Joint 0 (node 2): 2 I * T(0,0,-1) = 2 I with translation (0,0,-2).
  Mat4 expected0 = affine(2.0 * Mat3::Identity(), Vec3(0.0, 0.0, -2.0));
  expect_matrix_near(palette.skinning[0], expected0, tol::kClosedForm);
  // Joint 1 (node 0): [Rz90 | (1,0,0)] * T(0,-1,0): translation Rz90 (0,-1,0) + (1,0,0) = (2,0,0).
  Mat4 expected1;
  expected1 << 0.0, -1.0, 0.0, 2.0,
               1.0, 0.0, 0.0, 0.0,
               0.0, 0.0, 1.0, 0.0,
               0.0, 0.0, 0.0, 1.0;
  expect_matrix_near(palette.skinning[1], expected1, tol::kClosedForm);
  // The bind-space point (0,1,0) sits at joint 1's origin in bind space, so it lands on the joint: (1,0,0).
  const Vec4 moved = palette.skinning[1] * Vec4(0.0, 1.0, 0.0, 1.0);
  expect_vec3_near(moved.head<3>(), Vec3(1.0, 0.0, 0.0), tol::kClosedForm);
  // A rotation's normal matrix is the rotation itself (cofactor of a determinant-1 matrix).
  expect_matrix3_near(palette.normal[1], rotation(std::numbers::pi / 2.0, Vec3::UnitZ()), tol::kClosedForm);
}

// Mesh node 0 (skinned, its own transform given), then a non-joint armature root scaled by 2 and moved, with
// a chain of three joints under it. Inverse bind matrices are the inverses of the bind globals, computed
// here as products of the nodes' TRS matrices.
Scene skinned_chain_scene(const Transform& mesh_node_transform) {
  Scene scene;
  scene.source = "test:palette";
  const Transform armature = make_trs(Vec3(3.0, 0.0, 0.0), Quat::Identity(), Vec3(2.0, 2.0, 2.0));
  const Transform joint0 = make_trs(Vec3(0.0, 1.0, 0.0), Quat(Eigen::AngleAxisd(std::numbers::pi / 6.0, Vec3::UnitX())),
                                    Vec3::Ones());
  const Transform joint1 = make_trs(Vec3(0.0, 2.0, 0.0),
                                    Quat(Eigen::AngleAxisd(-2.0 * std::numbers::pi / 9.0, Vec3::UnitZ())), Vec3::Ones());
  const Transform joint2 = make_trs(Vec3(0.5, 1.0, 0.0), Quat::Identity(), Vec3(1.5, 1.5, 1.5));

  Node mesh_node = make_node("skinned_mesh", mesh_node_transform, {});
  mesh_node.mesh = 0;
  mesh_node.skin = 0;
  scene.nodes = {mesh_node, make_node("armature", armature, {2}), make_node("joint0", joint0, {3}),
                 make_node("joint1", joint1, {4}), make_node("joint2", joint2, {})};
  scene.roots = {0, 1};

  const Mat4 bind0 = compose_trs(armature) * compose_trs(joint0);
  const Mat4 bind1 = bind0 * compose_trs(joint1);
  const Mat4 bind2 = bind1 * compose_trs(joint2);
  Skin skin;
  skin.name = "skin";
  skin.joints = {2, 3, 4};
  skin.inverse_bind = {bind0.inverse(), bind1.inverse(), bind2.inverse()};
  scene.skins.push_back(skin);

  Primitive primitive;
  primitive.positions = {Vec3(0.0, 0.0, 0.0), Vec3(1.0, 0.0, 0.0), Vec3(0.0, 1.0, 0.0)};
  primitive.indices = {0, 1, 2};
  primitive.influences_per_vertex = 4;
  primitive.joints = {0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0};
  primitive.weights = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0};
  Mesh mesh;
  mesh.name = "skinned";
  mesh.primitives.push_back(primitive);
  scene.meshes.push_back(mesh);
  finalize_scene(scene);
  return scene;
}

TEST(Palette, BindPoseGivesIdentity) {
  const Scene scene = skinned_chain_scene(Transform{});
  const JointPalette palette = compute_palette(scene, local_to_model(scene, rest_pose(scene)), 0);
  ASSERT_EQ(palette.skinning.size(), 3u);
  for (size_t i = 0; i < palette.skinning.size(); ++i) {
    SCOPED_TRACE(i);
    expect_matrix_near(palette.skinning[i], Mat4::Identity(), tol::kClosedForm);
    expect_matrix3_near(palette.normal[i], Mat3::Identity(), tol::kClosedForm);
  }
}

TEST(Palette, SkinnedMeshNodeTransformIsIgnored) {
  const Scene plain = skinned_chain_scene(Transform{});
  const Scene moved = skinned_chain_scene(make_trs(Vec3(100.0, -200.0, 300.0),
                                                   Quat(Eigen::AngleAxisd(1.0, Vec3(1.0, 1.0, 0.0).normalized())),
                                                   Vec3(5.0, 5.0, 5.0)));
  // Pose one joint away from bind so that the palette is not trivially the identity.
  LocalPose plain_pose = rest_pose(plain);
  LocalPose moved_pose = rest_pose(moved);
  const Quat bend(Eigen::AngleAxisd(std::numbers::pi / 2.0, Vec3::UnitZ()));
  plain_pose.local[3].rotation = bend;
  moved_pose.local[3].rotation = bend;
  const JointPalette plain_palette = compute_palette(plain, local_to_model(plain, plain_pose), 0);
  const JointPalette moved_palette = compute_palette(moved, local_to_model(moved, moved_pose), 0);

  ASSERT_EQ(plain_palette.skinning.size(), moved_palette.skinning.size());
  for (size_t i = 0; i < plain_palette.skinning.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(plain_palette.skinning[i], moved_palette.skinning[i]);
    EXPECT_EQ(plain_palette.normal[i], moved_palette.normal[i]);
  }
  // Joint 0 stays at bind; the mesh node's 100-unit offset must not show up in it.
  expect_matrix_near(moved_palette.skinning[0], Mat4::Identity(), tol::kClosedForm);
}

TEST(Palette, UniformlyScaledJointNormalMatrixIsParallelToRotation) {
  const Mat3 rotation = Eigen::AngleAxisd(0.8, Vec3(1.0, 1.0, 1.0).normalized()).toRotationMatrix();
  const Scene scene = flat_joint_scene(1, {0}, {Mat4::Identity()});
  ModelPose model;
  model.global = {affine(3.0 * rotation, Vec3(1.0, 2.0, 3.0))};
  const JointPalette palette = compute_palette(scene, model, 0);
  // normal_matrix(3R) = 9R (cofactor): a positive multiple of R. Divide by the length of a column.
  const Mat3& normal = palette.normal[0];
  expect_matrix3_near(normal / normal.col(0).norm(), rotation, tol::kClosedForm);
}

TEST(Palette, NonUniformlyScaledJoint) {
  // G = Rz90 * diag(2,1,1): columns of the skinning matrix are Rz90 (2,0,0) = (0,2,0), Rz90 (0,1,0) = (-1,0,0)
  // and (0,0,1). The normal (1,1,0)/sqrt(2) of the plane x + y = 0 goes through the inverse transpose:
  // Rz90 diag(1/2,1,1) (1,1,0) ~ Rz90 (1,2,0) = (-2,1,0), normalized by sqrt(5).
  const Scene scene = flat_joint_scene(1, {0}, {Mat4::Identity()});
  ModelPose model;
  const Mat3 linear = rotation(std::numbers::pi / 2.0, Vec3::UnitZ()) * Vec3(2.0, 1.0, 1.0).asDiagonal();
  model.global = {affine(linear, Vec3(0.0, 0.0, 4.0))};
  const JointPalette palette = compute_palette(scene, model, 0);

  Mat4 expected;
  expected << 0.0, -1.0, 0.0, 0.0,
              2.0, 0.0, 0.0, 0.0,
              0.0, 0.0, 1.0, 4.0,
              0.0, 0.0, 0.0, 1.0;
  expect_matrix_near(palette.skinning[0], expected, tol::kClosedForm);
  const Vec3 normal = (palette.normal[0] * Vec3(1.0, 1.0, 0.0).normalized()).normalized();
  expect_vec3_near(normal, Vec3(-2.0, 1.0, 0.0) / std::sqrt(5.0), tol::kClosedForm);
}

TEST(Palette, NormalMatrixIsOfTheSkinningMatrixNotTheGlobal) {
  // G = Rz90 * diag(2,1,1) and IBM = diag(1/2,1,1): JM is the pure rotation Rz90, so its normal matrix is
  // Rz90, although G alone has a non-uniform scale.
  Mat4 ibm = Mat4::Identity();
  ibm(0, 0) = 0.5;
  const Scene scene = flat_joint_scene(1, {0}, {ibm});
  ModelPose model;
  const Mat3 rotation = test::rotation(std::numbers::pi / 2.0, Vec3::UnitZ());
  model.global = {affine(rotation * Vec3(2.0, 1.0, 1.0).asDiagonal(), Vec3::Zero())};
  const JointPalette palette = compute_palette(scene, model, 0);
  expect_matrix_near(palette.skinning[0], affine(rotation, Vec3::Zero()), tol::kClosedForm);
  expect_matrix3_near(palette.normal[0], rotation, tol::kClosedForm);
}

}  // namespace
}  // namespace skinref
