// Tests of the IK post-process (ik.h) on hand-built scenes, against closed-form geometry: two-bone IK reaching
// a target on the pole's side (law of cosines), the pole choosing the bend side, unreachable and too-near
// targets (straight and folded chains), weight 0 (bit-exact no-op) and 0.5 (half the local rotations), soft
// IK's analytic shortfall, chains under translated / rotated / scaled / mirrored non-joint parents and with
// intermediate nodes, that only the root's subtree changes; aim IK's forward and up axes (pole side, pole
// fallback, non-orthogonal axes, rotated and mirrored parents, weights); update_subtree against a full
// local_to_model (bit-exact); and the refusal of every invalid input.
#include "anim/ik.h"
#include "anim/local_to_model.h"
#include "core/input_error.h"
#include "core/pose.h"
#include "core/scene.h"
#include "support/math_expect.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_vec3_near;

constexpr double kPi = std::numbers::pi;

Quat axis_rotation(double radians, const Vec3& axis) { return Quat(test::rotation(radians, axis)); }

Node make_node(const std::string& name, const Vec3& translation, std::vector<int> children,
               const Quat& rotation = Quat::Identity(), const Vec3& scale = Vec3::Ones()) {
  Node node;
  node.name = name;
  node.rest.translation = translation;
  node.rest.rotation = rotation;
  node.rest.scale = scale;
  node.children = std::move(children);
  return node;
}

// A scene with its rest pose and model pose, ready for the solvers.
struct Posed {
  Scene scene;
  LocalPose local;
  ModelPose model;
};

Posed make_posed(std::vector<Node> nodes, std::vector<int> roots) {
  Posed p;
  p.scene.source = "test:ik";
  p.scene.nodes = std::move(nodes);
  p.scene.roots = std::move(roots);
  finalize_scene(p.scene);
  p.local = rest_pose(p.scene);
  p.model = local_to_model(p.scene, p.local);
  return p;
}

// root (0,0,0) -> middle (1,0,0) -> end (2,0,0): two unit bones along +x.
Posed straight_chain(double second_length = 1.0) {
  return make_posed({make_node("root", Vec3::Zero(), {1}), make_node("middle", Vec3(1.0, 0.0, 0.0), {2}),
                     make_node("end", Vec3(second_length, 0.0, 0.0), {})},
                    {0});
}

Vec3 pos(const ModelPose& model, int node) { return model.global[size_t(node)].block<3, 1>(0, 3); }

// The world direction of a node's local axis: its global linear part applied, normalized (unit-scale joints,
// so this is the model rotation applied to the axis).
Vec3 world_axis(const ModelPose& model, int node, const Vec3& local_axis) {
  return (model.global[size_t(node)].topLeftCorner<3, 3>() * local_axis).normalized();
}

bool same_bits(const Mat4& a, const Mat4& b) { return std::memcmp(a.data(), b.data(), sizeof(double) * 16) == 0; }

bool same_bits(const Transform& a, const Transform& b) {
  return std::memcmp(a.translation.data(), b.translation.data(), sizeof(double) * 3) == 0 &&
         std::memcmp(a.rotation.coeffs().data(), b.rotation.coeffs().data(), sizeof(double) * 4) == 0 &&
         std::memcmp(a.scale.data(), b.scale.data(), sizeof(double) * 3) == 0;
}

// The solvers leave a model pose that a full local_to_model of their local pose reproduces bit for bit.
void expect_model_consistent(const Posed& p) {
  const ModelPose full = local_to_model(p.scene, p.local);
  for (size_t n = 0; n < p.scene.nodes.size(); ++n)
    EXPECT_TRUE(same_bits(p.model.global[n], full.global[n])) << "node " << n;
}

// Moves every global matrix by (0.5, 0, 0): a model pose that a recomputation from the local pose would not
// reproduce, so the weight-0 tests see any recomputation, not only changed rotations.
void shift_model(ModelPose& model) {
  for (Mat4& m : model.global) m(0, 3) += 0.5;
}

TwoBoneIk chain_ik(const Vec3& target, const Vec3& pole) {
  TwoBoneIk ik;
  ik.root = 0;
  ik.middle = 1;
  ik.end = 2;
  ik.target = target;
  ik.pole = pole;
  return ik;
}

// ---------------------------------------------------------------------------------------------------------
// Two-bone IK

