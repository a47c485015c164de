// Tests of clip sampling (sampling.h): STEP at and between keys, clamping outside the key range (also when
// the first key is after 0), LINEAR lerp and short-path slerp (including q / -q neighbours), CUBICSPLINE
// Hermite with tangents scaled by the key interval (numbers derived by hand below), renormalized cubic
// rotations, the morph weights channel, slerp_short end points, that sample_animation writes only the
// animated properties, and that it gives sample_sampler's bits channel by channel (it finishes its slerps in
// batches).
#include "anim/sampling.h"
#include "core/pose.h"
#include "core/scene.h"
#include "support/math_expect.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::z_rotation;

AnimationSampler make_sampler(Interpolation interpolation, std::vector<double> times, std::vector<double> values,
                              int components) {
  AnimationSampler sampler;
  sampler.interpolation = interpolation;
  sampler.times = std::move(times);
  sampler.values = std::move(values);
  sampler.components = components;
  return sampler;
}

std::array<double, 3> sample3(const AnimationSampler& sampler, ChannelPath path, double t) {
  std::array<double, 3> out{};
  sample_sampler(sampler, path, t, out);
  return out;
}

Quat sample_rotation(const AnimationSampler& sampler, double t) {
  std::array<double, 4> out{};
  sample_sampler(sampler, ChannelPath::Rotation, t, out);
  return quat_from_xyzw(out[0], out[1], out[2], out[3]);
}

void append_xyzw(std::vector<double>& values, const Quat& q) {
  const std::array<double, 4> xyzw = quat_to_xyzw(q);
  values.insert(values.end(), xyzw.begin(), xyzw.end());
}

// Rotations are compared as rotations (q and -q are the same one) through their matrices.
void expect_same_rotation(const Quat& actual, const Quat& expected, double tolerance) {
  const Mat3 a = actual.toRotationMatrix();
  const Mat3 e = expected.toRotationMatrix();
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) {
      EXPECT_NEAR(a(row, col), e(row, col), tolerance)
          << "rotation element (" << row << ", " << col << ")\nactual:\n" << a << "\nexpected:\n" << e;
    }
  }
}

// Translation keys at t = 0, 1, 2 with values that are not dyadic, so any arithmetic would show in the bits.
AnimationSampler three_translation_keys(Interpolation interpolation) {
  return make_sampler(interpolation, {0.0, 1.0, 2.0},
                      {0.1, 0.2, 0.3,  //
                       1.7, -2.9, 3.3,  //
                       -4.1, 5.3, 6.7},
                      3);
}

TEST(SampleStep, ExactKeyTimeGivesThatKeyBitExact) {
  const AnimationSampler sampler = three_translation_keys(Interpolation::Step);
  EXPECT_EQ(sample3(sampler, ChannelPath::Translation, 1.0), (std::array<double, 3>{1.7, -2.9, 3.3}));
  EXPECT_EQ(sample3(sampler, ChannelPath::Translation, 2.0), (std::array<double, 3>{-4.1, 5.3, 6.7}));
  EXPECT_EQ(sample3(sampler, ChannelPath::Translation, 0.0), (std::array<double, 3>{0.1, 0.2, 0.3}));
}

TEST(SampleStep, JustBeforeNextKeyStillPreviousKey) {
  const AnimationSampler sampler = three_translation_keys(Interpolation::Step);
  const double just_before_last = std::nextafter(2.0, 0.0);
  EXPECT_EQ(sample3(sampler, ChannelPath::Translation, just_before_last), (std::array<double, 3>{1.7, -2.9, 3.3}));
  EXPECT_EQ(sample3(sampler, ChannelPath::Translation, 0.5), (std::array<double, 3>{0.1, 0.2, 0.3}));
}

