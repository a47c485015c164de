#include "anim/sampling.h"

#include <algorithm>
#include <cmath>

namespace skinref {

Quat slerp_short(const Quat& a, const Quat& b_in, double u) {
  double dot = a.coeffs().dot(b_in.coeffs());
  const Quat b = dot < 0.0 ? Quat(-b_in.coeffs()) : b_in;
  if (u == 0.0) return a;
  if (u == 1.0) return b;
  // For unit a, b at angle phi (in 4D): |a - b| = 2 sin(phi/2), |a + b| = 2 cos(phi/2). The angle from atan2
  // of those chords stays accurate near 0 and pi, unlike acos(dot), and sin(phi) = |a - b| |a + b| / 2.
  const double chord_minus = (a.coeffs() - b.coeffs()).norm();
  const double chord_plus = (a.coeffs() + b.coeffs()).norm();
  const double theta = 2.0 * std::atan2(chord_minus, chord_plus);
  const double sin_theta = 0.5 * chord_minus * chord_plus;
  Eigen::Vector4d mixed;
  if (sin_theta < 1e-12) {
    mixed = a.coeffs() + (b.coeffs() - a.coeffs()) * u;  // (nearly) equal keys: lerp is exact enough
  } else {
    const double wa = std::sin((1.0 - u) * theta) / sin_theta;
    const double wb = std::sin(u * theta) / sin_theta;
    mixed = a.coeffs() * wa + b.coeffs() * wb;
  }
  Quat q;
  q.coeffs() = mixed / mixed.norm();
  return q;
}

namespace {

// The slerp weights on interval k from the derived tables: sin((1-u) theta) / sin theta and sin(u theta) / sin
// theta, the first through sin((1-u) theta) = sin theta cos(u theta) - cos theta sin(u theta), so that one
// sincos serves both; wb carries the short-path sign. Keys with (nearly) no angle between them are lerped.
inline void table_slerp_weights(const AnimationSampler::SlerpIntervals& slerp, size_t k, double u, double& wa,
                                double& wb) {
  const double sin_angle = slerp.sin_angle[k];
  if (sin_angle < 1e-12) {
    wa = 1.0 - u;
    wb = u;
  } else {
    double sin_u, cos_u;
    ::sincos(u * slerp.angle[k], &sin_u, &cos_u);
    wa = cos_u - slerp.cos_angle[k] * sin_u / sin_angle;
    wb = sin_u / sin_angle;
  }
  wb *= slerp.sign[k];
}

// out = (wa a + wb b) / |wa a + wb b| for the unit keys a = key k and b = key k + 1 of the tables.
inline void mix_unit_keys(const AnimationSampler::SlerpIntervals& slerp, size_t k, double wa, double wb, double* out) {
  const double* a = &slerp.unit_keys[k * 4];
  const double* b = &slerp.unit_keys[(k + 1) * 4];
  double q[4];
  for (int i = 0; i < 4; ++i) q[i] = a[i] * wa + b[i] * wb;
  const double length = std::sqrt((q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]));
  for (int i = 0; i < 4; ++i) out[i] = q[i] / length;
}

// Slerp on interval k from the derived tables.
void slerp_interval(const AnimationSampler::SlerpIntervals& slerp, size_t k, double u, std::span<double> out) {
  double wa, wb;
  table_slerp_weights(slerp, k, u, wa, wb);
  mix_unit_keys(slerp, k, wa, wb, out.data());
}

// The interval k (times[k] < t < times[k + 1]) and u = (t - t_k) / (t_k+1 - t_k) when t lies strictly inside
// one. False when t is at or outside the first or last key, or exactly at a key; in that last case k is that
// key.
inline bool interior_interval(const std::vector<double>& times, double t, size_t& k, double& u) {
  if (times.size() < 2 || !(t > times.front()) || !(t < times.back())) return false;
  k = size_t(std::upper_bound(times.begin(), times.end(), t) - times.begin()) - 1;
  const double t0 = times[k], t1 = times[k + 1];
  if (t == t0) return false;
  u = (t - t0) / (t1 - t0);
  return true;
}

}  // namespace

