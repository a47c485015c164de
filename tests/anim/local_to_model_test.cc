// Tests of the local-to-model stage (local_to_model.h) on hand-built scenes: a rotated two-joint chain, a
// three-level chain, a non-joint ancestor whose scale reaches its descendants, a child stored at a lower index
// than its parent, the identity pose, that the pose (not the rest TRS) is used, and that every matrix has the
// exact affine last row; and that every build of the pass gives the bits of compose_trs followed by
// multiply_affine, also into a reused ModelPose.
#include "anim/local_to_model.h"
#include "core/pose.h"
#include "core/scene.h"
#include "support/math_expect.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_matrix_near;
using test::z_rotation;

Node make_node(const std::string& name, const Vec3& translation, const Quat& rotation, const Vec3& scale,
               std::vector<int> children) {
  Node node;
  node.name = name;
  node.rest.translation = translation;
  node.rest.rotation = rotation;
  node.rest.scale = scale;
  node.children = std::move(children);
  return node;
}

Scene make_scene(std::vector<Node> nodes, std::vector<int> roots) {
  Scene scene;
  scene.source = "test:local_to_model";
  scene.nodes = std::move(nodes);
  scene.roots = std::move(roots);
  finalize_scene(scene);
  return scene;
}

ModelPose rest_model_pose(const Scene& scene) { return local_to_model(scene, rest_pose(scene)); }

TEST(LocalToModel, RotatedTwoJointChain) {
  // Parent: translated by (1,0,0), rotated 90 degrees about Z. Child: translated by (1,0,0) in the parent's
  // frame, i.e. along the parent's rotated x axis, which is world +y: child origin at (1,1,0).
  const Scene scene = make_scene({make_node("parent", Vec3(1.0, 0.0, 0.0), z_rotation(std::numbers::pi / 2.0),
                                            Vec3::Ones(), {1}),
                                  make_node("child", Vec3(1.0, 0.0, 0.0), Quat::Identity(), Vec3::Ones(), {})},
                                 {0});
  const ModelPose model = rest_model_pose(scene);
  ASSERT_EQ(model.global.size(), 2u);

  Mat4 parent_expected;
  parent_expected << 0.0, -1.0, 0.0, 1.0,
                     1.0, 0.0, 0.0, 0.0,
                     0.0, 0.0, 1.0, 0.0,
                     0.0, 0.0, 0.0, 1.0;
  Mat4 child_expected;
  child_expected << 0.0, -1.0, 0.0, 1.0,
                    1.0, 0.0, 0.0, 1.0,
                    0.0, 0.0, 1.0, 0.0,
                    0.0, 0.0, 0.0, 1.0;
  expect_matrix_near(model.global[0], parent_expected, tol::kClosedForm);
  expect_matrix_near(model.global[1], child_expected, tol::kClosedForm);
}

TEST(LocalToModel, ThreeLevelChainAccumulatesRotations) {
  // Root: 90 degrees about Z. Middle: (1,0,0) and 90 degrees about Z. Leaf: (1,0,0).
  // Middle origin: Rz90 (1,0,0) = (0,1,0); its frame is rotated 180 degrees. Leaf origin:
  // (0,1,0) + Rz180 (1,0,0) = (-1,1,0).
  const Scene scene = make_scene(
      {make_node("root", Vec3::Zero(), z_rotation(std::numbers::pi / 2.0), Vec3::Ones(), {1}),
       make_node("middle", Vec3(1.0, 0.0, 0.0), z_rotation(std::numbers::pi / 2.0), Vec3::Ones(), {2}),
       make_node("leaf", Vec3(1.0, 0.0, 0.0), Quat::Identity(), Vec3::Ones(), {})},
      {0});
  const ModelPose model = rest_model_pose(scene);
  Mat4 leaf_expected;
  leaf_expected << -1.0, 0.0, 0.0, -1.0,
                   0.0, -1.0, 0.0, 1.0,
                   0.0, 0.0, 1.0, 0.0,
                   0.0, 0.0, 0.0, 1.0;
  expect_matrix_near(model.global[2], leaf_expected, tol::kClosedForm);
}