TEST(SampleClamp, OutsideKeyRangeClampsForEveryInterpolation) {
  // First key after 0: times before it (including 0 and negative times) give the first key.
  const std::vector<double> times = {0.5, 1.5};
  const std::array<double, 3> first = {0.1, 0.2, 0.3};
  const std::array<double, 3> last = {1.7, -2.9, 3.3};
  const AnimationSampler step =
      make_sampler(Interpolation::Step, times, {first[0], first[1], first[2], last[0], last[1], last[2]}, 3);
  const AnimationSampler linear =
      make_sampler(Interpolation::Linear, times, {first[0], first[1], first[2], last[0], last[1], last[2]}, 3);
  // CUBICSPLINE keys are (in-tangent, value, out-tangent); the tangents must not leak into clamped values.
  const AnimationSampler cubic = make_sampler(Interpolation::CubicSpline, times,
                                              {9.0, 9.0, 9.0, first[0], first[1], first[2], 8.0, 8.0, 8.0,  //
                                               7.0, 7.0, 7.0, last[0], last[1], last[2], 6.0, 6.0, 6.0},
                                              3);
  for (const AnimationSampler* sampler : {&step, &linear, &cubic}) {
    SCOPED_TRACE(static_cast<int>(sampler->interpolation));
    EXPECT_EQ(sample3(*sampler, ChannelPath::Translation, 0.0), first);
    EXPECT_EQ(sample3(*sampler, ChannelPath::Translation, -3.0), first);
    EXPECT_EQ(sample3(*sampler, ChannelPath::Translation, 0.5), first);
    EXPECT_EQ(sample3(*sampler, ChannelPath::Translation, 1.5), last);
    EXPECT_EQ(sample3(*sampler, ChannelPath::Translation, 7.0), last);
  }
}

TEST(SampleLinear, TranslationMidwayIsAverage) {
  const AnimationSampler sampler =
      make_sampler(Interpolation::Linear, {1.0, 3.0}, {1.0, -2.0, 4.0, 3.0, 6.0, -4.0}, 3);
  const std::array<double, 3> mid = sample3(sampler, ChannelPath::Translation, 2.0);
  EXPECT_NEAR(mid[0], 2.0, tol::kClosedForm);
  EXPECT_NEAR(mid[1], 2.0, tol::kClosedForm);
  EXPECT_NEAR(mid[2], 0.0, tol::kClosedForm);
  // A quarter of the way: u = 0.25.
  const std::array<double, 3> quarter = sample3(sampler, ChannelPath::Translation, 1.5);
  EXPECT_NEAR(quarter[0], 1.5, tol::kClosedForm);
  EXPECT_NEAR(quarter[1], 0.0, tol::kClosedForm);
  EXPECT_NEAR(quarter[2], 2.0, tol::kClosedForm);
}

TEST(SampleLinear, InteriorKeyTimeGivesThatKeyBitExact) {
  // The contract uses the key's own value at an exact key time, for every interpolation.
  const AnimationSampler sampler = three_translation_keys(Interpolation::Linear);
  EXPECT_EQ(sample3(sampler, ChannelPath::Translation, 1.0), (std::array<double, 3>{1.7, -2.9, 3.3}));
}

TEST(SampleLinear, RotationHalfwayToQuarterTurnIsEighthTurn) {
  std::vector<double> values;
  append_xyzw(values, Quat::Identity());
  append_xyzw(values, z_rotation(std::numbers::pi / 2.0));
  const AnimationSampler sampler = make_sampler(Interpolation::Linear, {0.0, 1.0}, values, 4);
  const Quat mid = sample_rotation(sampler, 0.5);
  // 45 degrees about +Z: (0, 0, sin(pi/8), cos(pi/8)); the short path from identity keeps w > 0.
  EXPECT_NEAR(mid.x(), 0.0, tol::kClosedForm);
  EXPECT_NEAR(mid.y(), 0.0, tol::kClosedForm);
  EXPECT_NEAR(mid.z(), std::sin(std::numbers::pi / 8.0), tol::kClosedForm);
  EXPECT_NEAR(mid.w(), std::cos(std::numbers::pi / 8.0), tol::kClosedForm);
}