TEST(TwoBoneIk, ReachesTargetWithMiddleOnPoleSide) {
  // Target (1,1,0) at distance sqrt(2) from the root: the law of cosines puts the middle 45 degrees off the
  // root-target line. Pole (1,2,0) leans towards (-1,1,0) from that line, so the middle goes to (0,1,0).
  Posed p = straight_chain();
  apply_two_bone_ik(p.scene, chain_ik(Vec3(1.0, 1.0, 0.0), Vec3(1.0, 2.0, 0.0)), p.local, p.model);
  expect_vec3_near(pos(p.model, 0), Vec3::Zero(), tol::kIkReach);
  expect_vec3_near(pos(p.model, 1), Vec3(0.0, 1.0, 0.0), tol::kIkReach);
  expect_vec3_near(pos(p.model, 2), Vec3(1.0, 1.0, 0.0), tol::kIkReach);
  EXPECT_NEAR((pos(p.model, 1) - pos(p.model, 0)).norm(), 1.0, tol::kIkReach);
  EXPECT_NEAR((pos(p.model, 2) - pos(p.model, 1)).norm(), 1.0, tol::kIkReach);
  expect_model_consistent(p);
}

TEST(TwoBoneIk, OppositePoleBendsTheOtherWay) {
  // Same target, pole (1,-2,0): the middle goes 45 degrees to the other side of the line, i.e. stays at
  // (1,0,0), and only the middle joint turns (90 degrees about +z).
  Posed p = straight_chain();
  apply_two_bone_ik(p.scene, chain_ik(Vec3(1.0, 1.0, 0.0), Vec3(1.0, -2.0, 0.0)), p.local, p.model);
  expect_vec3_near(pos(p.model, 1), Vec3(1.0, 0.0, 0.0), tol::kIkReach);
  expect_vec3_near(pos(p.model, 2), Vec3(1.0, 1.0, 0.0), tol::kIkReach);
  expect_model_consistent(p);
}

TEST(TwoBoneIk, PoleChoosesTheBendSideOfAStraightChain) {
  // Target (1.5,0,0) on the chain's own line: the law of cosines gives the middle at x = (1 + d^2 - 1) / 2d =
  // 0.75 along the line and h = sqrt(1 - 0.75^2) off it, towards the pole (+z or -z).
  const double x = 0.75;
  const double h = std::sqrt(1.0 - x * x);
  for (const double side : {1.0, -1.0}) {
    SCOPED_TRACE(side);
    Posed p = straight_chain();
    apply_two_bone_ik(p.scene, chain_ik(Vec3(1.5, 0.0, 0.0), Vec3(0.0, 0.0, 5.0 * side)), p.local, p.model);
    expect_vec3_near(pos(p.model, 1), Vec3(x, 0.0, side * h), tol::kIkReach);
    expect_vec3_near(pos(p.model, 2), Vec3(1.5, 0.0, 0.0), tol::kIkReach);
    expect_model_consistent(p);
  }
}

TEST(TwoBoneIk, PoleOnTheTargetLineKeepsTheCurrentBendSide) {
  // The chain starts bent towards -y (root turned -45 degrees, middle +90: middle at (1,-1,0)/sqrt(2), end at
  // (sqrt(2),0,0)); the pole lies on the root-target line, so the middle stays on its current side (-y).
  Posed p = make_posed({make_node("root", Vec3::Zero(), {1}, axis_rotation(-kPi / 4.0, Vec3::UnitZ())),
                        make_node("middle", Vec3(1.0, 0.0, 0.0), {2}, axis_rotation(kPi / 2.0, Vec3::UnitZ())),
                        make_node("end", Vec3(1.0, 0.0, 0.0), {})},
                       {0});
  ASSERT_LT(pos(p.model, 1).y(), 0.0);
  apply_two_bone_ik(p.scene, chain_ik(Vec3(1.5, 0.0, 0.0), Vec3(3.0, 0.0, 0.0)), p.local, p.model);
  const double x = 0.75;
  expect_vec3_near(pos(p.model, 1), Vec3(x, -std::sqrt(1.0 - x * x), 0.0), tol::kIkReach);
  expect_vec3_near(pos(p.model, 2), Vec3(1.5, 0.0, 0.0), tol::kIkReach);
}

TEST(TwoBoneIk, UnreachableTargetStraightensTheChainTowardsIt) {
  Posed p = straight_chain();
  const Vec3 target(5.0, 1.0, 0.0);
  apply_two_bone_ik(p.scene, chain_ik(target, Vec3(0.0, 5.0, 0.0)), p.local, p.model);
  const Vec3 dir = target / target.norm();
  expect_vec3_near(pos(p.model, 1), dir, tol::kIkReach);
  expect_vec3_near(pos(p.model, 2), 2.0 * dir, tol::kIkReach);
  expect_model_consistent(p);
}

