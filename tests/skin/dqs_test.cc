// Tests of dual quaternion skinning (skin/dqs.h) against closed forms: the candy-wrapper case of
// builtin:twist (DQS keeps the radius where LBS collapses), single influences equal to JM p (rigid, uniform
// and non-uniform scale, mirrored), antipodality (a full-turn sweep that must cross the sign jump of any
// matrix-to-quaternion conversion, influence order, a zero-weight pivot decoy), the two-phase scale/shear
// blend, weight policies and zero weights, tangents, bit-identical threads, input errors, the
// evaluate_vertices dispatch on builtin:bend, and the SIMD kernel's bits against the scalar kernel's on
// randomized inputs (every special path) and on every builtin scene.
#include "anim/evaluate_pose.h"
#include "anim/palette.h"
#include "io/builtin_scenes.h"
#include "skin/dqs.h"
#include "skin/evaluate_vertices.h"
#include "skin/lbs.h"
#include "support/math_expect.h"
#include "support/skinning_fixtures.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::affine;
using test::dqs;
using test::expect_bit_identical;
using test::expect_vec3_near;
using test::expect_zero_weights_keep_bind_attributes;
using test::lbs;
using test::make_palette;
using test::make_varied_input;
using test::rotation;
using test::VariedInput;
using test::VertexData;

constexpr double kPi = std::numbers::pi;

double degrees(double d) { return d * kPi / 180.0; }

// Rotation `r` about the line through `centre`: T(centre) R T(-centre).
Mat4 about_centre(const Mat3& r, const Vec3& centre) { return affine(r, centre - r * centre); }

// One vertex with two influences.
VertexData two_influence_vertex(const Vec3& p, uint32_t j0, double w0, uint32_t j1, double w1) {
  VertexData data;
  data.positions = {p};
  data.influences_per_vertex = 2;
  data.joints = {j0, j1};
  data.weights = {w0, w1};
  return data;
}

// ---- builtin:twist, the candy wrapper ------------------------------------------------------------------

// Why DQS keeps the radius. A middle-ring vertex p = (L/2, y, z) has weights 0.5 / 0.5. Joint 0 is at rest:
// dq_0 = (1, 0). Joint 1 twists by theta about +X around c = (L/2, 0, 0); since c lies on the X axis, R_x fixes
// it: JM_1 = T(c) R T(-c) = [R | c - R c] = [R | 0], so dq_1 = (q_1, 0) with q_1 = (cos(theta/2), sin(theta/2) X).
// The blend's real part is 0.5 (1 + cos(theta/2), sin(theta/2) X) = cos(theta/4) (cos(theta/4), sin(theta/4) X)
// (half-angle identities), which normalizes to the rotation by theta/2 about X; the dual part stays 0. So
// p' = R_x(theta/2) p: the ring turns by half the twist and keeps x = L/2 and radius R. LBS averages the points
// instead, |q + R q| / 2 = R |cos(theta/2)| (builtin_scenes_test.cc): R cos(45 deg) at 90 degrees, 0 at 180.
// At exactly 180 degrees q_0 . q_1 = 0 up to rounding, so the ring turns by +90 or -90 degrees: either keeps R.
TEST(SkinDqs, TwistMiddleRingKeepsItsRadiusWhereLinearBlendCollapses) {
  const Scene scene = make_builtin_scene("twist");
  int node = -1;
  for (size_t n = 0; n < scene.nodes.size(); ++n)
    if (scene.nodes[n].skin >= 0) node = static_cast<int>(n);
  ASSERT_GE(node, 0);
  const Primitive& prim = scene.meshes[size_t(scene.nodes[size_t(node)].mesh)].primitives[0];

  SkinningOptions linear;
  linear.method = SkinningMethod::Lbs;
  SkinningOptions dual;
  dual.method = SkinningMethod::Dqs;
  for (double t : {0.5 * kTwistDuration, kTwistDuration}) {
    SCOPED_TRACE("t = " + std::to_string(t));
    const double theta = kPi * t / kTwistDuration;
    const EvaluatedPose pose = evaluate_pose(scene, 0, t);
    const std::vector<WorldPrimitive> lbs_world = evaluate_vertices(scene, pose, linear);
    const std::vector<WorldPrimitive> dqs_world = evaluate_vertices(scene, pose, dual);
    ASSERT_EQ(lbs_world.size(), 1u);
    ASSERT_EQ(dqs_world.size(), 1u);
    size_t checked = 0;
    for (size_t v = 0; v < prim.vertex_count(); ++v) {
      const Vec3& bind = prim.positions[v];
      if (bind.x() != kTwistLength / 2.0) continue;
      const Vec3& l = lbs_world[0].vertices.positions[v];
      const Vec3& d = dqs_world[0].vertices.positions[v];
      EXPECT_NEAR(std::hypot(l.y(), l.z()), kTwistRadius * std::cos(theta / 2.0), tol::kTwistRadius) << "LBS " << v;
      EXPECT_NEAR(std::hypot(d.y(), d.z()), kTwistRadius, tol::kTwistRadius) << "vertex " << v;
      EXPECT_NEAR(d.x(), kTwistLength / 2.0, tol::kTwistRadius) << "vertex " << v;
      if (t == kTwistDuration) {
        EXPECT_LT(std::hypot(l.y(), l.z()), tol::kTwistRadius) << "LBS collapses onto the axis, vertex " << v;
        // Turned by +-90 degrees: perpendicular to the bind radius.
        EXPECT_NEAR(d.y() * bind.y() + d.z() * bind.z(), 0.0, tol::kTwistRadius) << "vertex " << v;
      } else {
        // 90 degrees of twist: exactly R_x(45 deg) p.
        expect_vec3_near(d, rotation(theta / 2.0, Vec3::UnitX()) * bind, tol::kTwistRadius);
      }
      ++checked;
    }
    EXPECT_EQ(checked, 24u);
  }
}

// ---- single influences -----------------------------------------------------------------------------------