TEST(SampleLinear, NegatedNeighbourKeyDoesNotSpin) {
  // q and -q are the same rotation: every sample in between must be that rotation, not a turn through 360.
  const Quat q(Eigen::AngleAxisd(0.5, Vec3(1.0, 2.0, -1.0).normalized()));
  std::vector<double> values;
  append_xyzw(values, q);
  append_xyzw(values, Quat(-q.coeffs()));
  const AnimationSampler sampler = make_sampler(Interpolation::Linear, {0.0, 1.0}, values, 4);
  for (double t : {0.25, 0.5, 0.75}) {
    SCOPED_TRACE(t);
    const Quat sampled = sample_rotation(sampler, t);
    EXPECT_NEAR(sampled.norm(), 1.0, tol::kClosedForm);
    expect_same_rotation(sampled, q, tol::kClosedForm);
  }
}

TEST(SampleLinear, NegativeDotTakesShortPath) {
  // Second key is -(90 degrees about Z): dot with identity is negative. The short path goes through
  // +45 degrees about Z; the long one would go through -135 degrees.
  std::vector<double> values;
  append_xyzw(values, Quat::Identity());
  append_xyzw(values, Quat(-z_rotation(std::numbers::pi / 2.0).coeffs()));
  const AnimationSampler sampler = make_sampler(Interpolation::Linear, {0.0, 1.0}, values, 4);
  expect_same_rotation(sample_rotation(sampler, 0.5), z_rotation(std::numbers::pi / 4.0), tol::kClosedForm);
  expect_same_rotation(sample_rotation(sampler, 0.25), z_rotation(std::numbers::pi / 8.0), tol::kClosedForm);
}

TEST(SampleLinear, ScaleIsLerped) {
  const AnimationSampler sampler = make_sampler(Interpolation::Linear, {0.0, 4.0}, {1.0, 1.0, 1.0, 3.0, 5.0, 1.0}, 3);
  const std::array<double, 3> scale = sample3(sampler, ChannelPath::Scale, 1.0);  // u = 0.25
  EXPECT_NEAR(scale[0], 1.5, tol::kClosedForm);
  EXPECT_NEAR(scale[1], 2.0, tol::kClosedForm);
  EXPECT_NEAR(scale[2], 1.0, tol::kClosedForm);
}

TEST(SampleLinear, WeightsChannelHasOneComponentPerTarget) {
  // Three targets: each key holds three weights.
  const AnimationSampler sampler =
      make_sampler(Interpolation::Linear, {0.0, 2.0}, {0.0, 1.0, 0.5, 1.0, 0.0, 0.5}, 3);
  std::array<double, 3> weights{};
  sample_sampler(sampler, ChannelPath::Weights, 0.5, weights);  // u = 0.25
  EXPECT_NEAR(weights[0], 0.25, tol::kClosedForm);
  EXPECT_NEAR(weights[1], 0.75, tol::kClosedForm);
  EXPECT_NEAR(weights[2], 0.5, tol::kClosedForm);
}

// Keys at t = 1 and t = 3 (interval d = 2), values 1 and 5, out-tangent of key 0 b0 = 2, in-tangent of key 1
// a1 = -1. The in-tangent of key 0 and the out-tangent of key 1 are outside the interval and set to 100 so
// that using them by mistake shows. Per component c the values are offset by c (v + c, tangents unchanged).
AnimationSampler hermite_translation_sampler() {
  std::vector<double> values;
  auto push = [&values](double base, double per_component_offset) {
    for (int c = 0; c < 3; ++c) values.push_back(base + per_component_offset * c);
  };
  push(100.0, 0.0);  // a0 (unused)
  push(1.0, 1.0);    // v0
  push(2.0, 0.0);    // b0
  push(-1.0, 0.0);   // a1
  push(5.0, 1.0);    // v1
  push(100.0, 0.0);  // b1 (unused)
  return make_sampler(Interpolation::CubicSpline, {1.0, 3.0}, values, 3);
}

