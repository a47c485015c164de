// Tests of the bind pose (anim/bind_pose.h): joints placed at the inverse of their inverse bind matrices under a
// non-joint scaled ancestor whose rest is kept, palettes that are the identity, the first skin deciding a shared
// joint, a bind local with shear refused by name, and --pose bind's pose source (anim/pose_selection.h).
// Expected values are the bind TRS the inverse bind matrices were built from (closed form).
#include "anim/bind_pose.h"
#include "anim/pose_selection.h"
#include "core/input_error.h"
#include "core/pose.h"
#include "core/scene.h"
#include "support/math_expect.h"
#include "support/scene_nodes.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <numbers>
#include <string>
#include <utility>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_matrix_near;
using test::make_node;
using test::make_trs;
using test::expect_vec3_near;

// An armature (not a joint, scaled by 2) over a chain of two joints. The joints' bind TRS are `bind0` and
// `bind1`; their rest TRS are other values, so that the rest pose and the bind pose differ.
struct BindScene {
  Scene scene;
  Transform armature, bind0, bind1;
};

BindScene two_joint_scene() {
  BindScene made;
  made.armature = make_trs(Vec3(3.0, 0.0, 0.0), Quat::Identity(), Vec3(2.0, 2.0, 2.0));
  made.bind0 = make_trs(Vec3(0.0, 1.0, 0.0), Quat(Eigen::AngleAxisd(std::numbers::pi / 6.0, Vec3::UnitX())), Vec3::Ones());
  made.bind1 = make_trs(Vec3(0.0, 2.0, 0.5), Quat(Eigen::AngleAxisd(-0.4, Vec3::UnitZ())), Vec3(1.5, 1.5, 1.5));
  const Transform rest0 = make_trs(Vec3(1.0, 0.0, 0.0), Quat(Eigen::AngleAxisd(1.1, Vec3::UnitY())), Vec3::Ones());
  const Transform rest1 = make_trs(Vec3(0.0, 3.0, 0.0), Quat::Identity(), Vec3::Ones());
  Scene& scene = made.scene;
  scene.source = "test:bind-pose";
  scene.nodes = {make_node("armature", made.armature, {1}), make_node("joint0", rest0, {2}),
                 make_node("joint1", rest1, {})};
  scene.roots = {0};
  const Mat4 global0 = compose_trs(made.armature) * compose_trs(made.bind0);
  const Mat4 global1 = global0 * compose_trs(made.bind1);
  Skin skin;
  skin.name = "skin";
  skin.joints = {1, 2};
  skin.inverse_bind = {global0.inverse(), global1.inverse()};
  scene.skins.push_back(skin);
  finalize_scene(scene);
  return made;
}

void expect_trs_near(const Transform& actual, const Transform& expected) {
  expect_vec3_near(actual.translation, expected.translation, tol::kClosedForm);
  expect_vec3_near(actual.scale, expected.scale, tol::kClosedForm);
  // q and -q are one rotation.
  EXPECT_NEAR(std::abs(actual.rotation.dot(expected.rotation)), 1.0, tol::kClosedForm);
}

TEST(BindPose, JointsAtTheirBindTransformsAndPalettesIdentity) {
  const BindScene made = two_joint_scene();
  const EvaluatedPose pose = bind_pose(made.scene);
  expect_trs_near(pose.local.local[0], made.armature);  // not a joint: its rest
  expect_trs_near(pose.local.local[1], made.bind0);
  expect_trs_near(pose.local.local[2], made.bind1);
  ASSERT_EQ(pose.palettes.size(), 1u);
  ASSERT_EQ(pose.palettes[0].skinning.size(), 2u);
  for (const Mat4& entry : pose.palettes[0].skinning) expect_matrix_near(entry, Mat4::Identity(), tol::kClosedForm);
  EXPECT_EQ(pose.animation, -1);
  EXPECT_EQ(pose.time, 0.0);
}

TEST(BindPose, FirstSkinDecidesASharedJoint) {
  BindScene made = two_joint_scene();
  // A second skin over joint1 alone, with another inverse bind matrix: the first skin still places joint1, so
  // the second skin's entry is G_bind(joint1) * its own IBM.
  const Mat4 other_ibm = compose_trs(make_trs(Vec3(0.0, 0.0, -5.0), Quat::Identity(), Vec3::Ones()));
  Skin second;
  second.name = "second";
  second.joints = {2};
  second.inverse_bind = {other_ibm};
  made.scene.skins.push_back(second);
  const EvaluatedPose pose = bind_pose(made.scene);
  expect_trs_near(pose.local.local[2], made.bind1);
  ASSERT_EQ(pose.palettes.size(), 2u);
  const Mat4 global1 = made.scene.skins[0].inverse_bind[1].inverse();
  expect_matrix_near(pose.palettes[1].skinning[0], global1 * other_ibm, tol::kClosedForm);
}

TEST(BindPose, ShearedBindLocalIsRefusedNamingTheJoint) {
  BindScene made = two_joint_scene();
  Mat4 sheared = Mat4::Identity();
  sheared(0, 1) = 0.5;  // x += 0.5 y: no TRS reproduces it
  made.scene.skins[0].inverse_bind[0] = sheared.inverse();
  try {
    bind_pose(made.scene);
    FAIL() << "a sheared bind local was accepted";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("test:bind-pose"), std::string::npos) << message;
    EXPECT_NE(message.find("/skins/0/inverseBindMatrices"), std::string::npos) << message;
    EXPECT_NE(message.find("joint node 1 'joint0'"), std::string::npos) << message;
  }
}

TEST(BindPose, PoseSourceSelectsItWhateverTheTime) {
  const BindScene made = two_joint_scene();
  PoseSource source;
  source.bind = true;
  EXPECT_EQ(source.description(), "bind pose");
  const EvaluatedPose at_time = select_pose(made.scene, source, 0.75);
  const EvaluatedPose direct = bind_pose(made.scene);
  ASSERT_EQ(at_time.model.global.size(), direct.model.global.size());
  for (size_t n = 0; n < direct.model.global.size(); ++n) EXPECT_EQ(at_time.model.global[n], direct.model.global[n]);
  // The rest pose is another pose: joint0 rests elsewhere.
  PoseSource rest;
  EXPECT_EQ(rest.description(), "rest pose");
  const EvaluatedPose rest_pose_evaluated = select_pose(made.scene, rest, std::nullopt);
  EXPECT_GT((rest_pose_evaluated.model.global[1] - direct.model.global[1]).norm(), 0.5);
}

}  // namespace
}  // namespace skinref
