#include "core/math_types.h"

#include <cmath>

namespace skinref {

Mat3 rotation_matrix(const Quat& q) {
  double columns[3][3];
  affine_detail::rotation_columns(q, columns);
  Mat3 r;
  for (int c = 0; c < 3; ++c)
    for (int row = 0; row < 3; ++row) r(row, c) = columns[c][row];
  return r;
}

Mat4 multiply_affine(const Mat4& a, const Mat4& b) {
  // b's last row is (0, 0, 0, 1) by contract, so it is not read.
  double columns[4][3];
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) columns[c][r] = b(r, c);
  Mat4 m;
  affine_detail::affine_times_columns(a.data(), columns, m.data());
  return m;
}

Mat4 compose_trs(const Transform& trs) {
  double columns[4][3];
  affine_detail::trs_columns(trs, columns);
  Mat4 m;
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 3; ++r) m(r, c) = columns[c][r];
    m(3, c) = c == 3 ? 1.0 : 0.0;
  }
  return m;
}

bool decompose_trs(const Mat4& matrix, Transform* trs, double tolerance) {
  if (!matrix.allFinite()) return false;
  if (matrix(3, 0) != 0.0 || matrix(3, 1) != 0.0 || matrix(3, 2) != 0.0 || matrix(3, 3) != 1.0) return false;
  const Mat3 linear = matrix.topLeftCorner<3, 3>();
  const double det = linear.determinant();
  if (det == 0.0) return false;
  Vec3 scale(linear.col(0).norm(), linear.col(1).norm(), linear.col(2).norm());
  if (scale.minCoeff() == 0.0) return false;
  if (det < 0.0) scale.x() = -scale.x();
  Mat3 rot;
  for (int c = 0; c < 3; ++c) rot.col(c) = linear.col(c) / scale[c];
  // Shear shows up as a rotation part that is not orthonormal.
  if ((rot.transpose() * rot - Mat3::Identity()).cwiseAbs().maxCoeff() > tolerance) return false;
  trs->translation = matrix.block<3, 1>(0, 3);
  trs->rotation = Quat(rot).normalized();
  trs->scale = scale;
  return true;
}

Mat3 normal_matrix(const Mat3& a) {
  // Cofactor matrix = det * inverse transpose. Dividing by |det| instead of det would also be correct;
  // multiplying by sign(det) keeps it finite for tiny determinants and points mirrored normals outwards.
  Mat3 cof;
  cof(0, 0) = a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1);
  cof(0, 1) = a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2);
  cof(0, 2) = a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0);
  cof(1, 0) = a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2);
  cof(1, 1) = a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0);
  cof(1, 2) = a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1);
  cof(2, 0) = a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1);
  cof(2, 1) = a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2);
  cof(2, 2) = a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
  const double det = a(0, 0) * cof(0, 0) + a(0, 1) * cof(0, 1) + a(0, 2) * cof(0, 2);
  return det < 0.0 ? Mat3(-cof) : cof;
}

}  // namespace skinref
