// The cases of glTF 2.0 section 3.11 (Animations) and Appendix C (the interpolation modes): sampling and
// time. Each animates a chain of three 4 m joints along +x (case_kit.h), so that an error in an angle moves
// the ribbon's far end by 12 m times the error.
#include "conformance/case_kit.h"
#include "conformance/cases.h"

#include <cmath>

namespace skinref::conformance {
namespace {

constexpr double kAnimationCaseSegment = 4.0;

ConformanceCase rotation_slerp() {
  ConformanceCase c;
  c.id = "rotation-linear-slerp";
  c.title = "LINEAR rotation keys 150 degrees apart: spherical linear interpolation";
  c.section = "C.4 Spherical Linear Interpolation";
  c.rule = "This mode is used when the animation sampler interpolation mode is set to LINEAR and the animated "
           "property is rotation, i.e., values of the animated property are unit quaternions.";
  // nlerp and component-wise lerp agree with slerp at the keys and at s = 1/2; they are furthest apart near
  // s = 0.22 and 0.78, which 0.25 and 0.75 s sample.
  c.targets = {{"S2", {"rotation=nlerp"}}, {"S2", {"rotation=lerp"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    add_animation(b, "swing", {{rig.chain.joints[0], "rotation", "LINEAR", {0.0, 1.0, 2.0},
                                concat({axis_angle_xyzw(kAxisZ, 0.0), axis_angle_xyzw(kAxisZ, degrees(150)),
                                        axis_angle_xyzw(kAxisZ, degrees(60))})}});
  };
  return c;
}

ConformanceCase rotation_hemisphere() {
  ConformanceCase c;
  c.id = "rotation-keys-opposite-hemispheres";
  c.title = "Consecutive rotation keys with a negative dot product: the short way round";
  c.section = "C.4 Spherical Linear Interpolation";
  c.rule = "Using the dot product's absolute value for computing a and multiplying v_{k+1} by the dot product's "
           "sign ensure that the spherical interpolation follows the short path along the great circle defined "
           "by the two quaternions.";
  c.targets = {{"S1", {"rotation=lerp"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    // The second key is -q(100 degrees): the same rotation, stored in the other hemisphere.
    std::vector<double> second = axis_angle_xyzw(kAxisZ, degrees(100));
    for (double& v : second) v = -v;
    add_animation(b, "turn", {{rig.chain.joints[1], "rotation", "LINEAR", {0.0, 1.0},
                               concat({axis_angle_xyzw(kAxisZ, degrees(10)), second})}});
  };
  return c;
}

ConformanceCase step_keys() {
  ConformanceCase c;
  c.id = "step-translation-rotation";
  c.title = "STEP keys: the value of the key at or before the time, and the key's own value at its time";
  c.section = "C.1 Overview";
  c.rule = "When the current (requested) timestamp exists in the animation data, its associated property value "
           "MUST be used as-is, without interpolation.";
  c.targets = {{"S3", {"step-boundary=previous"}}, {"S3", {"step=linear"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0, 1.5};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    add_animation(b, "steps",
                  {{rig.chain.joints[0], "translation", "STEP", {0.0, 0.5, 1.0}, {0, 0, 0, 0, 3, 0, 2, -2, 0}},
                   {rig.chain.joints[1], "rotation", "STEP", {0.0, 0.5, 1.0},
                    concat({axis_angle_xyzw(kAxisZ, 0.0), axis_angle_xyzw(kAxisZ, degrees(70)),
                            axis_angle_xyzw(kAxisZ, degrees(-40))})}});
  };
  return c;
}

ConformanceCase step_scale() {
  ConformanceCase c;
  c.id = "step-scale";
  c.title = "STEP scale keys, non-uniform: each holds until the next, and applies at its own time";
  c.section = "C.1 Overview";
  c.rule = "When the current (requested) timestamp exists in the animation data, its associated property value "
           "MUST be used as-is, without interpolation.";
  c.targets = {{"S3", {"step-boundary=previous"}}, {"S3", {"step=linear"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0, 1.5};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    add_animation(b, "steps", {{rig.chain.joints[1], "scale", "STEP", {0.0, 0.5, 1.0},
                                {1, 1, 1, 2, 0.5, 1, 0.5, 1.5, 2}}});
  };
  return c;
}

// Tangents of a CUBICSPLINE rotation: in-tangent, value, out-tangent per key. The tangents are large and not
// zero, and the key spacing is 0.5 s then 1.5 s, so that t_d scales them by different amounts.
std::vector<double> cubic_rotation_values() {
  const std::vector<double> zero = {0, 0, 0, 0};
  return concat({zero, axis_angle_xyzw(kAxisZ, 0.0), {0, 0, 1.5, 0},                       //
                 {0, 0, 0.4, -0.3}, axis_angle_xyzw(kAxisZ, degrees(80)), {0, 0, -0.6, 0.2},  //
                 {0, 0, 0.5, 0}, axis_angle_xyzw(kAxisZ, degrees(20)), zero});
}

ConformanceCase cubic_rotation() {
  ConformanceCase c;
  c.id = "cubic-spline-rotation";
  c.title = "CUBICSPLINE rotation with tangents that are not zero, keys 0.5 s and 1.5 s apart";
  c.section = "C.5 Cubic Spline Interpolation";
  c.rule = "When the animation sampler targets a node's rotation property, the interpolated quaternion MUST be "
           "normalized before applying the result to the node's rotation.";
  c.targets = {{"S4", {"cubic=unscaled-tangents"}}, {"S5", {"cubic=linear"}}, {"S6", {"cubic=no-renormalize"}}};
  c.times = {0.0, 0.125, 0.25, 0.5, 0.875, 1.25, 1.625, 2.0, 2.5};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    add_animation(b, "spline", {{rig.chain.joints[0], "rotation", "CUBICSPLINE", {0.0, 0.5, 2.0},
                                 cubic_rotation_values()}});
  };
  return c;
}

ConformanceCase cubic_translation_scale() {
  ConformanceCase c;
  c.id = "cubic-spline-translation-scale";
  c.title = "CUBICSPLINE translation and scale: the Hermite spline with tangents scaled by the key spacing";
  c.section = "C.5 Cubic Spline Interpolation";
  c.rule = "v_t = (2t^3 - 3t^2 + 1) * v_k + t_d(t^3 - 2t^2 + t) * b_k + (-2t^3 + 3t^2) * v_{k+1} + "
           "t_d(t^3 - t^2) * a_{k+1}";
  c.targets = {{"S4", {"cubic=unscaled-tangents"}}, {"S5", {"cubic=linear"}}};
  c.times = {0.0, 0.125, 0.25, 0.5, 0.875, 1.25, 1.625, 2.0};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    const std::vector<double> zero = {0, 0, 0};
    const std::vector<double> translation = concat({zero, {0, 0, 0}, {2, 6, 0},       //
                                                    {-4, 2, 0}, {3, 1, 0}, {0, -5, 0},  //
                                                    {1, 1, 0}, {0, -2, 0}, zero});
    const std::vector<double> scale = concat({zero, {1, 1, 1}, {3, 0, 0},             //
                                              {-2, 1, 0}, {2, 1.5, 1}, {0.5, 0, 0},     //
                                              {1, 0, 0}, {0.5, 1, 1}, zero});
    add_animation(b, "spline",
                  {{rig.chain.joints[0], "translation", "CUBICSPLINE", {0.0, 0.5, 2.0}, translation},
                   {rig.chain.joints[1], "scale", "CUBICSPLINE", {0.0, 0.5, 2.0}, scale}});
  };
  return c;
}

ConformanceCase clip_starts_late() {
  ConformanceCase c;
  c.id = "channel-starts-after-zero";
  c.title = "Keys from 1 s on: the timeline still starts at 0, and before the first key the first value holds";
  c.section = "3.11 Animations";
  c.rule = "The inputs of each sampler are relative to t = 0, defined as the beginning of the parent animations "
           "entry. Before and after the provided input range, output MUST be clamped to the nearest end of the "
           "input range.";
  c.targets = {{"T1", {"clip-start=first-key"}}};
  c.times = {0.0, 0.5, 1.0, 1.25, 1.5, 2.0, 3.0};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    add_animation(b, "late", {{rig.chain.joints[0], "rotation", "LINEAR", {1.0, 2.0},
                               concat({axis_angle_xyzw(kAxisZ, degrees(20)), axis_angle_xyzw(kAxisZ, degrees(110))})}});
  };
  return c;
}

ConformanceCase channels_end_apart() {
  ConformanceCase c;
  c.id = "channels-end-at-different-times";
  c.title = "Channels ending at 1 s and 2 s, and a single-key channel: each holds its last value";
  c.section = "3.11 Animations";
  c.rule = "Before and after the provided input range, output MUST be clamped to the nearest end of the input "
           "range.";
  // An engine that wraps at the clip's end, or treats the last key's time as the start of the next loop,
  // shows the first keys again at 2 s and after.
  c.targets = {{"T2", {"playback=loop"}}, {"T2", {"playback=loop", "wrap-period=last-minus-first"}}};
  c.times = {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.25};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    add_animation(b, "uneven",
                  {{rig.chain.joints[0], "rotation", "LINEAR", {0.0, 1.0},
                    concat({axis_angle_xyzw(kAxisZ, 0.0), axis_angle_xyzw(kAxisZ, degrees(60))})},
                   {rig.chain.joints[1], "rotation", "LINEAR", {0.25, 2.0},
                    concat({axis_angle_xyzw(kAxisZ, degrees(-10)), axis_angle_xyzw(kAxisZ, degrees(-100))})},
                   {rig.chain.joints[2], "translation", "LINEAR", {0.7}, {kAnimationCaseSegment, 1.5, 0}}});
  };
  return c;
}

// STEP rotation keys at 0, 1 and 2 s, the last the clip's end: at 2 s the last key applies, and it holds after.
ConformanceCase step_at_last_key() {
  ConformanceCase c;
  c.id = "step-at-and-after-the-last-key";
  c.title = "STEP rotation keys: at the clip's last key its own value, and after it that value held";
  c.section = "3.11 Animations";
  c.rule = "Before and after the provided input range, output MUST be clamped to the nearest end of the input "
           "range.";
  // An engine that takes the key before at a key's time, or loops at the clip's end, shows 40 degrees at 2 s
  // where glTF has -70.
  c.targets = {{"S3", {"step-boundary=previous"}}, {"T2", {"playback=loop"}}, {"T2", {"playback=loop", "at-end=hold"}}};
  c.times = {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.5};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    add_animation(b, "steps", {{rig.chain.joints[1], "rotation", "STEP", {0.0, 1.0, 2.0},
                                concat({axis_angle_xyzw(kAxisZ, degrees(15)), axis_angle_xyzw(kAxisZ, degrees(40)),
                                        axis_angle_xyzw(kAxisZ, degrees(-70))})}});
  };
  return c;
}

// Rotation keys stored as normalized signed bytes, swinging joint 0 by 102 degrees about an axis near z and
// back to -40: integers whose squares sum to 127^2, so that the decoded keys are unit quaternions (to float32
// rounding) and an engine that uses them without normalizing is as right as one that normalizes. (Signed shorts
// make no case: OpenGL ES 2.0's (2c + 1) / 65535 moves each component by 1.5e-5, a few times the bounds of a
// matrix entry at most.)
ConformanceCase rotation_keys_signed_bytes() {
  ConformanceCase c;
  c.id = "rotation-keys-normalized-signed-byte";
  c.title = "Rotation keys as normalized signed bytes, decoded as max(c / 127, -1), each of norm 127";
  c.section = "3.11 Animations";
  c.rule = "rotation: \"VEC4\": float, signed byte normalized, unsigned byte normalized, signed short normalized, "
           "unsigned short normalized";
  c.targets = {{"L1", {"key-decoding=offset-signed"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    std::vector<double> keys;
    // 10^2 + 5^2 + 98^2 + 80^2 = 4^2 + 4^2 + 44^2 + 119^2 = 127^2.
    for (double integer : {0, 0, 0, 127, 10, 5, 98, 80, 4, 4, -44, 119}) keys.push_back(integer / 127.0);
    add_animation(b, "swing", {{rig.chain.joints[0], "rotation", "LINEAR", {0.0, 1.0, 2.0}, keys}},
                  AccessorLayout{ComponentType::I8, true});
  };
  return c;
}

ConformanceCase keys_off_grid() {
  ConformanceCase c;
  c.id = "keys-between-frames";
  c.title = "A 40 ms spike between the frames of any common rate: no resampling";
  c.section = "C.1 Overview";
  c.rule = "When the current (requested) timestamp exists in the animation data, its associated property value "
           "MUST be used as-is, without interpolation.";
  c.targets = {{"T3", {"resample=30"}}, {"T3", {"resample=60"}}, {"T3", {"resample=24"}}};
  c.times = {0.0, 0.5, 0.515625, 0.53125, 0.546875, 0.5625, 1.0};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    add_animation(b, "spike", {{rig.chain.joints[0], "translation", "LINEAR",
                                {0.0, 0.515625, 0.53125, 0.546875, 1.0},
                                {0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0}}});
  };
  return c;
}

ConformanceCase samplers_with_own_inputs() {
  ConformanceCase c;
  c.id = "samplers-with-different-inputs";
  c.title = "One joint's translation, rotation and scale keyed at different times, none on a 30 Hz frame";
  c.section = "3.11 Animations";
  c.rule = "Samplers within a given animation MAY have different inputs.";
  c.targets = {{"T3", {"resample=30"}}, {"T3", {"resample=24"}}};
  c.times = {0.0, 0.34375, 0.4375, 0.703125, 1.0};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    const int joint = rig.chain.joints[1];
    add_animation(b, "apart", {{joint, "translation", "LINEAR", {0.0, 0.34375, 1.0},
                                {kAnimationCaseSegment, 0, 0, kAnimationCaseSegment, 3, 0, kAnimationCaseSegment, -1, 0}},
                               {joint, "rotation", "LINEAR", {0.0, 0.703125, 1.0},
                                concat({axis_angle_xyzw(kAxisZ, 0.0), axis_angle_xyzw(kAxisZ, degrees(80)),
                                        axis_angle_xyzw(kAxisZ, degrees(-20))})},
                               {joint, "scale", "LINEAR", {0.0, 0.4375, 1.0}, {1, 1, 1, 2.5, 0.5, 1, 1, 1, 1}}});
  };
  return c;
}

// CUBICSPLINE translation keys 0.625 s apart whose tangents swing the curve far from the chord: resampled at a
// frame rate and played LINEAR, the curve between frames becomes its chords.
ConformanceCase cubic_between_frames() {
  ConformanceCase c;
  c.id = "cubic-spline-between-frames";
  c.title = "A CUBICSPLINE translation sampled between the frames of 30 and 60 Hz";
  c.section = "C.5 Cubic Spline Interpolation";
  c.rule = "This mode is used when the animation sampler interpolation mode is set to CUBICSPLINE.";
  c.targets = {{"T3", {"resample=30"}}, {"T3", {"resample=60"}}};
  c.times = {0.0, 0.15625, 0.3125, 0.46875, 0.625};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    const std::vector<double> zero = {0, 0, 0};
    add_animation(b, "curve", {{rig.chain.joints[0], "translation", "CUBICSPLINE", {0.0, 0.625},
                                concat({zero, {0, 0, 0}, {0, 40, 0}, {0, -40, 0}, {3, 0, 0}, zero})}});
  };
  return c;
}

// Key compression (16-bit translations, 15-bit smallest-three quaternions) changes the keys' own values,
// which glTF plays as stored.
const char* const kKeysAsIs =
    "When the current (requested) timestamp exists in the animation data, its associated property value MUST be "
    "used as-is, without interpolation.";

ConformanceCase translation_keys_precision() {
  ConformanceCase c;
  c.id = "translation-keys-need-float32";
  c.title = "Translation keys 1 km from the origin: half floats are 0.5 m apart there";
  c.section = "C.1 Overview";
  c.rule = kKeysAsIs;
  c.targets = {{"S8", {"key-translation-scale=half"}}};
  c.times = {0.0, 0.25, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    add_animation(b, "far", {{rig.chain.joints[0], "translation", "LINEAR", {0.0, 1.0},
                              {1000.37, 2.1, 0, 1003.71, -1.3, 0}}});
  };
  return c;
}

ConformanceCase rotation_keys_precision() {
  ConformanceCase c;
  c.id = "rotation-keys-need-float32";
  c.title = "Small rotation keys off the 15-bit grid, turning a 12 m ribbon about one joint at the origin";
  c.section = "C.1 Overview";
  c.rule = kKeysAsIs;
  // A 15-bit key is off by at most 4.4e-5 rad, a rotation matrix entry's any-order bound about 30 float32 ulps
  // (docs/error_bounds.md): the key compression reaches about 11 times the bound.
  c.targets = {{"S8", {"key-rotation=q15"}}, {"S8", {"key-rotation=q15-offset"}}};
  c.times = {0.0, 0.25, 0.5, 0.75};
  // One joint at the origin carries the whole ribbon: its palette matrix has no translation to cancel. The
  // keys turn by about a degree, so that their x, y and z are near 0.01, where float32 is fine-grained and
  // the bounds are small, while the 15-bit grid is 4e-5 apart whatever the value: 0.5 mm at the tip. STEP, so
  // that the keys are played as stored: a slerp between keys a degree apart is ill-conditioned in float32
  // (the arccosine of a dot product near 1), and its bounds would hide the grid.
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 1, 3 * kAnimationCaseSegment, 12, false);
    add_animation(b, "fine", {{rig.chain.joints[0], "rotation", "STEP", {0.0, 0.5},
                               concat({axis_angle_xyzw(Vec3(0.3, 0.2, 1.0), degrees(0.73)),
                                       axis_angle_xyzw(Vec3(-0.2, 0.4, 1.0), degrees(1.91))})}});
  };
  return c;
}

