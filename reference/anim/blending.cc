// Pose blending: full blends with masks, subtree masks, node look-up, additive layers, cross-fade weights
// (contract in blending.h).
#include "anim/blending.h"

#include "anim/sampling.h"
#include "core/input_error.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace skinref {

namespace {

[[noreturn]] void contract_violation(const std::string& what) { throw std::invalid_argument(what); }


// q^w for a unit quaternion on its short path (w >= 0 component): the rotation by w times q's angle about
// q's axis. Equals slerp(I, q, w) for w in [0, 1] and extends it beyond; w == 0 gives the identity exactly.
Quat quat_power(const Quat& q_in, double w) {
  const Quat q = q_in.w() < 0.0 ? Quat(-q_in.coeffs()) : q_in;
  const double sin_half = q.vec().norm();
  if (sin_half == 0.0 || w == 0.0) return Quat::Identity();
  // atan2 keeps the half angle accurate near 0 and pi, unlike acos(w).
  const double half = std::atan2(sin_half, q.w());
  const double s = std::sin(w * half) / sin_half;
  return Quat(std::cos(w * half), q.x() * s, q.y() * s, q.z() * s);
}

void check_same_shape(const LocalPose& pose, const LocalPose& other, const char* what) {
  if (pose.local.size() != other.local.size() || pose.morph_weights.size() != other.morph_weights.size())
    contract_violation(std::string(what) + ": poses of different shapes (" + std::to_string(pose.local.size()) + " and " +
                       std::to_string(other.local.size()) + " nodes)");
}

void check_mask(std::span<const double> mask, size_t nodes, const std::string& what) {
  if (!mask.empty() && mask.size() != nodes)
    contract_violation(what + ": a mask needs one weight per node (" + std::to_string(nodes) + "), got " + std::to_string(mask.size()));
}

// Check step: every layer against the fallback's shape, its weight and its mask. Everything is checked up
// front, so that the per-node loop of blend_poses() is arithmetic only.
void check_blend_layers(std::span<const BlendLayer> layers, const LocalPose& fallback) {
  const size_t nodes = fallback.local.size();
  if (fallback.morph_weights.size() != nodes)
    contract_violation("blend_poses: fallback has " + std::to_string(nodes) + " transforms but " +
                       std::to_string(fallback.morph_weights.size()) + " morph weight lists");
  for (size_t i = 0; i < layers.size(); ++i) {
    const BlendLayer& layer = layers[i];
    const auto name = [i] { return "blend_poses: layer " + std::to_string(i); };  // built only for a message
    if (layer.pose == nullptr) contract_violation(name() + " has no pose");
    check_same_shape(*layer.pose, fallback, "blend_poses");
    if (!(layer.weight >= 0.0) || !std::isfinite(layer.weight))
      contract_violation(name() + " weight must be finite and >= 0, got " + std::to_string(layer.weight));
    if (!layer.mask.empty()) check_mask(layer.mask, nodes, name());
    for (size_t n = 0; n < layer.mask.size(); ++n)
      if (!(layer.mask[n] >= 0.0 && layer.mask[n] <= 1.0))
        contract_violation(name() + " mask[" + std::to_string(n) + "] must be in [0, 1], got " + std::to_string(layer.mask[n]));
    for (size_t n = 0; n < nodes; ++n)
      if (layer.pose->morph_weights[n].size() != fallback.morph_weights[n].size())
        contract_violation(name() + " node " + std::to_string(n) + " has " + std::to_string(layer.pose->morph_weights[n].size()) +
                           " morph weights, the fallback " + std::to_string(fallback.morph_weights[n].size()));
  }
}

// A layer's per-node arrays, resolved once (a blend rarely has more than a few layers).
struct LayerView {
  const Transform* local;
  const std::vector<double>* morph;
  const double* mask;  // nullptr: 1 everywhere
  double weight;
};

// One node's running means over its contributing layers (those of nonzero effective weight).
struct NodeMean {
  const Transform* first = nullptr;
  const Transform* second = nullptr;
  size_t first_layer = 0;
  double total = 0.0, second_weight = 0.0;
  double t[3] = {0.0, 0.0, 0.0}, sc[3] = {1.0, 1.0, 1.0}, q[4] = {0.0, 0.0, 0.0, 1.0};  // q: x, y, z, w
  size_t contributors = 0;
};

// Mean step: node n's translation, scale and rotation means over the `count` layers.
NodeMean node_running_mean(const LayerView* views, size_t count, size_t n) {
  // Weighted means kept as running means (m += (x - m) * w / W): equal to sum(w x) / sum(w), and exact
  // when every contributing layer holds the same value. Written out per component so that the order of
  // operations is fixed here, not by Eigen's vectorization.
  NodeMean m;
  for (size_t i = 0; i < count; ++i) {
    const LayerView& v = views[i];
    const double w = v.mask == nullptr ? v.weight : v.weight * v.mask[n];
    if (w == 0.0) continue;
    const Transform& local = v.local[n];
    const double* lq = local.rotation.coeffs().data();
    if (m.contributors++ == 0) {
      m.first = &local;
      m.first_layer = i;
      m.total = w;
      for (int c = 0; c < 3; ++c) m.t[c] = local.translation[c], m.sc[c] = local.scale[c];
      for (int c = 0; c < 4; ++c) m.q[c] = lq[c];
      continue;
    }
    if (m.contributors == 2) {
      m.second = &local;
      m.second_weight = w;
    }
    m.total += w;
    const double f = w / m.total;
    for (int c = 0; c < 3; ++c) {
      m.t[c] += (local.translation[c] - m.t[c]) * f;
      m.sc[c] += (local.scale[c] - m.sc[c]) * f;
    }
    // Into the first contributor's hemisphere: adding -lq is subtracting lq (exactly the same bits).
    const double* fq = m.first->rotation.coeffs().data();
    const double dot = (fq[0] * lq[0] + fq[1] * lq[1]) + (fq[2] * lq[2] + fq[3] * lq[3]);
    if (dot < 0.0)
      for (int c = 0; c < 4; ++c) m.q[c] -= (lq[c] + m.q[c]) * f;
    else
      for (int c = 0; c < 4; ++c) m.q[c] += (lq[c] - m.q[c]) * f;
  }
  return m;
}

// Morph step: node n's morph weights, the same running mean over the same layers as `mean` (the fallback's
// when no layer contributes).
void blend_node_morph_weights(const LayerView* views, size_t count, size_t n, const NodeMean& mean,
                              const std::vector<double>& fallback_weights, std::vector<double>& weights) {
  weights = mean.first == nullptr ? fallback_weights : views[mean.first_layer].morph[n];
  double sum = 0.0;
  for (size_t i = mean.first_layer; mean.first != nullptr && i < count; ++i) {
    const LayerView& v = views[i];
    const double w = v.mask == nullptr ? v.weight : v.weight * v.mask[n];
    if (w == 0.0) continue;
    sum += w;
    if (i == mean.first_layer) continue;
    const double f = w / sum;
    const std::vector<double>& layer_weights = v.morph[n];
    for (size_t k = 0; k < weights.size(); ++k) weights[k] += (layer_weights[k] - weights[k]) * f;
  }
}

// Result step: node n's blended transform from its means (left as the fallback when no layer contributes).
void write_node_blend(const NodeMean& m, BlendRotation rotation, Transform& result) {
  if (m.contributors == 0) return;  // out already holds the fallback, exactly
  if (m.contributors == 1) {
    result = *m.first;  // one contributing layer: its values, exactly
    return;
  }
  result.translation = Vec3(m.t[0], m.t[1], m.t[2]);
  result.scale = Vec3(m.sc[0], m.sc[1], m.sc[2]);
  if (rotation == BlendRotation::Slerp && m.contributors == 2) {
    result.rotation = slerp_short(m.first->rotation, m.second->rotation, m.second_weight / m.total);
  } else {
    // Every term lies in the first contributor's hemisphere, so the sum is never zero.
    const double length = std::sqrt((m.q[0] * m.q[0] + m.q[1] * m.q[1]) + (m.q[2] * m.q[2] + m.q[3] * m.q[3]));
    result.rotation = quat_from_xyzw(m.q[0] / length, m.q[1] / length, m.q[2] / length, m.q[3] / length);
  }
}

}  // namespace

