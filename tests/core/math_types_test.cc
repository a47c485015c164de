// Tests of the shared math helpers (math_types.h): TRS composition against hand-written matrices, TRS
// decomposition (round trip, mirrored matrices, refusal of shear and of non-affine or singular input), and
// the normal matrix under non-uniform scale and mirroring; and that compose_trs, rotation_matrix and
// multiply_affine follow their stated expansions and summation orders bit for bit.
#include "core/math_types.h"
#include "io/gltf_load.h"
#include "support/math_expect.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <random>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_matrix_near;
using test::expect_vec3_near;

Quat axis_angle(double radians, const Vec3& axis) { return Quat(Eigen::AngleAxisd(radians, axis.normalized())); }

TEST(ComposeTrs, QuarterTurnAboutZWithScaleAndTranslation) {
  const double half_sqrt2 = std::sqrt(0.5);
  Transform trs;
  trs.translation = Vec3(1.0, 2.0, 3.0);
  trs.rotation = quat_from_xyzw(0.0, 0.0, half_sqrt2, half_sqrt2);  // 90 degrees about +Z: x -> y, y -> -x
  trs.scale = Vec3(2.0, 3.0, 4.0);

  // Columns of R * S: R(2,0,0) = (0,2,0), R(0,3,0) = (-3,0,0), R(0,0,4) = (0,0,4); last column T.
  Mat4 expected;
  expected << 0.0, -3.0, 0.0, 1.0,
              2.0, 0.0, 0.0, 2.0,
              0.0, 0.0, 4.0, 3.0,
              0.0, 0.0, 0.0, 1.0;
  expect_matrix_near(compose_trs(trs), expected, tol::kClosedForm);
}

TEST(ComposeTrs, AxisPermutationIsExact) {
  // 120 degrees about (1,1,1)/sqrt(3) is the quaternion (0.5, 0.5, 0.5, 0.5): it maps x -> y -> z -> x. Every
  // product in the expansion is a dyadic rational, so the composed matrix is exact.
  Transform trs;
  trs.translation = Vec3(-1.0, 0.5, 7.0);
  trs.rotation = quat_from_xyzw(0.5, 0.5, 0.5, 0.5);
  trs.scale = Vec3(2.0, 3.0, 4.0);

  // Columns: R(2,0,0) = (0,2,0), R(0,3,0) = (0,0,3), R(0,0,4) = (4,0,0).
  Mat4 expected;
  expected << 0.0, 0.0, 4.0, -1.0,
              2.0, 0.0, 0.0, 0.5,
              0.0, 3.0, 0.0, 7.0,
              0.0, 0.0, 0.0, 1.0;
  const Mat4 actual = compose_trs(trs);
  for (int row = 0; row < 4; ++row) {
    for (int col = 0; col < 4; ++col) EXPECT_EQ(actual(row, col), expected(row, col)) << row << ", " << col;
  }
}

TEST(ComposeTrs, AppliesScaleThenRotationThenTranslation) {
  Transform trs;
  trs.translation = Vec3(10.0, 0.0, 0.0);
  trs.rotation = axis_angle(std::numbers::pi / 2.0, Vec3::UnitZ());
  trs.scale = Vec3(3.0, 1.0, 1.0);
  // (1,0,0) scaled to (3,0,0), rotated to (0,3,0), translated to (10,3,0).
  const Vec4 moved = compose_trs(trs) * Vec4(1.0, 0.0, 0.0, 1.0);
  expect_vec3_near(moved.head<3>(), Vec3(10.0, 3.0, 0.0), tol::kClosedForm);
  EXPECT_EQ(moved.w(), 1.0);
}

TEST(DecomposeTrs, RoundTripOfGeneralTrs) {
  Transform original;
  original.translation = Vec3(-1.5, 2.0, 0.25);
  original.rotation = axis_angle(0.7, Vec3(1.0, 2.0, 3.0));
  original.scale = Vec3(0.5, 2.0, 3.0);
  const Mat4 matrix = compose_trs(original);

  Transform decomposed;
  ASSERT_TRUE(decompose_trs(matrix, &decomposed, tol::kMatrixShear));
  expect_vec3_near(decomposed.translation, original.translation, tol::kClosedForm);
  expect_vec3_near(decomposed.scale, original.scale, tol::kClosedForm);
  // q and -q are the same rotation: compare up to sign.
  const double dot = decomposed.rotation.coeffs().dot(original.rotation.coeffs());
  EXPECT_NEAR(std::abs(dot), 1.0, tol::kClosedForm);
  EXPECT_NEAR(decomposed.rotation.norm(), 1.0, tol::kClosedForm);
  expect_matrix_near(compose_trs(decomposed), matrix, tol::kClosedForm);
}