// With one influence the two phases compose back to the palette matrix: S = S_i, b = dq_i, and
// p' = Q_i (S_i p) + t_i = A_i p + t_i, for rigid, scaled, sheared and mirrored joints alike.
TEST(SkinDqs, SingleInfluenceEqualsPaletteTimesPositionForAnyLinearPart) {
  const std::vector<Mat4> matrices{
      affine(rotation(1.1, Vec3(1.0, -2.0, 0.5)), Vec3(0.3, -1.0, 2.0)),                          // rigid
      affine(2.0 * rotation(0.7, Vec3(0.0, 1.0, 1.0)), Vec3(1.0, 2.0, 3.0)),                      // uniform 2
      affine(rotation(0.4, Vec3(1.0, 1.0, 1.0)) * Vec3(2.0, 0.5, 1.5).asDiagonal() *             // non-uniform
                 rotation(-0.9, Vec3(1.0, 0.0, -1.0)),                                             // (and shear)
             Vec3(-1.0, 0.5, 0.0)),
      affine(rotation(2.5, Vec3(0.2, 1.0, -0.3)) * Vec3(-1.5, 1.0, 0.75).asDiagonal(),            // mirrored
             Vec3(0.0, 4.0, -2.0)),
  };
  const JointPalette palette = make_palette(matrices);
  VertexData data;
  data.influences_per_vertex = 3;
  for (uint32_t j = 0; j < matrices.size(); ++j) {
    for (int k = 0; k < 2; ++k) {
      const double s = 1.0 + j + 0.5 * k;
      data.positions.push_back(Vec3(0.3 * s, -0.2 * s + 1.0, 0.7 - 0.1 * s));
      data.normals.push_back(Vec3(0.5 - 0.1 * s, 1.0, 0.2 * s).normalized());
      data.tangents.push_back(Vec4(1.0, 0.1 * s, -0.3, k == 0 ? 1.0 : -1.0));
      // The one weight in slot 0 or slot 1; the others are zero-weight slots on other joints.
      const uint32_t other = (j + 1) % matrices.size();
      data.joints.insert(data.joints.end(), {k == 0 ? j : other, k == 0 ? other : j, other});
      data.weights.insert(data.weights.end(), {k == 0 ? 1.0 : 0.0, k == 0 ? 0.0 : 1.0, 0.0});
    }
  }
  const SkinnedVertices out = dqs(data, palette);
  const SkinnedVertices reference = lbs(data, palette);
  ASSERT_EQ(out.positions.size(), data.positions.size());
  for (size_t v = 0; v < data.positions.size(); ++v) {
    SCOPED_TRACE("vertex " + std::to_string(v));
    const Mat4& m = matrices[v / 2];
    const Mat3 a = m.topLeftCorner<3, 3>();
    expect_vec3_near(out.positions[v], a * data.positions[v] + m.block<3, 1>(0, 3), tol::kPolarDecomposition);
    // Normals by the inverse transpose (pointing outwards for the mirror: |det| A^-T n), tangents by A.
    const Vec3 normal = (std::abs(a.determinant()) * a.inverse().transpose() * data.normals[v]).normalized();
    expect_vec3_near(out.normals[v], normal, tol::kPolarDecomposition);
    expect_vec3_near(out.tangents[v].head<3>(), (a * data.tangents[v].head<3>()).normalized(),
                     tol::kPolarDecomposition);
    EXPECT_EQ(out.tangents[v].w(), data.tangents[v].w());
    expect_vec3_near(out.positions[v], reference.positions[v], tol::kPolarDecomposition);
    expect_vec3_near(out.normals[v], reference.normals[v], tol::kPolarDecomposition);
  }
}

// ---- antipodality -----------------------------------------------------------------------------------------

// Two joints rotating about the same line (through c, direction a) by alpha and beta are coaxial screws:
// dq = cos(x/2) + sin(x/2) (a + eps c x a). Their 50/50 blend, once both lie in one hemisphere, is
// (cos + cos) + (sin + sin)(a + eps c x a), which normalizes to the rotation by (alpha + beta) / 2 about the
// same line: the vertex stays on its circle around the line. Blending q with -q' instead would cancel the
// rotation and swing the vertex through the wrong half-turn.
//
// Over a full turn any matrix-to-quaternion conversion must jump from q to -q somewhere (the lift of a 360
// degree loop of SO(3) to unit quaternions ends at -q), so sweeping pairs 2 or 20 degrees apart around the
// circle crosses the jump whatever convention the conversion follows; the test counts the crossings with
// Eigen's conversion, the one skin_dqs uses, to show they happen. 179 and 181 degrees are in the sweep.
TEST(SkinDqs, AntipodalPairsBlendOnTheShortArcInEitherInfluenceOrder) {
  const Vec3 centre(1.0, -0.5, 2.0);
  const std::vector<Vec3> axes{Vec3::UnitX(), Vec3(1.0, 2.0, 3.0).normalized(), Vec3(-2.0, 1.0, 0.5).normalized()};
  for (const Vec3& axis : axes) {
    // A point and a normal off the axis, at a distance from the line that must be kept.
    const Vec3 p = centre + axis.unitOrthogonal() * 0.8 + axis * 0.3;
    const Vec3 n = axis.cross(axis.unitOrthogonal()).normalized();
    const double distance = (p - centre - axis * axis.dot(p - centre)).norm();
    int antipodal_pairs = 0;
    for (double half_gap : {1.0, 10.0}) {
      for (int step = 0; step < 72; ++step) {
        const double middle = 5.0 * step;
        SCOPED_TRACE("axis " + std::to_string(axis.x()) + " middle " + std::to_string(middle) + " half gap " +
                     std::to_string(half_gap));
        const Mat3 ra = rotation(degrees(middle - half_gap), axis);
        const Mat3 rb = rotation(degrees(middle + half_gap), axis);
        if (Quat(ra).dot(Quat(rb)) < 0.0) ++antipodal_pairs;
        const JointPalette palette = make_palette({about_centre(ra, centre), about_centre(rb, centre)});
        const Mat3 expected_rotation = rotation(degrees(middle), axis);
        const Vec3 expected = about_centre(expected_rotation, centre).topLeftCorner<3, 4>() * p.homogeneous();

        VertexData forward = two_influence_vertex(p, 0, 0.5, 1, 0.5);
        forward.normals = {n};
        VertexData reversed = two_influence_vertex(p, 1, 0.5, 0, 0.5);  // the other joint is the pivot
        reversed.normals = {n};
        const SkinnedVertices a = dqs(forward, palette);
        const SkinnedVertices b = dqs(reversed, palette);
        expect_vec3_near(a.positions[0], expected, tol::kPolarDecomposition);
        expect_vec3_near(a.normals[0], expected_rotation * n, tol::kPolarDecomposition);
        expect_vec3_near(b.positions[0], a.positions[0], tol::kPolarDecomposition);
        expect_vec3_near(b.normals[0], a.normals[0], tol::kPolarDecomposition);
        const Vec3 r = a.positions[0] - centre;
        EXPECT_NEAR((r - axis * axis.dot(r)).norm(), distance, tol::kPolarDecomposition) << "left the circle";
      }
    }
    EXPECT_GE(antipodal_pairs, 2) << "the sweep never crossed the conversion's sign jump";
  }
}

