// The GPU animation pass (gpu/animation_gpu.h) against the reference pose (evaluate_pose at the same float32
// time), value by value, within the bounds derived by running error analysis of the float computation
// (reference/verify/pose_error_bounds.h): local TRS, morph weights, global matrices, palettes and normal matrices of
// every built-in scene and every corpus model, at every key time, between keys, before the start and past
// the end. The reference is the independent computation; the bound is derived, not fitted. Each case prints
// its largest error/bound ratio so that the margin (and the tightness of the bound) shows in the log.
#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "gpu/animation_gpu.h"
#include "gpu/skinning_gpu.h"
#include "io/builtin_scenes.h"
#include "io/gltf_load.h"
#include "skin/evaluate_vertices.h"
#include "support/cli_runner.h"
#include "support/corpus_models.h"
#include "support/gpu_fixture.h"
#include "support/tolerances.h"
#include "verify/pose_error_bounds.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

// Every value of one GPU pose against the reference's, with its bound.
struct PoseComparison {
  size_t values = 0;
  size_t over = 0;          // values outside their bound
  size_t infinite = 0;      // values without a bound (none expected here)
  double max_ratio = 0.0;   // largest |gpu - ref| / bound
  double max_error = 0.0;
  std::vector<double> ratios;  // of the values that differ at all
  std::string first_over;      // where the first value outside its bound is

  void add(double gpu, double ref, double bound, const std::string& where) {
    ++values;
    if (!std::isfinite(bound)) ++infinite;
    const double error = std::abs(gpu - ref);
    max_error = std::max(max_error, error);
    const double allowed = bound + tol::kReferenceRelative * std::abs(ref);
    if (!within_bound(gpu, ref, bound)) {
      if (over++ == 0)
        first_over = where + ": gpu " + std::to_string(gpu) + " ref " + std::to_string(ref) + " error " +
                     std::to_string(error) + " bound " + std::to_string(allowed);
    }
    if (error > 0.0 && allowed > 0.0) {
      ratios.push_back(error / allowed);
      max_ratio = std::max(max_ratio, error / allowed);
    }
  }
  void add_all(std::span<const double> gpu, std::span<const double> ref, std::span<const double> bound,
               const std::string& where) {
    ASSERT_EQ(gpu.size(), ref.size()) << where;
    ASSERT_EQ(bound.size(), ref.size()) << where;
    for (size_t i = 0; i < ref.size(); ++i) add(gpu[i], ref[i], bound[i], where + "[" + std::to_string(i) + "]");
  }
  double median_ratio() {
    if (ratios.empty()) return 0.0;
    std::nth_element(ratios.begin(), ratios.begin() + std::ptrdiff_t(ratios.size() / 2), ratios.end());
    return ratios[ratios.size() / 2];
  }
};

std::vector<double> trs_values(const Transform& trs) {
  return {trs.translation.x(), trs.translation.y(), trs.translation.z(), trs.rotation.x(), trs.rotation.y(),
          trs.rotation.z(),    trs.rotation.w(),    trs.scale.x(),       trs.scale.y(),    trs.scale.z()};
}

void compare_pose(const Scene& scene, const EvaluatedPose& gpu, const EvaluatedPose& ref, const PoseErrorBounds& bounds,
                  PoseComparison& out) {
  ASSERT_EQ(gpu.local.local.size(), scene.nodes.size());
  ASSERT_EQ(gpu.model.global.size(), scene.nodes.size());
  ASSERT_EQ(gpu.palettes.size(), scene.skins.size());
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    const std::string node = "node " + std::to_string(n);
    out.add_all(trs_values(gpu.local.local[n]), trs_values(ref.local.local[n]), bounds.local[n], node + " local");
    out.add_all(gpu.local.morph_weights[n], ref.local.morph_weights[n], bounds.morph_weights[n], node + " weights");
    out.add_all(std::span<const double>(gpu.model.global[n].data(), 16),
                std::span<const double>(ref.model.global[n].data(), 16), bounds.global[n], node + " global");
  }
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    ASSERT_EQ(gpu.palettes[s].skinning.size(), ref.palettes[s].skinning.size());
    for (size_t j = 0; j < ref.palettes[s].skinning.size(); ++j) {
      const std::string entry = "skin " + std::to_string(s) + " joint " + std::to_string(j);
      out.add_all(std::span<const double>(gpu.palettes[s].skinning[j].data(), 16),
                  std::span<const double>(ref.palettes[s].skinning[j].data(), 16), bounds.palettes[s].skinning[j],
                  entry + " palette");
      out.add_all(std::span<const double>(gpu.palettes[s].normal[j].data(), 9),
                  std::span<const double>(ref.palettes[s].normal[j].data(), 9), bounds.palettes[s].normal[j],
                  entry + " normal matrix");
    }
  }
}

