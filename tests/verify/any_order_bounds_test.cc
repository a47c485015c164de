// The any-order bounds' arithmetic and allowances (verify/any_order_arithmetic.h, verify/float_model.h), each
// against float32 computations in several orders and by several formulas, on random inputs; the exact value
// computed in double (float products and short sums of them are exact or within 2^-50 there).
// - MonomialSum: dot products summed forward, backward, pairwise, in random orders, with fused multiply-adds.
// - Lerp in its three usual forms, with the interpolation factor from a division or a reciprocal.
// - slerp weights by acos and sin (with the switch to nlerp of glm and of Eigen), and by atan2 of chords: the
//   largest weight error in ulps of c0 + c1, glm's and the chords' against the stated allowance
//   (kStatedSamplingAllowances), Eigen's (10.7 ulp) against the wide one; a switch to nlerp at dot > 0.9995
//   (a common tutorial threshold) is measured and printed: it is outside both (an nlerp engine).
// - Normalization by sqrt and division, and by a reciprocal square root and products, against the stated
//   allowance.
// - The rotation matrix of a perturbed quaternion by the three usual forms, within
//   any_order_rotation_matrix_bounds().
#include "verify/any_order_arithmetic.h"
#include "verify/any_order_pose_bounds.h"
#include "verify/vertex_bounds_walk.h"

#include "core/math_types.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using any_order::MonomialSum;

constexpr int kSamples = 20000;

// The exact value's own double rounding, charged at every comparison as the comparisons of the tool do.
bool within(double float_result, double exact, const Gauged& bound) {
  return std::abs(float_result - exact) <= bound.error + tol::kReferenceRelative * bound.gauge;
}

float pairwise(const std::vector<float>& terms, size_t begin, size_t end) {
  if (end - begin == 1) return terms[begin];
  const size_t middle = (begin + end) / 2;
  return pairwise(terms, begin, middle) + pairwise(terms, middle, end);
}

TEST(AnyOrderArithmetic, DotProductsInEveryOrderAreWithinTheMonomialBound) {
  std::mt19937 random(14);
  std::uniform_real_distribution<double> exponent(-3.0, 3.0), sign(-1.0, 1.0);
  size_t checked = 0;
  for (int sample = 0; sample < 2000; ++sample) {
    const size_t n = 2 + size_t(sample % 15);
    std::vector<float> a(n), b(n);
    MonomialSum sum;
    double exact = 0.0;
    for (size_t i = 0; i < n; ++i) {
      a[i] = float(std::copysign(std::pow(10.0, exponent(random)), sign(random)));
      b[i] = float(std::copysign(std::pow(10.0, exponent(random)), sign(random)));
      sum.add({any_order::input(a[i]), any_order::input(b[i])});
      exact += double(a[i]) * double(b[i]);
    }
    const Gauged bound = sum.result();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    for (int arrangement = 0; arrangement < 6; ++arrangement) {
      if (arrangement == 1) std::reverse(order.begin(), order.end());
      if (arrangement >= 2) std::shuffle(order.begin(), order.end(), random);
      float plain = 0.0f, fused = 0.0f;
      std::vector<float> products;
      for (size_t i : order) {
        plain += a[i] * b[i];
        fused = std::fmaf(a[i], b[i], fused);
        products.push_back(a[i] * b[i]);
      }
      const float tree = pairwise(products, 0, products.size());
      for (float result : {plain, fused, tree}) {
        EXPECT_TRUE(within(double(result), exact, bound))
            << "n " << n << ": error " << std::abs(double(result) - exact) << ", bound " << bound.error;
        ++checked;
      }
    }
  }
  std::printf("  %zu dot products in forward, reverse, shuffled, pairwise and fused orders: all within their bound\n",
              checked);
}