// The pivot is the first influence of non-zero weight, not slot 0. Joints at 230 and 250 degrees about X (the
// expected blend: 240 degrees) and, in slot 0 with weight 0, a decoy at 60 degrees, nearly orthogonal to both
// in quaternion space: aligning with the decoy would leave the pair in opposite hemispheres (checked below
// with Eigen's conversion), and the vertex would turn by 60 degrees instead of 240.
TEST(SkinDqs, ZeroWeightSlotDoesNotDecideTheSigns) {
  const Vec3 centre(0.5, -1.0, 2.0);
  const Mat3 decoy = rotation(degrees(60.0), Vec3::UnitX());
  const Mat3 ra = rotation(degrees(230.0), Vec3::UnitX());
  const Mat3 rb = rotation(degrees(250.0), Vec3::UnitX());
  const bool pair_aligned = Quat(ra).dot(Quat(rb)) > 0.0;
  const bool decoy_keeps_a = Quat(ra).dot(Quat(decoy)) > 0.0;
  const bool decoy_keeps_b = Quat(rb).dot(Quat(decoy)) > 0.0;
  ASSERT_NE(decoy_keeps_a == decoy_keeps_b, pair_aligned) << "the decoy would not mislead: test set-up is wrong";

  const JointPalette palette =
      make_palette({about_centre(decoy, centre), about_centre(ra, centre), about_centre(rb, centre)});
  const Vec3 p(2.0, 0.25, -0.5);
  VertexData data;
  data.positions = {p};
  data.influences_per_vertex = 3;
  data.joints = {0, 1, 2};
  data.weights = {0.0, 0.5, 0.5};
  const Vec3 expected =
      about_centre(rotation(degrees(240.0), Vec3::UnitX()), centre).topLeftCorner<3, 4>() * p.homogeneous();
  expect_vec3_near(dqs(data, palette).positions[0], expected, tol::kPolarDecomposition);
}

// ---- scale and shear: the two phases ----------------------------------------------------------------------

TEST(SkinDqs, ScaledSingleInfluencesGiveTheAnalyticResult) {
  // Joint 0: 2 Rz(90) then (1,2,3). Joint 1: Rz(90) diag(2,1,1), no translation. Rz90 maps (x,y,z) to (-y,x,z).
  const JointPalette palette =
      make_palette({affine(2.0 * rotation(kPi / 2.0, Vec3::UnitZ()), Vec3(1.0, 2.0, 3.0)),
                    affine(rotation(kPi / 2.0, Vec3::UnitZ()) * Vec3(2.0, 1.0, 1.0).asDiagonal(), Vec3::Zero())});
  VertexData data;
  data.positions = {Vec3(1.0, 0.0, 0.0), Vec3(1.0, 1.0, 0.0)};
  data.normals = {Vec3(0.0, 0.0, 1.0), Vec3(1.0, 1.0, 0.0).normalized()};
  data.influences_per_vertex = 1;
  data.joints = {0, 1};
  data.weights = {1.0, 1.0};
  const SkinnedVertices out = dqs(data, palette);
  expect_vec3_near(out.positions[0], Vec3(1.0, 4.0, 3.0), tol::kPolarDecomposition);  // 2 (0,1,0) + (1,2,3)
  expect_vec3_near(out.normals[0], Vec3(0.0, 0.0, 1.0), tol::kPolarDecomposition);
  // diag(2,1,1) (1,1,0) = (2,1,0), turned: (-1,2,0). The plane x + y = 0's normal by the inverse transpose:
  // diag(1/2,1,1) (1,1,0) ~ (1,2,0), turned: (-2,1,0)/sqrt(5) (not (-1,2,0), the matrix itself).
  expect_vec3_near(out.positions[1], Vec3(-1.0, 2.0, 0.0), tol::kPolarDecomposition);
  expect_vec3_near(out.normals[1], Vec3(-2.0, 1.0, 0.0) / std::sqrt(5.0), tol::kPolarDecomposition);
}