TEST(SampleCubic, HermiteMidpointWithTangentsScaledByInterval) {
  // t = 2: u = 0.5.
  //   h00 = 2u^3 - 3u^2 + 1 = 0.25 - 0.75 + 1 = 0.5
  //   h10 = u^3 - 2u^2 + u  = 0.125 - 0.5 + 0.5 = 0.125
  //   h01 = -2u^3 + 3u^2    = -0.25 + 0.75 = 0.5
  //   h11 = u^3 - u^2       = 0.125 - 0.25 = -0.125
  //   value = h00 v0 + d h10 b0 + h01 v1 + d h11 a1
  //         = 0.5*1 + 2*0.125*2 + 0.5*5 + 2*(-0.125)*(-1) = 0.5 + 0.5 + 2.5 + 0.25 = 3.75
  // Component c adds c * (h00 + h01) = c. (Without the factor d the result would be 3.375.)
  const std::array<double, 3> value = sample3(hermite_translation_sampler(), ChannelPath::Translation, 2.0);
  EXPECT_NEAR(value[0], 3.75, tol::kClosedForm);
  EXPECT_NEAR(value[1], 4.75, tol::kClosedForm);
  EXPECT_NEAR(value[2], 5.75, tol::kClosedForm);
}

TEST(SampleCubic, HermiteQuarterWithTangentsScaledByInterval) {
  // t = 1.5: u = 0.25, u^2 = 0.0625, u^3 = 0.015625.
  //   h00 = 0.03125 - 0.1875 + 1 = 0.84375
  //   h10 = 0.015625 - 0.125 + 0.25 = 0.140625
  //   h01 = -0.03125 + 0.1875 = 0.15625
  //   h11 = 0.015625 - 0.0625 = -0.046875
  //   value = 0.84375*1 + 2*0.140625*2 + 0.15625*5 + 2*(-0.046875)*(-1)
  //         = 0.84375 + 0.5625 + 0.78125 + 0.09375 = 2.28125
  // Component c adds c * (h00 + h01) = c.
  const std::array<double, 3> value = sample3(hermite_translation_sampler(), ChannelPath::Translation, 1.5);
  EXPECT_NEAR(value[0], 2.28125, tol::kClosedForm);
  EXPECT_NEAR(value[1], 3.28125, tol::kClosedForm);
  EXPECT_NEAR(value[2], 4.28125, tol::kClosedForm);
}

TEST(SampleCubic, RotationWithZeroTangentsIsRenormalized) {
  // Zero tangents at u = 0.5 give 0.5 v0 + 0.5 v1 = (0, 0, sin(pi/4), 1 + cos(pi/4)) / 2 for v0 = identity and
  // v1 = 90 degrees about Z: length < 1. Normalized, the half-angle identity makes it 45 degrees about Z.
  std::vector<double> values;
  append_xyzw(values, Quat(0.0, 0.0, 0.0, 0.0));
  append_xyzw(values, Quat::Identity());
  append_xyzw(values, Quat(0.0, 0.0, 0.0, 0.0));
  append_xyzw(values, Quat(0.0, 0.0, 0.0, 0.0));
  append_xyzw(values, z_rotation(std::numbers::pi / 2.0));
  append_xyzw(values, Quat(0.0, 0.0, 0.0, 0.0));
  const AnimationSampler sampler = make_sampler(Interpolation::CubicSpline, {0.0, 1.0}, values, 4);
  const Quat mid = sample_rotation(sampler, 0.5);
  EXPECT_NEAR(mid.norm(), 1.0, tol::kClosedForm);
  EXPECT_NEAR(mid.x(), 0.0, tol::kClosedForm);
  EXPECT_NEAR(mid.y(), 0.0, tol::kClosedForm);
  EXPECT_NEAR(mid.z(), std::sin(std::numbers::pi / 8.0), tol::kClosedForm);
  EXPECT_NEAR(mid.w(), std::cos(std::numbers::pi / 8.0), tol::kClosedForm);
}