TEST(LocalToModel, NonJointAncestorScalesDescendants) {
  // Node 0 is not a joint of the skin but scales everything under it by 2.
  Scene scene;
  scene.source = "test:local_to_model";
  scene.nodes = {make_node("armature", Vec3::Zero(), Quat::Identity(), Vec3(2.0, 2.0, 2.0), {1}),
                 make_node("joint_a", Vec3(1.0, 0.0, 0.0), Quat::Identity(), Vec3::Ones(), {2}),
                 make_node("joint_b", Vec3(0.0, 1.0, 0.0), Quat::Identity(), Vec3::Ones(), {})};
  scene.roots = {0};
  Skin skin;
  skin.name = "skin";
  skin.joints = {1, 2};
  skin.inverse_bind = {Mat4::Identity(), Mat4::Identity()};
  scene.skins.push_back(skin);
  finalize_scene(scene);

  const ModelPose model = rest_model_pose(scene);
  Mat4 joint_a_expected = 2.0 * Mat4::Identity();
  joint_a_expected(3, 3) = 1.0;
  joint_a_expected.block<3, 1>(0, 3) = Vec3(2.0, 0.0, 0.0);
  Mat4 joint_b_expected = joint_a_expected;
  joint_b_expected.block<3, 1>(0, 3) = Vec3(2.0, 2.0, 0.0);
  expect_matrix_near(model.global[1], joint_a_expected, tol::kClosedForm);
  expect_matrix_near(model.global[2], joint_b_expected, tol::kClosedForm);
}

TEST(LocalToModel, ChildStoredBeforeParent) {
  // Node 0 is the child of node 1: a pass in index order would read node 1's global before computing it.
  const Scene scene = make_scene(
      {make_node("child", Vec3(1.0, 0.0, 0.0), Quat::Identity(), Vec3::Ones(), {}),
       make_node("parent", Vec3(1.0, 0.0, 0.0), z_rotation(std::numbers::pi / 2.0), Vec3::Ones(), {0})},
      {1});
  ASSERT_EQ(scene.node_order, (std::vector<int>{1, 0}));
  const ModelPose model = rest_model_pose(scene);
  Mat4 child_expected;
  child_expected << 0.0, -1.0, 0.0, 1.0,
                    1.0, 0.0, 0.0, 1.0,
                    0.0, 0.0, 1.0, 0.0,
                    0.0, 0.0, 0.0, 1.0;
  expect_matrix_near(model.global[0], child_expected, tol::kClosedForm);
}

TEST(LocalToModel, IdentityPoseGivesIdentityMatrices) {
  const Scene scene = make_scene({make_node("a", Vec3::Zero(), Quat::Identity(), Vec3::Ones(), {1, 2}),
                                  make_node("b", Vec3::Zero(), Quat::Identity(), Vec3::Ones(), {3}),
                                  make_node("c", Vec3::Zero(), Quat::Identity(), Vec3::Ones(), {}),
                                  make_node("d", Vec3::Zero(), Quat::Identity(), Vec3::Ones(), {})},
                                 {0});
  const ModelPose model = rest_model_pose(scene);
  ASSERT_EQ(model.global.size(), 4u);
  for (const Mat4& global : model.global) EXPECT_EQ(global, Mat4::Identity()) << global;
}

TEST(LocalToModel, UsesThePoseNotTheRestTransform) {
  const Scene scene = make_scene({make_node("parent", Vec3(5.0, 5.0, 5.0), Quat::Identity(), Vec3::Ones(), {1}),
                                  make_node("child", Vec3(7.0, 7.0, 7.0), Quat::Identity(), Vec3::Ones(), {})},
                                 {0});
  LocalPose pose = rest_pose(scene);
  pose.local[0].translation = Vec3(0.0, 0.0, 1.0);
  pose.local[0].scale = Vec3(1.0, 3.0, 1.0);
  pose.local[1].translation = Vec3(0.0, 1.0, 0.0);
  const ModelPose model = local_to_model(scene, pose);
  // Child origin: (0,0,1) + diag(1,3,1) (0,1,0) = (0,3,1).
  const Vec4 child_origin = model.global[1] * Vec4(0.0, 0.0, 0.0, 1.0);
  EXPECT_NEAR(child_origin.x(), 0.0, tol::kClosedForm);
  EXPECT_NEAR(child_origin.y(), 3.0, tol::kClosedForm);
  EXPECT_NEAR(child_origin.z(), 1.0, tol::kClosedForm);
}