TEST(AnyOrderArithmetic, LerpInItsUsualFormsIsWithinTheMonomialBound) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> value(-100.0, 100.0), fraction(0.0, 1.0);
  double worst = 0.0;
  for (int sample = 0; sample < kSamples; ++sample) {
    const float t0 = float(fraction(random) * 10.0), t1 = t0 + float(0.001 + fraction(random));
    const float t = t0 + float(fraction(random)) * (t1 - t0);
    if (!(t > t0 && t < t1)) continue;
    const float a = float(value(random)), b = float(value(random));
    const double u = (double(t) - double(t0)) / (double(t1) - double(t0));
    // As any_order_pose_bounds.cc charges it: the polynomial's rounding at the engine's factor (u exact, its
    // gauge covering u + du), and the polynomial's change from u to the engine's factor, |b - a| du.
    const double du = tol::kAnyOrderInterpolationFactorUlps * tol::kFloatUlp * u;
    const Gauged ug{u, 0.0, u + du};
    MonomialSum m;
    m.add({any_order::input(a)});
    m.add({ug, any_order::input(a)}, -1.0);
    m.add({ug, any_order::input(b)});
    Gauged bound = m.result();
    bound.error += std::abs(double(b) - double(a)) * du;
    const double exact = double(a) + (double(b) - double(a)) * u;
    const float divided = (t - t0) / (t1 - t0);
    const float reciprocal = (t - t0) * (1.0f / (t1 - t0));
    for (float uf : {divided, reciprocal}) {
      const float forms[3] = {a + (b - a) * uf, (1.0f - uf) * a + uf * b, std::fmaf(uf, b - a, a)};
      for (float result : forms) {
        EXPECT_TRUE(within(double(result), exact, bound)) << a << " " << b << " " << uf;
        worst = std::max(worst, std::abs(double(result) - exact) / bound.error);
      }
    }
  }
  std::printf("  lerp: largest error / bound %.3g\n", worst);
}

// A random unit quaternion in float, and one at a random angle theta (in 4D) from it.
void quaternion_pair(std::mt19937& random, double theta, float a[4], float b[4]) {
  std::normal_distribution<double> normal;
  Eigen::Vector4d p(normal(random), normal(random), normal(random), normal(random));
  p.normalize();
  Eigen::Vector4d w(normal(random), normal(random), normal(random), normal(random));
  w -= w.dot(p) * p;
  w.normalize();
  const Eigen::Vector4d q = std::cos(theta) * p + std::sin(theta) * w;
  for (int i = 0; i < 4; ++i) {
    a[i] = float(p[i]);
    b[i] = float(q[i]);
  }
}

struct Weights {
  float c0, c1;
};

// slerp weights in float: acos and sin, switching to (1 - u, u) above `nlerp_above`.
Weights acos_weights(const float a[4], const float b[4], float u, float nlerp_above) {
  const float dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  if (dot > nlerp_above) return {1.0f - u, u};
  const float theta = std::acos(dot);
  const float s = std::sin(theta);
  return {std::sin((1.0f - u) * theta) / s, std::sin(u * theta) / s};
}

// atan2 of the chords |a - b| and |a + b| (skinref's reference formula, here in float).
Weights chord_weights(const float a[4], const float b[4], float u) {
  float minus = 0.0f, plus = 0.0f;
  for (int i = 0; i < 4; ++i) {
    minus += (a[i] - b[i]) * (a[i] - b[i]);
    plus += (a[i] + b[i]) * (a[i] + b[i]);
  }
  minus = std::sqrt(minus);
  plus = std::sqrt(plus);
  const float theta = 2.0f * std::atan2(minus, plus);
  const float s = 0.5f * minus * plus;
  if (s < 1e-12f) return {1.0f - u, u};
  return {std::sin((1.0f - u) * theta) / s, std::sin(u * theta) / s};
}

