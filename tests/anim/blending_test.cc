// Tests of pose blending (blending.h) on hand-built LocalPoses: identical layers, weight normalization,
// zero-weight layers and masks (both bit-exact), weighted averages of translation, scale, morph weights and
// rotation (against closed forms), the two-layer Slerp mode, hemisphere handling of q / -q, a summed weight
// of 0 keeping the fallback, subtree masks and node look-up on a small hierarchy, additive deltas (identity,
// a known 30-degree delta at half weight, the translation and scale rules, masks) and the cross-fade ramp.
#include "anim/blending.h"
#include "core/input_error.h"
#include "core/pose.h"
#include "core/scene.h"
#include "support/math_expect.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_vec3_near;
using test::z_rotation;

constexpr double kPi = std::numbers::pi;

Quat axis_rotation(double radians, const Vec3& axis) { return Quat(Eigen::AngleAxisd(radians, axis.normalized())); }

Transform trs(const Vec3& translation, const Quat& rotation, const Vec3& scale) {
  Transform t;
  t.translation = translation;
  t.rotation = rotation;
  t.scale = scale;
  return t;
}

// A pose of three nodes with non-dyadic values everywhere, node 1 carrying two morph weights.
LocalPose pose_a() {
  LocalPose pose;
  pose.local = {trs(Vec3(0.1, -0.7, 2.3), axis_rotation(0.3, Vec3(1.0, 2.0, 3.0)), Vec3(1.1, 0.9, 1.3)),
                trs(Vec3(-1.9, 0.35, 0.6), axis_rotation(-1.1, Vec3(0.2, -1.0, 0.4)), Vec3(0.7, 0.7, 0.7)),
                trs(Vec3(3.3, 1.7, -0.2), axis_rotation(2.4, Vec3(-0.5, 0.1, 1.0)), Vec3(1.0, 2.1, 0.3))};
  pose.morph_weights = {{}, {0.15, 0.85}, {}};
  return pose;
}

// Another pose of the same shape, different in every value.
LocalPose pose_b() {
  LocalPose pose;
  pose.local = {trs(Vec3(1.3, 0.2, -0.9), axis_rotation(1.7, Vec3(0.0, 1.0, 0.3)), Vec3(0.6, 1.4, 1.0)),
                trs(Vec3(0.45, -2.2, 1.1), axis_rotation(0.6, Vec3(1.0, 0.1, -0.2)), Vec3(1.9, 1.2, 0.8)),
                trs(Vec3(-0.3, 0.9, 4.1), axis_rotation(-0.4, Vec3(0.3, 0.3, 1.0)), Vec3(0.5, 0.5, 1.7))};
  pose.morph_weights = {{}, {0.6, 0.1}, {}};
  return pose;
}

// A third pose of the same shape, for three-layer blends.
LocalPose pose_c() {
  LocalPose pose;
  pose.local = {trs(Vec3(-0.6, 1.1, 0.4), axis_rotation(0.9, Vec3(1.0, 0.0, 1.0)), Vec3(1.2, 1.2, 0.9)),
                trs(Vec3(2.1, 0.3, -1.4), axis_rotation(-0.2, Vec3(0.0, 0.0, 1.0)), Vec3(1.0, 0.6, 1.5)),
                trs(Vec3(0.8, -0.8, 0.8), axis_rotation(1.9, Vec3(-0.4, 0.2, 1.0)), Vec3(0.9, 1.1, 1.0))};
  pose.morph_weights = {{}, {0.0, 0.4}, {}};
  return pose;
}

LocalPose identity_pose() {
  LocalPose pose;
  pose.local.resize(3);
  pose.morph_weights = {{}, {0.0, 0.0}, {}};
  return pose;
}

BlendLayer layer(const LocalPose& pose, double weight, std::span<const double> mask = {}) {
  BlendLayer l;
  l.pose = &pose;
  l.weight = weight;
  l.mask = mask;
  return l;
}