namespace {

// The slerp weights of unit keys a and b at u: out = wa * a + wb * b (wb carries the short-path sign).
void slerp_weights(const Eigen::Vector4d& a, const Eigen::Vector4d& b_in, double u, double& wa, double& wb) {
  const double sign = a.dot(b_in) < 0.0 ? -1.0 : 1.0;
  const Eigen::Vector4d b = b_in * sign;
  const double chord_minus = (a - b).norm();
  const double chord_plus = (a + b).norm();
  const double theta = 2.0 * std::atan2(chord_minus, chord_plus);
  const double sin_theta = 0.5 * chord_minus * chord_plus;
  if (sin_theta < 1e-12) {
    wa = 1.0 - u;
    wb = u;
  } else {
    wa = std::sin((1.0 - u) * theta) / sin_theta;
    wb = std::sin(u * theta) / sin_theta;
  }
  wb *= sign;
}

// LINEAR rotation between stored keys a and b (interval k) at u under the sampling conventions, written to
// `out` finished: normalized, unless the keys are used as stored.
void interpolate_rotation(const AnimationSampler& s, size_t k, const double* a_stored, const double* b_stored,
                          double u, const SamplingConventions& conventions, bool use_tables, std::span<double> out) {
  const bool as_stored = conventions.quaternion_keys == QuaternionKeys::AsStored;
  const Eigen::Vector4d a_raw(a_stored[0], a_stored[1], a_stored[2], a_stored[3]);
  const Eigen::Vector4d b_raw(b_stored[0], b_stored[1], b_stored[2], b_stored[3]);
  Eigen::Vector4d q;
  switch (conventions.rotation) {
    case RotationInterpolation::Slerp: {
      if (!as_stored) {
        if (use_tables) {
          slerp_interval(s.slerp, k, u, out);
          return;
        }
        const Quat qa = quat_from_xyzw(a_raw[0], a_raw[1], a_raw[2], a_raw[3]).normalized();
        const Quat qb = quat_from_xyzw(b_raw[0], b_raw[1], b_raw[2], b_raw[3]).normalized();
        const auto xyzw = quat_to_xyzw(slerp_short(qa, qb, u));
        std::copy(xyzw.begin(), xyzw.end(), out.begin());
        return;
      }
      // Keys as stored: the angle is the unit keys', the weights apply to the stored (non-unit) keys.
      double wa = 0.0, wb = 0.0;
      slerp_weights(a_raw.normalized(), b_raw.normalized(), u, wa, wb);
      q = a_raw * wa + b_raw * wb;
      break;
    }
    case RotationInterpolation::Nlerp:
    case RotationInterpolation::Lerp: {
      const Eigen::Vector4d a = as_stored ? a_raw : a_raw.normalized();
      Eigen::Vector4d b = as_stored ? b_raw : b_raw.normalized();
      if (conventions.rotation == RotationInterpolation::Nlerp && a.dot(b) < 0.0) b = -b;
      q = a * (1.0 - u) + b * u;
      if (!as_stored) q /= q.norm();
      break;
    }
  }
  for (int i = 0; i < 4; ++i) out[size_t(i)] = q[i];
}

}  // namespace

void sample_sampler(const AnimationSampler& s, ChannelPath path, double t, std::span<double> out,
                    const SamplingConventions& conventions) {
  const size_t c = size_t(s.components);
  const size_t n = s.times.size();
  const bool cubic = s.interpolation == Interpolation::CubicSpline;
  const bool rotation = path == ChannelPath::Rotation;
  // CUBICSPLINE played as LINEAR (convention cubic=linear) interpolates the key values only.
  const Interpolation mode =
      cubic && conventions.cubic == CubicVariant::Linear ? Interpolation::Linear : s.interpolation;
  const bool step_previous = mode == Interpolation::Step && conventions.step_boundary == StepBoundary::Previous;
  bool renormalize = rotation && conventions.quaternion_keys == QuaternionKeys::Normalized;
  // Key k's value; CUBICSPLINE stores (in-tangent, value, out-tangent) per key.
  auto value = [&](size_t k) { return &s.values[(cubic ? k * 3 + 1 : k) * c]; };
  auto copy_key = [&](size_t k) { std::copy(value(k), value(k) + c, out.begin()); };
  if (n == 1 || t <= s.times.front()) {
    copy_key(0);
  } else if (t >= s.times.back()) {
    copy_key(step_previous && t == s.times.back() ? n - 2 : n - 1);
  } else {
    size_t k = 0;
    double u = 0.0;
    const bool inside = interior_interval(s.times, t, k, u);
    if (!inside || mode == Interpolation::Step) {
      // Not inside, with t > front and t < back: t is exactly at key k.
      copy_key(step_previous && !inside && k > 0 ? k - 1 : k);
    } else if (mode == Interpolation::Linear) {
      if (rotation) {
        interpolate_rotation(s, k, value(k), value(k + 1), u, conventions, !s.slerp.unit_keys.empty() && !cubic, out);
        return;
      }
      const double* a = value(k);
      const double* b = value(k + 1);
      for (size_t i = 0; i < c; ++i) out[i] = a[i] + (b[i] - a[i]) * u;
    } else {
      const double d = s.times[k + 1] - s.times[k];
      // The tangents are per second (glTF): scaled by the interval, unless an engine forgets to.
      const double tangent_scale = conventions.cubic == CubicVariant::UnscaledTangents ? 1.0 : d;
      const double u2 = u * u, u3 = u2 * u;
      const double h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
      const double h10 = (u3 - 2.0 * u2 + u) * tangent_scale;
      const double h01 = -2.0 * u3 + 3.0 * u2;
      const double h11 = (u3 - u2) * tangent_scale;
      const double* v0 = value(k);
      const double* b0 = &s.values[(k * 3 + 2) * c];        // out-tangent of key k
      const double* v1 = value(k + 1);
      const double* a1 = &s.values[((k + 1) * 3 + 0) * c];  // in-tangent of key k+1
      for (size_t i = 0; i < c; ++i) out[i] = h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i];
      if (conventions.cubic == CubicVariant::NoRenormalize) renormalize = false;
    }
  }
  if (renormalize) {
    const double len = std::sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    if (len > 0.0)
      for (size_t i = 0; i < 4; ++i) out[i] /= len;
  }
}

