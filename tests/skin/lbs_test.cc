// Tests of linear blend skinning (skin/lbs.h) against closed forms: one rigid influence, a 0.5/0.5 blend,
// all-zero weights keeping the bind attributes, AsStored versus Renormalize, normals under non-uniform scale
// and the two normal modes, tangents, 8 and 12 influences per vertex, and bit-identical output for any thread
// count.
#include "anim/palette.h"
#include "skin/lbs.h"
#include "support/math_expect.h"
#include "support/skinning_fixtures.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <numbers>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::affine;
using test::expect_bit_identical;
using test::expect_vec3_near;
using test::expect_zero_weights_keep_bind_attributes;
using test::lbs;
using test::make_palette;
using test::make_varied_input;
using test::rotation;
using test::VariedInput;
using test::VertexData;

// make_varied_input's per-joint rotation step for these tests.
constexpr double kVariedAngleStep = 0.4;

TEST(SkinLbs, SingleInfluenceIsPaletteTimesPosition) {
  // Joint 1: 90 degrees about Z then translation (1,2,3). Joint 0 is a decoy with weight 0.
  const JointPalette palette = make_palette({affine(5.0 * Mat3::Identity(), Vec3(9.0, 9.0, 9.0)),
                                             affine(rotation(std::numbers::pi / 2.0, Vec3::UnitZ()), Vec3(1.0, 2.0, 3.0))});
  VertexData data;
  data.positions = {Vec3(1.0, 0.0, 0.0), Vec3(0.0, 2.0, -1.0)};
  data.normals = {Vec3(1.0, 0.0, 0.0), Vec3(0.0, 0.0, 1.0)};
  data.tangents = {Vec4(0.0, 1.0, 0.0, 1.0), Vec4(1.0, 0.0, 0.0, -1.0)};
  data.influences_per_vertex = 4;
  data.joints = {1, 0, 0, 0, 1, 0, 0, 0};
  data.weights = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0};
  const SkinnedVertices out = lbs(data, palette);
  ASSERT_EQ(out.positions.size(), 2u);
  ASSERT_EQ(out.normals.size(), 2u);
  ASSERT_EQ(out.tangents.size(), 2u);

  // Rz90 maps (x,y,z) to (-y,x,z).
  expect_vec3_near(out.positions[0], Vec3(1.0, 3.0, 3.0), tol::kClosedForm);  // (0,1,0) + (1,2,3)
  expect_vec3_near(out.positions[1], Vec3(-1.0, 2.0, 2.0), tol::kClosedForm);  // (-2,0,-1) + (1,2,3)
  expect_vec3_near(out.normals[0], Vec3(0.0, 1.0, 0.0), tol::kClosedForm);
  expect_vec3_near(out.normals[1], Vec3(0.0, 0.0, 1.0), tol::kClosedForm);
  expect_vec3_near(out.tangents[0].head<3>(), Vec3(-1.0, 0.0, 0.0), tol::kClosedForm);
  expect_vec3_near(out.tangents[1].head<3>(), Vec3(0.0, 1.0, 0.0), tol::kClosedForm);
}

TEST(SkinLbs, HalfAndHalfOfIdentityAndTranslation) {
  const JointPalette palette = make_palette({Mat4::Identity(), affine(Mat3::Identity(), Vec3(2.0, -4.0, 6.0))});
  VertexData data;
  data.positions = {Vec3(0.5, 0.25, -1.0)};
  data.normals = {Vec3(0.0, 1.0, 0.0)};
  data.influences_per_vertex = 4;
  data.joints = {0, 1, 0, 0};
  data.weights = {0.5, 0.5, 0.0, 0.0};
  const SkinnedVertices out = lbs(data, palette);
  // Half the translation: (1,-2,3); a pure translation leaves the normal alone.
  expect_vec3_near(out.positions[0], Vec3(1.5, -1.75, 2.0), tol::kClosedForm);
  expect_vec3_near(out.normals[0], Vec3(0.0, 1.0, 0.0), tol::kClosedForm);
  EXPECT_TRUE(out.tangents.empty());
}