// Times to check: before the start, every key time of the animation, the midpoints between consecutive ones,
// and past the end; at most `limit` of them, spread evenly.
std::vector<double> check_times(const Scene& scene, int animation, size_t limit) {
  if (animation < 0) return {0.0};
  std::vector<double> keys;
  for (const AnimationSampler& s : scene.animations[size_t(animation)].samplers)
    keys.insert(keys.end(), s.times.begin(), s.times.end());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<double> times{-0.5};
  for (size_t k = 0; k < keys.size(); ++k) {
    times.push_back(keys[k]);
    if (k + 1 < keys.size()) times.push_back(0.5 * (keys[k] + keys[k + 1]));
  }
  times.push_back(keys.empty() ? 1.0 : keys.back() + 0.25);
  if (times.size() <= limit) return times;
  std::vector<double> spread;
  for (size_t i = 0; i < limit; ++i) spread.push_back(times[i * (times.size() - 1) / (limit - 1)]);
  return spread;
}

class GpuAnimationTest : public test::ValidatedGpuTest {
 protected:
  // Evaluates `animation` of `scene` on the GPU at each time and compares with the reference.
  PoseComparison check_animation(const Scene& scene, int animation, std::span<const double> times,
                                 const std::string& what) {
    PoseComparison result;
    gpu::GpuTiming timing;
    for (double time : times) {
      const EvaluatedPose gpu = gpu::gpu_evaluate_pose(*context_, scene, animation, time, &timing);
      EXPECT_EQ(gpu.time, double(static_cast<float>(time)));
      EXPECT_EQ(gpu.animation, animation);
      const EvaluatedPose ref = evaluate_pose(scene, animation, gpu.time);
      const PoseErrorBounds bounds = float32_pose_error_bounds(scene, animation, gpu.time);
      compare_pose(scene, gpu, ref, bounds, result);
    }
    EXPECT_EQ(result.over, 0u) << what << ": " << result.first_over;
    EXPECT_EQ(result.infinite, 0u) << what;
    std::printf("[ measured ] %-44s %3zu times %8zu values  max |error| %.2e  error/bound max %.3f median %.2e"
                "  (last: device %.3f ms, end to end %.3f ms)\n",
                what.c_str(), times.size(), result.values, result.max_error, result.max_ratio, result.median_ratio(),
                timing.device_ms, timing.end_to_end_ms);
    return result;
  }
};

// ---- built-in scenes ---------------------------------------------------------------------------------------------

class GpuAnimationBuiltinTest : public GpuAnimationTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(GpuAnimationBuiltinTest, PoseAndPaletteWithinDerivedBounds) {
  const Scene scene = make_builtin_scene(GetParam());
  ASSERT_FALSE(scene.animations.empty());
  const std::vector<double> times = check_times(scene, 0, 40);
  PoseComparison result = check_animation(scene, 0, times, "builtin:" + GetParam());
  EXPECT_GT(result.values, 0u);
  // The bound is approached: a bound a thousand times the largest error would not be telling much.
  EXPECT_GT(result.max_ratio, 1e-3) << "builtin:" << GetParam() << ": the bound is far from every error";
}