TEST(SkinDqs, BlendedScaleIsAppliedBeforeTheBlendedRotation) {
  const Vec3 p(0.4, -1.2, 2.0);
  const Vec3 n = Vec3(1.0, 1.0, 0.0).normalized();
  {
    // diag(2) and I at 0.5 / 0.5: S = diag(1.5), both rotations identity -> 1.5 p; directions unchanged.
    const JointPalette palette = make_palette({affine(2.0 * Mat3::Identity(), Vec3::Zero()), Mat4::Identity()});
    VertexData data = two_influence_vertex(p, 0, 0.5, 1, 0.5);
    data.normals = {n};
    const SkinnedVertices out = dqs(data, palette);
    expect_vec3_near(out.positions[0], 1.5 * p, tol::kPolarDecomposition);
    expect_vec3_near(out.normals[0], n, tol::kPolarDecomposition);
  }
  {
    // 2 Rz(60) and I: S = diag(1.5) and the rotation halfway, Rz(30): p' = 1.5 Rz(30) p. (LBS would give
    // 0.5 (2 Rz(60) + I) p, a different matrix.)
    const JointPalette palette =
        make_palette({affine(2.0 * rotation(degrees(60.0), Vec3::UnitZ()), Vec3::Zero()), Mat4::Identity()});
    VertexData data = two_influence_vertex(p, 0, 0.5, 1, 0.5);
    data.normals = {n};
    const SkinnedVertices out = dqs(data, palette);
    const Mat3 rz30 = rotation(degrees(30.0), Vec3::UnitZ());
    expect_vec3_near(out.positions[0], 1.5 * (rz30 * p), tol::kPolarDecomposition);
    expect_vec3_near(out.normals[0], rz30 * n, tol::kPolarDecomposition);
  }
  {
    // Rz(90) diag(3,1,1) and Rz(90) (one rotation): S = diag(2,1,1), then Rz(90). The normal of the plane
    // x + y = 0 follows the inverse transpose: diag(1/2,1,1) (1,1,0) ~ (1,2,0), turned: (-2,1,0)/sqrt(5).
    const Mat3 rz = rotation(kPi / 2.0, Vec3::UnitZ());
    const JointPalette palette =
        make_palette({affine(rz * Vec3(3.0, 1.0, 1.0).asDiagonal(), Vec3(0.0, 0.0, 1.0)),
                      affine(rz, Vec3(0.0, 0.0, 1.0))});
    VertexData data = two_influence_vertex(Vec3(1.0, -1.0, 0.5), 0, 0.5, 1, 0.5);
    data.normals = {n};
    data.tangents = {Vec4(1.0, -1.0, 0.0, -1.0)};
    const SkinnedVertices out = dqs(data, palette);
    // Rz90 (2,-1,0.5) + (0,0,1)
    expect_vec3_near(out.positions[0], Vec3(1.0, 2.0, 1.5), tol::kPolarDecomposition);
    expect_vec3_near(out.normals[0], Vec3(-2.0, 1.0, 0.0) / std::sqrt(5.0), tol::kPolarDecomposition);
    // Tangent by S then Rz90: (2,-1,0) -> (1,2,0), normalized; handedness kept.
    expect_vec3_near(out.tangents[0].head<3>(), Vec3(1.0, 2.0, 0.0) / std::sqrt(5.0), tol::kPolarDecomposition);
    EXPECT_EQ(out.tangents[0].w(), -1.0);
  }
}

// ---- weights, tangents, threads, errors ------------------------------------------------------------------

TEST(SkinDqs, AllZeroWeightsKeepBindAttributes) {
  expect_zero_weights_keep_bind_attributes(
      dqs, make_palette({affine(2.0 * rotation(1.0, Vec3(1.0, 1.0, 0.0)), Vec3(3.0, 0.0, 0.0))}));
}

TEST(SkinDqs, AsStoredVersusRenormalizeForWeightsSummingToHalf) {
  // Weights 0.25 / 0.25 on translations (2,0,0) and (0,2,0). The rigid part: real 0.5 (1,0,0,0) and dual
  // 0.25 (0, 1,0,0) + 0.25 (0, 0,1,0), divided by |real| = 0.5: translation 2 dual.vec = (1,1,0) under either
  // policy. The non-rigid part keeps the weight sum: S = 0.5 I as stored, I renormalized.
  const JointPalette palette =
      make_palette({affine(Mat3::Identity(), Vec3(2.0, 0.0, 0.0)), affine(Mat3::Identity(), Vec3(0.0, 2.0, 0.0))});
  VertexData data = two_influence_vertex(Vec3(4.0, -2.0, 6.0), 0, 0.25, 1, 0.25);
  data.normals = {Vec3(0.0, 0.0, 1.0)};
  SkinningOptions as_stored;
  as_stored.weights = WeightPolicy::AsStored;
  const SkinnedVertices stored = dqs(data, palette, as_stored);
  expect_vec3_near(stored.positions[0], Vec3(3.0, 0.0, 3.0), tol::kPolarDecomposition);  // 0.5 p + (1,1,0)
  expect_vec3_near(stored.normals[0], Vec3(0.0, 0.0, 1.0), tol::kPolarDecomposition);
  SkinningOptions renormalize;
  renormalize.weights = WeightPolicy::Renormalize;
  const SkinnedVertices renormalized = dqs(data, palette, renormalize);
  expect_vec3_near(renormalized.positions[0], Vec3(5.0, -1.0, 6.0), tol::kPolarDecomposition);  // p + (1,1,0)
  expect_vec3_near(renormalized.normals[0], Vec3(0.0, 0.0, 1.0), tol::kPolarDecomposition);
}

TEST(SkinDqs, TangentsNormalizedWithHandednessKept) {
  // Joint 0: 3 Ry(90) translated; tangent (0,0,2) -> (1,0,0). Vertex 1: I and Rz(90) at 0.5 / 0.5, the
  // rotation halfway: Rz(45) (1,0,0) = (1,1,0)/sqrt(2).
  const JointPalette palette =
      make_palette({affine(3.0 * rotation(kPi / 2.0, Vec3::UnitY()), Vec3(1.0, 1.0, 1.0)), Mat4::Identity(),
                    affine(rotation(kPi / 2.0, Vec3::UnitZ()), Vec3::Zero())});
  VertexData data;
  data.positions = {Vec3::Zero(), Vec3(2.0, 0.0, 0.0)};
  data.tangents = {Vec4(0.0, 0.0, 2.0, -1.0), Vec4(3.0, 0.0, 0.0, 1.0)};
  data.influences_per_vertex = 2;
  data.joints = {0, 0, 1, 2};
  data.weights = {1.0, 0.0, 0.5, 0.5};
  const SkinnedVertices out = dqs(data, palette);
  ASSERT_EQ(out.tangents.size(), 2u);
  EXPECT_TRUE(out.normals.empty());
  expect_vec3_near(out.tangents[0].head<3>(), Vec3(1.0, 0.0, 0.0), tol::kPolarDecomposition);
  EXPECT_EQ(out.tangents[0].w(), -1.0);
  expect_vec3_near(out.tangents[1].head<3>(), Vec3(1.0, 1.0, 0.0) / std::sqrt(2.0), tol::kPolarDecomposition);
  EXPECT_EQ(out.tangents[1].w(), 1.0);
  expect_vec3_near(out.positions[0], Vec3(1.0, 1.0, 1.0), tol::kPolarDecomposition);
  expect_vec3_near(out.positions[1], Vec3(std::sqrt(2.0), std::sqrt(2.0), 0.0), tol::kPolarDecomposition);
}