TEST(SampleCubic, RotationWithTangentsIsHermiteThenNormalized) {
  const Quat v0 = Quat::Identity();
  const Quat v1(Eigen::AngleAxisd(1.0, Vec3(0.0, 1.0, 1.0).normalized()));
  const Vec4 b0(0.2, -0.1, 0.3, 0.0);  // out-tangent of key 0, (x, y, z, w)
  const Vec4 a1(0.0, 0.4, -0.2, 0.1);  // in-tangent of key 1
  std::vector<double> values;
  append_xyzw(values, Quat(0.0, 0.0, 0.0, 0.0));
  append_xyzw(values, v0);
  values.insert(values.end(), b0.data(), b0.data() + 4);
  values.insert(values.end(), a1.data(), a1.data() + 4);
  append_xyzw(values, v1);
  append_xyzw(values, Quat(0.0, 0.0, 0.0, 0.0));
  // Keys at t = 2 and t = 4 (d = 2); sampled at t = 2.5, u = 0.25, Hermite weights as derived above.
  const AnimationSampler sampler = make_sampler(Interpolation::CubicSpline, {2.0, 4.0}, values, 4);
  const double d = 2.0, h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875;
  const Vec4 v0_xyzw(v0.x(), v0.y(), v0.z(), v0.w());
  const Vec4 v1_xyzw(v1.x(), v1.y(), v1.z(), v1.w());
  const Vec4 expected = (h00 * v0_xyzw + d * h10 * b0 + h01 * v1_xyzw + d * h11 * a1).normalized();

  const Quat sampled = sample_rotation(sampler, 2.5);
  EXPECT_NEAR(sampled.norm(), 1.0, tol::kClosedForm);
  EXPECT_NEAR(sampled.x(), expected[0], tol::kClosedForm);
  EXPECT_NEAR(sampled.y(), expected[1], tol::kClosedForm);
  EXPECT_NEAR(sampled.z(), expected[2], tol::kClosedForm);
  EXPECT_NEAR(sampled.w(), expected[3], tol::kClosedForm);
}

TEST(SlerpShort, EndPointsAreExact) {
  const Quat a(Eigen::AngleAxisd(0.3, Vec3(1.0, 0.0, 1.0).normalized()));
  const Quat b(Eigen::AngleAxisd(2.1, Vec3(-1.0, 2.0, 0.5).normalized()));
  const Quat at_zero = slerp_short(a, b, 0.0);
  EXPECT_EQ(at_zero.coeffs(), a.coeffs());
  const Quat at_one = slerp_short(a, b, 1.0);
  EXPECT_TRUE(at_one.coeffs() == b.coeffs() || at_one.coeffs() == -b.coeffs())
      << "slerp_short(a, b, 1) = " << at_one.coeffs().transpose() << ", b = " << b.coeffs().transpose();
  // With a negative dot product the short path ends at -b.
  const Quat minus_b(-b.coeffs());
  const Quat at_one_flipped = slerp_short(a, minus_b, 1.0);
  EXPECT_TRUE(at_one_flipped.coeffs() == b.coeffs() || at_one_flipped.coeffs() == minus_b.coeffs());
  EXPECT_EQ(slerp_short(a, minus_b, 0.0).coeffs(), a.coeffs());
}

TEST(SlerpShort, ConstantAngularSpeed) {
  // Between rotations about one axis, slerp at u is the rotation by u times the angle.
  const Quat a = z_rotation(0.2);
  const Quat b = z_rotation(1.4);
  expect_same_rotation(slerp_short(a, b, 0.25), z_rotation(0.5), tol::kClosedForm);
  expect_same_rotation(slerp_short(a, b, 0.75), z_rotation(1.1), tol::kClosedForm);
}

