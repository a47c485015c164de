// A-priori error bounds that hold for every order of evaluation (Higham, "Accuracy and Stability of
// Numerical Algorithms", 2nd ed., sections 3.1 to 3.5): the arithmetic of the any-order bounds
// (any_order_pose_bounds.h, any_order_vertex_bounds.h; derived in docs/error_bounds.md, "Any order").
//
// Contract:
// - Gauged{value, error, gauge}: `value` is the exact result on exact inputs (approximated in double, whose
//   own error is charged once at the comparison: tol::kReferenceRelative); |float - value| <= error for every
//   float32 evaluation the bound covers; |value| <= gauge, where the gauge is the same expression with every
//   term and factor replaced by its absolute value (Higham's |x|^T |y|), so that a sum's partial sums and a
//   matrix chain's partial products, in any order or association, are at most the gauge.
// - MonomialSum: a polynomial given as its expanded monomials (each a product of Gauged factors, with a
//   sign). An engine may evaluate it in any arrangement that multiplies out to the same monomials: any order
//   of the additions, any association of the products, factored or expanded (a + t (b - a) and (1 - t) a +
//   t b alike), fused multiply-adds or not. On the path from a monomial to the result there are then at most
//   (factors - 1) multiplications and (monomials - 1) additions, each a relative error of at most u (u = 2^-23,
//   verify/float_model.h), so the float result is within gamma_K * sum over monomials of prod (g_f + e_f) of
//   the exact polynomial of the float inputs (g_f >= |f| the factor's gauge), K = (factors - 1) + (monomials - 1), gamma_K = K u / (1 - K u)
//   (Higham, lemma 3.1); and that is within sum over monomials of (prod (|f| + e_f) - prod |f|) of the exact
//   polynomial of the exact inputs. Exact zeros add nothing and are not counted; a factor that is an exact
//   power of two (1, 2, 0.5, ...) multiplies exactly and is not counted (no overflow, no denormals).
// - unit_vector_difference(): the distance between the float normalization of a vector known within its
//   error and the exact unit vector, by any normalization formula accurate to tol::kAnyOrderNormalizeUlps.
#pragma once

#include "verify/float_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>

namespace skinref {

struct Gauged {
  double value = 0.0;
  double error = 0.0;
  double gauge = 0.0;
};

namespace any_order {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
inline constexpr double kUnit = tol::kFloatAddMulUlps * tol::kFloatUlp;

// gamma_K = K u / (1 - K u): the relative error of K successive roundings of relative error at most u.
inline double gamma(int roundings) {
  const double ku = double(roundings) * kUnit;
  return ku < 1.0 ? ku / (1.0 - ku) : kInfinity;
}

inline Gauged exact(double x) { return {x, 0.0, std::abs(x)}; }

// x rounded to float32 on the host (round to nearest): 0 when x is a float already.
inline Gauged input(double x) {
  const double rounded = double(static_cast<float>(x));
  return {x, rounded == x ? 0.0 : std::abs(rounded - x), std::abs(x)};
}

// A value the host knows within `error` of the exact one, rounded to float32.
inline Gauged input(double x, double error) {
  return {x, error + tol::kFloatInputUlps * tol::kFloatUlp * (std::abs(x) + error), std::abs(x)};
}

// A value computed elsewhere within `error`: its gauge is its magnitude.
inline Gauged known(double x, double error) { return {x, error, std::abs(x)}; }

// x is exactly zero in the engine too (its gauge, which bounds the engine's value, is 0 as well).
inline bool is_exact_zero(const Gauged& x) { return x.value == 0.0 && x.error == 0.0 && x.gauge == 0.0; }

// Multiplication by x is exact: x = +-2^k known exactly (a factor whose gauge exceeds it, like an engine's
// interpolation factor near 1, may be another float).
inline bool is_exact_power_of_two(const Gauged& x) {
  if (x.error != 0.0 || x.value == 0.0 || x.gauge != std::abs(x.value)) return false;
  int exponent = 0;
  return std::abs(std::frexp(x.value, &exponent)) == 0.5;
}

class MonomialSum {
 public:
  void add(std::initializer_list<Gauged> factors, double sign = 1.0) {
    double value = sign, exact_magnitude = 1.0, float_magnitude = 1.0, gauge = 1.0;
    int multiplications = -1;
    for (const Gauged& f : factors) {
      if (is_exact_zero(f)) return;
      value *= f.value;
      exact_magnitude *= std::abs(f.value);
      float_magnitude *= f.gauge + f.error;
      gauge *= f.gauge;
      if (!is_exact_power_of_two(f)) ++multiplications;
    }
    value_ += value;
    gauge_ += gauge;
    // |prod f^ - prod f| <= prod (|f| + e) - prod |f|, with |f^| <= gauge + e bounding the float operands.
    double perturbed = 1.0;
    for (const Gauged& f : factors) perturbed *= std::abs(f.value) + f.error;
    propagated_ += perturbed - exact_magnitude;
    float_magnitude_ += float_magnitude;
    ++monomials_;
    max_multiplications_ = std::max(max_multiplications_, std::max(multiplications, 0));
  }