// Bit-exact equality of two nodes' transforms and morph weights.
void expect_node_bits_equal(const LocalPose& actual, const LocalPose& expected, size_t n) {
  SCOPED_TRACE("node " + std::to_string(n));
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(actual.local[n].translation[c], expected.local[n].translation[c]);
    EXPECT_EQ(actual.local[n].scale[c], expected.local[n].scale[c]);
  }
  for (int c = 0; c < 4; ++c) EXPECT_EQ(actual.local[n].rotation.coeffs()[c], expected.local[n].rotation.coeffs()[c]);
  EXPECT_EQ(actual.morph_weights[n], expected.morph_weights[n]);
}

void expect_pose_bits_equal(const LocalPose& actual, const LocalPose& expected) {
  ASSERT_EQ(actual.local.size(), expected.local.size());
  ASSERT_EQ(actual.morph_weights.size(), expected.morph_weights.size());
  for (size_t n = 0; n < expected.local.size(); ++n) expect_node_bits_equal(actual, expected, n);
}

// Quaternions compared coefficient by coefficient: the sign is part of what blending promises.
void expect_quat_near(const Quat& actual, const Quat& expected, double tolerance) {
  for (int c = 0; c < 4; ++c)
    EXPECT_NEAR(actual.coeffs()[c], expected.coeffs()[c], tolerance)
        << "coefficient " << c << " (x, y, z, w): actual " << actual.coeffs().transpose() << ", expected "
        << expected.coeffs().transpose();
}

// The same rotation, whatever the sign (q and -q), through the rotation matrices.
void expect_same_rotation(const Quat& actual, const Quat& expected, double tolerance) {
  test::expect_matrix3_near(rotation_matrix(actual), rotation_matrix(expected), tolerance);
}

// ---- full blends -------------------------------------------------------------------------------------------

TEST(BlendPoses, IdenticalPosesBlendToThePose) {
  const LocalPose a = pose_a();
  const LocalPose a2 = pose_a(), a3 = pose_a();
  const std::vector<BlendLayer> layers = {layer(a, 0.2), layer(a2, 0.3), layer(a3, 0.5)};
  const LocalPose blended = blend_poses(layers, identity_pose());
  ASSERT_EQ(blended.local.size(), 3u);
  for (size_t n = 0; n < 3; ++n) {
    SCOPED_TRACE("node " + std::to_string(n));
    // The running weighted mean of equal values never moves: translations, scales, weights are exact.
    EXPECT_EQ(blended.local[n].translation, a.local[n].translation);
    EXPECT_EQ(blended.local[n].scale, a.local[n].scale);
    EXPECT_EQ(blended.morph_weights[n], a.morph_weights[n]);
    expect_quat_near(blended.local[n].rotation, a.local[n].rotation, tol::kClosedForm);
  }
}

TEST(BlendPoses, WeightsAreNormalized) {
  const LocalPose a = pose_a(), b = pose_b();
  const std::vector<BlendLayer> big = {layer(a, 2.0), layer(b, 2.0)};
  const std::vector<BlendLayer> unit = {layer(a, 0.5), layer(b, 0.5)};
  const LocalPose from_big = blend_poses(big, identity_pose());
  expect_pose_bits_equal(from_big, blend_poses(unit, identity_pose()));
  for (size_t n = 0; n < 3; ++n) {
    expect_vec3_near(from_big.local[n].translation, (a.local[n].translation + b.local[n].translation) / 2.0,
                     tol::kClosedForm);
    expect_vec3_near(from_big.local[n].scale, (a.local[n].scale + b.local[n].scale) / 2.0, tol::kClosedForm);
  }

  // Weights 3 and 1 mean 3/4 and 1/4.
  const std::vector<BlendLayer> uneven = {layer(a, 3.0), layer(b, 1.0)};
  const LocalPose mixed = blend_poses(uneven, identity_pose());
  for (size_t n = 0; n < 3; ++n)
    expect_vec3_near(mixed.local[n].translation, 0.75 * a.local[n].translation + 0.25 * b.local[n].translation,
                     tol::kClosedForm);
}

