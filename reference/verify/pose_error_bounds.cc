// The float computation of gpu/shaders/animation.comp, step by step, in Bounded arithmetic. Keep the two in
// the same order of operations: the bound is of that computation. The time itself is exact (a float32 on
// both sides). Local to model and the palette walk through pose_palette_walk.h, with this file's operations.
#include "verify/pose_error_bounds.h"

#include "core/pose.h"
#include "verify/pose_palette_walk.h"
#include "verify/running_error.h"

#include <algorithm>
#include <cmath>

namespace skinref {
namespace {

using running_error::kInfinity;

using BoundedMat4 = std::array<std::array<Bounded, 4>, 4>;  // [column][row], as GLSL

struct BoundedTrs {
  std::array<Bounded, 3> translation;
  std::array<Bounded, 4> rotation;  // x y z w
  std::array<Bounded, 3> scale;
};

// The shader's Taylor polynomials for sin and cos on [0, pi/2], coefficients rounded to float. The
// truncation is the first omitted term at the largest |x| the float argument can have (Lagrange remainder:
// x^15 / 15! for sin through x^13, x^16 / 16! for cos through x^14); it scales with x, which matters when
// slerp divides sin(u angle) by sin(angle) for keys a tiny angle apart.
Bounded sin_quadrant(Bounded x) {
  const Bounded x2 = x * x;
  Bounded p = input(1.0 / 6227020800.0);
  p = p * x2 - input(1.0 / 39916800.0);
  p = p * x2 + input(1.0 / 362880.0);
  p = p * x2 - input(1.0 / 5040.0);
  p = p * x2 + input(1.0 / 120.0);
  p = p * x2 - input(1.0 / 6.0);
  return with_truncation(x + x * x2 * p, std::pow(magnitude(x), 15) / 1307674368000.0);
}

Bounded cos_quadrant(Bounded x) {
  const Bounded x2 = x * x;
  Bounded p = input(-1.0 / 87178291200.0);
  p = p * x2 + input(1.0 / 479001600.0);
  p = p * x2 - input(1.0 / 3628800.0);
  p = p * x2 + input(1.0 / 40320.0);
  p = p * x2 - input(1.0 / 720.0);
  p = p * x2 + input(1.0 / 24.0);
  p = p * x2 - exact(0.5);
  return with_truncation(exact(1.0) + x2 * p, std::pow(magnitude(x), 16) / 20922789888000.0);
}

bool float_exact(double x) { return double(static_cast<float>(x)) == x; }

// sample_channel() of animation.comp for one channel: `out` receives `components` values.
void sample(const AnimationSampler& s, ChannelPath path, double t, std::vector<Bounded>& out) {
  const size_t c = size_t(s.components);
  const size_t n = s.times.size();
  const bool cubic = s.interpolation == Interpolation::CubicSpline;
  auto key = [&](size_t k, size_t i) { return input(s.values[(cubic ? k * 3 + 1 : k) * c + i]); };
  auto copy_key = [&](size_t k) {
    for (size_t i = 0; i < c; ++i) out[i] = key(k, i);
  };
  out.assign(c, Bounded{});
  // The float path compares t with float32 key times. Key times that are not float32 values (never the case
  // in a glTF file, whose times are float32) can put t in another interval than the reference's: no claim.
  if (!std::all_of(s.times.begin(), s.times.end(), float_exact)) {
    copy_key(0);
    for (Bounded& v : out) v.error = kInfinity;
    return;
  }
  bool copied = true;
  size_t k = 0;
  if (n == 1 || t <= s.times.front()) {
    copy_key(0);
  } else if (t >= s.times.back()) {
    copy_key(n - 1);
  } else {
    k = size_t(std::upper_bound(s.times.begin(), s.times.end(), t) - s.times.begin()) - 1;
    if (t == s.times[k] || s.interpolation == Interpolation::Step) copy_key(k);
    else copied = false;
  }
  if (!copied) {
    const Bounded t0 = input(s.times[k]), t1 = input(s.times[k + 1]);
    const Bounded time = exact(t);
    if (s.interpolation == Interpolation::Linear) {
      const Bounded u = (time - t0) / (t1 - t0);
      if (path == ChannelPath::Rotation) {
        const auto& table = s.slerp;
        Bounded wa, wb;
        const Bounded sin_angle = input(table.sin_angle[k]);
        if (static_cast<float>(table.sin_angle[k]) < 1e-12f) {
          wa = exact(1.0) - u;
          wb = u;
        } else {
          const Bounded angle = input(table.angle[k]);
          const Bounded sin_u = sin_quadrant(u * angle);
          const Bounded cos_u = cos_quadrant(u * angle);
          wa = cos_u - input(table.cos_angle[k]) * sin_u / sin_angle;
          wb = sin_u / sin_angle;
        }
        wb = wb * exact(table.sign[k]);
        std::array<Bounded, 4> q;
        for (size_t i = 0; i < 4; ++i)
          q[i] = input(table.unit_keys[k * 4 + i]) * wa + input(table.unit_keys[(k + 1) * 4 + i]) * wb;
        const Bounded len = sqrt((q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]));
        for (size_t i = 0; i < 4; ++i) out[i] = q[i] / len;
        return;
      }
      for (size_t i = 0; i < c; ++i) {
        const Bounded a = key(k, i), b = key(k + 1, i);
        out[i] = a + (b - a) * u;
      }
    } else {
      const Bounded d = t1 - t0;
      const Bounded u = (time - t0) / d;
      const Bounded u2 = u * u, u3 = u2 * u;
      const Bounded h00 = exact(2.0) * u3 - exact(3.0) * u2 + exact(1.0);
      const Bounded h10 = (u3 - exact(2.0) * u2 + u) * d;
      const Bounded h01 = -(exact(2.0) * u3) + exact(3.0) * u2;
      const Bounded h11 = (u3 - u2) * d;
      for (size_t i = 0; i < c; ++i) {
        const Bounded v0 = input(s.values[(k * 3 + 1) * c + i]);
        const Bounded b0 = input(s.values[(k * 3 + 2) * c + i]);
        const Bounded v1 = input(s.values[((k + 1) * 3 + 1) * c + i]);
        const Bounded a1 = input(s.values[((k + 1) * 3) * c + i]);
        out[i] = h00 * v0 + h10 * b0 + h01 * v1 + h11 * a1;
      }
    }
  }
  if (path == ChannelPath::Rotation) {
    const Bounded len = sqrt(((out[0] * out[0] + out[1] * out[1]) + out[2] * out[2]) + out[3] * out[3]);
    if (len.value > 0.0)
      for (size_t i = 0; i < 4; ++i) out[i] = out[i] / len;
  }
}

BoundedMat4 compose_trs(const BoundedTrs& trs) {
  const Bounded x = trs.rotation[0], y = trs.rotation[1], z = trs.rotation[2], w = trs.rotation[3];
  const Bounded one = exact(1.0), two = exact(2.0);
  Bounded r[3][3];  // [column][row]
  r[0][0] = one - two * (y * y + z * z);
  r[1][0] = two * (x * y - z * w);
  r[2][0] = two * (x * z + y * w);
  r[0][1] = two * (x * y + z * w);
  r[1][1] = one - two * (x * x + z * z);
  r[2][1] = two * (y * z - x * w);
  r[0][2] = two * (x * z - y * w);
  r[1][2] = two * (y * z + x * w);
  r[2][2] = one - two * (x * x + y * y);
  BoundedMat4 m;
  for (int col = 0; col < 3; ++col) {
    for (int row = 0; row < 3; ++row) m[col][row] = r[col][row] * trs.scale[size_t(col)];
    m[col][3] = exact(0.0);
  }
  for (int row = 0; row < 3; ++row) m[3][row] = trs.translation[size_t(row)];
  m[3][3] = exact(1.0);
  return m;
}

BoundedMat4 multiply_affine(const BoundedMat4& a, const BoundedMat4& b) {
  BoundedMat4 m;
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 3; ++r) m[c][r] = (a[0][r] * b[c][0] + a[1][r] * b[c][1]) + a[2][r] * b[c][2];
    m[c][3] = exact(0.0);
  }
  for (int r = 0; r < 3; ++r) m[3][r] = m[3][r] + a[3][r];
  m[3][3] = exact(1.0);
  return m;
}

