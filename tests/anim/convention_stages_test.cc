// The time, sampling, clip, palette and morph-weight stages under engine conventions, each against a closed
// form: convention_sample_time (anim/time_mapping.h), sample_sampler's variants (anim/sampling.h), resampling
// and key quantization (anim/clip_conventions.h), skeleton-ancestors (anim/palette.h) and the morph-weight
// conventions of evaluate_pose (anim/evaluate_pose.h). With no convention every stage is bit-identical to its
// glTF form.
#include "anim/clip_conventions.h"
#include "anim/evaluate_pose.h"
#include "anim/local_to_model.h"
#include "anim/palette.h"
#include "anim/sampling.h"
#include "anim/time_mapping.h"
#include "io/builtin_scenes.h"
#include "support/convention_scene.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

constexpr double kPi = 3.14159265358979323846;

Conventions with(std::initializer_list<const char*> assignments) {
  Conventions c;
  for (const char* a : assignments) set_convention(c, a);
  return c;
}

TEST(ConventionTimeTest, ClipStartWrapPeriodAndEnd) {
  Animation clip;
  clip.start_time = 0.5;
  clip.end_time = 2.0;
  auto at = [&](double t, std::initializer_list<const char*> assignments) {
    return convention_sample_time(clip, t, with(assignments).time);
  };
  EXPECT_EQ(at(0.7, {}), 0.7);
  EXPECT_EQ(at(3.0, {}), 3.0);  // glTF: the sampler clamps
  EXPECT_EQ(at(0.7, {"clip-start=first-key"}), 1.2);
  EXPECT_DOUBLE_EQ(at(2.7, {"playback=loop"}), std::fmod(2.7, 2.0));
  EXPECT_DOUBLE_EQ(at(2.7, {"playback=loop", "wrap-period=last-minus-first"}), std::fmod(2.7, 1.5));
  EXPECT_DOUBLE_EQ(at(2.7, {"playback=loop", "wrap-period=last-minus-first", "clip-start=first-key"}),
                   0.5 + std::fmod(2.7, 1.5));
  EXPECT_EQ(at(4.0, {"playback=loop"}), 0.0);  // a whole number of periods restarts ...
  EXPECT_EQ(at(4.0, {"playback=loop", "at-end=hold"}), 2.0);  // ... or holds the end
  EXPECT_EQ(at(-1.0, {"playback=loop", "clip-start=first-key"}), 0.5);  // before the start: the first frame
}

// Two rotation keys 150 degrees apart about z, at u = 0.25.
struct RotationKeys {
  AnimationSampler sampler;
  explicit RotationKeys(bool second_in_other_hemisphere, double norm = 1.0) {
    sampler.interpolation = Interpolation::Linear;
    sampler.components = 4;
    sampler.times = {0.0, 1.0};
    const double half = 0.5 * 150.0 * kPi / 180.0;
    const double sign = second_in_other_hemisphere ? -1.0 : 1.0;
    sampler.values = {0.0, 0.0, 0.0, norm, 0.0, 0.0, sign * norm * std::sin(half), sign * norm * std::cos(half)};
  }
  std::array<double, 4> at(double t, const Conventions& c) const {
    std::array<double, 4> q{};
    sample_sampler(sampler, ChannelPath::Rotation, t, q, c.sampling);
    return q;
  }
};

// The angle about +z of a quaternion (x, y, z, w) with x = y = 0.
double z_angle(const std::array<double, 4>& q) { return 2.0 * std::atan2(q[2], q[3]); }