TEST(BlendPoses, ZeroWeightLayerChangesNothing) {
  const LocalPose a = pose_a(), b = pose_b(), c = pose_c();
  // Alone with a zero-weight partner, a layer comes out exactly.
  const std::vector<BlendLayer> with_zero = {layer(a, 1.0), layer(b, 0.0)};
  expect_pose_bits_equal(blend_poses(with_zero, identity_pose()), a);
  const std::vector<BlendLayer> zero_first = {layer(b, 0.0), layer(a, 0.7)};
  expect_pose_bits_equal(blend_poses(zero_first, identity_pose()), a);

  // In a real blend, a zero-weight layer (first, middle or last) does not change a bit.
  const std::vector<BlendLayer> two = {layer(a, 0.3), layer(b, 0.7)};
  const LocalPose expected = blend_poses(two, identity_pose());
  const std::vector<BlendLayer> first = {layer(c, 0.0), layer(a, 0.3), layer(b, 0.7)};
  const std::vector<BlendLayer> middle = {layer(a, 0.3), layer(c, 0.0), layer(b, 0.7)};
  const std::vector<BlendLayer> last = {layer(a, 0.3), layer(b, 0.7), layer(c, 0.0)};
  expect_pose_bits_equal(blend_poses(first, identity_pose()), expected);
  expect_pose_bits_equal(blend_poses(middle, identity_pose()), expected);
  expect_pose_bits_equal(blend_poses(last, identity_pose()), expected);
}

TEST(BlendPoses, MaskLeavesUnmaskedJointsUntouched) {
  const LocalPose a = pose_a(), b = pose_b(), fallback = identity_pose();
  const std::vector<double> mask = {0.0, 1.0, 0.5};
  const std::vector<BlendLayer> layers = {layer(a, 1.0), layer(b, 1.0, mask)};
  const LocalPose blended = blend_poses(layers, fallback);
  expect_node_bits_equal(blended, a, 0);  // b is masked out: a alone, exactly
  // Node 1: 50/50; node 2: a at 1, b at 0.5, i.e. 2/3 and 1/3.
  expect_vec3_near(blended.local[1].translation, (a.local[1].translation + b.local[1].translation) / 2.0,
                   tol::kClosedForm);
  expect_vec3_near(blended.local[2].translation, (2.0 * a.local[2].translation + b.local[2].translation) / 3.0,
                   tol::kClosedForm);

  // A masked layer on its own: the fallback where the mask is 0, the layer exactly where it is 1.
  const std::vector<double> only_node_1 = {0.0, 1.0, 0.0};
  const std::vector<BlendLayer> alone = {layer(b, 0.4, only_node_1)};
  const LocalPose partial = blend_poses(alone, fallback);
  expect_node_bits_equal(partial, fallback, 0);
  expect_node_bits_equal(partial, b, 1);
  expect_node_bits_equal(partial, fallback, 2);
}

TEST(BlendPoses, WeightedAverageOfTranslationScaleAndMorphWeights) {
  const LocalPose a = pose_a(), b = pose_b(), c = pose_c();
  const std::vector<BlendLayer> layers = {layer(a, 1.0), layer(b, 2.0), layer(c, 5.0)};
  const LocalPose blended = blend_poses(layers, identity_pose());
  for (size_t n = 0; n < 3; ++n) {
    SCOPED_TRACE("node " + std::to_string(n));
    const Vec3 t = (1.0 * a.local[n].translation + 2.0 * b.local[n].translation + 5.0 * c.local[n].translation) / 8.0;
    const Vec3 s = (1.0 * a.local[n].scale + 2.0 * b.local[n].scale + 5.0 * c.local[n].scale) / 8.0;
    expect_vec3_near(blended.local[n].translation, t, tol::kClosedForm);
    expect_vec3_near(blended.local[n].scale, s, tol::kClosedForm);
  }
  ASSERT_EQ(blended.morph_weights[1].size(), 2u);
  EXPECT_NEAR(blended.morph_weights[1][0], (0.15 + 2.0 * 0.6 + 5.0 * 0.0) / 8.0, tol::kClosedForm);
  EXPECT_NEAR(blended.morph_weights[1][1], (0.85 + 2.0 * 0.1 + 5.0 * 0.4) / 8.0, tol::kClosedForm);
  EXPECT_TRUE(blended.morph_weights[0].empty());
}