TEST(SkinDqs, OutputIsBitIdenticalForAnyThreadCount) {
  // 10,007 vertices (uneven thread ranges) over 5 joints with rotations 1.1 rad apart, non-uniform scales and
  // a mirror; every 97th vertex has zero weights, and the weights do not sum to 1 (make_varied_input).
  constexpr int kVertexCount = 10007;
  const VariedInput input = make_varied_input(kVertexCount, 4, 1.1);
  const JointPalette& palette = input.palette;
  const VertexData& data = input.data;
  for (WeightPolicy policy : {WeightPolicy::AsStored, WeightPolicy::Renormalize}) {
    SCOPED_TRACE(static_cast<int>(policy));
    SkinningOptions one_thread;
    one_thread.weights = policy;
    SkinningOptions three_threads = one_thread;
    three_threads.threads = 3;
    const SkinnedVertices serial = dqs(data, palette, one_thread);
    ASSERT_EQ(serial.positions.size(), static_cast<size_t>(kVertexCount));
    expect_bit_identical(serial, dqs(data, palette, three_threads));
    for (size_t v = 0; v < serial.normals.size(); ++v) {
      ASSERT_TRUE(serial.positions[v].allFinite()) << "vertex " << v;
      ASSERT_NEAR(serial.normals[v].norm(), 1.0, tol::kClosedForm) << "vertex " << v;
    }
  }
}

TEST(SkinDqs, InconsistentInputIsRefused) {
  const JointPalette palette = make_palette({Mat4::Identity(), Mat4::Identity()});
  VertexData data = two_influence_vertex(Vec3(1.0, 2.0, 3.0), 0, 0.5, 1, 0.5);
  SkinnedVertices out;
  EXPECT_NO_THROW(skin_dqs(data.input(palette), SkinningOptions{}, out));

  VertexData bad_joint = data;
  bad_joint.joints[1] = 2;  // the palette has 2 joints
  EXPECT_THROW(skin_dqs(bad_joint.input(palette), SkinningOptions{}, out), std::invalid_argument);
  VertexData bad_zero_weight_joint = data;
  bad_zero_weight_joint.weights = {1.0, 0.0};
  bad_zero_weight_joint.joints[1] = 7;  // checked even where its weight is 0, as skin_lbs does
  EXPECT_THROW(skin_dqs(bad_zero_weight_joint.input(palette), SkinningOptions{}, out), std::invalid_argument);
  VertexData short_weights = data;
  short_weights.weights.pop_back();
  EXPECT_THROW(skin_dqs(short_weights.input(palette), SkinningOptions{}, out), std::invalid_argument);
  VertexData short_normals = data;
  short_normals.normals = {Vec3::UnitX(), Vec3::UnitY()};
  EXPECT_THROW(skin_dqs(short_normals.input(palette), SkinningOptions{}, out), std::invalid_argument);
  VertexData no_influences = data;
  no_influences.influences_per_vertex = 0;
  EXPECT_THROW(skin_dqs(no_influences.input(palette), SkinningOptions{}, out), std::invalid_argument);
  SkinningInput no_palette = data.input(palette);
  no_palette.palette = nullptr;
  EXPECT_THROW(skin_dqs(no_palette, SkinningOptions{}, out), std::invalid_argument);
  SkinningOptions no_threads;
  no_threads.threads = 0;
  EXPECT_THROW(skin_dqs(data.input(palette), no_threads, out), std::invalid_argument);
}

// ---- the SIMD kernel gives the scalar kernel's bits --------------------------------------------------------

// A random palette: rotations about random axes, non-uniform scales, shears, translations, and reflections
// (a negative scale, so a negative determinant in S) on every third joint.
JointPalette random_palette(std::mt19937_64& rng, int joints) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<Mat4> matrices;
  for (int j = 0; j < joints; ++j) {
    const Vec3 axis = Vec3(unit(rng), unit(rng), unit(rng)) + Vec3(0.0, 0.0, 1e-3);
    Mat3 scale_shear = Vec3(1.0 + 0.5 * unit(rng), 1.0 + 0.5 * unit(rng), 1.0 + 0.5 * unit(rng)).asDiagonal();
    if (j % 4 == 1) scale_shear(0, 1) = 0.3 * unit(rng);
    if (j % 3 == 2) scale_shear.row(j % 2) *= -1.0;
    matrices.push_back(affine(rotation(3.2 * unit(rng), axis) * scale_shear,
                              Vec3(2.0 * unit(rng), 2.0 * unit(rng), 2.0 * unit(rng))));
  }
  return make_palette(matrices);
}

enum class SpecialVertices { None, Some };