TEST(ConventionSamplingTest, RotationInterpolations) {
  const double theta = 150.0 * kPi / 180.0;
  const RotationKeys keys(false);
  EXPECT_NEAR(z_angle(keys.at(0.25, {})), 0.25 * theta, tol::kClosedForm);
  // nlerp: normalize(0.75 a + 0.25 b): angle 2 atan2(0.25 sin(theta/2), 0.75 + 0.25 cos(theta/2)).
  const double nlerp = 2.0 * std::atan2(0.25 * std::sin(theta / 2), 0.75 + 0.25 * std::cos(theta / 2));
  EXPECT_NEAR(z_angle(keys.at(0.25, with({"rotation=nlerp"}))), nlerp, tol::kClosedForm);
  EXPECT_GT(std::abs(nlerp - 0.25 * theta), 0.05);
  // The second key stored as -b: slerp and nlerp take the short path (the same rotations), lerp does not.
  const RotationKeys flipped(true);
  EXPECT_NEAR(z_angle(flipped.at(0.25, with({"rotation=nlerp"}))), nlerp, tol::kClosedForm);
  const std::array<double, 4> lerp = flipped.at(0.25, with({"rotation=lerp"}));
  const double long_way = 2.0 * std::atan2(-0.25 * std::sin(theta / 2), 0.75 - 0.25 * std::cos(theta / 2));
  EXPECT_NEAR(z_angle(lerp), long_way, tol::kClosedForm);
  EXPECT_NEAR(std::hypot(lerp[2], lerp[3]), 1.0, tol::kClosedForm);
}

TEST(ConventionSamplingTest, QuaternionKeysAsStoredKeepTheirLength) {
  const double theta = 150.0 * kPi / 180.0;
  const RotationKeys long_keys(false, 1.5);
  const Conventions as_stored = with({"quaternion-keys=as-stored"});
  const std::array<double, 4> between = long_keys.at(0.25, as_stored);
  EXPECT_NEAR(std::hypot(between[2], between[3]), 1.5, tol::kClosedForm);  // slerp of keys of length 1.5
  EXPECT_NEAR(z_angle(between), 0.25 * theta, tol::kClosedForm);
  EXPECT_EQ(long_keys.at(1.0, as_stored)[3], long_keys.sampler.values[7]);  // a key as stored
  const std::array<double, 4> normalized = long_keys.at(0.25, {});
  EXPECT_NEAR(std::hypot(normalized[2], normalized[3]), 1.0, tol::kClosedForm);
}

AnimationSampler scalar_sampler(Interpolation interpolation, std::vector<double> times, std::vector<double> values) {
  AnimationSampler s;
  s.interpolation = interpolation;
  s.components = 1;
  s.times = std::move(times);
  s.values = std::move(values);
  return s;
}

double sample_scalar(const AnimationSampler& s, double t, const Conventions& c = {}) {
  double out = 0.0;
  sample_sampler(s, ChannelPath::Weights, t, std::span<double>(&out, 1), c.sampling);
  return out;
}

TEST(ConventionSamplingTest, StepBoundary) {
  const AnimationSampler step = scalar_sampler(Interpolation::Step, {0.0, 1.0, 2.0}, {10.0, 20.0, 30.0});
  const Conventions previous = with({"step-boundary=previous"});
  EXPECT_EQ(sample_scalar(step, 1.0), 20.0);
  EXPECT_EQ(sample_scalar(step, 1.0, previous), 10.0);
  EXPECT_EQ(sample_scalar(step, 2.0, previous), 20.0);
  EXPECT_EQ(sample_scalar(step, 0.0, previous), 10.0);  // no key before the first
  EXPECT_EQ(sample_scalar(step, 1.5, previous), 20.0);  // between keys: unchanged
  EXPECT_EQ(sample_scalar(step, 2.5, previous), 30.0);  // past the end: the last key
}

