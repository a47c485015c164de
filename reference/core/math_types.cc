#include "core/math_types.h"

#include <cmath>

namespace skinref {

Mat3 rotation_matrix(const Quat& q) {
  const double x = q.x(), y = q.y(), z = q.z(), w = q.w();
  Mat3 r;
  r(0, 0) = 1.0 - 2.0 * (y * y + z * z);
  r(0, 1) = 2.0 * (x * y - z * w);
  r(0, 2) = 2.0 * (x * z + y * w);
  r(1, 0) = 2.0 * (x * y + z * w);
  r(1, 1) = 1.0 - 2.0 * (x * x + z * z);
  r(1, 2) = 2.0 * (y * z - x * w);
  r(2, 0) = 2.0 * (x * z - y * w);
  r(2, 1) = 2.0 * (y * z + x * w);
  r(2, 2) = 1.0 - 2.0 * (x * x + y * y);
  return r;
}

Mat4 multiply_affine(const Mat4& a, const Mat4& b) {
  // Column by column on the raw column-major storage: m(r, c) = ((a(r,0) b(0,c) + a(r,1) b(1,c)) +
  // a(r,2) b(2,c)) [+ a(r,3) for c = 3]. b's last row is (0, 0, 0, 1) by contract, so it is not read.
  Mat4 m;
  const double* A = a.data();
  const double* B = b.data();
  double* M = m.data();
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const double b0 = B[c * 4], b1 = B[c * 4 + 1], b2 = B[c * 4 + 2];
#pragma GCC unroll 3
    for (int r = 0; r < 3; ++r) M[c * 4 + r] = (A[r] * b0 + A[4 + r] * b1) + A[8 + r] * b2;
    M[c * 4 + 3] = 0.0;
  }
  for (int r = 0; r < 3; ++r) M[12 + r] = M[12 + r] + A[12 + r];
  M[15] = 1.0;
  return m;
}

Mat4 compose_trs(const Transform& trs) {
  const Mat3 r = rotation_matrix(trs.rotation);
  Mat4 m = Mat4::Zero();
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) m(row, col) = r(row, col) * trs.scale[col];
    m(row, 3) = trs.translation[row];
  }
  m(3, 3) = 1.0;
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
