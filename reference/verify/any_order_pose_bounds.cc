// Any-order pose bounds: each stage as a polynomial in its float inputs (MonomialSum) or as a function with a
// stated accuracy and a Lipschitz constant, the values computed in double. docs/error_bounds.md, "Any order",
// derives each step. Local to model and the palette walk through pose_palette_walk.h, with this file's operations.
#include "verify/any_order_pose_bounds.h"

#include "anim/sampling.h"
#include "core/pose.h"
#include "verify/any_order_arithmetic.h"
#include "verify/pose_palette_walk.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace skinref {
namespace {

using any_order::exact;
using any_order::input;
using any_order::kInfinity;
using any_order::kUnit;
using any_order::MonomialSum;

struct GaugedTrs {
  std::array<Gauged, 3> translation;
  std::array<Gauged, 4> rotation;  // x y z w
  std::array<Gauged, 3> scale;
  RotationSplit split;             // the rotation's errors described otherwise, when known
};

using GaugedMat4 = std::array<std::array<Gauged, 4>, 4>;  // [row][column]

bool float_exact(double x) { return double(static_cast<float>(x)) == x; }

double ulps(double count) { return count * tol::kFloatUlp; }

void set_error(std::vector<Gauged>& out, double error) {
  for (Gauged& v : out) v.error = error;
}

// A vector r the engine normalizes, its components known within e_i: |r^_i / |r^| - r_i / |r|| <= e_i / (L - E)
// + |q_i| E / (L - E) (L = |r|, E = the Euclidean error, q = r / |r|), then the normalization's rounding, relative
// per component (v_i / |v| or v_i * (1 / |v|)). An engine that does not normalize a unit r (L = 1) is within e_i
// of it, which this covers.
void normalized(std::array<Gauged, 4>& r, double normalize_ulps) {
  const double length = any_order::euclidean_value(r.data(), 4), error = any_order::euclidean_error(r.data(), 4);
  if (!(error < length)) {
    for (Gauged& v : r) v = {v.value / length, kInfinity, std::abs(v.value / length)};
    return;
  }
  for (Gauged& v : r) {
    const double q = v.value / length;
    const double propagated = (v.error + std::abs(q) * error) / (length - error);
    v = any_order::known(q, propagated + ulps(normalize_ulps) * (std::abs(q) + propagated));
  }
}

// A rotation key as a correct engine holds it: normalized in float (glTF's keys are unit quaternions; the
// reference normalizes them), each component within the normalization's allowance of its own magnitude (the
// normalization divides every component by one float length); an engine that skips the normalization of keys
// that are unit to that accuracy is as close. Keys further from unit than that must be normalized (otherwise
// the engine follows the convention quaternion-keys=as-stored).
Gauged unit_key(double unit_component, double normalize_ulps) {
  return any_order::known(unit_component, ulps(normalize_ulps) * std::abs(unit_component));
}

// The length of a quaternion's components other than its largest: its distance from the nearest axis.
double off_axis(const double* q) {
  size_t largest = 0;
  for (size_t i = 1; i < 4; ++i)
    if (std::abs(q[i]) > std::abs(q[largest])) largest = i;
  double sum = 0.0;
  for (size_t i = 0; i < 4; ++i)
    if (i != largest) sum += q[i] * q[i];
  return std::sqrt(sum);
}

// The same key as a RotationSplit: each component within n u of its own magnitude moves a unit quaternion by at
// most n u, so its length by n u and its direction by any_order_normalization_turn().
RotationSplit unit_key_split(const double* unit_key, double normalize_ulps) {
  return {any_order_normalization_turn(off_axis(unit_key), normalize_ulps), ulps(normalize_ulps)};
}

// A float quaternion r^ = (1 + p) q + t (t perpendicular to the exact unit q, |p| <= along, |t| <= across),
// then normalized by the allowance or not: its direction within atan(across / (1 - along)) of q, plus the
// normalization's turn of r^ / |r^|, which is that angle closer to q and so at most that angle further than q
// from q's nearest axis (`q_off_axis`); its length within max(along, |(1 + along, across)| - 1) of 1, or n u.
RotationSplit split_of(double along, double across, double q_off_axis, double normalize_ulps) {
  if (!(along < 1.0)) return {};
  const double before = std::atan(across / (1.0 - along));
  const double direction = before + any_order_normalization_turn(q_off_axis + before, normalize_ulps);
  const double radial = std::max(along, std::hypot(1.0 + along, across) - 1.0);
  return {direction, std::max(radial, ulps(normalize_ulps))};
}

void widen_split(RotationSplit& split, const RotationSplit& other) {
  split.direction = std::max(split.direction, other.direction);
  split.radial = std::max(split.radial, other.radial);
}

// A sampler's stored value of component i of key `key`: for CUBICSPLINE, part 0 in-tangent, 1 value, 2
// out-tangent; otherwise the key's value (part unused).
double stored_value(const AnimationSampler& s, size_t key, size_t i, int part) {
  const size_t c = size_t(s.components);
  const bool cubic = s.interpolation == Interpolation::CubicSpline;
  return s.values[(cubic ? key * 3 + size_t(part) : key) * c + i];
}

// One slerp as slerp_split() sees it: the keys' angle theta, the factor u within du, the exact weights c0, c1
// and their error, and how far the unit keys a, b and the exact result are from their nearest axes (off_axis()).
struct SlerpPoint {
  double theta, u, du, c0, c1, weight_error;
  double off_axis_a, off_axis_b, off_axis_q;
};

// A key's error (unit_key_split()) across q, for a key at the angle phi from q: at most n u; and, as its own part
// along the key (n u) and across it (the normalization's, 2 n u |k - k_j e_j|), n u sin(phi) plus the latter.
double key_error_across(double key_off_axis, double phi, double normalize_ulps) {
  const double n_u = ulps(normalize_ulps);
  return std::min(n_u, n_u * std::sin(phi) + 2.0 * n_u * key_off_axis);
}

// The slerp's errors as a RotationSplit. Against the exact q = c0 a + c1 b' (unit; a at the angle u theta from
// it, b' at (1 - u) theta), the engine's weighted sum moves by dc0 a + dc1 b' for its weights, whose part across
// q is at most |dc0| sin(u theta) + |dc1| sin((1 - u) theta) and whose part along q at most |dc0| + |dc1|; by
// c0 da + c1 db for its keys (|da|, |db| <= n u: unit_key_split(); across q by key_error_across()); by the
// sum's rounding, gamma_2 of c0 |a_i| + c1 |b_i| per component (Euclidean at most gamma_2 (c0 + c1) (1 + n u));
// and by the arc from u to u^, at most theta du across and (theta du)^2 along. Then split_of().
RotationSplit slerp_split(const SlerpPoint& at, const tol::SamplingAllowances& allowances) {
  const double key = ulps(allowances.normalize_ulps);
  const double weights = at.c0 + at.c1 + 2.0 * at.weight_error;  // the float weights' largest sum
  const double rounding = any_order::gamma(2) * weights * (1.0 + key);
  const double arc = at.theta * at.du;
  const double phi_a = at.u * at.theta, phi_b = (1.0 - at.u) * at.theta;
  const double keys_across =
      (at.c0 + at.weight_error) * key_error_across(at.off_axis_a, phi_a, allowances.normalize_ulps) +
      (at.c1 + at.weight_error) * key_error_across(at.off_axis_b, phi_b, allowances.normalize_ulps);
  const double across = at.weight_error * (std::sin(phi_a) + std::sin(phi_b)) + keys_across + rounding + arc;
  const double along = 2.0 * at.weight_error + weights * key + rounding + arc * arc;
  return split_of(along, across, at.off_axis_q, allowances.normalize_ulps);
}

// LINEAR rotation step: slerp as a weighted sum of the (normalized) keys, c0 a + c1 b, its weights c0 = sin((1 -
// u) theta) / sin theta and c1 = sin(u theta) / sin theta by any formula within the slerp allowance of c0 + c1;
// the slerp moves at speed theta in u, so by at most theta du from u to u^; then normalized or not
// (normalized() covers both). `errors` gets 4 entries.
void slerp_interval_errors(const AnimationSampler& s, size_t k, double u_value, double du,
                           const tol::SamplingAllowances& allowances, std::vector<double>& errors,
                           RotationSplit& split) {
  const AnimationSampler::SlerpIntervals& table = s.slerp;
  std::array<Gauged, 4> a, b;
  MonomialSum dot;
  for (size_t i = 0; i < 4; ++i) {
    a[i] = unit_key(table.unit_keys[k * 4 + i], allowances.normalize_ulps);
    b[i] = unit_key(table.unit_keys[(k + 1) * 4 + i], allowances.normalize_ulps);
    dot.add({a[i], b[i]});
  }
  if (!any_order::sign_certain(dot.result())) {  // the short path may flip
    errors.assign(4, kInfinity);
    split = {};
    return;
  }
  const double theta = table.angle[k], sin_theta = table.sin_angle[k];
  double c0 = 1.0 - u_value, c1 = u_value;
  if (sin_theta > 0.0) {
    c0 = std::sin((1.0 - u_value) * theta) / sin_theta;
    c1 = std::sin(u_value * theta) / sin_theta;
  }
  const double weight_error = ulps(allowances.slerp_ulps) * (c0 + c1);
  const Gauged w0 = any_order::known(c0, weight_error), w1 = any_order::known(c1, weight_error);
  std::array<Gauged, 4> q;
  for (size_t i = 0; i < 4; ++i) {
    MonomialSum m;
    m.add({w0, a[i]});
    m.add({w1, b[i]}, table.sign[k]);
    q[i] = m.result();
    q[i].error += theta * du;
  }
  normalized(q, allowances.normalize_ulps);
  double result[4];
  for (size_t i = 0; i < 4; ++i) {
    errors[i] = q[i].error;
    result[i] = q[i].value;
  }
  split = slerp_split({theta, u_value, du, c0, c1, weight_error, off_axis(&table.unit_keys[k * 4]),
                       off_axis(&table.unit_keys[(k + 1) * 4]), off_axis(result)},
                      allowances);
}

// LINEAR step (not a rotation): a + u (b - a) and (1 - u) a + u b alike: the monomials a, -u a, u b; the
// derivative b - a gives the change from u to u^.
void linear_interval_sums(const AnimationSampler& s, size_t k, const Gauged& u, double du,
                          std::vector<MonomialSum>& sums, std::vector<double>& change) {
  const size_t c = size_t(s.components);
  for (size_t i = 0; i < c; ++i) {
    const Gauged a = input(stored_value(s, k, i, 1)), b = input(stored_value(s, k + 1, i, 1));
    sums[i].add({a});
    sums[i].add({u, a}, -1.0);
    sums[i].add({u, b});
    change[i] = (std::abs(b.value - a.value) + a.error + b.error) * du;
  }
}

// CUBICSPLINE step: Hermite, (2u^3 - 3u^2 + 1) v0 + (u^3 - 2u^2 + u) d b0 + (-2u^3 + 3u^2) v1 + (u^3 - u^2) d
// a1, with the interval d = t1 - t0 a float subtraction; the change from u to u^ by the derivative in u.
void cubic_interval_sums(const AnimationSampler& s, size_t k, const Gauged& u, double du,
                         std::vector<MonomialSum>& sums, std::vector<double>& change) {
  const size_t c = size_t(s.components);
  const double t0 = s.times[k], t1 = s.times[k + 1];
  const double u_value = u.value;
  const double d_value = t1 - t0;
  const Gauged d{d_value, kUnit * d_value, d_value};
  const Gauged two = exact(2.0), three = exact(3.0);
  for (size_t i = 0; i < c; ++i) {
    const Gauged v0 = input(stored_value(s, k, i, 1)), b0 = input(stored_value(s, k, i, 2));
    const Gauged v1 = input(stored_value(s, k + 1, i, 1)), a1 = input(stored_value(s, k + 1, i, 0));
    MonomialSum& m = sums[i];
    m.add({two, u, u, u, v0});
    m.add({three, u, u, v0}, -1.0);
    m.add({v0});
    m.add({u, u, u, d, b0});
    m.add({two, u, u, d, b0}, -1.0);
    m.add({u, d, b0});
    m.add({two, u, u, u, v1}, -1.0);
    m.add({three, u, u, v1});
    m.add({u, u, u, d, a1});
    m.add({u, u, d, a1}, -1.0);
    // The derivative in u, and a bound on the second (|h00''|, |h01''| <= 6, |h10''|, |h11''| <= 4) for
    // its change over du.
    const double x = u_value;
    const double first = std::abs((6 * x * x - 6 * x) * v0.value + (3 * x * x - 4 * x + 1) * d_value * b0.value +
                                  (6 * x - 6 * x * x) * v1.value + (3 * x * x - 2 * x) * d_value * a1.value);
    const double second = 6 * std::abs(v0.value) + 4 * d_value * std::abs(b0.value) + 6 * std::abs(v1.value) +
                          4 * d_value * std::abs(a1.value);
    change[i] = (first + second * du) * du;
  }
}

// The errors of interval k of a LINEAR or CUBICSPLINE sampler at interpolation factor u_value (the engine's
// factor within kAnyOrderInterpolationFactorUlps of it).
void interval_errors(const AnimationSampler& s, bool rotation, size_t k, double u_value, double time_error,
                     const tol::SamplingAllowances& allowances, std::vector<double>& errors, RotationSplit& split) {
  const size_t c = size_t(s.components);
  errors.assign(c, 0.0);
  const double t0 = s.times[k], t1 = s.times[k + 1];
  // The engine's factor u^ is within du of u: the rounding of its polynomial is charged at u^ (the factor's
  // gauge covers u + du), and the polynomial's own change from u to u^ separately, by its derivative: that keeps
  // the two keys' opposite changes together (|b - a| du, not (|a| + |b|) du).
  const double du = (ulps(tol::kAnyOrderInterpolationFactorUlps) + allowances.interpolation_relative) * u_value +
                    time_error / (t1 - t0);
  const Gauged u{u_value, 0.0, u_value + du};

  if (s.interpolation == Interpolation::Linear && rotation) {
    slerp_interval_errors(s, k, u_value, du, allowances, errors, split);
    return;
  }

  std::vector<MonomialSum> sums(c);
  std::vector<double> change(c, 0.0);  // the polynomial's change from u to u^
  if (s.interpolation == Interpolation::Linear) {
    linear_interval_sums(s, k, u, du, sums, change);
  } else {
    cubic_interval_sums(s, k, u, du, sums, change);
  }
  if (!rotation) {
    for (size_t i = 0; i < c; ++i) errors[i] = sums[i].result().error + change[i];
    return;
  }
  // A CUBICSPLINE rotation, normalized (glTF requires it): r^ within E of r turns by at most asin(E / |r|).
  std::array<Gauged, 4> q;
  for (size_t i = 0; i < 4; ++i) {
    q[i] = sums[i].result();
    q[i].error += change[i];
  }
  const double length = any_order::euclidean_value(q.data(), 4), error = any_order::euclidean_error(q.data(), 4);
  if (error < length) {
    double unit[4];
    for (size_t i = 0; i < 4; ++i) unit[i] = q[i].value / length;
    const double before = std::asin(error / length);
    split = {before + any_order_normalization_turn(off_axis(unit) + before, allowances.normalize_ulps),
             ulps(allowances.normalize_ulps)};
  } else {
    split = {};
  }
  normalized(q, allowances.normalize_ulps);
  for (size_t i = 0; i < 4; ++i) errors[i] = q[i].error;
}

// One sampler at clip time t, `out` with the sampler's components: values from sample_sampler() (the
// reference), errors by the any-order analysis. At a key's own time an engine may hold the key or finish the
// interval before it at u = 1 (whose float factor may miss 1): both are covered. `time_error`: how far the
// engine's clip time may be from t (0: it sampled at t itself); an interval's factor moves by time_error / its
// length, a time within time_error of a key may fall on either side, and a STEP key may switch (no claim).
void sample(const AnimationSampler& s, ChannelPath path, double t, double time_error,
            const tol::SamplingAllowances& allowances, std::vector<Gauged>& out, RotationSplit& split) {
  const size_t c = size_t(s.components);
  const size_t n = s.times.size();
  const bool cubic = s.interpolation == Interpolation::CubicSpline;
  const bool rotation = path == ChannelPath::Rotation;
  std::vector<double> values(c);
  sample_sampler(s, path, t, values);
  out.assign(c, Gauged{});
  for (size_t i = 0; i < c; ++i) out[i] = exact(values[i]);
  auto stored = [&](size_t k, size_t i) { return s.values[(cubic ? k * 3 + 1 : k) * c + i]; };
  std::vector<double> errors;
  RotationSplit interval_split;
  split = {};
  auto widen = [&](size_t k, double u) {  // the errors of interval k at u, where the engine may be
    interval_errors(s, rotation, k, u, time_error, allowances, errors, interval_split);
    for (size_t i = 0; i < c; ++i) out[i].error = std::max(out[i].error, errors[i]);
    widen_split(split, interval_split);
  };
  // Key times that are not float32 values can put t in another interval than the reference's: no claim.
  if (!std::all_of(s.times.begin(), s.times.end(), float_exact)) return set_error(out, kInfinity);
  size_t key = 0;  // the key whose value is held, or the interval's first key
  bool held = true;
  if (n == 1 || t <= s.times.front()) {
    key = 0;
  } else if (t >= s.times.back()) {
    key = n - 1;
  } else {
    key = size_t(std::upper_bound(s.times.begin(), s.times.end(), t) - s.times.begin()) - 1;
    held = t == s.times[key] || s.interpolation == Interpolation::Step;
  }
  if (s.interpolation == Interpolation::Step && n > 1 && time_error > 0.0) {
    for (double key_time : s.times)
      if (key_time != s.times.front() && std::abs(key_time - t) <= time_error) return set_error(out, kInfinity);
  }
  if (held) {
    if (rotation) split = unit_key_split(values.data(), allowances.normalize_ulps);
    for (size_t i = 0; i < c; ++i)
      out[i] = rotation ? unit_key(values[i], allowances.normalize_ulps) : Gauged{values[i], input(stored(key, i)).error, std::abs(values[i])};
    if (s.interpolation == Interpolation::Step || n == 1) return;
    // At (or within time_error of) a key: the interval before it at u = 1, the one after it at u = 0.
    if (key > 0 && std::abs(t - s.times[key]) <= time_error + 0.0) widen(key - 1, 1.0);
    if (key + 1 < n && std::abs(s.times[key] - t) <= time_error) widen(key, 0.0);
    return;
  }
  const double u = (t - s.times[key]) / (s.times[key + 1] - s.times[key]);
  interval_errors(s, rotation, key, u, time_error, allowances, errors, split);
  for (size_t i = 0; i < c; ++i) out[i].error = errors[i];
  if (key > 0 && t - s.times[key] <= time_error) widen(key - 1, 1.0);
  if (key + 2 < n && s.times[key + 1] - t <= time_error) widen(key + 1, 0.0);
}

}  // namespace