LocalPose blend_poses(std::span<const BlendLayer> layers, const LocalPose& fallback, BlendRotation rotation) {
  const size_t nodes = fallback.local.size();
  check_blend_layers(layers, fallback);

  // Each layer's per-node arrays, resolved once.
  constexpr size_t kInlineLayers = 8;
  LayerView inline_views[kInlineLayers];
  std::vector<LayerView> heap_views(layers.size() > kInlineLayers ? layers.size() : 0);
  LayerView* views = layers.size() > kInlineLayers ? heap_views.data() : inline_views;
  for (size_t i = 0; i < layers.size(); ++i)
    views[i] = {layers[i].pose->local.data(), layers[i].pose->morph_weights.data(),
                layers[i].mask.empty() ? nullptr : layers[i].mask.data(), layers[i].weight};
  const size_t count = layers.size();

  // The fallback's transforms; its morph weights only where there are any (most nodes have none, and
  // resizing to empty lists costs less than copying them).
  LocalPose out;
  out.local = fallback.local;
  out.morph_weights.resize(nodes);
  for (size_t n = 0; n < nodes; ++n) {
    const NodeMean mean = node_running_mean(views, count, n);
    if (!fallback.morph_weights[n].empty()) {
      // The same running mean over the same layers, for the (few) nodes with morph weights.
      blend_node_morph_weights(views, count, n, mean, fallback.morph_weights[n], out.morph_weights[n]);
    }
    write_node_blend(mean, rotation, out.local[n]);
  }
  return out;
}