TEST(SkinLbs, AllZeroWeightsKeepBindAttributes) {
  expect_zero_weights_keep_bind_attributes(
      lbs, make_palette({affine(rotation(1.0, Vec3(1.0, 1.0, 0.0)), Vec3(3.0, 0.0, 0.0))}));
}

TEST(SkinLbs, AsStoredVersusRenormalizeForWeightsSummingToHalf) {
  // Weights 0.25 / 0.25 on translations (2,0,0) and (0,2,0): B = 0.5 [I | (1,1,0)].
  const JointPalette palette = make_palette({affine(Mat3::Identity(), Vec3(2.0, 0.0, 0.0)),
                                             affine(Mat3::Identity(), Vec3(0.0, 2.0, 0.0))});
  VertexData data;
  data.positions = {Vec3(4.0, -2.0, 6.0)};
  data.normals = {Vec3(0.0, 0.0, 1.0)};
  data.influences_per_vertex = 4;
  data.joints = {0, 1, 0, 0};
  data.weights = {0.25, 0.25, 0.0, 0.0};

  SkinningOptions as_stored;
  as_stored.weights = WeightPolicy::AsStored;
  const SkinnedVertices stored = lbs(data, palette, as_stored);
  // 0.5 p + 0.25 (2,0,0) + 0.25 (0,2,0) = (2,-1,3) + (0.5,0.5,0): pulled halfway toward the origin.
  expect_vec3_near(stored.positions[0], Vec3(2.5, -0.5, 3.0), tol::kClosedForm);
  // The normal is normalized after the (uniform) 0.5 scale.
  expect_vec3_near(stored.normals[0], Vec3(0.0, 0.0, 1.0), tol::kClosedForm);

  SkinningOptions renormalize;
  renormalize.weights = WeightPolicy::Renormalize;
  const SkinnedVertices renormalized = lbs(data, palette, renormalize);
  // Weights become 0.5 / 0.5: p + (1,1,0).
  expect_vec3_near(renormalized.positions[0], Vec3(5.0, -1.0, 6.0), tol::kClosedForm);
  expect_vec3_near(renormalized.normals[0], Vec3(0.0, 0.0, 1.0), tol::kClosedForm);
}

TEST(SkinLbs, NormalsUnderNonUniformScaleUseInverseTranspose) {
  // Plane x + y = 0 scaled by diag(2,1,1): its normal (1,1,0)/sqrt(2) becomes (1,2,0)/sqrt(5), not (2,1,0).
  const JointPalette palette = make_palette({affine(Vec3(2.0, 1.0, 1.0).asDiagonal(), Vec3::Zero())});
  VertexData data;
  data.positions = {Vec3(1.0, -1.0, 0.0)};
  data.normals = {Vec3(1.0, 1.0, 0.0).normalized()};
  data.tangents = {Vec4(1.0, -1.0, 0.0, -1.0) / std::sqrt(2.0)};
  data.tangents[0].w() = -1.0;
  data.influences_per_vertex = 4;
  data.joints = {0, 0, 0, 0};
  data.weights = {1.0, 0.0, 0.0, 0.0};
  for (NormalMode mode : {NormalMode::InverseTransposeOfBlend, NormalMode::BlendedNormalMatrices}) {
    SCOPED_TRACE(static_cast<int>(mode));
    SkinningOptions options;
    options.normals = mode;
    const SkinnedVertices out = lbs(data, palette, options);
    // One influence: both modes use the joint's inverse transpose.
    expect_vec3_near(out.normals[0], Vec3(1.0, 2.0, 0.0) / std::sqrt(5.0), tol::kClosedForm);
    expect_vec3_near(out.positions[0], Vec3(2.0, -1.0, 0.0), tol::kClosedForm);
    // Tangent xyz by the matrix itself, (2,-1,0), normalized; handedness copied.
    expect_vec3_near(out.tangents[0].head<3>(), Vec3(2.0, -1.0, 0.0) / std::sqrt(5.0), tol::kClosedForm);
    EXPECT_EQ(out.tangents[0].w(), -1.0);
  }
}