namespace {

// The rounding of the usual forms' entries, with |q_k| + e_k for |q_k|. Off the diagonal gamma_11 of the
// monomials' magnitudes (kAnyOrderQuaternionMatrixRoundings). On it the largest of the forms: 1 - t rounds
// once, u (1 + t), after t's own rounding, gamma_10 of its magnitude t <= 2 (y^2 + z^2) / |q|^2
// (kAnyOrderQuaternionDiagonalRoundings: Godot's path, which covers the unit-assuming one's 2); the homogeneous
// form gamma_4 of |q|^2 (kAnyOrderHomogeneousDiagonalRoundings).
std::array<std::array<double, 3>, 3> quaternion_matrix_rounding(const std::array<Gauged, 4>& q) {
  double g[4], length_low = 0.0, length_high = 0.0;
  for (size_t i = 0; i < 4; ++i) {
    g[i] = std::abs(q[i].value) + q[i].error;
    const double low = std::max(std::abs(q[i].value) - q[i].error, 0.0);
    length_low += low * low;
    length_high += g[i] * g[i];
  }
  const double x = g[0], y = g[1], z = g[2], w = g[3];
  const double rounding = any_order::gamma(tol::kAnyOrderQuaternionMatrixRoundings);
  const double path = any_order::gamma(tol::kAnyOrderQuaternionDiagonalRoundings);
  const double homogeneous = any_order::gamma(tol::kAnyOrderHomogeneousDiagonalRoundings) * length_high;
  auto diagonal = [&](double a, double b) {
    const double t = 2.0 * (a * a + b * b) / std::min(1.0, length_low);
    const double t_float = t * (1.0 + path);
    return std::max(homogeneous, path * t + any_order::kUnit * (1.0 + t_float));
  };
  return {{{diagonal(y, z), rounding * 2 * (x * y + z * w), rounding * 2 * (x * z + y * w)},
           {rounding * 2 * (x * y + z * w), diagonal(x, z), rounding * 2 * (y * z + x * w)},
           {rounding * 2 * (x * z + y * w), rounding * 2 * (y * z + x * w), diagonal(x, y)}}};
}

}  // namespace