TEST(BlendPoses, ManyLayers) {
  // Ten layers (more than a blend usually has): translation k and rotation k * 3 degrees about Z for layer
  // k = 1..10, weight k. Translations average to sum(k^2) / sum(k) = 385 / 55 = 7; the rotation is the
  // normalized weighted sum of the half-angle quaternions, sum(k (cos, sin)(k * 1.5 degrees)).
  std::vector<LocalPose> poses;
  for (int k = 1; k <= 10; ++k) {
    LocalPose pose;
    pose.local = {trs(Vec3(k, -k, 0.5 * k), z_rotation(k * 3.0 * kPi / 180.0), Vec3::Ones())};
    pose.morph_weights = {{}};
    poses.push_back(pose);
  }
  std::vector<BlendLayer> layers;
  double w_sum = 0.0, z_sum = 0.0;
  for (int k = 1; k <= 10; ++k) {
    layers.push_back(layer(poses[size_t(k - 1)], k));
    w_sum += k * std::cos(k * 1.5 * kPi / 180.0);
    z_sum += k * std::sin(k * 1.5 * kPi / 180.0);
  }
  const LocalPose blended = blend_poses(layers, poses[0]);
  expect_vec3_near(blended.local[0].translation, Vec3(7.0, -7.0, 3.5), tol::kClosedForm);
  expect_quat_near(blended.local[0].rotation, z_rotation(2.0 * std::atan2(z_sum, w_sum)), tol::kClosedForm);
}

// A single-node pose holding rotation q.
LocalPose rotation_pose(const Quat& q) {
  LocalPose pose;
  pose.local = {trs(Vec3::Zero(), q, Vec3::Ones())};
  pose.morph_weights = {{}};
  return pose;
}

TEST(BlendPoses, RotationAverageOfZeroAndNinetyDegrees) {
  const LocalPose zero = rotation_pose(Quat::Identity()), ninety = rotation_pose(z_rotation(kPi / 2.0));
  const std::vector<BlendLayer> half = {layer(zero, 0.5), layer(ninety, 0.5)};
  expect_quat_near(blend_poses(half, zero).local[0].rotation, z_rotation(kPi / 4.0), tol::kClosedForm);

  // 3/4 and 1/4: the normalized sum of (1, 0) and (cos 45, sin 45) (w and z, half angles) weighted 3:1 is a
  // rotation about Z by 2 atan2(sin 45 / 4, 3/4 + cos 45 / 4), which is not the slerp's 22.5 degrees.
  const std::vector<BlendLayer> quarter = {layer(zero, 3.0), layer(ninety, 1.0)};
  const double c45 = std::cos(kPi / 4.0);
  const double angle = 2.0 * std::atan2(0.25 * c45, 0.75 + 0.25 * c45);
  expect_quat_near(blend_poses(quarter, zero).local[0].rotation, z_rotation(angle), tol::kClosedForm);
  EXPECT_GT(std::abs(angle - kPi / 8.0), 1e-3);
}