// `vertices` vertices with `k` influences over `joints` joints. With SpecialVertices::Some, about one vertex in
// 12 takes one of the scalar kernel's own paths: zero first weights (the pivot moves), all-zero weights,
// negative weights cancelling to a tiny sum whose blended real part underflows (norm2 == 0), weights too
// small for norm2, and negative weights (sign flips, antipodal joints).
VertexData random_vertices(std::mt19937_64& rng, size_t vertices, int k, int joints, SpecialVertices special,
                           bool normals, bool tangents) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<uint32_t> joint(0, uint32_t(joints - 1));
  std::uniform_int_distribution<int> kind(0, 59);
  VertexData data;
  data.influences_per_vertex = k;
  for (size_t v = 0; v < vertices; ++v) {
    data.positions.push_back(Vec3(3.0 * unit(rng), 3.0 * unit(rng), 3.0 * unit(rng)));
    if (normals) data.normals.push_back(Vec3(unit(rng), unit(rng), unit(rng)).normalized());
    if (tangents) data.tangents.push_back(Vec4(unit(rng), unit(rng), unit(rng), v % 2 == 0 ? 1.0 : -1.0));
    std::vector<uint32_t> j(static_cast<size_t>(k));
    std::vector<double> w(static_cast<size_t>(k));
    for (int i = 0; i < k; ++i) {
      j[size_t(i)] = joint(rng);
      w[size_t(i)] = 0.05 + 0.95 * (0.5 + 0.5 * unit(rng));
    }
    switch (special == SpecialVertices::Some ? kind(rng) : -1) {
      case 0: w[0] = 0.0; break;  // zero-weight first slot
      case 1:  // the first k - 1 slots unused
        for (int i = 0; i + 1 < k; ++i) w[size_t(i)] = (i % 2 == 0) ? 0.0 : -0.0;
        break;
      case 2: std::fill(w.begin(), w.end(), 0.0); break;  // all-zero weights
      case 3:  // negative weights: real = w q - w q + tiny q underflows to norm2 == 0, sum != 0
        std::fill(w.begin(), w.end(), 0.0);
        w[0] = 1e-170;
        if (k >= 3) {
          j[1] = j[2] = j[0];
          w[0] = 1.0, w[1] = -1.0, w[2] = 1e-170;
        }
        break;
      case 4:  // weights whose squares underflow (norm2 == 0)
        for (double& weight : w) weight *= 1e-165;
        break;
      case 5: w[size_t(k - 1)] = -0.7; break;  // a negative weight
      case 6:  // weights cancelling to a zero sum
        if (k >= 2) {
          std::fill(w.begin(), w.end(), 0.0);
          w[0] = 0.25, w[1] = -0.25;
        }
        break;
      default: break;
    }
    data.joints.insert(data.joints.end(), j.begin(), j.end());
    data.weights.insert(data.weights.end(), w.begin(), w.end());
  }
  return data;
}

// The kernels other than Scalar that this CPU and build can run (Auto always).
std::vector<SkinningKernel> simd_kernels() {
  std::vector<SkinningKernel> kernels{SkinningKernel::Auto};
  if (dqs_kernel_available(SkinningKernel::Avx512))
    kernels.push_back(SkinningKernel::Avx512);
  else
    std::printf("[ kernel   ] avx512 not available on this CPU or build: Auto runs %s\n",
                dqs_kernel_name(SkinningKernel::Auto));
  return kernels;
}

TEST(SkinDqs, KernelSelectionFollowsTheOption) {
  EXPECT_TRUE(dqs_kernel_available(SkinningKernel::Scalar));
  EXPECT_TRUE(dqs_kernel_available(SkinningKernel::Auto));
  EXPECT_STREQ(dqs_kernel_name(SkinningKernel::Scalar), "scalar");
  EXPECT_STREQ(dqs_kernel_name(SkinningKernel::Auto),
               dqs_kernel_available(SkinningKernel::Avx512) ? "avx512" : "scalar");
  if (!dqs_kernel_available(SkinningKernel::Avx512)) {
    const JointPalette palette = make_palette({Mat4::Identity()});
    VertexData data = two_influence_vertex(Vec3(1.0, 2.0, 3.0), 0, 0.5, 0, 0.5);
    SkinningOptions options;
    options.kernel = SkinningKernel::Avx512;
    EXPECT_THROW(dqs(data, palette, options), std::invalid_argument);
  }
}

TEST(SkinDqs, SimdKernelGivesTheScalarKernelsBitsOnRandomInput) {
  std::mt19937_64 rng(18);
  int compared = 0;
  for (SkinningKernel kernel : simd_kernels()) {
    for (int k : {1, 2, 3, 4, 5, 6, 7, 8, 13}) {
      const JointPalette palette = random_palette(rng, 23);
      for (size_t vertices : {size_t(1), size_t(7), size_t(8), size_t(9), size_t(1003)}) {
        for (SpecialVertices special : {SpecialVertices::None, SpecialVertices::Some}) {
          for (int attributes = 0; attributes < 3; ++attributes) {  // positions; + normals; + normals, tangents
            const VertexData data =
                random_vertices(rng, vertices, k, 23, special, attributes >= 1, attributes >= 2);
            for (WeightPolicy policy : {WeightPolicy::AsStored, WeightPolicy::Renormalize}) {
              SCOPED_TRACE(std::string(dqs_kernel_name(kernel)) + " k=" + std::to_string(k) +
                           " vertices=" + std::to_string(vertices) +
                           " special=" + std::to_string(special == SpecialVertices::Some) +
                           " attributes=" + std::to_string(attributes) +
                           " renormalize=" + std::to_string(policy == WeightPolicy::Renormalize));
              SkinningOptions scalar;
              scalar.weights = policy;
              scalar.kernel = SkinningKernel::Scalar;
              SkinningOptions simd = scalar;
              simd.kernel = kernel;
              expect_bit_identical(dqs(data, palette, scalar), dqs(data, palette, simd));
              ++compared;
            }
          }
        }
      }
    }
  }
  EXPECT_GE(compared, 9 * 5 * 2 * 3 * 2);
}