// Three nodes: root 0 with children 1 and 2; node 2 carries a mesh with two morph targets. Every node has a
// non-trivial rest TRS so that an overwritten property shows.
Scene scene_with_animation(AnimationSampler sampler, AnimationChannel channel) {
  Scene scene;
  scene.source = "test:sampling";
  scene.nodes.resize(3);
  for (int i = 0; i < 3; ++i) {
    Node& node = scene.nodes[i];
    node.name = "node" + std::to_string(i);
    node.rest.translation = Vec3(1.0 + i, -2.0 * i, 0.5);
    node.rest.rotation = Quat(Eigen::AngleAxisd(0.3 + 0.2 * i, Vec3(1.0, 1.0, 0.0).normalized()));
    node.rest.scale = Vec3(1.0 + 0.5 * i, 2.0, 0.75);
  }
  scene.nodes[0].children = {1, 2};
  scene.roots = {0};

  Primitive primitive;
  primitive.positions = {Vec3(0.0, 0.0, 0.0), Vec3(1.0, 0.0, 0.0), Vec3(0.0, 1.0, 0.0)};
  primitive.indices = {0, 1, 2};
  MorphTarget target;
  target.position_deltas = {Vec3(0.0, 0.0, 1.0), Vec3(0.0, 0.0, 1.0), Vec3(0.0, 0.0, 1.0)};
  primitive.targets = {target, target};
  Mesh mesh;
  mesh.name = "morphing";
  mesh.primitives.push_back(primitive);
  mesh.default_weights = {0.25, 0.75};
  scene.meshes.push_back(mesh);
  scene.nodes[2].mesh = 0;

  Animation animation;
  animation.name = "main";
  animation.start_time = sampler.times.front();
  animation.end_time = sampler.times.back();
  animation.samplers.push_back(std::move(sampler));
  channel.sampler = 0;
  animation.channels.push_back(channel);
  scene.animations.push_back(animation);
  finalize_scene(scene);
  return scene;
}

void expect_same_transform(const Transform& actual, const Transform& expected) {
  EXPECT_EQ(actual.translation, expected.translation);
  EXPECT_EQ(actual.rotation.coeffs(), expected.rotation.coeffs());
  EXPECT_EQ(actual.scale, expected.scale);
}

TEST(SampleAnimation, OnlyAnimatedPropertiesChange) {
  AnimationChannel channel;
  channel.node = 1;
  channel.path = ChannelPath::Translation;
  const Scene scene = scene_with_animation(
      make_sampler(Interpolation::Linear, {0.0, 1.0}, {0.0, 0.0, 0.0, 4.0, -2.0, 6.0}, 3), channel);

  const LocalPose rest = rest_pose(scene);
  LocalPose pose = rest;
  sample_animation(scene, 0, 0.5, pose);

  ASSERT_EQ(pose.local.size(), 3u);
  expect_same_transform(pose.local[0], rest.local[0]);
  expect_same_transform(pose.local[2], rest.local[2]);
  EXPECT_EQ(pose.morph_weights, rest.morph_weights);
  // Node 1: translation sampled, rotation and scale kept.
  EXPECT_NEAR(pose.local[1].translation.x(), 2.0, tol::kClosedForm);
  EXPECT_NEAR(pose.local[1].translation.y(), -1.0, tol::kClosedForm);
  EXPECT_NEAR(pose.local[1].translation.z(), 3.0, tol::kClosedForm);
  EXPECT_EQ(pose.local[1].rotation.coeffs(), rest.local[1].rotation.coeffs());
  EXPECT_EQ(pose.local[1].scale, rest.local[1].scale);
}

TEST(SampleAnimation, PoseValuesThatAreNotAnimatedAreLeftAsGiven) {
  // The pose passed in need not be the rest pose: non-animated values come from it, not from the scene.
  AnimationChannel channel;
  channel.node = 0;
  channel.path = ChannelPath::Scale;
  const Scene scene =
      scene_with_animation(make_sampler(Interpolation::Step, {0.0, 1.0}, {2.0, 2.0, 2.0, 3.0, 3.0, 3.0}, 3), channel);
  LocalPose pose = rest_pose(scene);
  pose.local[0].translation = Vec3(-9.0, 8.0, -7.0);
  pose.local[1].translation = Vec3(6.0, -5.0, 4.0);
  const LocalPose given = pose;
  sample_animation(scene, 0, 0.25, pose);
  EXPECT_EQ(pose.local[0].translation, given.local[0].translation);
  EXPECT_EQ(pose.local[0].rotation.coeffs(), given.local[0].rotation.coeffs());
  EXPECT_EQ(pose.local[0].scale, Vec3(2.0, 2.0, 2.0));
  expect_same_transform(pose.local[1], given.local[1]);
  expect_same_transform(pose.local[2], given.local[2]);
}