TEST(ConventionSamplingTest, CubicSplineVariants) {
  // Keys at 0 and 2 (d = 2): value 0 -> 1, out-tangent of key 0 = 2, in-tangent of key 1 = 0; at u = 0.25:
  // h00 = 0.84375, h10 = 0.140625 d, h01 = 0.15625, h11 = -0.046875 d.
  const AnimationSampler cubic =
      scalar_sampler(Interpolation::CubicSpline, {0.0, 2.0}, {0.0, 0.0, 2.0, 0.0, 1.0, 0.0});
  EXPECT_DOUBLE_EQ(sample_scalar(cubic, 0.5), 0.140625 * 2.0 * 2.0 + 0.15625);
  EXPECT_DOUBLE_EQ(sample_scalar(cubic, 0.5, with({"cubic=unscaled-tangents"})), 0.140625 * 2.0 + 0.15625);
  EXPECT_DOUBLE_EQ(sample_scalar(cubic, 0.5, with({"cubic=linear"})), 0.25);
  // Rotations not renormalized: a spline between two unit keys leaves the unit sphere.
  AnimationSampler rotation;
  rotation.interpolation = Interpolation::CubicSpline;
  rotation.components = 4;
  rotation.times = {0.0, 1.0};
  const double s = std::sqrt(0.5);
  rotation.values = {0, 0, 0, 0, /*v0*/ 0, 0, 0, 1, /*b0*/ 0, 0, 0, 0,
                     /*a1*/ 0, 0, 0, 0, /*v1*/ 0, 0, s, s, 0, 0, 0, 0};
  std::array<double, 4> q{};
  sample_sampler(rotation, ChannelPath::Rotation, 0.5, q, with({"cubic=no-renormalize"}).sampling);
  // h00 = h01 = 0.5 at u = 0.5: 0.5 (0,0,0,1) + 0.5 (0,0,s,s), of length sqrt(0.25 s^2 + 0.25 (1 + s)^2).
  EXPECT_NEAR(std::sqrt(q[2] * q[2] + q[3] * q[3]), 0.5 * std::sqrt(s * s + (1 + s) * (1 + s)), tol::kClosedForm);
  sample_sampler(rotation, ChannelPath::Rotation, 0.5, q, {});
  EXPECT_NEAR(std::sqrt(q[2] * q[2] + q[3] * q[3]), 1.0, tol::kClosedForm);
}

TEST(ConventionClipTest, HalfAndFifteenBitQuantization) {
  EXPECT_EQ(round_to_half(1.0 / 3.0), 0.333251953125);  // 0x3555
  EXPECT_EQ(round_to_half(-2.0), -2.0);
  EXPECT_EQ(round_to_half(65504.0), 65504.0);
  EXPECT_EQ(round_to_half(1e6), 65504.0);               // saturated
  EXPECT_EQ(round_to_half(std::ldexp(1.0, -24)), std::ldexp(1.0, -24));  // the smallest subnormal
  EXPECT_EQ(round_to_half(std::ldexp(1.0, -26)), 0.0);
  EXPECT_EQ(round_to_half(1.0 + std::ldexp(1.0, -11)), 1.0);  // a tie rounds to even
  double identity[4] = {0, 0, 0, 1};
  quantize_quaternion_q15(identity);
  EXPECT_EQ(identity[3], 1.0);
  EXPECT_EQ(identity[0], 0.0);
  // A general rotation: each stored component within half a step of 1 / (32767 sqrt 2), the result unit.
  double q[4] = {0.1, -0.7, 0.3, -0.5};
  const double length = std::sqrt(0.01 + 0.49 + 0.09 + 0.25);
  const double unit[4] = {0.1 / length, -0.7 / length, 0.3 / length, -0.5 / length};
  quantize_quaternion_q15(q);
  const double step = 1.0 / (32767.0 * std::sqrt(2.0));
  // The largest component (y) was negative: the quaternion is stored negated.
  for (int i : {0, 2, 3}) EXPECT_LE(std::abs(q[i] - -unit[i]), 0.5 * step + 1e-15) << i;
  EXPECT_NEAR(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), 1.0, 1e-15);
  EXPECT_GT(q[1], 0.0);
}