INSTANTIATE_TEST_SUITE_P(Scenes, GpuAnimationBuiltinTest,
                         ::testing::Values("twist", "bend", "chain64", "eight-influences", "node-transforms", "million"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST_F(GpuAnimationTest, RestPoseWithinDerivedBounds) {
  const Scene scene = make_builtin_scene("chain64");
  const double times[] = {0.0};
  check_animation(scene, -1, times, "builtin:chain64 rest pose");
}

TEST_F(GpuAnimationTest, WrongKeyIsOutsideTheBound) {
  // The same GPU pass on a scene whose rotation key is off by 1e-4 radians must fail the bound against the
  // unmodified reference: the bound tells a float rounding from a wrong animation.
  const Scene scene = make_builtin_scene("twist");
  Scene wrong = scene;
  bool changed = false;
  for (AnimationSampler& s : wrong.animations[0].samplers) {
    if (s.components != 4 || s.times.size() < 2) continue;
    const Quat last = quat_from_xyzw(s.values[s.values.size() - 4], s.values[s.values.size() - 3],
                                     s.values[s.values.size() - 2], s.values[s.values.size() - 1]);
    const Quat nudged = last * Quat(Eigen::AngleAxisd(1e-4, Vec3::UnitZ()));
    const auto xyzw = quat_to_xyzw(nudged);
    std::copy(xyzw.begin(), xyzw.end(), s.values.end() - 4);
    changed = true;
  }
  ASSERT_TRUE(changed);
  finalize_scene(wrong);
  const double time = scene.animations[0].end_time;
  const EvaluatedPose gpu = gpu::gpu_evaluate_pose(*context_, wrong, 0, time);
  const EvaluatedPose ref = evaluate_pose(scene, 0, gpu.time);
  PoseComparison result;
  compare_pose(scene, gpu, ref, float32_pose_error_bounds(scene, 0, gpu.time), result);
  EXPECT_GT(result.over, 0u);
  std::printf("[ measured ] a 1e-4 rad key error: %zu of %zu values outside their bound (largest error %.2e)\n",
              result.over, result.values, result.max_error);
}

TEST_F(GpuAnimationTest, PaletteFeedsGpuSkinning) {
  // The GPU palette handed to GPU skinning: the vertices stay within the interim vertex bound of the
  // reference's (the palette's float error is a few ulps, far below it).
  const Scene scene = make_builtin_scene("bend");
  const EvaluatedPose gpu_pose = gpu::gpu_evaluate_pose(*context_, scene, 0, 0.3);
  const EvaluatedPose ref_pose = evaluate_pose(scene, 0, gpu_pose.time);
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
    SkinningOptions options;
    options.method = method;
    const std::vector<WorldPrimitive> gpu = gpu::gpu_evaluate_vertices(*context_, scene, gpu_pose, options);
    const std::vector<WorldPrimitive> ref = evaluate_vertices(scene, ref_pose, options);
    ASSERT_EQ(gpu.size(), ref.size());
    double extent = 1.0, worst = 0.0;
    for (const WorldPrimitive& prim : ref)
      for (const Vec3& p : prim.vertices.positions) extent = std::max(extent, p.cwiseAbs().maxCoeff());
    for (size_t i = 0; i < ref.size(); ++i) {
      ASSERT_EQ(gpu[i].vertices.positions.size(), ref[i].vertices.positions.size());
      for (size_t v = 0; v < ref[i].vertices.positions.size(); ++v)
        worst = std::max(worst, (gpu[i].vertices.positions[v] - ref[i].vertices.positions[v]).norm() / extent);
    }
    EXPECT_LE(worst, tol::kGpuVertexRelative);
    std::printf("[ measured ] bend %s with the GPU palette: position/extent %.2e\n",
                skinning_method_name(method), worst);
  }
}

TEST_F(GpuAnimationTest, TimingsAreReported) {
  const Scene scene = make_builtin_scene("chain64");
  gpu::GpuTiming timing;
  gpu::gpu_evaluate_pose(*context_, scene, 0, 0.5, &timing);
  EXPECT_GT(timing.end_to_end_ms, 0.0);
  if (context_->timestamps_supported()) EXPECT_GT(timing.device_ms, 0.0);
  else EXPECT_EQ(timing.device_ms, 0.0);
}

TEST_F(GpuAnimationTest, TimeBeyondFloatRangeIsBadInput) {
  const Scene scene = make_builtin_scene("twist");
  EXPECT_THROW(gpu::gpu_evaluate_pose(*context_, scene, 0, 1e300), InputError);
  EXPECT_THROW(gpu::gpu_evaluate_pose(*context_, scene, 0, -1e39), InputError);
  // The largest float is still a time (clamped to the last key like any time past the end).
  const EvaluatedPose pose = gpu::gpu_evaluate_pose(*context_, scene, 0, double(std::numeric_limits<float>::max()));
  EXPECT_EQ(pose.time, double(std::numeric_limits<float>::max()));
}

// ---- corpus ----------------------------------------------------------------------------------------------------

class GpuAnimationCorpusTest : public GpuAnimationTest, public ::testing::WithParamInterface<test::CorpusModel> {};

TEST_P(GpuAnimationCorpusTest, EveryAnimationWithinDerivedBounds) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  const Scene scene = load_gltf_file(test::corpus_dir() + "/" + GetParam().path);
  if (scene.animations.empty()) {
    const double times[] = {0.0};
    check_animation(scene, -1, times, std::string(GetParam().name) + " rest");
    return;
  }
  for (size_t a = 0; a < scene.animations.size(); ++a) {
    const std::vector<double> times = check_times(scene, int(a), 24);
    check_animation(scene, int(a), times, std::string(GetParam().name) + " anim " + std::to_string(a));
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, GpuAnimationCorpusTest, ::testing::ValuesIn(test::kCorpusModels),
                         test::model_test_name);

// ---- the command line ----------------------------------------------------------------------------------------

TEST(GpuAnimationCliTest, PoseDumpOfTheGpuPassIsWithinBounds) {
  const test::TempDir dir;
  const std::string path = dir.file("pose.json");
  const test::CliRun run = test::run_cli(
      dir, {"pose", "builtin:bend", "--time", "0.3", "--backend", "vulkan", "--validate", "--out", path});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("GPU animation"), std::string::npos) << run.out;
  const nlohmann::json dump = nlohmann::json::parse(test::read_bytes(path));
  const double time = dump.at("time").get<double>();
  EXPECT_EQ(time, double(0.3f));  // the float32 time the GPU used
  const Scene scene = make_builtin_scene("bend");
  const EvaluatedPose ref = evaluate_pose(scene, 0, time);
  const PoseErrorBounds bounds = float32_pose_error_bounds(scene, 0, time);
  PoseComparison result;
  const nlohmann::json& palette = dump.at("skins").at(0).at("palette");
  ASSERT_EQ(palette.size(), ref.palettes[0].skinning.size());
  for (size_t j = 0; j < palette.size(); ++j) {
    const std::vector<double> values = palette[j].get<std::vector<double>>();
    result.add_all(values, std::span<const double>(ref.palettes[0].skinning[j].data(), 16),
                   bounds.palettes[0].skinning[j], "joint " + std::to_string(j));
  }
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    const std::vector<double> global = dump.at("nodes").at(n).at("global").get<std::vector<double>>();
    result.add_all(global, std::span<const double>(ref.model.global[n].data(), 16), bounds.global[n],
                   "node " + std::to_string(n));
  }
  EXPECT_EQ(result.over, 0u) << result.first_over;
  EXPECT_GT(result.values, 0u);
}