TEST(SampleAnimation, WeightsChannelWritesMorphWeights) {
  AnimationChannel channel;
  channel.node = 2;
  channel.path = ChannelPath::Weights;
  const Scene scene = scene_with_animation(
      make_sampler(Interpolation::Linear, {0.0, 1.0}, {0.0, 1.0, 1.0, 0.0}, 2), channel);
  const LocalPose rest = rest_pose(scene);
  ASSERT_EQ(rest.morph_weights.size(), 3u);
  ASSERT_EQ(rest.morph_weights[2], (std::vector<double>{0.25, 0.75}));  // mesh defaults
  LocalPose pose = rest;
  sample_animation(scene, 0, 0.75, pose);
  ASSERT_EQ(pose.morph_weights[2].size(), 2u);
  EXPECT_NEAR(pose.morph_weights[2][0], 0.75, tol::kClosedForm);
  EXPECT_NEAR(pose.morph_weights[2][1], 0.25, tol::kClosedForm);
  for (int i = 0; i < 3; ++i) expect_same_transform(pose.local[i], rest.local[i]);
}

// Forty nodes, each with a LINEAR rotation channel of six random keys (some neighbours equal, some negated),
// translation channels in between, and nodes whose rotation two channels target: a STEP after a LINEAR one,
// a CUBICSPLINE before and after one. The clip's key times differ per sampler.
Scene many_rotation_channels() {
  std::mt19937 random(77);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  Scene scene;
  scene.source = "test:many rotation channels";
  const int count = 40;
  scene.nodes.resize(size_t(count));
  for (int i = 0; i < count; ++i) {
    scene.nodes[size_t(i)].name = "n" + std::to_string(i);
    scene.roots.push_back(i);
  }
  Animation animation;
  animation.name = "many";
  auto random_times = [&](int keys) {
    std::vector<double> times;
    double t = 0.05 + 0.1 * (unit(random) + 1.0);
    for (int k = 0; k < keys; ++k) {
      times.push_back(t);
      t += 0.05 + 0.2 * (unit(random) + 1.0);
    }
    return times;
  };
  auto add_channel = [&](AnimationSampler sampler, int node, ChannelPath path) {
    animation.samplers.push_back(std::move(sampler));
    animation.channels.push_back({int(animation.samplers.size()) - 1, node, path});
  };
  auto random_rotation = [&] {
    return Quat(unit(random), unit(random), unit(random), unit(random)).normalized();
  };
  for (int i = 0; i < count; ++i) {
    const std::vector<double> times = random_times(6);
    std::vector<double> values;
    Quat key = random_rotation();
    for (int k = 0; k < 6; ++k) {
      if (k > 0 && (i + k) % 7 == 0) {
        // the previous key again (no angle: lerped)
      } else if (k > 0 && (i + k) % 5 == 0) {
        key = Quat(-key.coeffs());  // the same rotation, the other hemisphere
      } else {
        key = random_rotation();
      }
      append_xyzw(values, key);
    }
    add_channel(make_sampler(Interpolation::Linear, times, values, 4), i, ChannelPath::Rotation);
    if (i % 4 == 1) {
      const std::vector<double> translation_times = random_times(3);
      std::vector<double> translations;
      for (int v = 0; v < 9; ++v) translations.push_back(unit(random));
      add_channel(make_sampler(Interpolation::Linear, translation_times, translations, 3), i,
                  ChannelPath::Translation);
    }
    if (i == 5) {
      std::vector<double> step_values;
      append_xyzw(step_values, random_rotation());
      append_xyzw(step_values, random_rotation());
      add_channel(make_sampler(Interpolation::Step, {0.3, 0.9}, step_values, 4), i, ChannelPath::Rotation);
    }
    if (i == 9 || i == 10) {
      // CUBICSPLINE: (in-tangent, value, out-tangent) per key.
      std::vector<double> cubic_values;
      for (int k = 0; k < 2; ++k) {
        for (int v = 0; v < 4; ++v) cubic_values.push_back(0.3 * unit(random));
        append_xyzw(cubic_values, random_rotation());
        for (int v = 0; v < 4; ++v) cubic_values.push_back(0.3 * unit(random));
      }
      AnimationSampler cubic = make_sampler(Interpolation::CubicSpline, {0.2, 1.1}, cubic_values, 4);
      if (i == 9) {
        // before the LINEAR channel of node 9: move it in front
        animation.samplers.push_back(std::move(cubic));
        animation.channels.insert(animation.channels.end() - 1 - (i % 4 == 1 ? 1 : 0),
                                  {int(animation.samplers.size()) - 1, i, ChannelPath::Rotation});
      } else {
        add_channel(std::move(cubic), i, ChannelPath::Rotation);
      }
    }
  }
  animation.start_time = 1e300;
  animation.end_time = 0.0;
  for (const AnimationSampler& sampler : animation.samplers) {
    animation.start_time = std::min(animation.start_time, sampler.times.front());
    animation.end_time = std::max(animation.end_time, sampler.times.back());
  }
  scene.animations.push_back(std::move(animation));
  finalize_scene(scene);
  return scene;
}