TEST(AnyOrderArithmetic, SlerpWeightFormulasAreWithinTheAllowance) {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> log_angle(-6.0, std::log10(M_PI / 2.0)), fraction(0.0, 1.0);
  double worst_glm = 0.0, worst_eigen = 0.0, worst_chords = 0.0, worst_tutorial = 0.0;
  for (int sample = 0; sample < kSamples; ++sample) {
    float a[4], b[4];
    quaternion_pair(random, std::pow(10.0, log_angle(random)), a, b);
    const float u = float(fraction(random));
    // The exact weights of the float keys (normalized in double) at the float u.
    Eigen::Vector4d ad(a[0], a[1], a[2], a[3]), bd(b[0], b[1], b[2], b[3]);
    ad.normalize();
    bd.normalize();
    const double theta = 2.0 * std::atan2((ad - bd).norm(), (ad + bd).norm());
    double c0 = 1.0 - u, c1 = u;
    if (std::sin(theta) > 0.0) {
      c0 = std::sin((1.0 - u) * theta) / std::sin(theta);
      c1 = std::sin(u * theta) / std::sin(theta);
    }
    auto ulps_of = [&](Weights w) {
      return std::max(std::abs(double(w.c0) - c0), std::abs(double(w.c1) - c1)) / ((c0 + c1) * tol::kFloatUlp);
    };
    worst_glm = std::max(worst_glm, ulps_of(acos_weights(a, b, u, 1.0f - FLT_EPSILON)));
    worst_eigen = std::max(worst_eigen, ulps_of(acos_weights(a, b, u, 1.0f - 1e-5f)));
    worst_chords = std::max(worst_chords, ulps_of(chord_weights(a, b, u)));
    worst_tutorial = std::max(worst_tutorial, ulps_of(acos_weights(a, b, u, 0.9995f)));
  }
  const double stated = tol::kStatedSamplingAllowances.slerp_ulps, wide = tol::kWideSamplingAllowances.slerp_ulps;
  std::printf("  slerp weights, largest error in ulps of c0 + c1 (allowances: stated %.0f, wide %.0f): acos/sin with "
              "glm's switch %.3g, with Eigen's switch %.3g, atan2 of chords %.3g; with a switch to nlerp above 0.9995: "
              "%.3g (outside)\n",
              stated, wide, worst_glm, worst_eigen, worst_chords, worst_tutorial);
  EXPECT_LE(worst_glm, stated);
  EXPECT_LE(worst_chords, stated);
  EXPECT_GT(worst_eigen, stated) << "Eigen's switch to lerp is why the wide allowance exists";
  EXPECT_LE(worst_eigen, wide);
  EXPECT_GT(worst_tutorial, wide) << "the 0.9995 switch is an nlerp engine's error, not rounding";
}

TEST(AnyOrderArithmetic, NormalizationsAreWithinTheAllowance) {
  std::mt19937 random(5);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> log_scale(-3.0, 3.0);
  double worst = 0.0;
  for (int sample = 0; sample < kSamples; ++sample) {
    const double scale = std::pow(10.0, log_scale(random));
    float v[4];
    for (float& x : v) x = float(normal(random) * scale);
    double length = 0.0;
    for (float x : v) length += double(x) * double(x);
    length = std::sqrt(length);
    const float squares = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
    const float root = std::sqrt(squares), inverse = 1.0f / std::sqrt(squares);
    for (int i = 0; i < 4; ++i) {
      const double exact = double(v[i]) / length;
      if (exact == 0.0) continue;
      for (float result : {v[i] / root, v[i] * inverse})
        worst = std::max(worst, std::abs(double(result) - exact) / (std::abs(exact) * tol::kFloatUlp));
    }
  }
  std::printf("  normalization, largest relative error per component: %.3g ulp (allowances: stated %.0f, wide %.0f)\n",
              worst, tol::kStatedSamplingAllowances.normalize_ulps, tol::kWideSamplingAllowances.normalize_ulps);
  EXPECT_LE(worst, tol::kStatedSamplingAllowances.normalize_ulps);
}

// The rotation matrix of a float quaternion (x y z w) by the three usual forms, in float: 1 - 2 (y^2 + z^2)
// (glm, Eigen, three.js), the homogeneous w^2 + x^2 - y^2 - z^2, and Godot's with s = 2 / |q|^2.
struct RotationForms {
  float m[3][3][3];
};
RotationForms rotation_forms(const float f[4]) {
  const float x = f[0], y = f[1], z = f[2], w = f[3];
  const float s = 2.0f / (x * x + y * y + z * z + w * w);
  return {{{{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}},
           {{w * w + x * x - y * y - z * z, 2 * (x * y - z * w), 2 * (x * z + y * w)},
            {2 * (x * y + z * w), w * w - x * x + y * y - z * z, 2 * (y * z - x * w)},
            {2 * (x * z - y * w), 2 * (y * z + x * w), w * w - x * x - y * y + z * z}},
           {{1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)},
            {s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)},
            {s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)}}}};
}

Eigen::Vector4d random_unit_quaternion(std::mt19937& random) {
  std::normal_distribution<double> normal;
  return Eigen::Vector4d(normal(random), normal(random), normal(random), normal(random)).normalized();
}