TEST(BlendPoses, SlerpModeIsTheExactSlerpForTwoLayers) {
  const LocalPose zero = rotation_pose(Quat::Identity()), ninety = rotation_pose(z_rotation(kPi / 2.0));
  const std::vector<BlendLayer> quarter = {layer(zero, 3.0), layer(ninety, 1.0)};
  const LocalPose slerped = blend_poses(quarter, zero, BlendRotation::Slerp);
  expect_quat_near(slerped.local[0].rotation, z_rotation(kPi / 8.0), tol::kClosedForm);  // 22.5 degrees

  // Any two rotations: slerp by angle fraction, about the relative axis.
  const Quat from = axis_rotation(0.4, Vec3(1.0, 2.0, 0.5)), step = axis_rotation(1.2, Vec3(-0.3, 0.2, 1.0));
  const LocalPose p = rotation_pose(from), q = rotation_pose(from * step);
  const std::vector<BlendLayer> pair = {layer(p, 0.6), layer(q, 0.2)};
  expect_quat_near(blend_poses(pair, p, BlendRotation::Slerp).local[0].rotation,
                   from * axis_rotation(0.3, Vec3(-0.3, 0.2, 1.0)), tol::kClosedForm);

  // With three contributing layers Slerp is the weighted average.
  const LocalPose a = pose_a(), b = pose_b(), c = pose_c();
  const std::vector<BlendLayer> three = {layer(a, 0.2), layer(b, 0.3), layer(c, 0.5)};
  expect_pose_bits_equal(blend_poses(three, identity_pose(), BlendRotation::Slerp),
                         blend_poses(three, identity_pose(), BlendRotation::WeightedAverage));
}

TEST(BlendPoses, OppositeQuaternionSignsGiveTheSameRotation) {
  const LocalPose a = pose_a(), b = pose_b(), c = pose_c();
  LocalPose b_negated = b, a_negated = a;
  for (Transform& t : b_negated.local) t.rotation.coeffs() = -t.rotation.coeffs();
  for (Transform& t : a_negated.local) t.rotation.coeffs() = -t.rotation.coeffs();
  for (BlendRotation mode : {BlendRotation::WeightedAverage, BlendRotation::Slerp}) {
    SCOPED_TRACE(int(mode));
    const std::vector<BlendLayer> plain = {layer(a, 0.3), layer(b, 0.7)};
    const std::vector<BlendLayer> flipped = {layer(a, 0.3), layer(b_negated, 0.7)};
    const LocalPose expected = blend_poses(plain, identity_pose(), mode);
    const LocalPose with_flipped = blend_poses(flipped, identity_pose(), mode);
    const LocalPose first_flipped =
        blend_poses(std::vector<BlendLayer>{layer(a_negated, 0.3), layer(b, 0.7)}, identity_pose(), mode);
    for (size_t n = 0; n < 3; ++n) {
      // A later layer's sign does not matter; the first layer's sign picks the result's hemisphere.
      expect_quat_near(with_flipped.local[n].rotation, expected.local[n].rotation, tol::kClosedForm);
      expect_same_rotation(first_flipped.local[n].rotation, expected.local[n].rotation, tol::kClosedForm);
    }
  }
  // Three layers in the average, the middle one flipped: bit-identical (the flip is exact).
  const std::vector<BlendLayer> three = {layer(a, 0.2), layer(b, 0.3), layer(c, 0.5)};
  const std::vector<BlendLayer> three_flipped = {layer(a, 0.2), layer(b_negated, 0.3), layer(c, 0.5)};
  expect_pose_bits_equal(blend_poses(three_flipped, identity_pose()), blend_poses(three, identity_pose()));
}

TEST(BlendPoses, SummedWeightZeroKeepsTheFallback) {
  const LocalPose a = pose_a(), b = pose_b(), fallback = pose_c();
  const std::vector<BlendLayer> none = {layer(a, 0.0), layer(b, 0.0)};
  expect_pose_bits_equal(blend_poses(none, fallback), fallback);
  expect_pose_bits_equal(blend_poses(std::span<const BlendLayer>(), fallback), fallback);

  // Masks that leave node 2 uncovered.
  const std::vector<double> mask_a = {1.0, 0.0, 0.0}, mask_b = {0.0, 1.0, 0.0};
  const std::vector<BlendLayer> masked = {layer(a, 1.0, mask_a), layer(b, 1.0, mask_b)};
  const LocalPose blended = blend_poses(masked, fallback);
  expect_node_bits_equal(blended, a, 0);
  expect_node_bits_equal(blended, b, 1);
  expect_node_bits_equal(blended, fallback, 2);
}

