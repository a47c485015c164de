#include "anim/clip_conventions.h"

#include "anim/sampling.h"

#include <cmath>

namespace skinref {

double round_to_half(double value) {
  if (!std::isfinite(value) || value == 0.0) return value;
  constexpr double kMaxHalf = 65504.0;
  const double magnitude = std::abs(value);
  if (magnitude >= kMaxHalf) return std::copysign(kMaxHalf, value);
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5, 1)
  // 11 significant bits for normals (exponent >= -13, i.e. magnitude >= 2^-14), else the subnormal step 2^-24.
  const int quantum_exponent = exponent >= -13 ? exponent - 11 : -24;
  const double quantum = std::ldexp(1.0, quantum_exponent);
  const double rounded = std::nearbyint(magnitude / quantum) * quantum;
  return std::copysign(std::min(rounded, kMaxHalf), value);
}

void quantize_quaternion_q15(double* q) {
  const double length = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(length > 0.0)) return;
  double unit[4];
  int largest = 0;
  for (int i = 0; i < 4; ++i) {
    unit[i] = q[i] / length;
    if (std::abs(unit[i]) > std::abs(unit[largest])) largest = i;
  }
  const double sign = unit[largest] < 0.0 ? -1.0 : 1.0;
  const double scale = 32767.0 * std::sqrt(2.0);
  double squares = 0.0;
  for (int i = 0; i < 4; ++i) {
    if (i == largest) continue;
    const double stored = std::nearbyint(unit[i] * sign * scale);  // |unit[i]| <= 1/sqrt(2): fits in int16
    q[i] = stored / scale;
    squares += q[i] * q[i];
  }
  q[largest] = std::sqrt(std::max(0.0, 1.0 - squares));
}

// ozz-animation's CompressQuaternion and DecompressQuaternion (0.15 on), in float32 as ozz computes them: the key
// normalized (NormalizeSafe), each of the three smallest components c stored as k = min(int((c + sqrt2/2) *
// (32767 / sqrt2) + 0.5), 32767), read back as sqrt2 / 32767 * k - sqrt2/2, the largest rebuilt from the others
// with its stored sign. The grid's step is sqrt2 / 32767 and does not hold 0: the identity reads back as
// (-sqrt2/65534, -sqrt2/65534, -sqrt2/65534, 1). ozz rebuilds the largest as x * rsqrt_estimate(x); here the
// square root is exact (the estimate is arithmetic, not the key's encoding).
void quantize_quaternion_q15_offset(double* q) {
  constexpr float kSqrt2 = 1.4142135623730950488f, kSqrt2Half = 0.70710678118654752440f;
  float quat[4];
  float squared_length = 0.0f;
  for (int i = 0; i < 4; ++i) {
    quat[i] = float(q[i]);
    squared_length = squared_length + quat[i] * quat[i];
  }
  if (!(squared_length > 0.0f)) return;
  const float inverse_length = 1.0f / std::sqrt(squared_length);
  int largest = 0;
  for (int i = 0; i < 4; ++i) {
    quat[i] = quat[i] * inverse_length;
    if (std::abs(quat[i]) > std::abs(quat[largest])) largest = i;
  }
  const float encode_scale = 32767.0f / kSqrt2, decode_scale = kSqrt2 / 32767.0f;
  float decoded[4], dot = 0.0f;
  for (int i = 0; i < 4; ++i) {
    decoded[i] = 0.0f;
    if (i == largest) continue;
    const int stored = std::min(int((quat[i] + kSqrt2Half) * encode_scale + 0.5f), 32767);
    decoded[i] = decode_scale * float(stored) - kSqrt2Half;
  }
  for (int i = 0; i < 4; ++i) dot = dot + decoded[i] * decoded[i];
  const float rebuilt = std::sqrt(std::max(0.0f, 1.0f - dot));
  decoded[largest] = quat[largest] < 0.0f ? -rebuilt : rebuilt;
  for (int i = 0; i < 4; ++i) q[i] = double(decoded[i]);
}

namespace {

// The round trip of one rotation (x, y, z, w) under the scheme `keys` names.
void quantize_rotation(RotationKeys keys, double* xyzw) {
  switch (keys) {
    case RotationKeys::F32: return;
    case RotationKeys::SmallestThree15: quantize_quaternion_q15(xyzw); return;
    case RotationKeys::OffsetSmallestThree15: quantize_quaternion_q15_offset(xyzw); return;
  }
}

// key-scope=every-joint: each skin joint's rest translation, rotation and scale stored as its keys are.
void quantize_joint_rest_values(Scene& scene, const SamplingConventions& conventions) {
  std::vector<bool> joint(scene.nodes.size(), false);
  for (const Skin& skin : scene.skins)
    for (int j : skin.joints) joint[size_t(j)] = true;
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    if (!joint[n]) continue;
    Transform& rest = scene.nodes[n].rest;
    if (conventions.translation_scale_keys == TranslationScaleKeys::Half)
      for (int i = 0; i < 3; ++i) {
        rest.translation[i] = round_to_half(rest.translation[i]);
        rest.scale[i] = round_to_half(rest.scale[i]);
      }
    double xyzw[4] = {rest.rotation.x(), rest.rotation.y(), rest.rotation.z(), rest.rotation.w()};
    quantize_rotation(conventions.rotation_keys, xyzw);
    rest.rotation = quat_from_xyzw(xyzw[0], xyzw[1], xyzw[2], xyzw[3]);
  }
}