TEST(DecomposeTrs, MirroredMatrixCarriesNegativeXScale) {
  // Linear part Rz(30 deg) * diag(2, -3, 4): determinant -24 < 0.
  Mat4 matrix = Mat4::Identity();
  const Mat3 rotation = Eigen::AngleAxisd(std::numbers::pi / 6.0, Vec3::UnitZ()).toRotationMatrix();
  matrix.topLeftCorner<3, 3>() = rotation * Vec3(2.0, -3.0, 4.0).asDiagonal();
  matrix.block<3, 1>(0, 3) = Vec3(4.0, -5.0, 6.0);
  const Mat3 linear = matrix.topLeftCorner<3, 3>();
  ASSERT_LT(linear.determinant(), 0.0);

  Transform decomposed;
  ASSERT_TRUE(decompose_trs(matrix, &decomposed, tol::kMatrixShear));
  // Column lengths are 2, 3, 4; the mirror moves onto x.
  expect_vec3_near(decomposed.scale, Vec3(-2.0, 3.0, 4.0), tol::kClosedForm);
  expect_vec3_near(decomposed.translation, Vec3(4.0, -5.0, 6.0), tol::kClosedForm);
  EXPECT_NEAR(decomposed.rotation.norm(), 1.0, tol::kClosedForm);
  expect_matrix_near(compose_trs(decomposed), matrix, tol::kClosedForm);
}

TEST(DecomposeTrs, ShearIsRefused) {
  Mat4 sheared = Mat4::Identity();
  sheared(0, 1) = 0.5;  // x += 0.5 y: no rotation times axis scale reproduces it
  Transform decomposed;
  EXPECT_FALSE(decompose_trs(sheared, &decomposed, tol::kMatrixShear));
}

TEST(DecomposeTrs, NonAffineAndSingularAreRefused) {
  Transform decomposed;
  Mat4 projective = Mat4::Identity();
  projective(3, 2) = 1.0;
  EXPECT_FALSE(decompose_trs(projective, &decomposed, tol::kMatrixShear));

  Mat4 singular = Mat4::Identity();
  singular(2, 2) = 0.0;
  EXPECT_FALSE(decompose_trs(singular, &decomposed, tol::kMatrixShear));
}

TEST(NormalMatrix, NonUniformScaleTiltsNormalAnalytically) {
  // The plane x + y = 0 has normal (1,1,0)/sqrt(2) and in-plane direction (1,-1,0). Under diag(2,1,1) the
  // in-plane direction becomes (2,-1,0); the normal perpendicular to it (and to z) is (1,2,0)/sqrt(5).
  const Mat3 scale = Vec3(2.0, 1.0, 1.0).asDiagonal();
  const Vec3 normal = Vec3(1.0, 1.0, 0.0).normalized();
  const Vec3 transformed = (normal_matrix(scale) * normal).normalized();
  expect_vec3_near(transformed, Vec3(1.0, 2.0, 0.0) / std::sqrt(5.0), tol::kClosedForm);
  // The naive transform (the matrix itself) would give (2,1,0)/sqrt(5), which is not perpendicular.
  EXPECT_NEAR(transformed.dot(scale * Vec3(1.0, -1.0, 0.0)), 0.0, tol::kClosedForm);
}

TEST(NormalMatrix, UniformScaleAndRotationKeepDirection) {
  const Mat3 rotation = Eigen::AngleAxisd(0.9, Vec3(0.0, 1.0, 1.0).normalized()).toRotationMatrix();
  const Mat3 linear = 3.0 * rotation;
  const Vec3 normal = Vec3(0.3, -0.4, 0.5).normalized();
  expect_vec3_near((normal_matrix(linear) * normal).normalized(), rotation * normal, tol::kClosedForm);
}