// ozz-animation's encoding from 0.15 on (its animation_builder.cc CompressQuaternion, sampling_job.cc
// DecompressQuaternion): k = int((c + sqrt2/2) 32767/sqrt2 + 0.5), read back as sqrt2/32767 k - sqrt2/2. The
// grid's step is sqrt2/32767 and it holds no 0: 0 sits at k = 16383.5, and float32 puts it at 16383, so the
// identity reads back as (-sqrt2/65534, -sqrt2/65534, -sqrt2/65534, 1).
TEST(ConventionClipTest, OzzFifteenBitOffsetGrid) {
  const double step = std::sqrt(2.0) / 32767.0;
  const double kFloatNear07 = 1.2e-7;  // two float32 ulps of sqrt2/2, the cancellation's rounding
  double identity[4] = {0, 0, 0, 1};
  quantize_quaternion_q15_offset(identity);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(identity[i], -std::sqrt(2.0) / 65534.0, kFloatNear07) << i;
  EXPECT_EQ(identity[0], identity[1]);
  EXPECT_EQ(identity[3], 1.0);  // 1 - 3 (2.16e-5)^2 rounds to 1 in float32
  // A general rotation: each small component on the grid (within float32 rounding) and within half a step of
  // the unit value; the largest keeps its sign (ozz stores it), and the result is unit to float32.
  double q[4] = {0.1, -0.7, 0.3, -0.5};
  const double length = std::sqrt(0.01 + 0.49 + 0.09 + 0.25);
  const double unit[4] = {0.1 / length, -0.7 / length, 0.3 / length, -0.5 / length};
  quantize_quaternion_q15_offset(q);
  for (int i : {0, 2, 3}) {
    EXPECT_LE(std::abs(q[i] - unit[i]), 0.5 * step + kFloatNear07) << i;
    const double k = (q[i] + std::sqrt(0.5)) / step;
    EXPECT_NEAR(k, std::round(k), 0.01) << i;  // on the grid
  }
  EXPECT_LT(q[1], 0.0);
  EXPECT_NEAR(q[1], unit[1], 0.5 * step + kFloatNear07);
  EXPECT_NEAR(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), 1.0, 2e-7);
  // The older 16-bit signed grid holds 0: the identity is exact there.
  double old_identity[4] = {0, 0, 0, 1};
  quantize_quaternion_q15(old_identity);
  EXPECT_EQ(old_identity[0], 0.0);
}

// key-scope=every-joint: the joints' rest values are stored as keys are (ozz's tracks for every joint); the
// clip's keys alone otherwise. The convention scene's arm has the identity rotation and is no rotation target.
TEST(ConventionClipTest, KeyScopeReachesTheJointsRestValues) {
  const Scene source = testing::make_convention_scene();
  const size_t arm = 3;
  for (const char* scope : {"key-scope=keys", "key-scope=every-joint"}) {
    Scene scene = source;
    apply_clip_conventions(scene, with({"key-rotation=q15-offset", "key-translation-scale=half", scope}).sampling);
    const Quat& rotation = scene.nodes[arm].rest.rotation;
    if (std::string(scope) == "key-scope=keys") {
      EXPECT_EQ(rotation.coeffs(), source.nodes[arm].rest.rotation.coeffs());
    } else {
      EXPECT_NEAR(rotation.x(), -std::sqrt(2.0) / 65534.0, 1.2e-7);
      EXPECT_EQ(rotation.w(), 1.0);
    }
  }
  // Half floats reach a rest translation that half precision cannot hold (0.3: 0.300048828125, 0x34CD).
  Scene scene = source;
  scene.nodes[arm].rest.translation = Vec3(0.3, 1.0, 0.0);
  apply_clip_conventions(scene, with({"key-translation-scale=half", "key-scope=every-joint"}).sampling);
  EXPECT_EQ(scene.nodes[arm].rest.translation.x(), 0.300048828125);
  EXPECT_EQ(scene.nodes[arm].rest.translation.y(), 1.0);
  // Without a quantization the scope changes nothing.
  Scene unquantized = source;
  apply_clip_conventions(unquantized, with({"key-scope=every-joint"}).sampling);
  EXPECT_EQ(unquantized.nodes[arm].rest.rotation.coeffs(), source.nodes[arm].rest.rotation.coeffs());
}

