// Test utility: GoogleTest expectations on Eigen vectors and matrices, and the small matrix and rotation
// builders the stage tests share (in the spirit of ozz-animation's gtest_math_helper.h). Every comparison is
// element by element with EXPECT_NEAR, so a failure names the element and prints both values in full.
#pragma once

#include "core/math_types.h"

#include <gtest/gtest.h>

namespace skinref::test {

namespace detail {

template <typename Matrix>
void expect_elements_near(const Matrix& actual, const Matrix& expected, double tolerance) {
  for (int row = 0; row < expected.rows(); ++row) {
    for (int col = 0; col < expected.cols(); ++col) {
      EXPECT_NEAR(actual(row, col), expected(row, col), tolerance) << "element (" << row << ", " << col << ")\n"
                                                                    << "actual:\n" << actual << "\nexpected:\n"
                                                                    << expected;
    }
  }
}

}  // namespace detail

inline void expect_matrix_near(const Mat4& actual, const Mat4& expected, double tolerance) {
  detail::expect_elements_near(actual, expected, tolerance);
}

inline void expect_matrix3_near(const Mat3& actual, const Mat3& expected, double tolerance) {
  detail::expect_elements_near(actual, expected, tolerance);
}

inline void expect_vec3_near(const Vec3& actual, const Vec3& expected, double tolerance) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance) << "component " << i << ": actual " << actual.transpose()
                                                   << ", expected " << expected.transpose();
  }
}

// The affine matrix with linear part `linear` and translation `translation`.
inline Mat4 affine(const Mat3& linear, const Vec3& translation) {
  Mat4 m = Mat4::Identity();
  m.topLeftCorner<3, 3>() = linear;
  m.block<3, 1>(0, 3) = translation;
  return m;
}

// The rotation by `radians` about `axis` (normalized here), as a matrix.
inline Mat3 rotation(double radians, const Vec3& axis) {
  return Eigen::AngleAxisd(radians, axis.normalized()).toRotationMatrix();
}

// The rotation by `radians` about +Z, as a quaternion.
inline Quat z_rotation(double radians) { return Quat(Eigen::AngleAxisd(radians, Vec3::UnitZ())); }

}  // namespace skinref::test