// The engine's p^_i = p_i (1 + d_i), |d_i| <= n u. Its part across p is at most min over c of |p o (d - c)|: n u
// with c = 0, and 2 n u |p - p_j e_j| with c = d_j for the axis j. The part along p, at least -n u, leaves
// atan(across / (1 - n u)); at most asin(n u) whatever the across part.
double any_order_normalization_turn(double off_axis, double normalize_ulps) {
  const double n_u = ulps(normalize_ulps);
  const double across = n_u * std::min(1.0, 2.0 * off_axis);
  return std::min(std::asin(n_u), std::atan(across / (1.0 - n_u)));
}

std::array<std::array<Gauged, 3>, 3> any_order_rotation_matrix_bounds(const std::array<Gauged, 4>& q) {
  const Mat3 r = rotation_matrix(quat_from_xyzw(q[0].value, q[1].value, q[2].value, q[3].value).normalized());
  double m[4], e[4], radial = 0.0, e2 = 0.0;
  for (size_t i = 0; i < 4; ++i) {
    m[i] = std::abs(q[i].value);
    e[i] = q[i].error;
    radial += m[i] * e[i];
    e2 += e[i] * e[i];
  }
  // Indices x y z w = 0 1 2 3. Diagonal i uses the other two vector components (j, k).
  auto diagonal = [&](int j, int k, double rij) {
    return std::max(4.0 * (m[j] * e[j] + m[k] * e[k]), 2.0 * radial + 2.0 * std::abs(rij) * radial);
  };
  // Off the diagonal: 2 (q_a q_b -+ q_c q_d).
  auto off = [&](int a, int b, int c, int d, double rij) {
    return 2.0 * (m[b] * e[a] + m[a] * e[b] + m[d] * e[c] + m[c] * e[d]) + 2.0 * std::abs(rij) * radial;
  };
  const double first[3][3] = {
      {diagonal(1, 2, r(0, 0)), off(0, 1, 2, 3, r(0, 1)), off(0, 2, 1, 3, r(0, 2))},
      {off(0, 1, 2, 3, r(1, 0)), diagonal(0, 2, r(1, 1)), off(1, 2, 0, 3, r(1, 2))},
      {off(0, 2, 1, 3, r(2, 0)), off(1, 2, 0, 3, r(2, 1)), diagonal(0, 1, r(2, 2))}};
  const auto rounding = quaternion_matrix_rounding(q);
  std::array<std::array<Gauged, 3>, 3> out;
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 3; ++col)
      out[size_t(row)][size_t(col)] =
          any_order::known(r(row, col), first[row][col] + 4.0 * e2 + rounding[size_t(row)][size_t(col)]);
  return out;
}