TEST(TwoBoneIk, TargetNearerThanBoneDifferenceFoldsTheChain) {
  // Bones 1 and 0.5: no pose brings the end nearer to the root than 0.5. The end goes to distance 0.5 towards
  // the target, the middle straight beyond it at distance 1: the middle turns a half turn (opposite arc).
  Posed p = straight_chain(0.5);
  apply_two_bone_ik(p.scene, chain_ik(Vec3(0.1, 0.0, 0.0), Vec3(0.0, 1.0, 0.0)), p.local, p.model);
  expect_vec3_near(pos(p.model, 1), Vec3(1.0, 0.0, 0.0), tol::kIkReach);
  expect_vec3_near(pos(p.model, 2), Vec3(0.5, 0.0, 0.0), tol::kIkReach);
  expect_model_consistent(p);
}

TEST(TwoBoneIk, ZeroWeightChangesNothingBitExact) {
  Posed p = make_posed({make_node("root", Vec3(0.1, 0.2, 0.3), {1}, axis_rotation(0.3, Vec3(1.0, 2.0, 3.0))),
                        make_node("middle", Vec3(1.0, 0.0, 0.0), {2}, axis_rotation(0.7, Vec3::UnitZ())),
                        make_node("end", Vec3(1.0, 0.0, 0.0), {})},
                       {0});
  shift_model(p.model);
  const LocalPose local_before = p.local;
  const ModelPose model_before = p.model;
  TwoBoneIk ik = chain_ik(Vec3(1.0, 1.0, 0.0), Vec3(1.0, 2.0, 0.0));
  ik.weight = 0.0;
  apply_two_bone_ik(p.scene, ik, p.local, p.model);
  for (size_t n = 0; n < 3; ++n) {
    EXPECT_TRUE(same_bits(p.local.local[n], local_before.local[n])) << "node " << n;
    EXPECT_TRUE(same_bits(p.model.global[n], model_before.global[n])) << "node " << n;
  }
}

TEST(TwoBoneIk, HalfWeightTurnsHalfTheLocalRotations) {
  // The full solve of ReachesTargetWithMiddleOnPoleSide turns the root +90 and the middle -90 degrees about
  // +z. Half weight: +45 and -45 degrees, so the middle is at (c, s, 0) and the end at (c + 1, s, 0) with
  // c = s = sqrt(2)/2: between the rest pose and the solved pose.
  Posed p = straight_chain();
  TwoBoneIk ik = chain_ik(Vec3(1.0, 1.0, 0.0), Vec3(1.0, 2.0, 0.0));
  ik.weight = 0.5;
  apply_two_bone_ik(p.scene, ik, p.local, p.model);
  const double c = std::sqrt(0.5);
  expect_vec3_near(pos(p.model, 1), Vec3(c, c, 0.0), tol::kIkReach);
  expect_vec3_near(pos(p.model, 2), Vec3(c + 1.0, c, 0.0), tol::kIkReach);
  EXPECT_NEAR(p.local.local[0].rotation.angularDistance(test::z_rotation(kPi / 4.0)), 0.0, tol::kIkReach);
  EXPECT_NEAR(p.local.local[1].rotation.angularDistance(test::z_rotation(-kPi / 4.0)), 0.0, tol::kIkReach);
  expect_model_consistent(p);
}

TEST(TwoBoneIk, SoftIkFallsShortByTheAnalyticAmount) {
  // soft 0.9, reach L = 2: softening starts at ds = 1.8; a target at distance 1.95 is reached only to
  // ds + (L - ds) (1 - exp(-(1.95 - ds) / (L - ds))), along the root-target line.
  const Vec3 dir(0.6, 0.8, 0.0);
  const double ds = 1.8;
  const double expected = ds + (2.0 - ds) * (1.0 - std::exp(-(1.95 - ds) / (2.0 - ds)));
  Posed p = straight_chain();
  TwoBoneIk ik = chain_ik(1.95 * dir, Vec3(0.0, 0.0, 1.0));
  ik.soft = 0.9;
  apply_two_bone_ik(p.scene, ik, p.local, p.model);
  expect_vec3_near(pos(p.model, 2), expected * dir, tol::kIkReach);
  EXPECT_GT(1.95 - expected, 0.01);  // a real shortfall, not rounding
  EXPECT_NEAR((pos(p.model, 1) - pos(p.model, 0)).norm(), 1.0, tol::kIkReach);
  EXPECT_NEAR((pos(p.model, 2) - pos(p.model, 1)).norm(), 1.0, tol::kIkReach);

  // Below soft * L the target is reached exactly.
  Posed q = straight_chain();
  TwoBoneIk near = chain_ik(1.5 * dir, Vec3(0.0, 0.0, 1.0));
  near.soft = 0.9;
  apply_two_bone_ik(q.scene, near, q.local, q.model);
  expect_vec3_near(pos(q.model, 2), 1.5 * dir, tol::kIkReach);
}