// sample_animation's contract written out: each channel in order through sample_sampler.
LocalPose sample_channel_by_channel(const Scene& scene, double t, const SamplingConventions& conventions) {
  LocalPose pose = rest_pose(scene);
  for (const AnimationChannel& channel : scene.animations[0].channels) {
    const AnimationSampler& sampler = scene.animations[0].samplers[size_t(channel.sampler)];
    std::vector<double> out(size_t(sampler.components));
    sample_sampler(sampler, channel.path, t, out, conventions);
    Transform& local = pose.local[size_t(channel.node)];
    if (channel.path == ChannelPath::Translation) local.translation = Vec3(out[0], out[1], out[2]);
    if (channel.path == ChannelPath::Rotation) local.rotation = quat_from_xyzw(out[0], out[1], out[2], out[3]);
  }
  return pose;
}

TEST(SampleAnimation, GivesSampleSamplersBitsChannelByChannel) {
  const Scene scene = many_rotation_channels();
  ASSERT_GT(scene.animations[0].channels.size(), 16u);  // more slerps than one batch holds
  // Times inside intervals, at every key of a few samplers, and outside every key range.
  std::vector<double> times = {0.0, 0.01, scene.animations[0].end_time + 1.0};
  for (int i = 0; i <= 300; ++i) times.push_back(scene.animations[0].end_time * i / 300.0);
  for (int s = 0; s < 6; ++s)
    for (const double key : scene.animations[0].samplers[size_t(s)].times) times.push_back(key);
  SamplingConventions nlerp;
  nlerp.rotation = RotationInterpolation::Nlerp;
  SamplingConventions as_stored;
  as_stored.quaternion_keys = QuaternionKeys::AsStored;
  int compared = 0;
  for (const SamplingConventions& conventions : {SamplingConventions{}, nlerp, as_stored}) {
    for (const double t : times) {
      SCOPED_TRACE("t = " + std::to_string(t));
      const LocalPose expected = sample_channel_by_channel(scene, t, conventions);
      LocalPose pose = rest_pose(scene);
      sample_animation(scene, 0, t, pose, conventions);
      for (size_t n = 0; n < scene.nodes.size(); ++n) {
        const Transform& a = pose.local[n];
        const Transform& b = expected.local[n];
        EXPECT_EQ(std::memcmp(a.rotation.coeffs().data(), b.rotation.coeffs().data(), 4 * sizeof(double)), 0)
            << "node " << n << ": " << a.rotation.coeffs().transpose() << " against "
            << b.rotation.coeffs().transpose();
        EXPECT_EQ(std::memcmp(a.translation.data(), b.translation.data(), 3 * sizeof(double)), 0) << "node " << n;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 3 * int(times.size()) * 40);
}

}  // namespace
}  // namespace skinref