TEST(ConventionClipTest, ResamplingTurnsEveryChannelIntoLinearKeysAtTheRate) {
  Scene scene = make_builtin_scene("bend");
  // Replace the clip with a STEP translation 0 -> 1 at t = 1 on node 0, and resample at 4 Hz.
  Animation& clip = scene.animations[0];
  clip.samplers = {};
  clip.channels = {};
  AnimationSampler step;
  step.interpolation = Interpolation::Step;
  step.components = 3;
  step.times = {0.0, 1.0};
  step.values = {0, 0, 0, 1, 0, 0};
  clip.samplers.push_back(step);
  clip.channels.push_back({0, 0, ChannelPath::Translation});
  clip.start_time = 0.0;
  clip.end_time = 1.0;
  finalize_scene(scene);
  apply_clip_conventions(scene, with({"resample=4"}).sampling);
  const AnimationSampler& resampled = scene.animations[0].samplers[0];
  EXPECT_EQ(resampled.interpolation, Interpolation::Linear);
  EXPECT_EQ(resampled.times, (std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0}));
  double at[3];
  sample_sampler(resampled, ChannelPath::Translation, 0.875, at);
  EXPECT_EQ(at[0], 0.5);  // the step became a ramp over the last 1/4 s
  sample_sampler(resampled, ChannelPath::Translation, 0.5, at);
  EXPECT_EQ(at[0], 0.0);
}

TEST(ConventionPaletteTest, DroppedAncestorsAreTheSceneWithoutThem) {
  const Scene scene = testing::make_convention_scene();
  Scene without_world = scene;
  without_world.nodes[0].rest = Transform();  // "world", the parent of the skeleton root
  ASSERT_EQ(skeleton_root(scene, 0), 1);
  const Conventions dropped = with({"skeleton-ancestors=dropped"});
  for (double t : {0.6, 1.3}) {
    const JointPalette a = evaluate_pose(scene, 0, t, dropped).palettes[0];
    const JointPalette b = evaluate_pose(without_world, 0, t).palettes[0];
    const JointPalette kept = evaluate_pose(scene, 0, t).palettes[0];
    for (size_t j = 0; j < a.skinning.size(); ++j) {
      EXPECT_LT((a.skinning[j] - b.skinning[j]).cwiseAbs().maxCoeff(), 1e-14) << j;
      EXPECT_GT((kept.skinning[j] - b.skinning[j]).cwiseAbs().maxCoeff(), 0.1) << j;
    }
  }
}

