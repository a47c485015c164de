// Euclidean distances and lengths of Vec3 / Vec4 by hand, over their raw components. For the loops of the tests
// that run over every vertex of the million-vertex scene: the test code is built without optimization in the
// sanitizer tree, where an Eigen norm of a difference is a score of calls (a fifth of some suites' time).
// The sum is taken in component order, which may differ from Eigen's in the last bit: these feed tallies and
// maxima held to bounds, never bit comparisons.
#pragma once

#include "core/math_types.h"

#include <cmath>

namespace skinref::test {

inline double distance(const Vec3& a, const Vec3& b) {
  const double* p = a.data();
  const double* q = b.data();
  const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

inline double distance(const Vec4& a, const Vec4& b) {
  const double* p = a.data();
  const double* q = b.data();
  const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2], dw = p[3] - q[3];
  return std::sqrt(dx * dx + dy * dy + dz * dz + dw * dw);
}

// Of the xyz parts only (a tangent without its handedness).
inline double distance_xyz(const Vec4& a, const Vec4& b) {
  const double* p = a.data();
  const double* q = b.data();
  const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

// The largest |component| (the infinity norm).
inline double max_abs(const Vec3& a) {
  const double* p = a.data();
  return std::fmax(std::fabs(p[0]), std::fmax(std::fabs(p[1]), std::fabs(p[2])));
}

inline double length(const Vec3& a) {
  const double* p = a.data();
  return std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
}

}  // namespace skinref::test