std::array<std::array<double, 3>, 3> any_order_rotation_matrix_split_errors(const std::array<Gauged, 4>& q,
                                                                            const RotationSplit& split) {
  std::array<std::array<double, 3>, 3> out;
  if (!(split.direction < 0.5 * std::numbers::pi) || !std::isfinite(split.radial)) {
    for (auto& row : out) row.fill(kInfinity);
    return out;
  }
  const Mat3 r = rotation_matrix(quat_from_xyzw(q[0].value, q[1].value, q[2].value, q[3].value).normalized());
  const double turn = 2.0 * std::sin(split.direction);  // ||R(p) - R(q)||_2 for unit p, q that far apart
  const double length = 2.0 * split.radial + split.radial * split.radial;  // | |q|^2 - 1 |
  const auto rounding = quaternion_matrix_rounding(q);
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 3; ++col) {
      // The turned matrix's entries move by at most `turn`; the forms' length factor is |I - R| or |R| of it.
      const double identity = row == col ? 1.0 : 0.0;
      const double factor = std::max(std::abs(identity - r(row, col)), std::abs(r(row, col))) + turn;
      out[size_t(row)][size_t(col)] = turn + length * factor + rounding[size_t(row)][size_t(col)];
    }
  return out;
}

namespace {

// L = T * R * S in any association: R's entries times the scale (one product), the translation copied.
GaugedMat4 local_matrix(const GaugedTrs& trs) {
  auto r = any_order_rotation_matrix_bounds(trs.rotation);
  if (std::isfinite(trs.split.direction)) {  // both bound the same matrix: the smaller holds
    const auto by_split = any_order_rotation_matrix_split_errors(trs.rotation, trs.split);
    for (size_t row = 0; row < 3; ++row)
      for (size_t col = 0; col < 3; ++col) r[row][col].error = std::min(r[row][col].error, by_split[row][col]);
  }
  GaugedMat4 l{};
  for (size_t row = 0; row < 3; ++row) {
    for (size_t col = 0; col < 3; ++col) {
      MonomialSum m;
      m.add({r[row][col], trs.scale[col]});
      l[row][col] = m.result();
    }
    l[row][3] = trs.translation[row];
  }
  l[3] = {exact(0.0), exact(0.0), exact(0.0), exact(1.0)};
  return l;
}

// An affine product: rows 0..2 as dot products in any order (the translation column adds a's own), row 3
// exact. The product is formed from the float matrices a and b as they are (a hierarchy walk multiplies a
// node's local matrix into its parent's finished global), so its result's gauge is its own magnitude: the
// chain's association is parent first, as every hierarchy walk has it. (A gauge carried as the product of
// absolute values down the chain would allow any association, but grows like prod |L_i|, exponentially in
// the depth for twisted chains: docs/error_bounds.md.)
GaugedMat4 multiply(const GaugedMat4& a, const GaugedMat4& b) {
  GaugedMat4 out{};
  for (size_t row = 0; row < 3; ++row)
    for (size_t col = 0; col < 4; ++col) {
      MonomialSum m;
      for (size_t k = 0; k < 3; ++k) m.add({a[row][k], b[k][col]});
      if (col == 3) m.add({a[row][3]});
      const Gauged product = m.result();
      out[row][col] = any_order::known(product.value, product.error);
    }
  out[3] = {exact(0.0), exact(0.0), exact(0.0), exact(1.0)};
  return out;
}

GaugedMat4 input_matrix(const Mat4& m) {
  GaugedMat4 out{};
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 4; ++col) out[size_t(row)][size_t(col)] = input(m(row, col));
  return out;
}

