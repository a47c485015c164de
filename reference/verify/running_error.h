// Running error analysis (Wilkinson; Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
// section 3.3): a value computed in double alongside a bound on how far a float32 evaluation of the same
// expression, in the same order of operations, can be from it. The bounds of pose_error_bounds.h (and the
// per-vertex bounds built on them) are computed with it; docs/error_bounds.md derives the rules.
//
// Contract:
// - Bounded{value, error}: |float32 result - value| <= error, where `value` is the exact result of the
//   operations on exact inputs, approximated by double arithmetic (whose own error, relative 2^-53 per
//   operation, is accounted for once at the comparison: tol::kReferenceRelative).
// - input(x): x rounded to float32 on the host (round to nearest): error 0 when x is a float already;
//   input(Bounded) rounds a value that already carries an error (half an ulp of its largest magnitude).
// - Operations propagate the operands' errors exactly to first and second order (no linearisation), then
//   add the operation's own rounding relative to the largest magnitude the float result can have, with the
//   float model of verify/float_model.h (add / subtract / multiply 1 ulp, divide 2.5 ulp, sqrt 4.5 ulp).
// - A division whose divisor's error reaches its magnitude, or anything computed from an infinite error,
//   has an infinite error: no bound, rather than a wrong one.
#pragma once

#include "verify/float_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace skinref {

struct Bounded {
  double value = 0.0;
  double error = 0.0;
};

namespace running_error {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The rounding of one operation whose exact result is at most `magnitude` in absolute value.
inline double rounding(double magnitude, double ulps) { return ulps * tol::kFloatUlp * magnitude; }

}  // namespace running_error

inline Bounded exact(double x) { return {x, 0.0}; }

inline Bounded input(double x) {
  const double rounded = double(static_cast<float>(x));
  return {x, rounded == x ? 0.0 : std::abs(rounded - x)};
}

// A value the host knows only within a.error of the exact one (computed in double from inputs that carry an
// error), rounded to float32 (round to nearest): plus half an ulp of the largest magnitude it can have.
inline Bounded input(Bounded a) {
  return {a.value, a.error + running_error::rounding(std::abs(a.value) + a.error, tol::kFloatInputUlps)};
}

inline Bounded operator+(Bounded a, Bounded b) {
  const double value = a.value + b.value;
  const double propagated = a.error + b.error;
  return {value, propagated + running_error::rounding(std::abs(value) + propagated, tol::kFloatAddMulUlps)};
}

inline Bounded operator-(Bounded a) { return {-a.value, a.error}; }

inline Bounded operator-(Bounded a, Bounded b) { return a + (-b); }

inline Bounded operator*(Bounded a, Bounded b) {
  const double value = a.value * b.value;
  const double propagated = std::abs(a.value) * b.error + std::abs(b.value) * a.error + a.error * b.error;
  return {value, propagated + running_error::rounding(std::abs(value) + propagated, tol::kFloatAddMulUlps)};
}

inline Bounded operator/(Bounded a, Bounded b) {
  const double value = a.value / b.value;
  const double divisor_low = std::abs(b.value) - b.error;
  if (!(divisor_low > 0.0)) return {value, running_error::kInfinity};
  // |fa/fb - a/b| = |fa b - a fb| / |fb b| <= (|b| ea + |a| eb) / (|b| (|b| - eb)).
  const double propagated = (a.error + std::abs(value) * b.error) / divisor_low;
  return {value, propagated + running_error::rounding(std::abs(value) + propagated, tol::kFloatDivideUlps)};
}

inline Bounded sqrt(Bounded a) {
  const double value = std::sqrt(std::max(a.value, 0.0));
  // |sqrt(x) - sqrt(y)| <= sqrt(|x - y|) always, and <= |x - y| / sqrt(y) for y > 0.
  double propagated = std::sqrt(a.error);
  if (value > 0.0) propagated = std::min(propagated, a.error / value);
  return {value, propagated + running_error::rounding(value + propagated, tol::kFloatSqrtUlps)};
}

// An error added to a value computed by an approximation (a truncated series).
inline Bounded with_truncation(Bounded a, double truncation) { return {a.value, a.error + truncation}; }

// The largest magnitude the float result can have.
inline double magnitude(Bounded a) { return std::abs(a.value) + a.error; }

}  // namespace skinref
