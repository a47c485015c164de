#include "anim/pose_mistakes.h"

#include "anim/sampling.h"

#include <algorithm>

namespace skinref {
namespace {

bool ignored(const Mistakes& mistakes, ChannelPath path) {
  switch (path) {
    case ChannelPath::Translation: return mistakes.translation_channels == ChannelUse::Ignored;
    case ChannelPath::Rotation: return mistakes.rotation_channels == ChannelUse::Ignored;
    case ChannelPath::Scale: return mistakes.scale_channels == ChannelUse::Ignored;
    case ChannelPath::Weights: return false;
  }
  return false;
}

// The time at which the sampler's glTF sampling gives what the mistaken one gives at t (the contract's t').
double mistaken_time(const std::vector<double>& times, double t, const Mistakes& mistakes) {
  if (times.size() < 2 || !(t > times.front()) || !(t < times.back())) return t;
  const size_t last_pair = times.size() - 2;
  const size_t k = size_t(std::upper_bound(times.begin(), times.end(), t) - times.begin()) - 1;
  double u = (t - times[k]) / (times[k + 1] - times[k]);
  size_t pair = k;
  switch (mistakes.key_pair) {
    case KeyPair::Bracketing: break;
    case KeyPair::OneLate: pair = std::min(k + 1, last_pair); break;
    case KeyPair::OneEarly: pair = k == 0 ? 0 : k - 1; break;
  }
  switch (mistakes.interpolation_factor) {
    case InterpolationFactor::Forward: break;
    case InterpolationFactor::Reversed: u = 1.0 - u; break;
  }
  if (pair == k && mistakes.interpolation_factor == InterpolationFactor::Forward) return t;
  return times[pair] + u * (times[pair + 1] - times[pair]);
}

}  // namespace

bool sampling_mistaken(const Mistakes& m) {
  return m.translation_channels != ChannelUse::Played || m.rotation_channels != ChannelUse::Played ||
         m.scale_channels != ChannelUse::Played || m.interpolation_factor != InterpolationFactor::Forward ||
         m.key_pair != KeyPair::Bracketing;
}

bool hierarchy_mistaken(const Mistakes& m) {
  return m.parent_chain != ParentChain::Composed || m.trs_order != TrsOrder::TRS;
}

void sample_animation_with_mistakes(const Scene& scene, int animation, double t, LocalPose& pose,
                                    const SamplingConventions& conventions, const Mistakes& mistakes) {
  const Animation& anim = scene.animations[size_t(animation)];
  double buffer[4];
  for (const AnimationChannel& ch : anim.channels) {
    if (ignored(mistakes, ch.path)) continue;
    const AnimationSampler& s = anim.samplers[size_t(ch.sampler)];
    const double time = mistaken_time(s.times, t, mistakes);
    Transform& local = pose.local[size_t(ch.node)];
    switch (ch.path) {
      case ChannelPath::Translation:
        sample_sampler(s, ch.path, time, std::span<double>(buffer, 3), conventions);
        local.translation = Vec3(buffer[0], buffer[1], buffer[2]);
        break;
      case ChannelPath::Rotation:
        sample_sampler(s, ch.path, time, std::span<double>(buffer, 4), conventions);
        local.rotation = quat_from_xyzw(buffer[0], buffer[1], buffer[2], buffer[3]);
        break;
      case ChannelPath::Scale:
        sample_sampler(s, ch.path, time, std::span<double>(buffer, 3), conventions);
        local.scale = Vec3(buffer[0], buffer[1], buffer[2]);
        break;
      case ChannelPath::Weights: {
        std::vector<double>& weights = pose.morph_weights[size_t(ch.node)];
        weights.resize(size_t(s.components));
        sample_sampler(s, ch.path, time, weights, conventions);
        break;
      }
    }
  }
}

Mat4 compose_in_order(const Transform& trs, TrsOrder order) {
  Mat4 t = Mat4::Identity(), r = Mat4::Identity(), s = Mat4::Identity();
  t.topRightCorner<3, 1>() = trs.translation;
  r.topLeftCorner<3, 3>() = trs.rotation.toRotationMatrix();
  s.diagonal().head<3>() = trs.scale;
  Mat4 local;
  switch (order) {
    case TrsOrder::TRS: return compose_trs(trs);
    case TrsOrder::SRT: local = s * r * t; break;
    case TrsOrder::RST: local = r * s * t; break;
    case TrsOrder::TSR: local = t * s * r; break;
  }
  local.row(3) << 0.0, 0.0, 0.0, 1.0;
  return local;
}

void local_to_model_with_mistakes(const Scene& scene, const LocalPose& pose, const Mistakes& mistakes,
                                  ModelPose& model) {
  model.global.resize(scene.nodes.size());
  for (int n : scene.node_order) {
    const Mat4 local = compose_in_order(pose.local[size_t(n)], mistakes.trs_order);
    const int parent = scene.nodes[size_t(n)].parent;
    Mat4& global = model.global[size_t(n)];
    if (parent < 0) {
      global = local;
      continue;
    }
    const Mat4& above = model.global[size_t(parent)];
    switch (mistakes.parent_chain) {
      case ParentChain::Composed: global = multiply_affine(above, local); break;
      case ParentChain::Ignored: global = local; break;
      case ParentChain::Reversed: global = multiply_affine(local, above); break;
    }
  }
}

void apply_morph_weight_mistake(MorphWeightTargets targets, LocalPose& pose) {
  for (std::vector<double>& weights : pose.morph_weights) {
    switch (targets) {
      case MorphWeightTargets::InOrder: return;
      case MorphWeightTargets::Shifted:
        if (!weights.empty()) std::rotate(weights.rbegin(), weights.rbegin() + 1, weights.rend());
        break;
      case MorphWeightTargets::Reversed: std::reverse(weights.begin(), weights.end()); break;
    }
  }
}

}  // namespace skinref