TEST(SkinDqs, SimdKernelGivesTheScalarKernelsBitsWhereRoundingDecidesTheHemisphere) {
  // Pairs of joints whose rotations differ by a half turn, or a half turn less a hair: their real parts are
  // orthogonal, or nearly, so the hemisphere test's dot ((q0 p0 + q1 p1) + q2 p2) + q3 p3 is a cancellation
  // whose sign its rounding decides, and a kernel that sums in another order (or mixes up components) takes
  // the other sign for some of them, a different blend. Influence 0 of every vertex is the pair's first joint
  // (the pivot), influence 1 its second.
  std::mt19937_64 rng(27);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  constexpr int kPairs = 64;
  std::vector<Mat4> matrices;
  for (int m = 0; m < kPairs; ++m) {
    const Mat3 base = rotation(3.2 * unit(rng), Vec3(unit(rng), unit(rng), unit(rng)) + Vec3(0.0, 0.0, 1e-3));
    const double hair = m % 2 == 0 ? 0.0 : 1e-15 * unit(rng);
    const Mat3 half_turn = rotation(kPi - hair, Vec3(unit(rng), unit(rng), unit(rng)) + Vec3(1e-3, 0.0, 0.0));
    const Vec3 translation(unit(rng), unit(rng), unit(rng));
    matrices.push_back(affine(base, translation));
    matrices.push_back(affine(base * half_turn, translation));
  }
  const JointPalette palette = make_palette(matrices);
  std::uniform_int_distribution<uint32_t> pair(0, kPairs - 1), any_joint(0, 2 * kPairs - 1);
  for (SkinningKernel kernel : simd_kernels()) {
    for (int k : {2, 3, 4, 8}) {
      SCOPED_TRACE(std::string(dqs_kernel_name(kernel)) + " k=" + std::to_string(k));
      VertexData data;
      data.influences_per_vertex = k;
      for (int v = 0; v < 1024; ++v) {
        data.positions.push_back(Vec3(3.0 * unit(rng), 3.0 * unit(rng), 3.0 * unit(rng)));
        data.normals.push_back(Vec3(unit(rng), unit(rng), unit(rng)).normalized());
        const uint32_t m = pair(rng);
        for (int i = 0; i < k; ++i) {
          data.joints.push_back(i == 0 ? 2 * m : i == 1 ? 2 * m + 1 : any_joint(rng));
          data.weights.push_back(0.05 + 0.95 * (0.5 + 0.5 * unit(rng)));
        }
      }
      SkinningOptions scalar;
      scalar.kernel = SkinningKernel::Scalar;
      SkinningOptions simd = scalar;
      simd.kernel = kernel;
      expect_bit_identical(dqs(data, palette, scalar), dqs(data, palette, simd));
    }
  }
}

TEST(SkinDqs, SimdKernelSpecialVerticesMatchTheScalarPaths) {
  // The special vertices really take the scalar kernel's paths: all-zero weights and an underflowing norm2
  // keep their bind attributes in every kernel.
  std::mt19937_64 rng(7);
  const JointPalette palette = random_palette(rng, 9);
  for (SkinningKernel kernel : simd_kernels()) {
    SCOPED_TRACE(dqs_kernel_name(kernel));
    VertexData data = random_vertices(rng, 16, 4, 9, SpecialVertices::None, true, true);
    std::fill(data.weights.begin() + 3 * 4, data.weights.begin() + 4 * 4, 0.0);         // vertex 3: all zero
    for (int i = 0; i < 4; ++i) data.weights[size_t(11 * 4 + i)] *= 1e-170;              // vertex 11: norm2 == 0
    data.weights[5 * 4] = 0.0;                                                           // vertex 5: pivot 1
    SkinningOptions scalar;
    scalar.kernel = SkinningKernel::Scalar;
    SkinningOptions simd = scalar;
    simd.kernel = kernel;
    const SkinnedVertices out = dqs(data, palette, simd);
    expect_bit_identical(dqs(data, palette, scalar), out);
    for (size_t v : {size_t(3), size_t(11)}) {
      EXPECT_EQ(out.positions[v], data.positions[v]) << "vertex " << v;
      EXPECT_EQ(out.normals[v], data.normals[v]) << "vertex " << v;
      EXPECT_EQ(out.tangents[v], data.tangents[v]) << "vertex " << v;
    }
  }
}

TEST(SkinDqs, SimdKernelRefusesAJointOutsideThePaletteAsTheScalarKernelDoes) {
  std::mt19937_64 rng(3);
  const JointPalette palette = random_palette(rng, 6);
  for (SkinningKernel kernel : simd_kernels()) {
    for (int k : {1, 4, 5, 8}) {
      for (size_t bad_vertex : {size_t(0), size_t(5), size_t(16), size_t(1001)}) {
        SCOPED_TRACE(std::string(dqs_kernel_name(kernel)) + " k=" + std::to_string(k) +
                     " bad vertex=" + std::to_string(bad_vertex));
        VertexData data = random_vertices(rng, 1003, k, 6, SpecialVertices::None, true, false);
        data.joints[bad_vertex * size_t(k) + size_t(k - 1)] = bad_vertex % 2 == 0 ? 6u : 0xFFFFFFFFu;
        data.weights[bad_vertex * size_t(k) + size_t(k - 1)] = 0.0;  // checked whatever its weight
        for (int threads : {1, 2}) {
          std::string scalar_error, simd_error;
          SkinningOptions options;
          options.threads = threads;
          options.kernel = SkinningKernel::Scalar;
          try {
            dqs(data, palette, options);
          } catch (const std::invalid_argument& error) {
            scalar_error = error.what();
          }
          options.kernel = kernel;
          try {
            dqs(data, palette, options);
          } catch (const std::invalid_argument& error) {
            simd_error = error.what();
          }
          EXPECT_EQ(scalar_error, "skin_dqs: joint index outside the palette");
          EXPECT_EQ(simd_error, scalar_error);
        }
      }
    }
  }
}