std::array<double, 16> errors(const GaugedMat4& m) {
  std::array<double, 16> out{};
  for (size_t col = 0; col < 4; ++col)
    for (size_t row = 0; row < 4; ++row) out[col * 4 + row] = m[row][col].error;
  return out;
}

// The normal matrix of a palette entry jm: its cofactors, as the engine may negate them.
std::array<double, 9> normal_matrix_errors(const GaugedMat4& jm) {
  Gauged linear[3][3], cof[3][3], det;
  for (size_t r = 0; r < 3; ++r)
    for (size_t c = 0; c < 3; ++c) linear[r][c] = jm[r][c];
  any_order::cofactors(linear, cof, det);
  // Where the determinant's sign is not certain, the engine may negate: the error can be 2 |cof|.
  const bool certain = any_order::sign_certain(det);
  std::array<double, 9> normal{};
  for (size_t r = 0; r < 3; ++r)
    for (size_t c = 0; c < 3; ++c)
      normal[c * 3 + r] = certain ? cof[r][c].error : 2.0 * std::abs(cof[r][c].value) + cof[r][c].error;
  return normal;
}

// The any-order operations for the shared walk (pose_palette_walk.h).
struct AnyOrderPoseModel {
  using Matrix = GaugedMat4;
  static GaugedMat4 local_matrix(const GaugedTrs& trs) { return skinref::local_matrix(trs); }
  static GaugedMat4 multiply(const GaugedMat4& a, const GaugedMat4& b) { return skinref::multiply(a, b); }
  static GaugedMat4 input_matrix(const Mat4& m) { return skinref::input_matrix(m); }
  static std::array<double, 16> matrix_errors(const GaugedMat4& m) { return errors(m); }
  static std::array<double, 9> normal_errors(const GaugedMat4& jm) { return normal_matrix_errors(jm); }
};

}  // namespace