TEST(GpuAnimationCliTest, SkinAndRenderWithTheGpuPalette) {
  const test::TempDir dir;
  const test::CliRun skin = test::run_cli(dir, {"skin", "builtin:twist", "--time", "0.7", "--backend", "vulkan",
                                                "--palette", "gpu", "--validate", "--out", dir.file("twist.skv")});
  EXPECT_EQ(skin.exit_code, 0) << skin.err;
  EXPECT_NE(skin.out.find("GPU animation"), std::string::npos) << skin.out;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.file("twist.skv")));
  const test::CliRun render =
      test::run_cli(dir, {"render", "builtin:twist", "--time", "0.7", "--size", "64x48", "--backend", "vulkan",
                          "--palette", "gpu", "--validate", "--out", dir.file("twist.png")});
  EXPECT_EQ(render.exit_code, 0) << render.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.file("twist.png")));
}

TEST(GpuAnimationCliTest, BadCombinationsExitTwoWithoutOutput) {
  const test::TempDir dir;
  const std::string out = dir.file("out.skv");
  const std::string recipe = dir.file("recipe.json");
  {
    std::FILE* file = std::fopen(recipe.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fputs(R"({"layers":[{"clip":{"animation":0}}]})", file);
    std::fclose(file);
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"skin", "builtin:twist", "--palette", "gpu", "--out", out}, "--palette gpu needs --backend vulkan"},
      {{"skin", "builtin:twist", "--backend", "vulkan", "--palette", "gpu", "--recipe", recipe, "--out", out},
       "recipes"},
      {{"render", "builtin:twist", "--backend", "vulkan", "--palette", "nope", "--out", dir.file("out.png")},
       "--palette"},
      {{"pose", "builtin:twist", "--backend", "vulkan", "--recipe", recipe, "--out", dir.file("out.json")}, "recipes"},
      {{"pose", "builtin:twist", "--palette", "gpu", "--out", dir.file("out.json")}, "--palette"},
  };
  for (const auto& [args, mention] : cases) {
    const test::CliRun run = test::run_cli(dir, args);
    EXPECT_EQ(run.exit_code, 2) << args[0] << " " << mention << ": " << run.err;
    EXPECT_NE(run.err.find(mention), std::string::npos) << run.err;
  }
  for (const char* name : {"out.skv", "out.png", "out.json"})
    EXPECT_FALSE(std::filesystem::exists(dir.file(name))) << name;
}

}  // namespace
}  // namespace skinref