TEST(SkinLbs, NormalModesAgreeForRigidPalettes) {
  // Rigid joints. Vertex 0 has a single influence; vertex 1 blends two joints with the same rotation and
  // different translations (the blended linear part is then a rotation). For both, inverse transpose of the
  // blend and blend of the normal matrices give the same direction.
  const Mat3 shared = rotation(0.7, Vec3(1.0, -2.0, 0.5));
  const JointPalette palette = make_palette({affine(rotation(1.2, Vec3(0.0, 1.0, 1.0)), Vec3(1.0, 0.0, 0.0)),
                                             affine(shared, Vec3(0.0, 3.0, 0.0)), affine(shared, Vec3(-2.0, 0.0, 1.0))});
  VertexData data;
  data.positions = {Vec3(0.1, 0.2, 0.3), Vec3(-0.4, 0.5, 0.6)};
  data.normals = {Vec3(0.36, 0.48, 0.8), Vec3(0.0, -0.6, 0.8)};
  data.influences_per_vertex = 4;
  data.joints = {0, 0, 0, 0, 1, 2, 0, 0};
  data.weights = {1.0, 0.0, 0.0, 0.0, 0.3, 0.7, 0.0, 0.0};

  SkinningOptions inverse_transpose;
  inverse_transpose.normals = NormalMode::InverseTransposeOfBlend;
  SkinningOptions blended;
  blended.normals = NormalMode::BlendedNormalMatrices;
  const SkinnedVertices a = lbs(data, palette, inverse_transpose);
  const SkinnedVertices b = lbs(data, palette, blended);
  const Mat3 first = palette.skinning[0].topLeftCorner<3, 3>();
  expect_vec3_near(a.normals[0], first * data.normals[0], tol::kClosedForm);
  expect_vec3_near(b.normals[0], first * data.normals[0], tol::kClosedForm);
  expect_vec3_near(a.normals[1], shared * data.normals[1], tol::kClosedForm);
  expect_vec3_near(b.normals[1], shared * data.normals[1], tol::kClosedForm);
}

TEST(SkinLbs, NormalModesDifferWhenBlendingDistinctRotations) {
  // Identity and a quarter turn about X at 0.5 / 0.5: B = [[1,0,0],[0,0.5,-0.5],[0,0.5,0.5]], a non-uniform
  // blend. With n = (1,1,0)/sqrt(2): B^-T n ~ (1,1,1), so InverseTransposeOfBlend gives (1,1,1)/sqrt(3);
  // the blended normal matrices equal B here, B n ~ (1,0.5,0.5), i.e. (2,1,1)/sqrt(6).
  const JointPalette palette =
      make_palette({Mat4::Identity(), affine(rotation(std::numbers::pi / 2.0, Vec3::UnitX()), Vec3::Zero())});
  VertexData data;
  data.positions = {Vec3(0.0, 1.0, 0.0)};
  data.normals = {Vec3(1.0, 1.0, 0.0).normalized()};
  data.influences_per_vertex = 4;
  data.joints = {0, 1, 0, 0};
  data.weights = {0.5, 0.5, 0.0, 0.0};

  SkinningOptions inverse_transpose;
  inverse_transpose.normals = NormalMode::InverseTransposeOfBlend;
  expect_vec3_near(lbs(data, palette, inverse_transpose).normals[0], Vec3(1.0, 1.0, 1.0) / std::sqrt(3.0),
                   tol::kClosedForm);
  SkinningOptions blended;
  blended.normals = NormalMode::BlendedNormalMatrices;
  expect_vec3_near(lbs(data, palette, blended).normals[0], Vec3(2.0, 1.0, 1.0) / std::sqrt(6.0),
                   tol::kClosedForm);
}