TEST(LocalToModel, LastRowIsExactlyAffine) {
  // A chain with rotations about skew axes and non-uniform scales: the last row must still be exactly
  // (0, 0, 0, 1), not a rounded product.
  std::vector<Node> nodes;
  const int chain_length = 6;
  for (int i = 0; i < chain_length; ++i) {
    std::vector<int> children;
    if (i + 1 < chain_length) children.push_back(i + 1);
    nodes.push_back(make_node("n" + std::to_string(i), Vec3(0.3 * i, -1.1, 0.7 + i),
                              Quat(Eigen::AngleAxisd(0.37 * (i + 1), Vec3(1.0, -0.5 * i, 2.0).normalized())),
                              Vec3(1.0 + 0.1 * i, 0.9, 1.3), std::move(children)));
  }
  const Scene scene = make_scene(std::move(nodes), {0});
  const ModelPose model = rest_model_pose(scene);
  ASSERT_EQ(model.global.size(), static_cast<size_t>(chain_length));
  for (int i = 0; i < chain_length; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(model.global[i](3, 0), 0.0);
    EXPECT_EQ(model.global[i](3, 1), 0.0);
    EXPECT_EQ(model.global[i](3, 2), 0.0);
    EXPECT_EQ(model.global[i](3, 3), 1.0);
  }
}

// A random tree of `count` nodes (node i's parent drawn from the nodes before it, several roots), with
// rotations of any angle (unit and not), scales of both signs and translations up to 1e3.
Scene random_tree(int count, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<Node> nodes;
  std::vector<int> roots;
  for (int i = 0; i < count; ++i) {
    Quat rotation(unit(random), unit(random), unit(random), unit(random));
    if (i % 3 != 0) rotation.normalize();
    const Vec3 scale(1.5 * unit(random), 0.2 + unit(random) * unit(random), 2.0 * unit(random));
    nodes.push_back(make_node("n" + std::to_string(i), 1e3 * Vec3(unit(random), unit(random), unit(random)),
                              rotation, scale, {}));
    if (i == 0 || i % 11 == 0) {
      roots.push_back(i);
    } else {
      const int parent = int(random() % uint32_t(i));
      nodes[size_t(parent)].children.push_back(i);
    }
  }
  return make_scene(std::move(nodes), std::move(roots));
}

TEST(LocalToModel, EveryBuildGivesTheBitsOfComposeTrsAndMultiplyAffine) {
  const Scene scene = random_tree(200, 2026);
  const LocalPose pose = rest_pose(scene);
  // The stage's contract, computed with the public helpers one node at a time.
  std::vector<Mat4> expected(scene.nodes.size());
  for (int n : scene.node_order) {
    const int parent = scene.nodes[size_t(n)].parent;
    const Mat4 local = compose_trs(pose.local[size_t(n)]);
    expected[size_t(n)] = parent < 0 ? local : multiply_affine(expected[size_t(parent)], local);
  }
  using local_to_model_detail::Isa;
  int builds_run = 0;
  for (const Isa isa : {Isa::Baseline, Isa::Avx2}) {
    SCOPED_TRACE(isa == Isa::Baseline ? "baseline" : "avx2");
    // A reused pose of another size, holding values that must all be overwritten.
    ModelPose model;
    model.global.assign(7, Mat4::Constant(std::nan("")));
    if (!local_to_model_detail::local_to_model_with(isa, scene, pose, model)) continue;
    ++builds_run;
    ASSERT_EQ(model.global.size(), expected.size());
    for (size_t n = 0; n < expected.size(); ++n)
      EXPECT_EQ(std::memcmp(model.global[n].data(), expected[n].data(), sizeof(Mat4)), 0)
          << "node " << n << "\nactual:\n" << model.global[n] << "\nexpected:\n" << expected[n];
  }
  EXPECT_GE(builds_run, 1);
  if (builds_run < 2) std::cout << "[ NOTE ] this CPU has no AVX2: only the baseline build was compared\n";
  // The entry points take one of them.
  ModelPose reused;
  local_to_model(scene, pose, reused);
  const ModelPose fresh = local_to_model(scene, pose);
  for (size_t n = 0; n < expected.size(); ++n) {
    EXPECT_EQ(std::memcmp(reused.global[n].data(), expected[n].data(), sizeof(Mat4)), 0) << "node " << n;
    EXPECT_EQ(std::memcmp(fresh.global[n].data(), expected[n].data(), sizeof(Mat4)), 0) << "node " << n;
  }
}

}  // namespace
}  // namespace skinref