TEST(AnyOrderArithmetic, QuaternionMatrixFormsAreWithinTheirBound) {
  std::mt19937 random(9);
  std::uniform_real_distribution<double> log_error(-7.0, -4.0), unit(-1.0, 1.0);
  double worst = 0.0;
  for (int sample = 0; sample < kSamples; ++sample) {
    const Eigen::Vector4d q = random_unit_quaternion(random);
    // A float quaternion within relative errors e_i of q's components (e.g. a slerp's result).
    const double relative = std::pow(10.0, log_error(random));
    std::array<Gauged, 4> bounded;
    float f[4];
    for (int i = 0; i < 4; ++i) {
      f[i] = float(q[i] * (1.0 + relative * unit(random)));
      bounded[size_t(i)] = any_order::known(q[i], std::abs(double(f[i]) - q[i]) + tol::kFloatUlp * std::abs(q[i]));
    }
    const auto bound = any_order_rotation_matrix_bounds(bounded);
    const Mat3 exact = rotation_matrix(quat_from_xyzw(q[0], q[1], q[2], q[3]));
    const RotationForms forms = rotation_forms(f);
    for (const auto& form : forms.m)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
          const Gauged& b = bound[size_t(r)][size_t(c)];
          EXPECT_TRUE(within(double(form[r][c]), exact(r, c), b)) << r << "," << c;
          worst = std::max(worst, std::abs(double(form[r][c]) - exact(r, c)) / b.error);
        }
  }
  std::printf("  rotation matrices by three forms: largest error / bound %.3g\n", worst);
}

// The same three forms against any_order_rotation_matrix_split_errors(): a float quaternion turned away from q
// and scaled, described by its actual direction and length (RotationSplit), the rounding of its components
// included.
TEST(AnyOrderArithmetic, QuaternionMatrixFormsAreWithinTheirSplitBound) {
  std::mt19937 random(10);
  std::uniform_real_distribution<double> log_error(-7.0, -4.0), unit(-1.0, 1.0);
  double worst = 0.0;
  for (int sample = 0; sample < kSamples; ++sample) {
    const Eigen::Vector4d q = random_unit_quaternion(random);
    Eigen::Vector4d away = random_unit_quaternion(random);
    away -= away.dot(q) * q;
    away.normalize();
    const double angle = std::pow(10.0, log_error(random)), scale = 1.0 + std::pow(10.0, log_error(random)) * unit(random);
    const Eigen::Vector4d turned = scale * (std::cos(angle) * q + std::sin(angle) * away);
    float f[4];
    Eigen::Vector4d as_float;
    for (int i = 0; i < 4; ++i) {
      f[i] = float(turned[i]);
      as_float[i] = double(f[i]);
    }
    const RotationSplit split{std::acos(std::min(1.0, as_float.dot(q) / as_float.norm())), std::abs(as_float.norm() - 1.0)};
    std::array<Gauged, 4> bounded;
    for (int i = 0; i < 4; ++i) bounded[size_t(i)] = any_order::known(q[i], std::abs(as_float[i] - q[i]));
    const auto bound = any_order_rotation_matrix_split_errors(bounded, split);
    const Mat3 exact = rotation_matrix(quat_from_xyzw(q[0], q[1], q[2], q[3]));
    const RotationForms forms = rotation_forms(f);
    for (const auto& form : forms.m)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
          const double b = bound[size_t(r)][size_t(c)] + tol::kReferenceRelative;
          const double error = std::abs(double(form[r][c]) - exact(r, c));
          EXPECT_LE(error, b) << r << "," << c;
          worst = std::max(worst, error / b);
        }
  }
  std::printf("  rotation matrices by three forms, split bound: largest error / bound %.3g\n", worst);
  EXPECT_GT(worst, 0.1) << "the split bound should not be loose by more than ten";
}