TEST(BlendPoses, RefusesBrokenInputs) {
  const LocalPose a = pose_a(), fallback = identity_pose();
  const std::vector<double> short_mask = {1.0, 1.0};
  const std::vector<double> bad_mask = {1.0, 1.5, 1.0};
  LocalPose wrong_shape = pose_a();
  wrong_shape.local.pop_back();
  wrong_shape.morph_weights.pop_back();
  LocalPose wrong_weights = pose_a();
  wrong_weights.morph_weights[1].push_back(0.5);
  EXPECT_THROW(blend_poses(std::vector<BlendLayer>{layer(a, -1.0)}, fallback), std::invalid_argument);
  EXPECT_THROW(blend_poses(std::vector<BlendLayer>{layer(a, 1.0, short_mask)}, fallback), std::invalid_argument);
  EXPECT_THROW(blend_poses(std::vector<BlendLayer>{layer(a, 1.0, bad_mask)}, fallback), std::invalid_argument);
  EXPECT_THROW(blend_poses(std::vector<BlendLayer>{layer(wrong_shape, 1.0)}, fallback), std::invalid_argument);
  EXPECT_THROW(blend_poses(std::vector<BlendLayer>{layer(wrong_weights, 1.0)}, fallback), std::invalid_argument);
  EXPECT_THROW(blend_poses(std::vector<BlendLayer>{BlendLayer{}}, fallback), std::invalid_argument);
}

// ---- masks and node look-up --------------------------------------------------------------------------------

// hips(0) -> spine(3) -> {left_arm(1) -> left_hand(4), right_arm(2)}, plus a second root prop(5). The spine
// is stored after its children's siblings so that node order and index order differ.
Scene hierarchy() {
  Scene scene;
  scene.source = "test:blending";
  const std::vector<std::pair<std::string, std::vector<int>>> nodes = {
      {"hips", {3}}, {"left_arm", {4}}, {"right_arm", {}}, {"spine", {1, 2}}, {"left_hand", {}}, {"", {}}};
  for (const auto& [name, children] : nodes) {
    Node node;
    node.name = name;
    node.children = children;
    scene.nodes.push_back(node);
  }
  scene.roots = {0, 5};
  finalize_scene(scene);
  return scene;
}

TEST(SubtreeMask, CoversANodeAndItsDescendants) {
  const Scene scene = hierarchy();
  EXPECT_EQ(subtree_mask(scene, 3), (std::vector<double>{0.0, 1.0, 1.0, 1.0, 1.0, 0.0}));
  EXPECT_EQ(subtree_mask(scene, 1), (std::vector<double>{0.0, 1.0, 0.0, 0.0, 1.0, 0.0}));
  EXPECT_EQ(subtree_mask(scene, 0), (std::vector<double>{1.0, 1.0, 1.0, 1.0, 1.0, 0.0}));
  EXPECT_EQ(subtree_mask(scene, 4), (std::vector<double>{0.0, 0.0, 0.0, 0.0, 1.0, 0.0}));
  EXPECT_EQ(subtree_mask(scene, 5), (std::vector<double>{0.0, 0.0, 0.0, 0.0, 0.0, 1.0}));
  EXPECT_THROW(subtree_mask(scene, 6), InputError);
  EXPECT_THROW(subtree_mask(scene, -1), InputError);
}

TEST(SubtreeMask, MasksABlendToAnArm) {
  // The upper-body layer reaches the arm and hand only.
  const Scene scene = hierarchy();
  LocalPose rest = rest_pose(scene), arm = rest_pose(scene);
  for (Transform& t : arm.local) t.translation = Vec3(1.0, 2.0, 3.0);
  const std::vector<double> mask = subtree_mask(scene, find_node(scene, "left_arm"));
  const LocalPose blended = blend_poses(std::vector<BlendLayer>{layer(arm, 1.0, mask)}, rest);
  for (size_t n = 0; n < scene.nodes.size(); ++n)
    expect_node_bits_equal(blended, n == 1 || n == 4 ? arm : rest, n);
}