// Checks a solved chain (root 1, middle 2, end 3 in `p`) against the closed form: end at the target, bone
// lengths kept, middle at a + x dir + h n with n the pole's direction perpendicular to the root-target line.
void expect_reached(const Posed& p, const Vec3& a, const Vec3& target, const Vec3& pole, double l1, double l2,
                    int middle, int end) {
  const double d = (target - a).norm();
  const Vec3 dir = (target - a) / d;
  const Vec3 off_line = (pole - a) - (pole - a).dot(dir) * dir;
  const Vec3 n = off_line / off_line.norm();
  const double x = (l1 * l1 + d * d - l2 * l2) / (2.0 * d);
  const Vec3 middle_expected = a + x * dir + std::sqrt(l1 * l1 - x * x) * n;
  expect_vec3_near(pos(p.model, end), target, tol::kIkReach);
  expect_vec3_near(pos(p.model, middle), middle_expected, tol::kIkReach);
  EXPECT_NEAR((pos(p.model, middle) - a).norm(), l1, tol::kIkReach);
  EXPECT_NEAR((pos(p.model, end) - pos(p.model, middle)).norm(), l2, tol::kIkReach);
}

TEST(TwoBoneIk, WorldSpaceSolveUnderATransformedNonJointParent) {
  // A non-joint parent translated, rotated 60 degrees about (1,1,0) and scaled 2 (uniform): the chain's world
  // bones are 2 long, and the chain itself starts rotated and bent.
  Posed p = make_posed(
      {make_node("rig", Vec3(3.0, -1.0, 2.0), {1}, axis_rotation(kPi / 3.0, Vec3(1.0, 1.0, 0.0)), Vec3::Constant(2.0)),
       make_node("root", Vec3(0.5, 0.0, 0.0), {2}, axis_rotation(kPi / 6.0, Vec3::UnitY())),
       make_node("middle", Vec3(1.0, 0.0, 0.0), {3}, axis_rotation(0.7, Vec3::UnitZ())),
       make_node("end", Vec3(1.0, 0.0, 0.0), {})},
      {0});
  const Vec3 a = pos(p.model, 1);
  const Vec3 target = a + Vec3(2.0, -1.0, 2.0);  // distance 3 of the reach 4
  const Vec3 pole = a + Vec3(0.0, 4.0, 1.0);
  const Mat4 rig_before = p.model.global[0];
  TwoBoneIk ik{1, 2, 3, target, pole, 1.0, 1.0};
  apply_two_bone_ik(p.scene, ik, p.local, p.model);
  expect_reached(p, a, target, pole, 2.0, 2.0, 2, 3);
  EXPECT_TRUE(same_bits(p.model.global[0], rig_before));
  expect_model_consistent(p);
}

TEST(TwoBoneIk, WorldSpaceSolveUnderAMirroredParent) {
  // A parent with uniform scale -1 (determinant -1): the world-to-local transfer still turns the chain by
  // the world rotation, so the target is reached.
  Posed p = make_posed({make_node("mirror", Vec3(0.5, 0.5, 0.5), {1}, axis_rotation(0.4, Vec3::UnitX()),
                                  Vec3::Constant(-1.0)),
                        make_node("root", Vec3(0.2, 0.0, 0.0), {2}), make_node("middle", Vec3(1.0, 0.0, 0.0), {3}),
                        make_node("end", Vec3(1.0, 0.0, 0.0), {})},
                       {0});
  const Vec3 a = pos(p.model, 1);
  const Vec3 target = a + Vec3(0.3, 1.2, -0.4);
  const Vec3 pole = a + Vec3(1.0, 0.0, 1.0);
  TwoBoneIk ik{1, 2, 3, target, pole, 1.0, 1.0};
  apply_two_bone_ik(p.scene, ik, p.local, p.model);
  expect_reached(p, a, target, pole, 1.0, 1.0, 2, 3);
  expect_model_consistent(p);
}

TEST(TwoBoneIk, ChainWithIntermediateNodes) {
  // root -> twist (half way along the upper bone, itself rotated about the bone) -> middle -> helper -> end:
  // the bones are measured between root, middle and end, and the nodes in between are carried rigidly.
  Posed p = make_posed({make_node("root", Vec3::Zero(), {1}), make_node("twist", Vec3(0.5, 0.0, 0.0), {2},
                                                                        axis_rotation(1.2, Vec3::UnitX())),
                        make_node("middle", Vec3(0.5, 0.0, 0.0), {3}), make_node("helper", Vec3(0.25, 0.0, 0.0), {4}),
                        make_node("end", Vec3(0.75, 0.0, 0.0), {})},
                       {0});
  const Vec3 target(0.2, 1.1, 0.6);
  const Vec3 pole(2.0, 0.0, 0.0);
  TwoBoneIk ik{0, 2, 4, target, pole, 1.0, 1.0};
  apply_two_bone_ik(p.scene, ik, p.local, p.model);
  const double d = target.norm();
  const Vec3 dir = target / d;
  const Vec3 off_line = pole - pole.dot(dir) * dir;
  const Vec3 middle_expected = 0.5 * d * dir + std::sqrt(1.0 - 0.25 * d * d) * off_line.normalized();
  expect_vec3_near(pos(p.model, 4), target, tol::kIkReach);
  expect_vec3_near(pos(p.model, 2), middle_expected, tol::kIkReach);
  expect_vec3_near(pos(p.model, 1), 0.5 * middle_expected, tol::kIkReach);  // half way along the upper bone
  expect_model_consistent(p);
}