TEST(SkinDqs, SimdKernelGivesTheScalarKernelsBitsOnBuiltinScenes) {
  // Auto: the widest kernel this CPU has (AVX-512 where available).
  int compared = 0;
  for (SkinningKernel kernel : {SkinningKernel::Auto}) {
    for (const std::string& name : builtin_scene_names()) {
      const Scene scene = make_builtin_scene(name);
      const int animation = scene.animations.empty() ? -1 : 0;
      for (double time : {0.0, 0.4, 1.7}) {
        SCOPED_TRACE(std::string(dqs_kernel_name(kernel)) + " builtin:" + name + " t=" + std::to_string(time));
        const EvaluatedPose pose = evaluate_pose(scene, animation, time);
        for (WeightPolicy policy : {WeightPolicy::AsStored, WeightPolicy::Renormalize}) {
          SkinningOptions scalar;
          scalar.method = SkinningMethod::Dqs;
          scalar.weights = policy;
          scalar.kernel = SkinningKernel::Scalar;
          SkinningOptions simd = scalar;
          simd.kernel = kernel;
          test::expect_same_primitives(evaluate_vertices(scene, pose, simd), evaluate_vertices(scene, pose, scalar));
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 0);
}

// ---- evaluate_vertices dispatch ---------------------------------------------------------------------------

int skinned_node(const Scene& scene) {
  for (size_t n = 0; n < scene.nodes.size(); ++n)
    if (scene.nodes[n].skin >= 0) return static_cast<int>(n);
  return -1;
}

TEST(SkinDqs, EvaluateVerticesOnBendUsesDqsForTheSkinnedNode) {
  const Scene scene = make_builtin_scene("bend");
  const int node = skinned_node(scene);
  ASSERT_GE(node, 0);
  const Primitive& prim = scene.meshes[size_t(scene.nodes[size_t(node)].mesh)].primitives[0];
  ASSERT_FALSE(prim.normals.empty());
  SkinningOptions options;
  options.method = SkinningMethod::Dqs;

  // At bind every JM is the identity up to the float32 rounding of the stored inverse bind matrices.
  const std::vector<WorldPrimitive> bind = evaluate_vertices(scene, evaluate_pose(scene, 0, 0.0), options);
  ASSERT_EQ(bind.size(), 1u);
  ASSERT_EQ(bind[0].vertices.positions.size(), prim.vertex_count());
  for (size_t v = 0; v < prim.vertex_count(); ++v) {
    expect_vec3_near(bind[0].vertices.positions[v], prim.positions[v], tol::kFloatInput);
    expect_vec3_near(bind[0].vertices.normals[v], prim.normals[v], tol::kFloatInput);
  }

  // Elbow at 90 degrees about +Z. The ring at x = 1 (the elbow, weights 0.5 / 0.5 on shoulder and elbow)
  // turns by 45 degrees about the Z line through the elbow (1,0,0) (coaxial blend, see the antipodality
  // test), so it stays at distance 0.15 from the elbow, where LBS pulls it in.
  const EvaluatedPose bent = evaluate_pose(scene, 0, 0.5);
  const std::vector<WorldPrimitive> world = evaluate_vertices(scene, bent, options);
  const std::vector<WorldPrimitive> linear = evaluate_vertices(scene, bent, SkinningOptions{});
  const Vec3 elbow(1.0, 0.0, 0.0);
  const Mat3 half_turn = rotation(kPi / 4.0, Vec3::UnitZ());
  size_t ring = 0;
  for (size_t v = 0; v < prim.vertex_count(); ++v) {
    const Vec3& p = world[0].vertices.positions[v];
    ASSERT_TRUE(p.allFinite()) << "vertex " << v;
    ASSERT_NEAR(world[0].vertices.normals[v].norm(), 1.0, tol::kClosedForm) << "vertex " << v;
    if (prim.positions[v].x() == 1.0) {
      expect_vec3_near(p, elbow + half_turn * (prim.positions[v] - elbow), tol::kFloatInput);
      EXPECT_NEAR((p - elbow).norm(), 0.15, tol::kFloatInput);
      expect_vec3_near(world[0].vertices.normals[v], half_turn * prim.normals[v], tol::kFloatInput);
      ++ring;
    }
    // Vertices with a single influence (weights 1 and zeros): DQS and LBS agree.
    const double* w = &prim.weights[v * size_t(prim.influences_per_vertex)];
    if (w[0] == 1.0 || w[1] == 1.0 || w[2] == 1.0)
      expect_vec3_near(p, linear[0].vertices.positions[v], tol::kPolarDecomposition);
  }
  EXPECT_EQ(ring, 16u);
}

TEST(SkinDqs, EvaluateVerticesLeavesRigidNodesToTheirGlobalMatrix) {
  // builtin:bend with the skin removed from its mesh node, which gets a scaled and rotated TRS: the node is
  // then drawn rigidly, and the method must not matter (bit for bit).
  Scene scene = make_builtin_scene("bend");
  const int node = skinned_node(scene);
  ASSERT_GE(node, 0);
  scene.nodes[size_t(node)].skin = -1;
  scene.nodes[size_t(node)].rest.rotation = Quat(Eigen::AngleAxisd(0.5, Vec3::UnitY()));
  scene.nodes[size_t(node)].rest.scale = Vec3(2.0, 1.0, 0.5);
  scene.nodes[size_t(node)].rest.translation = Vec3(0.0, 3.0, 0.0);
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.5);
  SkinningOptions dual;
  dual.method = SkinningMethod::Dqs;
  const std::vector<WorldPrimitive> a = evaluate_vertices(scene, pose, dual);
  const std::vector<WorldPrimitive> b = evaluate_vertices(scene, pose, SkinningOptions{});
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_FALSE(a[0].skinned);
  expect_bit_identical(a[0].vertices, b[0].vertices);
  const Mat4& global = pose.model.global[size_t(node)];
  const Primitive& prim = scene.meshes[size_t(scene.nodes[size_t(node)].mesh)].primitives[0];
  expect_vec3_near(a[0].vertices.positions[5], global.topLeftCorner<3, 4>() * prim.positions[5].homogeneous(),
                   tol::kClosedForm);
}

}  // namespace
}  // namespace skinref