TEST(FindNode, FindsByNameAndListsNamesWhenAbsent) {
  const Scene scene = hierarchy();
  EXPECT_EQ(find_node(scene, "hips"), 0);
  EXPECT_EQ(find_node(scene, "left_hand"), 4);
  try {
    find_node(scene, "tail");
    FAIL() << "no InputError for an unknown node";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), "test:blending");
    EXPECT_EQ(error.json_path(), "");
    const std::string message = error.what();
    for (const char* name : {"'tail'", "'hips'", "'left_arm'", "'right_arm'", "'spine'", "'left_hand'", "#5"})
      EXPECT_NE(message.find(name), std::string::npos) << name << " missing from: " << message;
  }
}

// ---- additive layers ---------------------------------------------------------------------------------------

TEST(Additive, ReferenceDeltaGivesTheBaseBack) {
  const LocalPose reference = pose_b(), base = pose_a();
  const LocalPose delta = make_additive_delta(reference, reference);
  for (double weight : {1.0, 0.35, 2.0}) {
    SCOPED_TRACE(weight);
    LocalPose result = base;
    apply_additive(result, delta, weight);
    for (size_t n = 0; n < 3; ++n) {
      EXPECT_EQ(result.local[n].translation, base.local[n].translation);
      EXPECT_EQ(result.local[n].scale, base.local[n].scale);
      EXPECT_EQ(result.morph_weights[n], base.morph_weights[n]);
      expect_quat_near(result.local[n].rotation, base.local[n].rotation, tol::kClosedForm);
    }
  }
}

TEST(Additive, HalfOfAThirtyDegreeDeltaAddsFifteen) {
  // The pose is the reference turned a further 30 degrees about its local Z: the delta is that turn.
  const Quat reference_rotation = axis_rotation(0.8, Vec3(1.0, -1.0, 0.5));
  const LocalPose reference = rotation_pose(reference_rotation);
  const LocalPose pose = rotation_pose(reference_rotation * z_rotation(kPi / 6.0));
  const LocalPose delta = make_additive_delta(pose, reference);
  expect_quat_near(delta.local[0].rotation, z_rotation(kPi / 6.0), tol::kClosedForm);

  const Quat base_rotation = axis_rotation(-1.3, Vec3(0.2, 1.0, 0.1));
  for (const auto& [weight, degrees] : {std::pair{0.5, 15.0}, std::pair{1.0, 30.0}, std::pair{2.0, 60.0},
                                        std::pair{-0.5, -15.0}}) {
    SCOPED_TRACE(weight);
    LocalPose result = rotation_pose(base_rotation);
    apply_additive(result, delta, weight);
    expect_quat_near(result.local[0].rotation, base_rotation * z_rotation(degrees * kPi / 180.0), tol::kClosedForm);
  }
}

TEST(Additive, TranslationScaleAndMorphWeightRules) {
  // Dyadic values: every step below is exact, so the results are compared exactly.
  LocalPose reference, pose, base;
  reference.local = {trs(Vec3(1.0, 2.0, 3.0), Quat::Identity(), Vec3(2.0, 1.0, 0.0))};
  pose.local = {trs(Vec3(1.5, 1.0, 3.0), Quat::Identity(), Vec3(3.0, 0.5, 4.0))};
  base.local = {trs(Vec3(10.0, 0.0, -1.0), Quat::Identity(), Vec3(1.0, 2.0, 3.0))};
  reference.morph_weights = {{0.25, 0.5}};
  pose.morph_weights = {{0.75, 0.25}};
  base.morph_weights = {{0.0, 1.0}};

  const LocalPose delta = make_additive_delta(pose, reference);
  EXPECT_EQ(delta.local[0].translation, Vec3(0.5, -1.0, 0.0));
  EXPECT_EQ(delta.local[0].scale, Vec3(1.5, 0.5, 1.0));  // a zero reference component gives ratio 1
  EXPECT_EQ(delta.morph_weights[0], (std::vector<double>{0.5, -0.25}));

  apply_additive(base, delta, 0.5);
  EXPECT_EQ(base.local[0].translation, Vec3(10.25, -0.5, -1.0));
  EXPECT_EQ(base.local[0].scale, Vec3(1.0 * 1.25, 2.0 * 0.75, 3.0 * 1.0));
  EXPECT_EQ(base.morph_weights[0], (std::vector<double>{0.25, 0.875}));
}