TEST(TwoBoneIk, OnlyTheRootSubtreeChanges) {
  // hips -> (upper -> lower -> foot) and hips -> (other -> other_child): the sibling branch and the hips keep
  // their local and model values bit for bit.
  Posed p = make_posed({make_node("hips", Vec3(0.0, 1.0, 0.0), {1, 4}, axis_rotation(0.2, Vec3::UnitY())),
                        make_node("upper", Vec3(0.2, 0.0, 0.0), {2}), make_node("lower", Vec3(1.0, 0.0, 0.0), {3}),
                        make_node("foot", Vec3(1.0, 0.0, 0.0), {}),
                        make_node("other", Vec3(-0.2, 0.0, 0.0), {5}, axis_rotation(0.5, Vec3::UnitZ())),
                        make_node("other_child", Vec3(-1.0, 0.0, 0.0), {})},
                       {0});
  const LocalPose local_before = p.local;
  const ModelPose model_before = p.model;
  TwoBoneIk ik{1, 2, 3, pos(p.model, 1) + Vec3(0.5, -1.0, 0.5), Vec3(0.0, 0.0, 5.0), 1.0, 1.0};
  apply_two_bone_ik(p.scene, ik, p.local, p.model);
  for (const size_t n : {size_t(0), size_t(4), size_t(5)}) {
    EXPECT_TRUE(same_bits(p.local.local[n], local_before.local[n])) << "node " << n;
    EXPECT_TRUE(same_bits(p.model.global[n], model_before.global[n])) << "node " << n;
  }
  EXPECT_FALSE(same_bits(p.model.global[3], model_before.global[3]));
  expect_vec3_near(pos(p.model, 3), ik.target, tol::kIkReach);
  expect_model_consistent(p);
}