// cubic-weights=per-target: two targets, two keys; the engine reads key k's (a, v, b) of target j at
// 3 (2 k + j) + (0, 1, 2).
TEST(ConventionClipTest, CubicWeightsReadPerTarget) {
  Scene scene = testing::make_convention_scene();
  AnimationSampler sampler;
  sampler.interpolation = Interpolation::CubicSpline;
  sampler.times = {0.0, 1.0};
  sampler.components = 2;
  sampler.values = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // grouped: a0 a1 v0 v1 b0 b1 per key
  Animation animation;
  animation.samplers = {sampler};
  animation.channels = {{0, 5, ChannelPath::Weights}};
  Scene one = scene;
  one.meshes[0].default_weights = {0.0, 0.0};
  for (Primitive& p : one.meshes[0].primitives) p.targets.resize(2);
  one.animations = {animation};
  apply_clip_conventions(one, with({"cubic-weights=per-target"}).sampling);
  // Grouped index of (key k, element e, target j) is 6 k + 2 e + j; it now holds the value at 6 k + 3 j + e.
  EXPECT_EQ(one.animations[0].samplers[0].values, (std::vector<double>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
}

// key-decoding: a rotation sampler stored as normalized signed bytes and a weights sampler as normalized unsigned
// bytes; each engine's value follows from the stored integer in closed form.
TEST(ConventionClipTest, NormalizedKeysDecodedAsTheEngineDoes) {
  Scene scene = testing::make_convention_scene();
  AnimationSampler rotation;
  rotation.times = {0.0};
  rotation.components = 4;
  rotation.values = {0.0, 0.0, 64.0 / 127.0, -110.0 / 127.0};
  rotation.normalized_output = {127u, true};
  AnimationSampler weights;
  weights.times = {0.0};
  weights.components = 1;
  weights.values = {51.0 / 255.0};
  weights.normalized_output = {255u, false};
  AnimationSampler floats = weights;
  floats.normalized_output = {};
  for (const char* decoding : {"key-decoding=raw", "key-decoding=offset-signed"}) {
    Scene one = scene;
    Animation animation;
    animation.samplers = {rotation, weights, floats};
    one.animations = {animation};
    apply_clip_conventions(one, with({decoding}).sampling);
    const std::vector<AnimationSampler>& read = one.animations[0].samplers;
    if (std::string(decoding) == "key-decoding=raw") {
      EXPECT_EQ(read[0].values, (std::vector<double>{0.0, 0.0, 64.0, -110.0}));
      EXPECT_EQ(read[1].values, (std::vector<double>{51.0}));
    } else {
      EXPECT_EQ(read[0].values, (std::vector<double>{1.0 / 255.0, 1.0 / 255.0, 129.0 / 255.0, -219.0 / 255.0}));
      EXPECT_EQ(read[1].values, (std::vector<double>{51.0 / 255.0}));  // unsigned keys decode alike
    }
    EXPECT_EQ(read[2].values, (std::vector<double>{51.0 / 255.0}));  // float keys are not integers
  }
}

TEST(ConventionPoseTest, UnanimatedPropertiesTakeTheIdentity) {
  const Scene scene = testing::make_convention_scene();
  const Conventions identity = with({"rest-values=identity"});
  const EvaluatedPose pose = evaluate_pose(scene, 0, 1.0, identity);
  const EvaluatedPose gltf = evaluate_pose(scene, 0, 1.0);
  std::vector<bool> translated(scene.nodes.size()), turned(scene.nodes.size()), scaled(scene.nodes.size()),
      animated(scene.nodes.size());
  for (const AnimationChannel& c : scene.animations[0].channels) {
    animated[size_t(c.node)] = c.path != ChannelPath::Weights || animated[size_t(c.node)];
    translated[size_t(c.node)] = translated[size_t(c.node)] || c.path == ChannelPath::Translation;
    turned[size_t(c.node)] = turned[size_t(c.node)] || c.path == ChannelPath::Rotation;
    scaled[size_t(c.node)] = scaled[size_t(c.node)] || c.path == ChannelPath::Scale;
  }
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    const Transform& a = pose.local.local[n];
    const Transform& b = gltf.local.local[n];
    EXPECT_EQ(a.translation, animated[n] && !translated[n] ? Vec3::Zero() : b.translation) << n;
    EXPECT_EQ(a.scale, animated[n] && !scaled[n] ? Vec3::Ones() : b.scale) << n;
    EXPECT_EQ(a.rotation.coeffs(), animated[n] && !turned[n] ? Quat::Identity().coeffs() : b.rotation.coeffs()) << n;
  }
}

TEST(ConventionPoseTest, DroppedShearLeavesOrthogonalAxesAndKeepsShearFreeTransforms) {
  Scene scene = testing::make_convention_scene();
  const Conventions dropped = with({"shear=dropped"});
  for (double t : {0.6, 1.3}) {
    const EvaluatedPose pose = evaluate_pose(scene, 0, t, dropped);
    const EvaluatedPose gltf = evaluate_pose(scene, 0, t);
    for (size_t n = 0; n < scene.nodes.size(); ++n) {
      const Mat3 axes = pose.model.global[n].topLeftCorner<3, 3>();
      // Stored as TRS: the columns are orthogonal whatever the parents' scales.
      for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
          EXPECT_LT(std::abs(axes.col(i).normalized().dot(axes.col(j).normalized())), 1e-12) << n;
      // Where the glTF global has no shear, dropping it changes nothing but rounding.
      const Mat3 g = gltf.model.global[n].topLeftCorner<3, 3>();
      const double shear = std::abs(g.col(0).normalized().dot(g.col(1).normalized())) +
                           std::abs(g.col(0).normalized().dot(g.col(2).normalized())) +
                           std::abs(g.col(1).normalized().dot(g.col(2).normalized()));
      if (shear < 1e-12) {
        EXPECT_LT((pose.model.global[n] - gltf.model.global[n]).cwiseAbs().maxCoeff(), 1e-9) << n;
      }
    }
  }
}

// glTF allows a scale of 0: storing such a global as TRS stays finite (a column of length 0 is not divided by).
TEST(ConventionPoseTest, DroppedShearKeepsAZeroScaleFinite) {
  Scene scene = testing::make_convention_scene();
  for (Node& node : scene.nodes) node.rest.scale.x() = 0.0;
  for (double t : {0.0, 1.0, 2.0}) {
    const EvaluatedPose pose = evaluate_pose(scene, 0, t, with({"shear=dropped"}));
    for (size_t n = 0; n < pose.model.global.size(); ++n) EXPECT_TRUE(pose.model.global[n].allFinite()) << n;
  }
}

TEST(ConventionPaletteTest, EntriesBeyondTheJointCapAreTheIdentity) {
  const Scene scene = testing::make_convention_scene();
  const JointPalette capped = evaluate_pose(scene, 0, 1.0, with({"joint-cap=2"})).palettes[0];
  const JointPalette full = evaluate_pose(scene, 0, 1.0).palettes[0];
  ASSERT_GT(full.skinning.size(), 2u);
  for (size_t j = 0; j < full.skinning.size(); ++j) {
    if (j < 2) {
      EXPECT_EQ(capped.skinning[j], full.skinning[j]) << j;
    } else {
      EXPECT_EQ(capped.skinning[j], Mat4::Identity()) << j;
      EXPECT_EQ(capped.normal[j], Mat3::Identity()) << j;
    }
  }
}

TEST(ConventionPoseTest, MorphDefaultsAndTheLargestTargets) {
  const Scene scene = testing::make_convention_scene();
  const std::vector<double>& defaults = scene.meshes[0].default_weights;
  const int body = 5;
  EXPECT_EQ(evaluate_pose(scene, 0, 1.0).local.morph_weights[body], defaults);
  const std::vector<double> ignored = evaluate_pose(scene, 0, 1.0, with({"morph-defaults=ignored"})).local.morph_weights[body];
  EXPECT_EQ(ignored, std::vector<double>(defaults.size(), 0.0));
  // The two largest |w| are 0.6 and -0.5, the first two.
  const std::vector<double> two = evaluate_pose(scene, 0, 1.0, with({"morph-targets=2"})).local.morph_weights[body];
  std::vector<double> expected(defaults.size(), 0.0);
  expected[0] = defaults[0];
  expected[1] = defaults[1];
  EXPECT_EQ(two, expected);
  // morph-targets=0: an engine without morph targets; every weight 0, whatever the defaults and the clip.
  const std::vector<double> none = evaluate_pose(scene, 0, 1.0, with({"morph-targets=0"})).local.morph_weights[body];
  EXPECT_EQ(none, std::vector<double>(defaults.size(), 0.0));
}

// With no convention, evaluate_pose is the glTF pipeline composed by hand (sample, local to model, palette),
// to the last bit: the conventions' plumbing changes nothing when unused.
TEST(ConventionPoseTest, NoConventionIsTheGltfPipelineBitForBit) {
  for (const std::string& name : builtin_scene_names()) {
    const Scene scene = make_builtin_scene(name);
    const int animation = scene.animations.empty() ? -1 : 0;
    for (double t : {0.0, 0.37, 0.9}) {
      LocalPose local = rest_pose(scene);
      if (animation >= 0) sample_animation(scene, animation, t, local);
      const ModelPose model = local_to_model(scene, local);
      const EvaluatedPose pose = evaluate_pose(scene, animation, t, Conventions{});
      for (size_t s = 0; s < scene.skins.size(); ++s) {
        const JointPalette by_hand = compute_palette(scene, model, int(s));
        for (size_t j = 0; j < by_hand.skinning.size(); ++j) {
          EXPECT_EQ(pose.palettes[s].skinning[j], by_hand.skinning[j]) << name << " t " << t;
          EXPECT_EQ(pose.palettes[s].normal[j], by_hand.normal[j]) << name << " t " << t;
        }
      }
    }
  }
}

}  // namespace
}  // namespace skinref