TEST(SkinLbs, TangentsNormalizedWithHandednessKept) {
  // Joint: 3 x (rotation by 90 degrees about Y), translated; tangent (0,0,2) -> 3 Ry90 (0,0,2) = (6,0,0).
  const JointPalette palette =
      make_palette({affine(3.0 * rotation(std::numbers::pi / 2.0, Vec3::UnitY()), Vec3(1.0, 1.0, 1.0))});
  VertexData data;
  data.positions = {Vec3(0.0, 0.0, 0.0)};
  data.tangents = {Vec4(0.0, 0.0, 2.0, -1.0)};
  data.influences_per_vertex = 4;
  data.joints = {0, 0, 0, 0};
  data.weights = {1.0, 0.0, 0.0, 0.0};
  const SkinnedVertices out = lbs(data, palette);
  ASSERT_EQ(out.tangents.size(), 1u);
  expect_vec3_near(out.tangents[0].head<3>(), Vec3(1.0, 0.0, 0.0), tol::kClosedForm);
  EXPECT_EQ(out.tangents[0].w(), -1.0);
  EXPECT_TRUE(out.normals.empty());
  expect_vec3_near(out.positions[0], Vec3(1.0, 1.0, 1.0), tol::kClosedForm);
}

TEST(SkinLbs, EightInfluencesPerVertex) {
  // Joint i translates by (i, 2i, 0) with weight (i+1)/36 (the weights sum to 1). The blended translation is
  // sum (i+1) i / 36 (1, 2, 0) = (sum i^2 + sum i) / 36 = (140 + 28) / 36 = 14/3 times (1, 2, 0).
  // Dropping influences 4..7 would give 20/36 instead.
  std::vector<Mat4> matrices;
  VertexData data;
  data.influences_per_vertex = 8;
  for (int i = 0; i < 8; ++i) {
    matrices.push_back(affine(Mat3::Identity(), Vec3(i, 2.0 * i, 0.0)));
    data.joints.push_back(static_cast<uint32_t>(i));
    data.weights.push_back((i + 1) / 36.0);
  }
  const JointPalette palette = make_palette(matrices);
  data.positions = {Vec3(1.0, -1.0, 0.5)};
  const SkinnedVertices out = lbs(data, palette);
  expect_vec3_near(out.positions[0], Vec3(1.0 + 14.0 / 3.0, -1.0 + 28.0 / 3.0, 0.5), tol::kClosedForm);
}

TEST(SkinLbs, TwelveInfluencesPerVertex) {
  // Twelve joints translating by (0, 0, i), each with weight 1/12: the mean translation is (0, 0, 5.5).
  std::vector<Mat4> matrices;
  VertexData data;
  data.influences_per_vertex = 12;
  for (int i = 0; i < 12; ++i) {
    matrices.push_back(affine(Mat3::Identity(), Vec3(0.0, 0.0, i)));
    // Listed in reverse joint order: the influence slot, not the joint index, carries the weight.
    data.joints.push_back(static_cast<uint32_t>(11 - i));
    data.weights.push_back(1.0 / 12.0);
  }
  const JointPalette palette = make_palette(matrices);
  data.positions = {Vec3(2.0, 3.0, -4.0), Vec3(0.0, 0.0, 0.0)};
  // The second vertex uses the same influences as the first.
  const std::vector<uint32_t> first_joints = data.joints;
  const std::vector<double> first_weights = data.weights;
  data.joints.insert(data.joints.end(), first_joints.begin(), first_joints.end());
  data.weights.insert(data.weights.end(), first_weights.begin(), first_weights.end());
  const SkinnedVertices out = lbs(data, palette);
  ASSERT_EQ(out.positions.size(), 2u);
  expect_vec3_near(out.positions[0], Vec3(2.0, 3.0, 1.5), tol::kClosedForm);
  expect_vec3_near(out.positions[1], Vec3(0.0, 0.0, 5.5), tol::kClosedForm);
}

