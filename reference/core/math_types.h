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

}  // namespace skinref