  Gauged result() const {
    if (monomials_ == 0) return exact(0.0);
    const int roundings = max_multiplications_ + monomials_ - 1;
    return {value_, propagated_ + gamma(roundings) * float_magnitude_, gauge_};
  }

 private:
  double value_ = 0.0, gauge_ = 0.0, propagated_ = 0.0, float_magnitude_ = 0.0;
  int monomials_ = 0;
  int max_multiplications_ = 0;
};

inline double euclidean_error(const Gauged* v, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += v[i].error * v[i].error;
  return std::sqrt(sum);
}

inline double euclidean_value(const Gauged* v, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += v[i].value * v[i].value;
  return std::sqrt(sum);
}

// |v^ / |v^| - v / |v|| <= 2 |v^ - v| / (|v^| + |v|) <= 2 E / (2 |v| - E) (the Dunkl-Williams inequality of
// inner product spaces), then the normalization's own rounding; capped at tol::kUnitVectorDifferenceCap, which
// any two unit vectors satisfy (and the bound where v is within its error of zero: no claim on the direction).
// A vector exactly zero with no error stays zero on both sides.
inline double unit_vector_difference(double length, double error) {
  if (length == 0.0 && error == 0.0) return 0.0;
  if (!(error < length)) return tol::kUnitVectorDifferenceCap;
  return std::min(2.0 * error / (2.0 * length - error) + tol::kAnyOrderNormalizeUlps * tol::kFloatUlp,
                  tol::kUnitVectorDifferenceCap);
}

// x < 0 decides the same way for every float within the error (an exact zero is not below zero).
inline bool sign_certain(const Gauged& x) { return x.value < 0.0 ? x.value + x.error < 0.0 : x.value - x.error >= 0.0; }

// The cofactor matrix of a 3x3 (a[row][column]), each entry a 2x2 determinant, and the determinant as the
// first row's expansion by its cofactors: the normal matrix's and the blended normal's computation.
inline void cofactors(const Gauged a[3][3], Gauged cof[3][3], Gauged& det) {
  auto minor = [&](int r0, int c0, int r1, int c1) {
    MonomialSum m;
    m.add({a[r0][c0], a[r1][c1]});
    m.add({a[r0][c1], a[r1][c0]}, -1.0);
    return m.result();
  };
  cof[0][0] = minor(1, 1, 2, 2);
  cof[0][1] = minor(1, 2, 2, 0);
  cof[0][2] = minor(1, 0, 2, 1);
  cof[1][0] = minor(0, 2, 2, 1);
  cof[1][1] = minor(0, 0, 2, 2);
  cof[1][2] = minor(0, 1, 2, 0);
  cof[2][0] = minor(0, 1, 1, 2);
  cof[2][1] = minor(0, 2, 1, 0);
  cof[2][2] = minor(0, 0, 1, 1);
  MonomialSum d;
  for (int k = 0; k < 3; ++k) d.add({a[0][k], cof[0][k]});
  det = d.result();
}

}  // namespace any_order
}  // namespace skinref