LocalErrorBounds any_order_local_error_bounds(const Scene& scene, int animation, double time, double time_error,
                                              const tol::SamplingAllowances& allowances) {
  const size_t node_count = scene.nodes.size();
  const LocalPose rest = rest_pose(scene);
  LocalErrorBounds bounds;
  bounds.trs.assign(node_count, {});
  bounds.morph_weights.resize(node_count);
  for (size_t n = 0; n < node_count; ++n) {
    const Transform& trs = rest.local[n];
    for (int i = 0; i < 3; ++i) {
      bounds.trs[n][size_t(i)] = input(trs.translation[i]).error;
      bounds.trs[n][size_t(7 + i)] = input(trs.scale[i]).error;
    }
    const double q[4] = {trs.rotation.x(), trs.rotation.y(), trs.rotation.z(), trs.rotation.w()};
    for (size_t i = 0; i < 4; ++i) bounds.trs[n][3 + i] = unit_key(q[i], allowances.normalize_ulps).error;
    for (double w : rest.morph_weights[n]) bounds.morph_weights[n].push_back(input(w).error);
    bounds.rotation_split.push_back(unit_key_split(q, allowances.normalize_ulps));
  }
  if (animation < 0) return bounds;
  const Animation& anim = scene.animations[size_t(animation)];
  std::vector<Gauged> sampled;
  RotationSplit split;
  for (const AnimationChannel& ch : anim.channels) {  // in order: a repeated target ends with the last
    sample(anim.samplers[size_t(ch.sampler)], ch.path, time, time_error, allowances, sampled, split);
    std::array<double, 10>& trs = bounds.trs[size_t(ch.node)];
    switch (ch.path) {
      case ChannelPath::Translation: for (size_t i = 0; i < 3; ++i) trs[i] = sampled[i].error; break;
      case ChannelPath::Rotation:
        for (size_t i = 0; i < 4; ++i) trs[3 + i] = sampled[i].error;
        bounds.rotation_split[size_t(ch.node)] = split;
        break;
      case ChannelPath::Scale: for (size_t i = 0; i < 3; ++i) trs[7 + i] = sampled[i].error; break;
      case ChannelPath::Weights:
        bounds.morph_weights[size_t(ch.node)].clear();
        for (const Gauged& w : sampled) bounds.morph_weights[size_t(ch.node)].push_back(w.error);
        break;
    }
  }
  return bounds;
}

