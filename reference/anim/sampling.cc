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

void sample_sampler(const AnimationSampler& s, ChannelPath path, double t, std::span<double> out) {
  const size_t c = size_t(s.components);
  const size_t n = s.times.size();
  const bool cubic = s.interpolation == Interpolation::CubicSpline;
  // Key k's value; CUBICSPLINE stores (in-tangent, value, out-tangent) per key.
  auto value = [&](size_t k) { return &s.values[(cubic ? k * 3 + 1 : k) * c]; };
  auto copy_key = [&](size_t k) { std::copy(value(k), value(k) + c, out.begin()); };

  if (n == 1 || t <= s.times.front()) {
    copy_key(0);
  } else if (t >= s.times.back()) {
    copy_key(n - 1);
  } else {
    const size_t k = size_t(std::upper_bound(s.times.begin(), s.times.end(), t) - s.times.begin()) - 1;
    const double t0 = s.times[k], t1 = s.times[k + 1];
    if (t == t0 || s.interpolation == Interpolation::Step) {
      copy_key(k);
    } else if (s.interpolation == Interpolation::Linear) {
      const double u = (t - t0) / (t1 - t0);
      if (path == ChannelPath::Rotation) {
        if (!s.slerp.unit_keys.empty()) {
          slerp_interval(s.slerp, k, u, out);
          return;
        }
        const double* a = value(k);
        const double* b = value(k + 1);
        // Keys are unit quaternions by the specification, but files store them rounded (to 2e-4 in the
        // sample models); slerp is only a rotation interpolation between unit keys, so normalize first.
        const Quat qa = quat_from_xyzw(a[0], a[1], a[2], a[3]).normalized();
        const Quat qb = quat_from_xyzw(b[0], b[1], b[2], b[3]).normalized();
        const Quat q = slerp_short(qa, qb, u);
        const auto xyzw = quat_to_xyzw(q);
        std::copy(xyzw.begin(), xyzw.end(), out.begin());
        return;
      }
      const double* a = value(k);
      const double* b = value(k + 1);
      for (size_t i = 0; i < c; ++i) out[i] = a[i] + (b[i] - a[i]) * u;
    } else {
      const double d = t1 - t0;
      const double u = (t - t0) / d;
      const double u2 = u * u, u3 = u2 * u;
      const double h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
      const double h10 = (u3 - 2.0 * u2 + u) * d;
      const double h01 = -2.0 * u3 + 3.0 * u2;
      const double h11 = (u3 - u2) * d;
      const double* v0 = value(k);
      const double* b0 = &s.values[(k * 3 + 2) * c];        // out-tangent of key k
      const double* v1 = value(k + 1);
      const double* a1 = &s.values[((k + 1) * 3 + 0) * c];  // in-tangent of key k+1
      for (size_t i = 0; i < c; ++i) out[i] = h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i];
    }
  }
  if (path == ChannelPath::Rotation) {
    const double len = std::sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    if (len > 0.0)
      for (size_t i = 0; i < 4; ++i) out[i] /= len;
  }
}

void sample_animation(const Scene& scene, int animation, double t, LocalPose& pose) {
  const Animation& anim = scene.animations[size_t(animation)];
  double buffer[4];
  for (const AnimationChannel& ch : anim.channels) {
    const AnimationSampler& s = anim.samplers[size_t(ch.sampler)];
    Transform& local = pose.local[size_t(ch.node)];
    switch (ch.path) {
      case ChannelPath::Translation:
        sample_sampler(s, ch.path, t, std::span<double>(buffer, 3));
        local.translation = Vec3(buffer[0], buffer[1], buffer[2]);
        break;
      case ChannelPath::Rotation:
        sample_sampler(s, ch.path, t, std::span<double>(buffer, 4));
        local.rotation = quat_from_xyzw(buffer[0], buffer[1], buffer[2], buffer[3]);
        break;
      case ChannelPath::Scale:
        sample_sampler(s, ch.path, t, std::span<double>(buffer, 3));
        local.scale = Vec3(buffer[0], buffer[1], buffer[2]);
        break;
      case ChannelPath::Weights: {
        std::vector<double>& weights = pose.morph_weights[size_t(ch.node)];
        weights.resize(size_t(s.components));
        sample_sampler(s, ch.path, t, weights);
        break;
      }
    }
  }
}

}  // namespace skinref