BoundedMat4 input_matrix(const Mat4& m) {
  BoundedMat4 out;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) out[c][r] = input(m(r, c));
  return out;
}

std::array<double, 16> errors(const BoundedMat4& m) {
  std::array<double, 16> out{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) out[size_t(c * 4 + r)] = m[c][r].error;
  return out;
}

// normal_matrix() of a palette entry jm: cofactors, negated for a negative determinant. a(r, c) = jm[c][r].
std::array<double, 9> normal_matrix_errors(const BoundedMat4& jm) {
  Bounded cof[3][3];  // [row][column]
  cof[0][0] = jm[1][1] * jm[2][2] - jm[2][1] * jm[1][2];
  cof[0][1] = jm[2][1] * jm[0][2] - jm[0][1] * jm[2][2];
  cof[0][2] = jm[0][1] * jm[1][2] - jm[1][1] * jm[0][2];
  cof[1][0] = jm[2][0] * jm[1][2] - jm[1][0] * jm[2][2];
  cof[1][1] = jm[0][0] * jm[2][2] - jm[2][0] * jm[0][2];
  cof[1][2] = jm[1][0] * jm[0][2] - jm[0][0] * jm[1][2];
  cof[2][0] = jm[1][0] * jm[2][1] - jm[2][0] * jm[1][1];
  cof[2][1] = jm[2][0] * jm[0][1] - jm[0][0] * jm[2][1];
  cof[2][2] = jm[0][0] * jm[1][1] - jm[1][0] * jm[0][1];
  const Bounded det = jm[0][0] * cof[0][0] + jm[1][0] * cof[0][1] + jm[2][0] * cof[0][2];
  // Where the determinant's sign is not certain, the float path may negate: the error can be 2 |cof|.
  const bool sign_certain = std::abs(det.value) > det.error;
  std::array<double, 9> normal{};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      normal[size_t(c * 3 + r)] =
          sign_certain ? cof[r][c].error : 2.0 * std::abs(cof[r][c].value) + cof[r][c].error;
  return normal;
}