PoseErrorBounds any_order_pose_error_bounds(const Scene& scene, int animation, double time,
                                            const tol::SamplingAllowances& allowances) {
  LocalPose values = rest_pose(scene);
  if (animation >= 0) sample_animation(scene, animation, time, values);
  return any_order_pose_bounds_from_locals(scene, values,
                                           any_order_local_error_bounds(scene, animation, time, 0.0, allowances));
}

PoseErrorBounds any_order_pose_bounds_from_locals(const Scene& scene, const LocalPose& values,
                                                  const LocalErrorBounds& local_errors) {
  const size_t node_count = scene.nodes.size();
  if (values.local.size() != node_count || local_errors.trs.size() != node_count ||
      local_errors.morph_weights.size() != node_count)
    throw std::invalid_argument("any_order_pose_bounds_from_locals: the pose does not belong to the scene");
  std::vector<GaugedTrs> locals(node_count);
  std::vector<std::vector<Gauged>> weights(node_count);
  for (size_t n = 0; n < node_count; ++n) {
    const Transform& trs = values.local[n];
    const std::array<double, 10>& e = local_errors.trs[n];
    const double q[4] = {trs.rotation.x(), trs.rotation.y(), trs.rotation.z(), trs.rotation.w()};
    for (size_t i = 0; i < 3; ++i) {
      locals[n].translation[i] = any_order::known(trs.translation[int(i)], e[i]);
      locals[n].scale[i] = any_order::known(trs.scale[int(i)], e[7 + i]);
    }
    for (size_t i = 0; i < 4; ++i) locals[n].rotation[i] = any_order::known(q[i], e[3 + i]);
    if (local_errors.rotation_split.size() == node_count) locals[n].split = local_errors.rotation_split[n];
    for (size_t t = 0; t < values.morph_weights[n].size(); ++t)
      weights[n].push_back(any_order::known(values.morph_weights[n][t],
                                            t < local_errors.morph_weights[n].size() ? local_errors.morph_weights[n][t]
                                                                                      : kInfinity));
  }

  return detail::walk_pose_to_palette<PoseErrorBounds, AnyOrderPoseModel>(scene, locals, weights);
}

}  // namespace skinref