namespace {

// Rotation slerps whose weights are known, finished together: each one's square root and divisions wait on
// its sincos, and a run of independent ones lets the core overlap those waits instead of stalling on each.
// The bits are sample_sampler's (the same functions, the same operations); the rotations are written in
// channel order, so that a later channel on the same node still wins.
class PendingSlerps {
 public:
  void add(const AnimationSampler::SlerpIntervals& slerp, size_t k, double wa, double wb, Quat& target) {
    pending_[count_++] = {&slerp, k, wa, wb, &target};
    if (count_ == kCapacity) finish();
  }
  void finish() {
    for (size_t i = 0; i < count_; ++i) {
      const Slerp& p = pending_[i];
      // Eigen stores a quaternion's coefficients as (x, y, z, w), glTF's order.
      mix_unit_keys(*p.slerp, p.k, p.wa, p.wb, p.target->coeffs().data());
    }
    count_ = 0;
  }

 private:
  struct Slerp {
    const AnimationSampler::SlerpIntervals* slerp;
    size_t k;
    double wa, wb;
    Quat* target;
  };
  static constexpr size_t kCapacity = 16;
  Slerp pending_[kCapacity];
  size_t count_ = 0;
};

}  // namespace

void sample_animation(const Scene& scene, int animation, double t, LocalPose& pose,
                      const SamplingConventions& conventions) {
  const Animation& anim = scene.animations[size_t(animation)];
  // glTF's rotation sampling (normalized keys, slerp) on LINEAR samplers can use the derived tables.
  const bool table_slerp = conventions.rotation == RotationInterpolation::Slerp &&
                           conventions.quaternion_keys == QuaternionKeys::Normalized;
  PendingSlerps pending;
  double buffer[4];
  for (const AnimationChannel& ch : anim.channels) {
    const AnimationSampler& s = anim.samplers[size_t(ch.sampler)];
    Transform& local = pose.local[size_t(ch.node)];
    switch (ch.path) {
      case ChannelPath::Translation:
        sample_sampler(s, ch.path, t, std::span<double>(buffer, 3), conventions);
        local.translation = Vec3(buffer[0], buffer[1], buffer[2]);
        break;
      case ChannelPath::Rotation: {
        size_t k = 0;
        double u = 0.0;
        if (table_slerp && s.interpolation == Interpolation::Linear && !s.slerp.unit_keys.empty() &&
            interior_interval(s.times, t, k, u)) {
          double wa, wb;
          table_slerp_weights(s.slerp, k, u, wa, wb);
          pending.add(s.slerp, k, wa, wb, local.rotation);
          break;
        }
        pending.finish();  // rotations land in channel order
        sample_sampler(s, ch.path, t, std::span<double>(buffer, 4), conventions);
        local.rotation = quat_from_xyzw(buffer[0], buffer[1], buffer[2], buffer[3]);
        break;
      }
      case ChannelPath::Scale:
        sample_sampler(s, ch.path, t, std::span<double>(buffer, 3), conventions);
        local.scale = Vec3(buffer[0], buffer[1], buffer[2]);
        break;
      case ChannelPath::Weights: {
        std::vector<double>& weights = pose.morph_weights[size_t(ch.node)];
        weights.resize(size_t(s.components));
        sample_sampler(s, ch.path, t, weights, conventions);
        break;
      }
    }
  }
  pending.finish();
}

}  // namespace skinref
