// Basic double-precision math types shared by every stage of the reference.
//
// Contract:
// - Column vectors; matrices act on the left (p' = M * p); Eigen's default column-major storage.
// - Quaternions are Eigen::Quaterniond; glTF stores them as (x, y, z, w), Eigen's constructor takes
//   (w, x, y, z): use quat_from_xyzw / quat_to_xyzw at every boundary.
// - A Transform is glTF's TRS: M = T * R * S, applied to a point as scale, then rotate, then translate.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <array>

namespace skinref {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Quat = Eigen::Quaterniond;
using Mat3 = Eigen::Matrix3d;
using Mat4 = Eigen::Matrix4d;

struct Transform {
  Vec3 translation = Vec3::Zero();
  Quat rotation = Quat::Identity();
  Vec3 scale = Vec3::Ones();
};

inline Quat quat_from_xyzw(double x, double y, double z, double w) { return Quat(w, x, y, z); }
inline std::array<double, 4> quat_to_xyzw(const Quat& q) { return {q.x(), q.y(), q.z(), q.w()}; }

// M = T * R * S, built element by element so that the result does not depend on Eigen's expression order.
Mat4 compose_trs(const Transform& trs);

// Decomposes an affine matrix without shear into TRS. A negative determinant is carried by a negative
// x scale. Returns false when the matrix is not affine, is singular, or has shear beyond `tolerance`
// (relative to the largest scale), i.e. when no TRS reproduces it.
bool decompose_trs(const Mat4& matrix, Transform* trs, double tolerance);

// The matrix that transforms normals for the linear part `linear`: the inverse transpose, scaled by
// |det| so that it stays finite; the caller normalizes. Sign-correct for mirrored transforms.
Mat3 normal_matrix(const Mat3& linear);

// a * b for affine matrices (last row (0, 0, 0, 1)), with an explicit summation order so that the bits do
// not depend on Eigen's kernels or on FMA availability. The result's last row is exactly (0, 0, 0, 1).
Mat4 multiply_affine(const Mat4& a, const Mat4& b);

// Quaternion rotation through the same expansion the skinning kernels use (no Eigen temporaries), so
// results do not depend on how Eigen evaluates an expression.
Mat3 rotation_matrix(const Quat& q);

// The pieces compose_trs and multiply_affine are made of, shared with local_to_model's fused pass (which
// writes G(parent) * compose_trs(local) without the intermediate matrix), so that all give the same bits.
namespace affine_detail {

// Four doubles, lowered to two SSE2 operations each where AVX is not enabled (x86-64's baseline). Products
// and sums lane by lane, never contracted (-ffp-contract=off): each lane rounds as the scalar expression does.
typedef double Lanes4 __attribute__((vector_size(32)));

// rotation_matrix's expansion by columns: columns[c][r] = R(r, c).
__attribute__((always_inline)) inline void rotation_columns(const Quat& q, double columns[3][3]) {
  const double x = q.x(), y = q.y(), z = q.z(), w = q.w();
  columns[0][0] = 1.0 - 2.0 * (y * y + z * z);
  columns[0][1] = 2.0 * (x * y + z * w);
  columns[0][2] = 2.0 * (x * z - y * w);
  columns[1][0] = 2.0 * (x * y - z * w);
  columns[1][1] = 1.0 - 2.0 * (x * x + z * z);
  columns[1][2] = 2.0 * (y * z + x * w);
  columns[2][0] = 2.0 * (x * z + y * w);
  columns[2][1] = 2.0 * (y * z - x * w);
  columns[2][2] = 1.0 - 2.0 * (x * x + y * y);
}

// The columns of T * R * S above its last row: columns[c][r] = R(r, c) * scale[c] for c < 3, the
// translation for c = 3.
__attribute__((always_inline)) inline void trs_columns(const Transform& trs, double columns[4][3]) {
  double rotation[3][3];
  rotation_columns(trs.rotation, rotation);
#pragma GCC unroll 3
  for (int c = 0; c < 3; ++c) {
    const double scale = trs.scale[c];
    columns[c][0] = rotation[c][0] * scale;
    columns[c][1] = rotation[c][1] * scale;
    columns[c][2] = rotation[c][2] * scale;
  }
  columns[3][0] = trs.translation[0];
  columns[3][1] = trs.translation[1];
  columns[3][2] = trs.translation[2];
}

// m = a * B for affine a (column-major, 16 doubles) and B given by its columns above its last row, which is
// (0, 0, 0, 1). Row r of column c is ((a(r,0) B(0,c) + a(r,1) B(1,c)) + a(r,2) B(2,c)) [+ a(r,3) for c = 3],
// one column per vector. a's last row is (0, 0, 0, 1), so that lane comes out as +-0 (+-0 + 1 = 1 in column
// 3); it is set to exactly (0, 0, 0, 1).
__attribute__((always_inline)) inline void affine_times_columns(const double* a, const double columns[4][3],
                                                                double* m) {
  Lanes4 a0, a1, a2, a3;
  __builtin_memcpy(&a0, a, sizeof a0);
  __builtin_memcpy(&a1, a + 4, sizeof a1);
  __builtin_memcpy(&a2, a + 8, sizeof a2);
  __builtin_memcpy(&a3, a + 12, sizeof a3);
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    Lanes4 column = (a0 * columns[c][0] + a1 * columns[c][1]) + a2 * columns[c][2];
    if (c == 3) {
      column = column + a3;
      column[3] = 1.0;
    } else {
      column[3] = 0.0;
    }
    __builtin_memcpy(m + c * 4, &column, sizeof column);
  }
}

}  // namespace affine_detail

}  // namespace skinref