TEST(SkinLbs, OutputIsBitIdenticalForAnyThreadCount) {
  // 10,007 vertices (not a multiple of 3, so the thread ranges are uneven).
  constexpr int kVertexCount = 10007;
  const VariedInput input = make_varied_input(kVertexCount, 4, kVariedAngleStep);
  for (NormalMode mode : {NormalMode::InverseTransposeOfBlend, NormalMode::BlendedNormalMatrices}) {
    SCOPED_TRACE(static_cast<int>(mode));
    SkinningOptions one_thread;
    one_thread.threads = 1;
    one_thread.normals = mode;
    SkinningOptions three_threads = one_thread;
    three_threads.threads = 3;
    const SkinnedVertices serial = lbs(input.data, input.palette, one_thread);
    const SkinnedVertices parallel = lbs(input.data, input.palette, three_threads);
    ASSERT_EQ(serial.positions.size(), static_cast<size_t>(kVertexCount));
    expect_bit_identical(serial, parallel);
  }
}

TEST(SkinLbs, EveryKernelGivesTheScalarKernelsBits) {
  // The SIMD kernels promise the scalar kernel's IEEE operations in its order. Checked for the specialized
  // influence counts (1, 2, 4, 8) and the generic path (3, 5), both weight policies and both normal modes.
  int compared = 0;
  for (SkinningKernel kernel : {SkinningKernel::Avx2, SkinningKernel::Avx512, SkinningKernel::Auto}) {
    if (!skinning_kernel_available(kernel)) {
      std::printf("[ kernel   ] %s not available on this CPU: not compared\n", skinning_kernel_name(kernel));
      continue;
    }
    for (int influences : {1, 2, 3, 4, 5, 8}) {
      const VariedInput input = make_varied_input(2003, influences, kVariedAngleStep);
      for (WeightPolicy policy : {WeightPolicy::AsStored, WeightPolicy::Renormalize}) {
        for (NormalMode mode : {NormalMode::InverseTransposeOfBlend, NormalMode::BlendedNormalMatrices}) {
          SCOPED_TRACE(std::string(skinning_kernel_name(kernel)) + " influences=" + std::to_string(influences) +
                       " renormalize=" + std::to_string(policy == WeightPolicy::Renormalize) +
                       " mode=" + std::to_string(static_cast<int>(mode)));
          SkinningOptions scalar;
          scalar.weights = policy;
          scalar.normals = mode;
          scalar.kernel = SkinningKernel::Scalar;
          SkinningOptions simd = scalar;
          simd.kernel = kernel;
          expect_bit_identical(lbs(input.data, input.palette, scalar), lbs(input.data, input.palette, simd));
          ++compared;
        }
      }
    }
  }
  // Auto always resolves to some kernel, so at least its comparisons ran.
  EXPECT_GE(compared, 24);
}

TEST(SkinLbs, OutputBuffersAreResizedAndReused) {
  // The caller may pass buffers from a previous, larger call: they are resized to n, not appended to.
  const JointPalette palette = make_palette({affine(Mat3::Identity(), Vec3(0.0, 0.0, 1.0))});
  VertexData data;
  data.positions = {Vec3(1.0, 0.0, 0.0)};
  data.influences_per_vertex = 4;
  data.joints = {0, 0, 0, 0};
  data.weights = {1.0, 0.0, 0.0, 0.0};
  SkinnedVertices out;
  out.positions.assign(5, Vec3(7.0, 7.0, 7.0));
  skin_lbs(data.input(palette), SkinningOptions{}, out);
  ASSERT_EQ(out.positions.size(), 1u);
  expect_vec3_near(out.positions[0], Vec3(1.0, 0.0, 1.0), tol::kClosedForm);
}

}  // namespace
}  // namespace skinref