// Half floats are 1/1024 apart in [1, 2): keys just under the midpoints are 4.9e-4 off, the most a half can be
// off relative to its value; the any-order bounds allow about 7e-6 of it (60 float32 ulps), so no scale key
// can reach 100 times the bound.
ConformanceCase scale_keys_precision() {
  ConformanceCase c;
  c.id = "scale-keys-need-float32";
  c.title = "Scale keys just under halfway between half floats, which are 1/1024 apart above 1";
  c.section = "C.1 Overview";
  c.rule = kKeysAsIs;
  c.targets = {{"S8", {"key-translation-scale=half"}}};
  c.times = {0.0, 0.25, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 1, 3 * kAnimationCaseSegment, 12, false);
    add_animation(b, "breathe", {{rig.chain.joints[0], "scale", "LINEAR", {0.0, 1.0},
                                  {1.000488, 1.001464, 1.0, 1.001464, 1.000488, 1.0}}});
  };
  return c;
}

// One key per channel, LINEAR and STEP, from 0.5 s on: each value holds at every time (CUBICSPLINE needs two
// keys, 3.11). Beside them joint 1 swings from 0.25 s, so that an engine that starts the clip at its first key
// shows it early.
ConformanceCase single_key_channels() {
  ConformanceCase c;
  c.id = "single-key-channels";
  c.title = "Channels of a single key, LINEAR and STEP, from 0.5 s: each value holds throughout";
  c.section = "3.11 Animations";
  c.rule = "Before and after the provided input range, output MUST be clamped to the nearest end of the input "
           "range.";
  c.targets = {{"T1", {"clip-start=first-key"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0, 1.5};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    const std::vector<ChannelSpec> channels = {
        {rig.chain.joints[0], "rotation", "LINEAR", {0.5}, axis_angle_xyzw(kAxisZ, degrees(30))},
        {rig.chain.joints[0], "translation", "STEP", {0.75}, {1, 2, 0}},
        {rig.chain.joints[2], "rotation", "STEP", {0.5}, axis_angle_xyzw(kAxisZ, degrees(-50))},
        {rig.chain.joints[1], "rotation", "LINEAR", {0.25, 1.25},
         concat({axis_angle_xyzw(kAxisZ, 0.0), axis_angle_xyzw(kAxisZ, degrees(-40))})}};
    add_animation(b, "held", channels);
  };
  return c;
}

// One node with a STEP translation and a LINEAR rotation: each channel keeps its own mode.
ConformanceCase modes_on_one_node() {
  ConformanceCase c;
  c.id = "step-and-linear-channels-on-one-node";
  c.title = "One joint with a STEP translation and a LINEAR rotation, keys at different times";
  c.section = "5.5.2 animation.samplers";
  c.rule = "An array of animation samplers. An animation sampler combines timestamps with a sequence of output "
           "values and defines an interpolation algorithm.";
  c.targets = {{"S3", {"step=linear"}}, {"S3", {"step-boundary=previous"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0, 1.5};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    constexpr double x = kAnimationCaseSegment;
    add_animation(b, "mixed", {{rig.chain.joints[1], "translation", "STEP", {0.0, 0.5, 1.0},
                                {x, 0, 0, x, 2.5, 0, x + 2, -1, 0}},
                               {rig.chain.joints[1], "rotation", "LINEAR", {0.0, 1.5},
                                concat({axis_angle_xyzw(kAxisZ, 0.0), axis_angle_xyzw(kAxisZ, degrees(60))})}});
  };
  return c;
}

// A translation that jumps 3 m between keys 1/256 s apart: a clip baked on a frame grid (30, 60 or 24 per
// second) turns the jump into a ramp a frame long, metres off at times just after it.
ConformanceCase keys_close_together() {
  ConformanceCase c;
  c.id = "keys-a-few-milliseconds-apart";
  c.title = "Translation keys 1/256 s apart, 3 m different: closer than any frame";
  c.section = "C.1 Overview";
  c.rule = kKeysAsIs;
  c.targets = {{"T3", {"resample=30"}}, {"T3", {"resample=60"}}, {"T3", {"resample=24"}}};
  c.times = {0.0, 0.25, 0.5, 0.50390625, 0.515625, 0.75, 1.0};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kAnimationCaseSegment, 4, true);
    add_animation(b, "jump", {{rig.chain.joints[0], "translation", "LINEAR", {0.0, 0.5, 0.50390625, 1.0},
                               {0, 0, 0, 0, 0, 0, 0, 3, 0, 1, 3, 0}}});
  };
  return c;
}

}  // namespace

void add_animation_cases(std::vector<ConformanceCase>& cases) {
  for (ConformanceCase (*make)() : {rotation_slerp, rotation_hemisphere, step_keys, step_scale, cubic_rotation,
                                    cubic_translation_scale, clip_starts_late, channels_end_apart, keys_off_grid,
                                    translation_keys_precision, rotation_keys_precision, samplers_with_own_inputs,
                                    cubic_between_frames, scale_keys_precision, step_at_last_key,
                                    rotation_keys_signed_bytes, single_key_channels, modes_on_one_node,
                                    keys_close_together})
    cases.push_back(make());
}

}  // namespace skinref::conformance
