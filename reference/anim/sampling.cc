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

// Slerp on interval k from the derived tables: weights sin((1-u) theta) / sin theta and sin(u theta) / sin
// theta, the first through sin((1-u) theta) = sin theta cos(u theta) - cos theta sin(u theta), so that one
// sincos serves both. Keys with (nearly) no angle between them are lerped.
void slerp_interval(const AnimationSampler::SlerpIntervals& slerp, size_t k, double u, std::span<double> out) {
  const double* a = &slerp.unit_keys[k * 4];
  const double* b = &slerp.unit_keys[(k + 1) * 4];
  const double sign = slerp.sign[k];
  const double sin_angle = slerp.sin_angle[k];
  double wa, wb;
  if (sin_angle < 1e-12) {
    wa = 1.0 - u;
    wb = u;
  } else {
    double sin_u, cos_u;
    ::sincos(u * slerp.angle[k], &sin_u, &cos_u);
    wa = cos_u - slerp.cos_angle[k] * sin_u / sin_angle;
    wb = sin_u / sin_angle;
  }
  wb *= sign;
  double q[4];
  for (int i = 0; i < 4; ++i) q[i] = a[i] * wa + b[i] * wb;
  const double length = std::sqrt((q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]));
  for (int i = 0; i < 4; ++i) out[size_t(i)] = q[i] / length;
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
    const size_t k = size_t(std::upper_bound(s.times.begin(), s.times.end(), t) - s.times.begin()) - 1;
    const double t0 = s.times[k], t1 = s.times[k + 1];
    if (t == t0 || mode == Interpolation::Step) {
      copy_key(step_previous && t == t0 && k > 0 ? k - 1 : k);
    } else if (mode == Interpolation::Linear) {
      const double u = (t - t0) / (t1 - t0);
      if (rotation) {
        interpolate_rotation(s, k, value(k), value(k + 1), u, conventions, !s.slerp.unit_keys.empty() && !cubic, out);
        return;
      }
      const double* a = value(k);
      const double* b = value(k + 1);
      for (size_t i = 0; i < c; ++i) out[i] = a[i] + (b[i] - a[i]) * u;
    } else {
      const double d = t1 - t0;
      // The tangents are per second (glTF): scaled by the interval, unless an engine forgets to.
      const double tangent_scale = conventions.cubic == CubicVariant::UnscaledTangents ? 1.0 : d;
      const double u = (t - t0) / d;
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

void sample_animation(const Scene& scene, int animation, double t, LocalPose& pose,
                      const SamplingConventions& conventions) {
  const Animation& anim = scene.animations[size_t(animation)];
  double buffer[4];
  for (const AnimationChannel& ch : anim.channels) {
    const AnimationSampler& s = anim.samplers[size_t(ch.sampler)];
    Transform& local = pose.local[size_t(ch.node)];
    switch (ch.path) {
      case ChannelPath::Translation:
        sample_sampler(s, ch.path, t, std::span<double>(buffer, 3), conventions);
        local.translation = Vec3(buffer[0], buffer[1], buffer[2]);
        break;
      case ChannelPath::Rotation:
        sample_sampler(s, ch.path, t, std::span<double>(buffer, 4), conventions);
        local.rotation = quat_from_xyzw(buffer[0], buffer[1], buffer[2], buffer[3]);
        break;
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
}

}  // namespace skinref