// The shader's operations for the shared walk (pose_palette_walk.h), in its order.
struct ShaderPoseModel {
  using Matrix = BoundedMat4;
  static BoundedMat4 local_matrix(const BoundedTrs& trs) { return compose_trs(trs); }
  static BoundedMat4 multiply(const BoundedMat4& a, const BoundedMat4& b) { return multiply_affine(a, b); }
  static BoundedMat4 input_matrix(const Mat4& m) { return skinref::input_matrix(m); }
  static std::array<double, 16> matrix_errors(const BoundedMat4& m) { return errors(m); }
  static std::array<double, 9> normal_errors(const BoundedMat4& jm) { return normal_matrix_errors(jm); }
};

}  // namespace

PoseErrorBounds float32_pose_error_bounds(const Scene& scene, int animation, double time) {
  const size_t node_count = scene.nodes.size();
  const LocalPose rest = rest_pose(scene);
  std::vector<BoundedTrs> locals(node_count);
  std::vector<std::vector<Bounded>> weights(node_count);
  for (size_t n = 0; n < node_count; ++n) {
    const Transform& trs = rest.local[n];
    for (int i = 0; i < 3; ++i) {
      locals[n].translation[size_t(i)] = input(trs.translation[i]);
      locals[n].scale[size_t(i)] = input(trs.scale[i]);
    }
    const double q[4] = {trs.rotation.x(), trs.rotation.y(), trs.rotation.z(), trs.rotation.w()};
    for (size_t i = 0; i < 4; ++i) locals[n].rotation[i] = input(q[i]);
    for (double w : rest.morph_weights[n]) weights[n].push_back(input(w));
  }
  if (animation >= 0) {
    const Animation& anim = scene.animations[size_t(animation)];
    std::vector<Bounded> sampled;
    for (const AnimationChannel& ch : anim.channels) {  // in order: a repeated target ends with the last
      sample(anim.samplers[size_t(ch.sampler)], ch.path, time, sampled);
      BoundedTrs& local = locals[size_t(ch.node)];
      switch (ch.path) {
        case ChannelPath::Translation: std::copy_n(sampled.begin(), 3, local.translation.begin()); break;
        case ChannelPath::Rotation: std::copy_n(sampled.begin(), 4, local.rotation.begin()); break;
        case ChannelPath::Scale: std::copy_n(sampled.begin(), 3, local.scale.begin()); break;
        case ChannelPath::Weights: weights[size_t(ch.node)] = sampled; break;
      }
    }
  }

  return detail::walk_pose_to_palette<PoseErrorBounds, ShaderPoseModel>(scene, locals, weights);
}

bool within_bound(double actual, double reference, double bound) {
  return std::abs(actual - reference) <= bound + tol::kReferenceRelative * std::abs(reference);
}

void charge_printing_rounding(PoseErrorBounds& bounds, const EvaluatedPose& printed, int significant_digits) {
  if (significant_digits >= 17) return;
  const double relative = 0.5 * std::pow(10.0, 1 - std::max(significant_digits, 1));
  for (size_t n = 0; n < bounds.local.size() && n < printed.local.local.size(); ++n) {
    const Transform& local = printed.local.local[n];
    const std::array<double, 10> values{local.translation.x(), local.translation.y(), local.translation.z(),
                                        local.rotation.x(),    local.rotation.y(),    local.rotation.z(),
                                        local.rotation.w(),    local.scale.x(),       local.scale.y(),
                                        local.scale.z()};
    for (size_t k = 0; k < values.size(); ++k) bounds.local[n][k] += relative * std::abs(values[k]);
    for (size_t k = 0; k < bounds.morph_weights[n].size() && k < printed.local.morph_weights[n].size(); ++k)
      bounds.morph_weights[n][k] += relative * std::abs(printed.local.morph_weights[n][k]);
    for (size_t k = 0; k < 16; ++k) bounds.global[n][k] += relative * std::abs(printed.model.global[n].data()[k]);
  }
  for (size_t s = 0; s < bounds.palettes.size() && s < printed.palettes.size(); ++s)
    for (size_t j = 0; j < bounds.palettes[s].skinning.size() && j < printed.palettes[s].skinning.size(); ++j) {
      for (size_t k = 0; k < 16; ++k)
        bounds.palettes[s].skinning[j][k] += relative * std::abs(printed.palettes[s].skinning[j].data()[k]);
      for (size_t k = 0; k < 9; ++k)
        bounds.palettes[s].normal[j][k] += relative * std::abs(printed.palettes[s].normal[j].data()[k]);
    }
}

}  // namespace skinref