TEST(NormalMatrix, MirrorKeepsNormalOutward) {
  // The face x = +1 of the unit cube has outward normal +x; mirrored by diag(-1,1,1) it becomes the face
  // x = -1, whose outward normal is -x.
  const Mat3 mirror = Vec3(-1.0, 1.0, 1.0).asDiagonal();
  expect_vec3_near((normal_matrix(mirror) * Vec3::UnitX()).normalized(), -Vec3::UnitX(), tol::kClosedForm);

  // General mirrored transform: the outward offset p + e*n maps to M p + e*M n, so the transformed normal
  // must have a positive dot product with M n, and stay perpendicular to the transformed surface directions.
  const Mat3 rotation = Eigen::AngleAxisd(0.6, Vec3(1.0, -2.0, 0.5).normalized()).toRotationMatrix();
  const Mat3 linear = rotation * Vec3(-2.0, 1.0, 0.5).asDiagonal();
  ASSERT_LT(linear.determinant(), 0.0);
  const Vec3 normal = Vec3(0.2, 0.9, -0.4).normalized();
  const Vec3 tangent_a = normal.unitOrthogonal();
  const Vec3 tangent_b = normal.cross(tangent_a);
  const Vec3 transformed = (normal_matrix(linear) * normal).normalized();
  EXPECT_GT(transformed.dot(linear * normal), 0.0);
  EXPECT_NEAR(transformed.dot(linear * tangent_a), 0.0, tol::kClosedForm);
  EXPECT_NEAR(transformed.dot(linear * tangent_b), 0.0, tol::kClosedForm);
}

// The stated formulas, written out in scalar code: R(r, c) from the quaternion as rotation_matrix's header
// gives it, compose_trs's elements R(r, c) * scale[c], and multiply_affine's ((a(r,0) b(0,c) + a(r,1) b(1,c))
// + a(r,2) b(2,c)) [+ a(r,3)], with the last row exactly (0, 0, 0, 1). Every result must have their bits.
TEST(AffineHelpers, FollowTheirStatedExpansionsBitForBit) {
  std::mt19937 random(5150);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  auto same_bits = [](const double* a, const double* b, size_t count) {
    return std::memcmp(a, b, count * sizeof(double)) == 0;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    SCOPED_TRACE(trial);
    Transform trs;
    trs.rotation = Quat(unit(random), unit(random), unit(random), unit(random));  // not always unit
    if (trial % 2 == 0) trs.rotation.normalize();
    trs.scale = Vec3(3.0 * unit(random), unit(random), 0.01 * unit(random));
    trs.translation = Vec3(1e4 * unit(random), unit(random), 1e-4 * unit(random));
    const double x = trs.rotation.x(), y = trs.rotation.y(), z = trs.rotation.z(), w = trs.rotation.w();
    Mat3 rotation;
    rotation << 1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w),
                2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w),
                2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y);
    EXPECT_TRUE(same_bits(rotation_matrix(trs.rotation).data(), rotation.data(), 9));
    Mat4 composed = Mat4::Zero();
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) composed(r, c) = rotation(r, c) * trs.scale[c];
      composed(r, 3) = trs.translation[r];
    }
    composed(3, 3) = 1.0;
    EXPECT_TRUE(same_bits(compose_trs(trs).data(), composed.data(), 16)) << compose_trs(trs) << "\n" << composed;

    Mat4 a = Mat4::Zero();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) a(r, c) = (c == 3 ? 100.0 : 2.0) * unit(random);
    a(3, 3) = 1.0;
    Mat4 product;
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 3; ++r) {
        product(r, c) = (a(r, 0) * composed(0, c) + a(r, 1) * composed(1, c)) + a(r, 2) * composed(2, c);
        if (c == 3) product(r, c) = product(r, c) + a(r, 3);
      }
      product(3, c) = c == 3 ? 1.0 : 0.0;
    }
    EXPECT_TRUE(same_bits(multiply_affine(a, composed).data(), product.data(), 16))
        << multiply_affine(a, composed) << "\n" << product;
  }
}

}  // namespace
}  // namespace skinref