TEST(Additive, MaskScalesTheWeightPerNode) {
  const LocalPose reference = pose_c(), pose = pose_b();
  const LocalPose delta = make_additive_delta(pose, reference);
  const std::vector<double> mask = {0.0, 0.5, 1.0};
  LocalPose masked = pose_a();
  apply_additive(masked, delta, 0.8, mask);
  expect_node_bits_equal(masked, pose_a(), 0);  // mask 0: untouched, bit for bit

  // Node 1 at mask 0.5 is the unmasked layer at weight 0.4; node 2 at mask 1 the one at 0.8.
  LocalPose at_04 = pose_a(), at_08 = pose_a();
  apply_additive(at_04, delta, 0.4);
  apply_additive(at_08, delta, 0.8);
  expect_node_bits_equal(masked, at_04, 1);
  expect_node_bits_equal(masked, at_08, 2);

  EXPECT_THROW(apply_additive(masked, delta, 1.0, std::vector<double>{1.0}), std::invalid_argument);
}

// ---- cross-fades -------------------------------------------------------------------------------------------

TEST(CrossFade, WeightRampsLinearly) {
  EXPECT_EQ(crossfade_weight(2.0, 0.5, 1.0), 0.0);
  EXPECT_EQ(crossfade_weight(2.0, 0.5, 2.0), 0.0);
  EXPECT_EQ(crossfade_weight(2.0, 0.5, 2.125), 0.25);
  EXPECT_EQ(crossfade_weight(2.0, 0.5, 2.25), 0.5);
  EXPECT_EQ(crossfade_weight(2.0, 0.5, 2.5), 1.0);
  EXPECT_EQ(crossfade_weight(2.0, 0.5, 7.0), 1.0);
  EXPECT_NEAR(crossfade_weight(0.1, 0.3, 0.2), 1.0 / 3.0, tol::kClosedForm);
}

TEST(CrossFade, ZeroDurationIsACut) {
  EXPECT_EQ(crossfade_weight(2.0, 0.0, 1.999), 0.0);
  EXPECT_EQ(crossfade_weight(2.0, 0.0, 2.0), 1.0);
  EXPECT_EQ(crossfade_weight(2.0, 0.0, 3.0), 1.0);
  EXPECT_THROW(crossfade_weight(2.0, -1.0, 3.0), std::invalid_argument);
}

TEST(CrossFade, DrivesATwoLayerBlend) {
  // Outgoing at 1 - w, incoming at w: mid-fade is the 50/50 blend, the ends are the poses themselves.
  const LocalPose out = pose_a(), in = pose_b();
  auto fade = [&](double tau) {
    const double w = crossfade_weight(1.0, 2.0, tau);
    return blend_poses(std::vector<BlendLayer>{layer(out, 1.0 - w), layer(in, w)}, identity_pose());
  };
  expect_pose_bits_equal(fade(0.5), out);
  expect_pose_bits_equal(fade(3.5), in);
  const LocalPose mid = fade(2.0);
  for (size_t n = 0; n < 3; ++n)
    expect_vec3_near(mid.local[n].translation, (out.local[n].translation + in.local[n].translation) / 2.0,
                     tol::kClosedForm);
}

}  // namespace
}  // namespace skinref