// The normalization's turn (any_order_normalization_turn): each component of a unit quaternion moved by up to
// 4 ulp of its own magnitude, at the corners (+-4 ulp) and inside, on random quaternions, small joint rotations
// (near one axis) and the identity. The angle between the moved and the exact quaternion is within the bound.
TEST(AnyOrderArithmetic, NormalizationTurnsAQuaternionNearOneAxisLittle) {
  constexpr double kNormalizeUlps = 4.0;
  // The measured angle's own rounding: `across` is the difference of unit-sized terms, 1e-16 of them, where the
  // angle of a small rotation's turn is 1e-12.
  constexpr double kAngleRounding = 1e-3;
  const double n_u = kNormalizeUlps * tol::kFloatUlp;
  std::mt19937 random(11);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), log_angle(-6.0, 0.0);
  std::bernoulli_distribution corner(0.5);
  double worst = 0.0;
  for (int sample = 0; sample < kSamples; ++sample) {
    Eigen::Vector4d q = random_unit_quaternion(random);
    if (sample % 3 == 1) {  // a small rotation: w near 1
      const double angle = std::pow(10.0, log_angle(random));
      const Eigen::Vector3d axis = Eigen::Vector3d(unit(random), unit(random), unit(random)).normalized();
      q << std::sin(angle / 2) * axis, std::cos(angle / 2);
    } else if (sample % 3 == 2 && sample < 30) {
      q = Eigen::Vector4d(0.0, 0.0, 0.0, 1.0);
    }
    Eigen::Vector4d moved;
    for (int i = 0; i < 4; ++i) moved[i] = q[i] * (1.0 + n_u * (sample % 2 == 0 ? (corner(random) ? 1.0 : -1.0) : unit(random)));
    const double along = moved.dot(q), across = (moved - along * q).norm();
    const double angle = std::atan2(across, along);
    int axis = 0;
    q.cwiseAbs().maxCoeff(&axis);
    Eigen::Vector4d off_axis = q;
    off_axis[axis] = 0.0;
    const double bound = any_order_normalization_turn(off_axis.norm(), kNormalizeUlps);
    EXPECT_LE(angle, bound * (1.0 + kAngleRounding) + 1e-18) << q.transpose();
    if (bound > 0.0) worst = std::max(worst, angle / bound);
  }
  EXPECT_EQ(any_order_normalization_turn(0.0, kNormalizeUlps), 0.0) << "the identity does not turn";
  EXPECT_DOUBLE_EQ(any_order_normalization_turn(std::sqrt(0.75), kNormalizeUlps), std::asin(n_u))
      << "four equal components";
  std::printf("  normalization's turn within 4 ulp per component: largest angle / bound %.3g\n", worst);
  EXPECT_GT(worst, 0.4) << "the turn's bound should not be loose by more than 2.5";
}

// The lever arm (vertex_bounds_walk.h): known only where the palette entry is G * IBM, and the global's error
// reaching a vertex through its position in the joint's frame, against the closed form.
TEST(AnyOrderVertexBounds, LeverArmWhereThePaletteIsTheGlobalTimesTheInverseBind) {
  Mat4 global = Mat4::Identity(), inverse_bind = Mat4::Identity(), above = Mat4::Identity();
  global.topLeftCorner<3, 3>() = rotation_matrix(quat_from_xyzw(0.0, 0.6, 0.0, 0.8));
  global.block<3, 1>(0, 3) = Vec3(1.0, 2.0, 3.0);
  inverse_bind.block<3, 1>(0, 3) = Vec3(-0.5, -1.0, 0.25);  // the joint at (0.5, 1, -0.25) in bind pose
  above.block<3, 1>(0, 3) = Vec3(0.0, 4.0, 0.0);
  std::array<double, 16> global_error;
  global_error.fill(1e-6);
  const detail::PaletteEntrySource source{&global, &global_error, &inverse_bind};
  EXPECT_TRUE(detail::joint_lever_arm(source, global * inverse_bind).known);
  EXPECT_FALSE(detail::joint_lever_arm(source, above.inverse() * global * inverse_bind).known)  // ancestors dropped
      << "a palette formed otherwise keeps its own bound";
  EXPECT_FALSE(detail::joint_lever_arm(source, Mat4::Identity()).known);  // joint-cap: the identity uploaded
  const detail::JointLeverArm arm = detail::joint_lever_arm(source, global * inverse_bind);
  // A bind vertex at (0.75, 1.5, 0.25) is (0.25, 0.5, 0.5) from the joint: each row's error is 1e-6 times
  // (|0.25| + |0.5| + |0.5| + 1), the translation column's included.
  const double p[3] = {0.75, 1.5, 0.25}, exact_p[3] = {0.0, 0.0, 0.0}, p_float[3] = {0.75, 1.5, 0.25};
  double at_vertex[3], magnitude[3];
  detail::lever_at_vertex(arm, p, exact_p, p_float, at_vertex, magnitude);
  for (int j = 0; j < 3; ++j) {
    EXPECT_DOUBLE_EQ(at_vertex[j], 1e-6 * 2.25) << j;
    EXPECT_DOUBLE_EQ(magnitude[j], 1e-6 * (0.75 + 1.5 + 0.25 + 0.5 + 1.0 + 0.25 + 1.0)) << j;
  }
}

}  // namespace
}  // namespace skinref