TEST(TwoBoneIk, RefusesInvalidInput) {
  const Posed base = straight_chain();
  auto refuses = [&](const TwoBoneIk& ik, const std::string& fragment) {
    Posed p = base;
    try {
      apply_two_bone_ik(p.scene, ik, p.local, p.model);
      ADD_FAILURE() << "accepted; expected an error mentioning \"" << fragment << "\"";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "test:ik");
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  const TwoBoneIk good = chain_ik(Vec3(1.0, 1.0, 0.0), Vec3(1.0, 2.0, 0.0));
  TwoBoneIk ik = good;
  ik.root = 3;
  refuses(ik, "a node index < 3 as the root, got 3");
  ik = good;
  ik.end = -1;
  refuses(ik, "a node index < 3 as the end, got -1");
  ik = good;
  ik.root = 1;
  ik.middle = 0;
  refuses(ik, "below the root");
  ik = good;
  ik.middle = 2;
  ik.end = 1;
  refuses(ik, "below the middle");  // middle 2 is below root 0, but end 1 is not below middle 2
  ik = good;
  ik.root = 0;
  ik.middle = 1;
  ik.end = 1;
  refuses(ik, "below the middle");
  for (const double w : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    ik = good;
    ik.weight = w;
    refuses(ik, "weight in [0, 1]");
  }
  for (const double s : {0.0, -0.5, 1.01, std::numeric_limits<double>::quiet_NaN()}) {
    ik = good;
    ik.soft = s;
    refuses(ik, "soft in (0, 1]");
  }
  ik = good;
  ik.target.x() = std::numeric_limits<double>::infinity();
  refuses(ik, "finite target");
  ik = good;
  ik.pole.z() = std::numeric_limits<double>::quiet_NaN();
  refuses(ik, "finite pole");

  // A zero-length bone leaves the bend undefined.
  Posed zero = make_posed({make_node("root", Vec3::Zero(), {1}), make_node("middle", Vec3::Zero(), {2}),
                           make_node("end", Vec3(1.0, 0.0, 0.0), {})},
                          {0});
  EXPECT_THROW(apply_two_bone_ik(zero.scene, good, zero.local, zero.model), InputError);

  // Poses of the wrong size.
  Posed p = base;
  p.model.global.pop_back();
  EXPECT_THROW(apply_two_bone_ik(p.scene, good, p.local, p.model), InputError);
}

// ---------------------------------------------------------------------------------------------------------
// Aim IK

AimIk aim_at(int joint, const Vec3& target, const Vec3& pole) {
  AimIk ik;
  ik.joint = joint;
  ik.target = target;
  ik.pole = pole;
  return ik;
}

TEST(AimIk, ForwardPointsAtTargetAndUpLeansToPole) {
  // Joint at (1,2,3), forward +z, up +y. Target (2,4,5): F = (1,2,2)/3. Pole +z: its part perpendicular to
  // F is (0,0,1) - (2/3) F = (-2,-4,5)/9, so U = (-2,-4,5)/sqrt(45).
  Posed p = make_posed({make_node("joint", Vec3(1.0, 2.0, 3.0), {}, axis_rotation(0.4, Vec3(1.0, -1.0, 2.0)))}, {0});
  apply_aim_ik(p.scene, aim_at(0, Vec3(2.0, 4.0, 5.0), Vec3::UnitZ()), p.local, p.model);
  const Vec3 forward = world_axis(p.model, 0, Vec3::UnitZ());
  const Vec3 up = world_axis(p.model, 0, Vec3::UnitY());
  expect_vec3_near(forward, Vec3(1.0, 2.0, 2.0) / 3.0, tol::kClosedForm);
  expect_vec3_near(up, Vec3(-2.0, -4.0, 5.0) / std::sqrt(45.0), tol::kClosedForm);
  EXPECT_NEAR(forward.dot(up), 0.0, tol::kClosedForm);
  EXPECT_GT(up.dot(Vec3::UnitZ()), 0.0);
  expect_vec3_near(pos(p.model, 0), Vec3(1.0, 2.0, 3.0), 0.0);  // aiming only rotates
  expect_model_consistent(p);
}

TEST(AimIk, ZeroWeightChangesNothingBitExact) {
  Posed p = make_posed({make_node("joint", Vec3(1.0, 2.0, 3.0), {1}, axis_rotation(0.4, Vec3(1.0, -1.0, 2.0))),
                        make_node("child", Vec3(0.0, 0.0, 1.0), {})},
                       {0});
  shift_model(p.model);
  const LocalPose local_before = p.local;
  const ModelPose model_before = p.model;
  AimIk ik = aim_at(0, Vec3(2.0, 4.0, 5.0), Vec3::UnitZ());
  ik.weight = 0.0;
  apply_aim_ik(p.scene, ik, p.local, p.model);
  for (size_t n = 0; n < 2; ++n) {
    EXPECT_TRUE(same_bits(p.local.local[n], local_before.local[n])) << "node " << n;
    EXPECT_TRUE(same_bits(p.model.global[n], model_before.global[n])) << "node " << n;
  }
}

TEST(AimIk, HalfWeightTurnsHalfWay) {
  // Forward +z aimed at +x with up +y kept: the full solve is 90 degrees about +y; half weight is 45 degrees,
  // so the forward axis points along (1,0,1)/sqrt(2).
  Posed p = make_posed({make_node("joint", Vec3::Zero(), {})}, {0});
  AimIk ik = aim_at(0, Vec3(3.0, 0.0, 0.0), Vec3::UnitY());
  ik.weight = 0.5;
  apply_aim_ik(p.scene, ik, p.local, p.model);
  expect_vec3_near(world_axis(p.model, 0, Vec3::UnitZ()), Vec3(1.0, 0.0, 1.0) / std::sqrt(2.0), tol::kClosedForm);
  expect_vec3_near(world_axis(p.model, 0, Vec3::UnitY()), Vec3::UnitY(), tol::kClosedForm);
}

TEST(AimIk, PoleAlongTheAimKeepsTheCurrentUp) {
  // The pole is parallel to the aim direction, so it says nothing about up: the joint's current up (+y) is
  // kept, giving the 90-degree turn about +y.
  Posed p = make_posed({make_node("joint", Vec3::Zero(), {})}, {0});
  apply_aim_ik(p.scene, aim_at(0, Vec3(2.0, 0.0, 0.0), Vec3(-5.0, 0.0, 0.0)), p.local, p.model);
  expect_vec3_near(world_axis(p.model, 0, Vec3::UnitZ()), Vec3::UnitX(), tol::kClosedForm);
  expect_vec3_near(world_axis(p.model, 0, Vec3::UnitY()), Vec3::UnitY(), tol::kClosedForm);
}

TEST(AimIk, NonUnitNonOrthogonalAxes) {
  // forward (0,0,2) and up (0,3,1): the up axis is made orthogonal to forward first, so the world image of the
  // given up lies in the plane of the aim direction and the pole, on the pole's side.
  Posed p = make_posed({make_node("joint", Vec3(0.5, 0.0, 0.0), {})}, {0});
  AimIk ik = aim_at(0, Vec3(0.5, -2.0, 1.0), Vec3(1.0, 0.0, 0.0));
  ik.forward = Vec3(0.0, 0.0, 2.0);
  ik.up = Vec3(0.0, 3.0, 1.0);
  apply_aim_ik(p.scene, ik, p.local, p.model);
  const Vec3 F = Vec3(0.0, -2.0, 1.0).normalized();
  const Vec3 up = world_axis(p.model, 0, ik.up);
  expect_vec3_near(world_axis(p.model, 0, ik.forward), F, tol::kClosedForm);
  EXPECT_NEAR(up.dot(F.cross(ik.pole)), 0.0, tol::kClosedForm);  // in the plane of F and the pole
  // Its components: (u . f) along F and |u'| along the pole's perpendicular part, here +x itself.
  expect_vec3_near(up, (F / std::sqrt(10.0) + Vec3::UnitX() * 3.0 / std::sqrt(10.0)), tol::kClosedForm);
}

// Checks an aimed joint: forward at the target, up perpendicular and in the plane of forward and the pole,
// on the pole's side.
void expect_aimed(const ModelPose& model, const AimIk& ik) {
  const Vec3 F = (ik.target - pos(model, ik.joint)).normalized();
  const Vec3 forward = world_axis(model, ik.joint, ik.forward);
  const Vec3 up = world_axis(model, ik.joint, ik.up);
  expect_vec3_near(forward, F, tol::kClosedForm);
  EXPECT_NEAR(forward.dot(up), 0.0, tol::kClosedForm);
  EXPECT_NEAR(up.dot(F.cross(ik.pole).normalized()), 0.0, tol::kClosedForm);
  EXPECT_GT(up.dot(ik.pole), 0.0);
}

TEST(AimIk, UnderARotatedScaledParent) {
  // Parent rotated 90 degrees about +x, translated, scaled 2; the joint has its own rotation. A child one
  // unit along the joint's forward axis ends 2 units (the parent's scale) from the joint towards the target.
  Posed p = make_posed({make_node("parent", Vec3(1.0, -2.0, 0.5), {1}, axis_rotation(kPi / 2.0, Vec3::UnitX()),
                                  Vec3::Constant(2.0)),
                        make_node("joint", Vec3(0.0, 1.0, 0.0), {2}, axis_rotation(kPi / 6.0, Vec3::UnitZ())),
                        make_node("child", Vec3(0.0, 0.0, 1.0), {})},
                       {0});
  const Mat4 parent_before = p.model.global[0];
  const Vec3 joint_position = pos(p.model, 1);
  AimIk ik = aim_at(1, Vec3(4.0, 3.0, -1.0), Vec3(0.0, 1.0, 1.0));
  apply_aim_ik(p.scene, ik, p.local, p.model);
  expect_aimed(p.model, ik);
  expect_vec3_near(pos(p.model, 1), joint_position, tol::kClosedForm);
  expect_vec3_near(pos(p.model, 2), joint_position + 2.0 * (ik.target - joint_position).normalized(),
                   tol::kClosedForm);
  EXPECT_TRUE(same_bits(p.model.global[0], parent_before));
  expect_model_consistent(p);
}

TEST(AimIk, UnderAMirroredParent) {
  // Uniform scale -1 mirrors the joint too: its forward and up axes still go where asked (its third axis is
  // mirrored), and the local rotation stays a proper rotation.
  Posed p = make_posed({make_node("parent", Vec3(0.0, 1.0, 0.0), {1}, axis_rotation(0.3, Vec3::UnitY()),
                                  Vec3::Constant(-1.0)),
                        make_node("joint", Vec3(1.0, 0.0, 0.0), {})},
                       {0});
  AimIk ik = aim_at(1, Vec3(2.0, 2.0, 2.0), Vec3(0.0, 0.0, 1.0));
  apply_aim_ik(p.scene, ik, p.local, p.model);
  expect_aimed(p.model, ik);
  EXPECT_NEAR(p.local.local[1].rotation.norm(), 1.0, tol::kClosedForm);
  expect_model_consistent(p);
}

TEST(AimIk, RefusesInvalidInput) {
  const Posed base = make_posed({make_node("joint", Vec3(1.0, 2.0, 3.0), {})}, {0});
  auto refuses = [&](const AimIk& ik, const std::string& fragment) {
    Posed p = base;
    try {
      apply_aim_ik(p.scene, ik, p.local, p.model);
      ADD_FAILURE() << "accepted; expected an error mentioning \"" << fragment << "\"";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "test:ik");
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  const AimIk good = aim_at(0, Vec3(0.0, 0.0, 0.0), Vec3::UnitY());
  AimIk ik = good;
  ik.joint = 1;
  refuses(ik, "a node index < 1 as the joint, got 1");
  ik = good;
  ik.up = Vec3(0.0, 0.0, -2.0);
  refuses(ik, "not parallel to the forward axis");
  ik = good;
  ik.forward = Vec3::Zero();
  refuses(ik, "non-zero forward axis");
  ik = good;
  ik.target = Vec3(1.0, 2.0, 3.0);
  refuses(ik, "a target away from node 0 (\"joint\")");
  for (const double w : {-1.0, 2.0, std::numeric_limits<double>::quiet_NaN()}) {
    ik = good;
    ik.weight = w;
    refuses(ik, "weight in [0, 1]");
  }
  ik = good;
  ik.forward.y() = std::numeric_limits<double>::infinity();
  refuses(ik, "finite forward axis");
}

// ---------------------------------------------------------------------------------------------------------
// update_subtree

TEST(UpdateSubtree, MatchesAFullLocalToModelBitExact) {
  // Children stored before their parents, scales and rotations everywhere: after editing the locals of a node
  // in the middle of the tree, updating its subtree gives exactly the full recomputation.
  Posed p = make_posed(
      {make_node("leaf", Vec3(0.3, 0.1, -0.2), {}, axis_rotation(0.9, Vec3(0.0, 1.0, 1.0)), Vec3(1.0, 2.0, 0.5)),
       make_node("mid", Vec3(0.0, 1.0, 0.0), {0, 3}, axis_rotation(0.3, Vec3(1.0, 0.0, 1.0)), Vec3::Constant(1.5)),
       make_node("root", Vec3(2.0, 0.0, -1.0), {1, 4}, axis_rotation(1.1, Vec3(0.2, 1.0, 0.1)), Vec3(0.7, 0.7, 0.7)),
       make_node("leaf2", Vec3(-0.5, 0.0, 0.25), {}, axis_rotation(-0.4, Vec3::UnitX())),
       make_node("side", Vec3(1.0, 1.0, 1.0), {}, axis_rotation(0.2, Vec3::UnitZ()))},
      {2});
  p.local.local[1].rotation = axis_rotation(-0.8, Vec3(3.0, 1.0, -2.0));
  p.local.local[1].translation = Vec3(0.1, 0.9, -0.3);
  p.local.local[0].scale = Vec3(0.5, 0.5, 3.0);
  update_subtree(p.scene, p.local, 1, p.model);
  expect_model_consistent(p);
}

TEST(UpdateSubtree, LeavesNodesOutsideAndReadsParentsAsTheyAre) {
  Posed p = make_posed({make_node("root", Vec3(1.0, 0.0, 0.0), {1, 3}, axis_rotation(0.5, Vec3::UnitZ())),
                        make_node("a", Vec3(0.0, 1.0, 0.0), {2}), make_node("a_child", Vec3(0.0, 0.0, 1.0), {}),
                        make_node("b", Vec3(0.0, -1.0, 0.0), {})},
                       {0});
  const ModelPose before = p.model;
  // Edits outside the subtree of "a" (the root and the sibling b) must not be picked up...
  p.local.local[0].translation = Vec3(9.0, 9.0, 9.0);
  p.local.local[3].rotation = axis_rotation(1.0, Vec3::UnitX());
  // ...and the parent's global is read from `model`, whatever it holds.
  const Mat4 parent = test::affine(test::rotation(0.7, Vec3(1.0, 1.0, 1.0)), Vec3(-2.0, 0.5, 4.0));
  p.model.global[0] = parent;
  p.local.local[1].rotation = axis_rotation(0.25, Vec3::UnitY());
  update_subtree(p.scene, p.local, 1, p.model);
  EXPECT_TRUE(same_bits(p.model.global[0], parent));
  EXPECT_TRUE(same_bits(p.model.global[3], before.global[3]));
  const Mat4 a = multiply_affine(parent, compose_trs(p.local.local[1]));
  EXPECT_TRUE(same_bits(p.model.global[1], a));
  EXPECT_TRUE(same_bits(p.model.global[2], multiply_affine(a, compose_trs(p.local.local[2]))));
}

TEST(UpdateSubtree, RefusesInvalidInput) {
  Posed p = make_posed({make_node("root", Vec3::Zero(), {})}, {0});
  EXPECT_THROW(update_subtree(p.scene, p.local, 1, p.model), InputError);
  EXPECT_THROW(update_subtree(p.scene, p.local, -1, p.model), InputError);
  p.local.local.clear();
  EXPECT_THROW(update_subtree(p.scene, p.local, 0, p.model), InputError);
}

}  // namespace
}  // namespace skinref