std::vector<double> subtree_mask(const Scene& scene, int root) {
  const size_t nodes = scene.nodes.size();
  if (root < 0 || size_t(root) >= nodes)
    throw InputError(scene.source, "", "a node index in [0, " + std::to_string(nodes) + "), got " + std::to_string(root));
  std::vector<double> mask(nodes, 0.0);
  mask[size_t(root)] = 1.0;
  // node_order lists parents first, so a node's parent is final when the node is reached.
  for (int n : scene.node_order) {
    const int parent = scene.nodes[size_t(n)].parent;
    if (parent >= 0 && mask[size_t(parent)] == 1.0) mask[size_t(n)] = 1.0;
  }
  return mask;
}

int find_node(const Scene& scene, const std::string& name) {
  for (size_t n = 0; n < scene.nodes.size(); ++n)
    if (scene.nodes[n].name == name) return int(n);
  std::string known;
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    if (!known.empty()) known += ", ";
    // Unnamed nodes are listed by index: that is how they can be referred to.
    known += scene.nodes[n].name.empty() ? "#" + std::to_string(n) : "'" + scene.nodes[n].name + "'";
  }
  throw InputError(scene.source, "",
                   "a node named '" + name + "'; the scene has " +
                       (known.empty() ? std::string("no nodes") : "nodes " + known));
}

LocalPose make_additive_delta(const LocalPose& pose, const LocalPose& reference) {
  check_same_shape(pose, reference, "make_additive_delta");
  LocalPose delta;
  delta.local.resize(pose.local.size());
  delta.morph_weights.resize(pose.morph_weights.size());
  for (size_t n = 0; n < pose.local.size(); ++n) {
    const Transform& p = pose.local[n];
    const Transform& r = reference.local[n];
    Transform& d = delta.local[n];
    // Rotations are unit, so the inverse is the conjugate.
    d.rotation = (r.rotation.conjugate() * p.rotation).normalized();
    d.translation = p.translation - r.translation;
    for (int c = 0; c < 3; ++c) d.scale[c] = r.scale[c] == 0.0 ? 1.0 : p.scale[c] / r.scale[c];
    const std::vector<double>& pw = pose.morph_weights[n];
    const std::vector<double>& rw = reference.morph_weights[n];
    if (pw.size() != rw.size())
      contract_violation("make_additive_delta: node " + std::to_string(n) + " has " + std::to_string(pw.size()) +
                         " morph weights, the reference " + std::to_string(rw.size()));
    std::vector<double>& dw = delta.morph_weights[n];
    dw.resize(pw.size());
    for (size_t k = 0; k < pw.size(); ++k) dw[k] = pw[k] - rw[k];
  }
  return delta;
}

void apply_additive(LocalPose& base, const LocalPose& delta, double weight, std::span<const double> mask) {
  check_same_shape(base, delta, "apply_additive");
  if (!std::isfinite(weight))
    contract_violation("apply_additive: weight must be finite, got " + std::to_string(weight));
  check_mask(mask, base.local.size(), "apply_additive");
  for (size_t n = 0; n < base.local.size(); ++n) {
    double w = weight;
    if (!mask.empty()) {
      if (!(mask[n] >= 0.0 && mask[n] <= 1.0))
        contract_violation("apply_additive: mask[" + std::to_string(n) + "] must be in [0, 1], got " + std::to_string(mask[n]));
      w *= mask[n];
    }
    if (w == 0.0) continue;  // untouched, bit for bit
    const Transform& d = delta.local[n];
    Transform& b = base.local[n];
    // Renormalized so that repeated layers do not let rounding drift off the unit sphere.
    b.rotation = (b.rotation * quat_power(d.rotation, w)).normalized();
    b.translation += d.translation * w;
    for (int c = 0; c < 3; ++c) b.scale[c] *= 1.0 + w * (d.scale[c] - 1.0);
    std::vector<double>& bw = base.morph_weights[n];
    const std::vector<double>& dw = delta.morph_weights[n];
    if (bw.size() != dw.size())
      contract_violation("apply_additive: node " + std::to_string(n) + " has " + std::to_string(bw.size()) + " morph weights, the delta " +
                         std::to_string(dw.size()));
    for (size_t k = 0; k < bw.size(); ++k) bw[k] += w * dw[k];
  }
}

double crossfade_weight(double start, double duration, double tau) {
  if (!(duration >= 0.0) || !std::isfinite(duration))
    contract_violation("crossfade_weight: duration must be finite and >= 0, got " + std::to_string(duration));
  if (tau < start) return 0.0;
  if (duration == 0.0) return 1.0;  // a cut at `start`
  return std::min(1.0, (tau - start) / duration);
}

}  // namespace skinref
