// Allowances (verify/engine_allowances.h): the pose bounds widened by exactly the stated sizes, the interpolation
// factor's allowance carried by each sampled channel's span, and diagnose fitting the size of an error that no
// convention names (every rotation of an engine turned by a fixed small angle).
#include "support/convention_scene.h"
#include "support/planted_engine.h"
#include "anim/sampling.h"
#include "verify/diagnose.h"
#include "verify/engine_allowances.h"

#include <gtest/gtest.h>

#include <cmath>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

LocalPose sampled_pose(const Scene& scene, double time) {
  LocalPose values = rest_pose(scene);
  sample_animation(scene, 0, time, values);
  return values;
}

TEST(EngineAllowancesTest, LocalBoundsWidenByTheStatedSizes) {
  const Scene scene = testing::make_convention_scene();
  const double time = 1.2;
  const PoseErrorBounds plain = pose_error_bounds(BoundsModel::AnyOrder, scene, 0, time);
  EngineAllowances allowances;
  allowances.rotation = 2e-4;
  allowances.translation_scale = 1e-3;
  const PoseErrorBounds widened = pose_error_bounds_allowing(BoundsModel::AnyOrder, scene, 0, time, allowances);
  const LocalPose values = sampled_pose(scene, time);
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    SCOPED_TRACE(n);
    const Transform& trs = values.local[n];
    for (int i = 0; i < 3; ++i) {
      EXPECT_DOUBLE_EQ(widened.local[n][size_t(i)], plain.local[n][size_t(i)] + 1e-3 * std::abs(trs.translation[i]));
      EXPECT_DOUBLE_EQ(widened.local[n][size_t(7 + i)], plain.local[n][size_t(7 + i)] + 1e-3 * std::abs(trs.scale[i]));
    }
    for (size_t i = 3; i < 7; ++i) EXPECT_DOUBLE_EQ(widened.local[n][i], plain.local[n][i] + 1e-4);  // half the angle
    for (size_t i = 0; i < 16; ++i) EXPECT_GE(widened.global[n][i], plain.global[n][i]);
  }
  // No allowance: the plain bounds themselves.
  const PoseErrorBounds none = pose_error_bounds_allowing(BoundsModel::AnyOrder, scene, 0, time, EngineAllowances{});
  EXPECT_EQ(none.local, plain.local);
}

// The spine's scale goes (1, 1, 1) -> (1.3, 0.8, 1.1) LINEAR over [0.5, 2]: at u = 0.5 a factor within e u moves it
// by e u |b - a| per component, which is what its bound gains.
TEST(EngineAllowancesTest, TheInterpolationFactorsAllowanceMovesAChannelByItsSpan) {
  const Scene scene = testing::make_convention_scene();
  const double time = 1.25, u = 0.5, e = 1e-3;
  const size_t spine = 2;
  const PoseErrorBounds plain = pose_error_bounds(BoundsModel::AnyOrder, scene, 0, time);
  EngineAllowances allowances;
  allowances.interpolation = e;
  const PoseErrorBounds widened = pose_error_bounds_allowing(BoundsModel::AnyOrder, scene, 0, time, allowances);
  const double span[3] = {0.3, 0.2, 0.1};
  for (int i = 0; i < 3; ++i) {
    const double gain = widened.local[spine][size_t(7 + i)] - plain.local[spine][size_t(7 + i)];
    const double expected = e * u * span[i];
    EXPECT_GE(gain, 0.99 * expected) << i;
    EXPECT_LE(gain, 1.01 * expected + 1e-12) << i;
  }
  EXPECT_EQ(widened.local[3][0], plain.local[3][0]) << "a STEP channel has no interpolation factor";
}

// An engine whose every rotation (keys and the joints' rest values) is turned by 3e-4 rad about one axis, an error
// no convention names: diagnose names none, not even in part, and fits a rotation allowance of about that size.
TEST(EngineAllowancesTest, DiagnoseFitsTheSizeOfAnUnnamedRotationError) {
  const Scene scene = testing::make_convention_scene();
  const double turn = 3e-4;
  const Quat offset(Eigen::AngleAxisd(turn, Vec3(1, 2, 3).normalized()));
  Scene engine = scene;
  for (const int joint : engine.skins[0].joints) engine.nodes[size_t(joint)].rest.rotation = offset * engine.nodes[size_t(joint)].rest.rotation;
  for (const AnimationChannel& channel : engine.animations[0].channels) {
    AnimationSampler& sampler = engine.animations[0].samplers[size_t(channel.sampler)];
    if (channel.path != ChannelPath::Rotation || sampler.interpolation != Interpolation::Linear) continue;
    for (size_t k = 0; k < sampler.times.size(); ++k) {
      double* v = &sampler.values[4 * k];
      const Quat q = offset * Quat(v[3], v[0], v[1], v[2]);
      v[0] = q.x(), v[1] = q.y(), v[2] = q.z(), v[3] = q.w();
    }
  }
  finalize_scene(engine);
  std::vector<DiagnoseObservation> observations;
  for (double time : {0.8, 1.3}) observations.push_back({"turned", time, test::planted_engine_dump(engine, 0, time, {})});
  DiagnoseSettings settings;
  settings.animation = 0;
  const Diagnosis d = diagnose(scene, observations, settings);
  EXPECT_FALSE(d.explained);
  EXPECT_FALSE(d.partial) << "partly named " << test::joined(d.partial->score.settings);
  ASSERT_FALSE(d.allowance_fits.empty());
  bool rotation_alone = false;
  for (const AllowanceFit& fit : d.allowance_fits) {
    EXPECT_EQ(fit.score.failing(), 0u);
    if (fit.allowances.translation_scale == 0.0 && fit.allowances.interpolation == 0.0) {
      rotation_alone = true;
      EXPECT_GE(fit.allowances.rotation, turn / 4.0);
      EXPECT_LE(fit.allowances.rotation, 2.0 * turn);
      std::printf("  rotation allowance fitted: %.3g rad (planted turn %.3g rad)\n", fit.allowances.rotation, turn);
    }
  }
  EXPECT_TRUE(rotation_alone);
}

}  // namespace
}  // namespace skinref