// The path each sampler is read for (the first channel that uses it).
std::vector<ChannelPath> sampler_paths(const Animation& animation) {
  std::vector<ChannelPath> paths(animation.samplers.size(), ChannelPath::Translation);
  std::vector<bool> seen(animation.samplers.size(), false);
  for (const AnimationChannel& channel : animation.channels) {
    if (!seen[size_t(channel.sampler)]) paths[size_t(channel.sampler)] = channel.path;
    seen[size_t(channel.sampler)] = true;
  }
  return paths;
}

void resample(Animation& animation, double hz) {
  std::vector<double> times;
  for (long long i = 0;; ++i) {
    const double t = double(float(animation.start_time + double(i) / hz));
    if (t >= animation.end_time) break;
    if (times.empty() || t > times.back()) times.push_back(t);
  }
  if (times.empty() || animation.end_time > times.back()) times.push_back(animation.end_time);
  const std::vector<ChannelPath> paths = sampler_paths(animation);
  for (size_t s = 0; s < animation.samplers.size(); ++s) {
    const AnimationSampler& original = animation.samplers[s];
    AnimationSampler resampled;
    resampled.interpolation = Interpolation::Linear;
    resampled.components = original.components;
    resampled.times = times;
    resampled.values.resize(times.size() * size_t(original.components));
    for (size_t k = 0; k < times.size(); ++k)
      sample_sampler(original, paths[s], times[k],
                     std::span<double>(&resampled.values[k * size_t(original.components)], size_t(original.components)));
    animation.samplers[s] = std::move(resampled);
  }
}

void quantize(Animation& animation, const SamplingConventions& conventions) {
  const std::vector<ChannelPath> paths = sampler_paths(animation);
  for (size_t s = 0; s < animation.samplers.size(); ++s) {
    AnimationSampler& sampler = animation.samplers[s];
    const ChannelPath path = paths[s];
    const bool trs = path == ChannelPath::Translation || path == ChannelPath::Scale;
    if (trs && conventions.translation_scale_keys == TranslationScaleKeys::Half) {
      for (double& value : sampler.values) value = round_to_half(value);
    }
    if (path == ChannelPath::Rotation && conventions.rotation_keys != RotationKeys::F32) {
      const bool cubic = sampler.interpolation == Interpolation::CubicSpline;
      for (size_t k = 0; k < sampler.times.size(); ++k)
        quantize_rotation(conventions.rotation_keys, &sampler.values[(cubic ? k * 3 + 1 : k) * 4]);
    }
  }
}

// key-decoding: each normalized integer key read back to its integer c (a stored -2^(b-1) reads back as
// -(2^(b-1) - 1), which glTF decodes alike), then decoded as the engine does.
void decode_normalized_keys(Animation& animation, KeyDecoding decoding) {
  for (AnimationSampler& sampler : animation.samplers) {
    const double max = double(sampler.normalized_output.max);
    if (max == 0.0) continue;
    for (double& value : sampler.values) {
      const double integer = std::round(value * max);
      switch (decoding) {
        case KeyDecoding::Normalized: break;
        case KeyDecoding::Raw: value = integer; break;
        case KeyDecoding::OffsetSigned:
          if (sampler.normalized_output.is_signed) value = (2.0 * integer + 1.0) / (2.0 * max + 1.0);
          break;
      }
    }
  }
}

}  // namespace

// cubic-weights=per-target: an engine that reads key k's element e (in-tangent, value, out-tangent) of target
// j at 3 (N k + j) + e plays the keys that the grouped layout stores there.
void read_cubic_weights_per_target(Animation& animation) {
  std::vector<bool> done(animation.samplers.size(), false);
  for (const AnimationChannel& channel : animation.channels) {
    AnimationSampler& sampler = animation.samplers[size_t(channel.sampler)];
    if (channel.path != ChannelPath::Weights || sampler.interpolation != Interpolation::CubicSpline ||
        sampler.components < 2 || done[size_t(channel.sampler)])
      continue;
    done[size_t(channel.sampler)] = true;
    const size_t n = size_t(sampler.components);
    std::vector<double> read(sampler.values.size());
    for (size_t k = 0; k < sampler.times.size(); ++k)
      for (size_t e = 0; e < 3; ++e)
        for (size_t j = 0; j < n; ++j) read[k * 3 * n + e * n + j] = sampler.values[k * 3 * n + 3 * j + e];
    sampler.values = std::move(read);
  }
}

// step=linear: an engine that keeps the keys but not the interpolation mode plays STEP as LINEAR.
void play_steps_as_linear(Animation& animation) {
  for (AnimationSampler& sampler : animation.samplers)
    if (sampler.interpolation == Interpolation::Step) sampler.interpolation = Interpolation::Linear;
}

void apply_clip_conventions(Scene& scene, const SamplingConventions& conventions) {
  const bool steps_linear = conventions.step == StepMode::Linear;
  const bool resampling = conventions.resample_hz > 0.0;
  const bool quantizing = conventions.translation_scale_keys != TranslationScaleKeys::F32 ||
                          conventions.rotation_keys != RotationKeys::F32;
  const bool per_target = conventions.cubic_weights == CubicWeightsLayout::PerTarget;
  const bool decoding = conventions.key_decoding != KeyDecoding::Normalized;
  if (!steps_linear && !resampling && !quantizing && !per_target && !decoding) return;
  for (Animation& animation : scene.animations) {
    if (decoding) decode_normalized_keys(animation, conventions.key_decoding);
    if (per_target) read_cubic_weights_per_target(animation);
    if (steps_linear) play_steps_as_linear(animation);
    if (resampling) resample(animation, conventions.resample_hz);
    if (quantizing) quantize(animation, conventions);
  }
  if (quantizing && conventions.key_scope == KeyScope::EveryJoint) quantize_joint_rest_values(scene, conventions);
  finalize_scene(scene);
}

}  // namespace skinref
