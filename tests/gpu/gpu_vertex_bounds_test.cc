// The per-vertex bounds of reference/verify/vertex_error_bounds.h against real float32 runs of the Vulkan compute
// skinning (gpu/skinning_gpu.h), compared by reference/verify/vertex_compare.h: every built-in scene and every corpus
// model, LBS and DQS, at three times, with the reference's palettes in float32 and with the GPU animation pass's
// palettes (--palette gpu). Every value must be within its bound and bounded, and the bounds must be tight (the
// median error/bound over the built-in cases above 1/1000). A wrong palette (one joint turned by 1e-3 rad), the
// other normal convention and renormalized weights must each be caught, at a vertex the culprit influences.
// The reference is the independent computation; the bounds are derived, not fitted. Every case prints its
// figures so that margins and tightness show in the log.
#include "anim/evaluate_pose.h"
#include "gpu/animation_gpu.h"
#include "gpu/skinning_gpu.h"
#include "io/builtin_scenes.h"
#include "io/load_model.h"
#include "skin/evaluate_vertices.h"
#include "support/cli_runner.h"
#include "support/corpus_models.h"
#include "support/gpu_fixture.h"
#include "support/skinning_cases.h"
#include "support/temp_dir.h"
#include "support/tolerances.h"
#include "support/vector_distance.h"
#include "verify/pose_error_bounds.h"
#include "verify/vertex_compare.h"
#include "verify/vertex_error_bounds.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::distance;
using test::length;
using test::method_name;
using test::builtin_sample_times;
using test::sample_times;
using test::time_text;
using test::twist_collapsed_ring;  // LBS at the same half turn: the collapsed middle ring


// What a set of comparisons adds up to: how many ratios are above 1/1000 among those that differ at all (the
// median is above 1/1000 exactly when they are more than half), and the ratios' largest value. Counted from
// the bounds and the results directly, independently of compare_vertices().
struct RatioTally {
  size_t differing = 0;
  size_t above_thousandth = 0;
  double max_ratio = 0.0;

  void add(double error, double bound, double magnitude) {
    if (error == 0.0) return;
    const double ratio = error / (bound + tol::kReferenceRelative * magnitude);
    ++differing;
    if (ratio > 1e-3) ++above_thousandth;
    max_ratio = std::max(max_ratio, ratio);
  }
  void add_all(const std::vector<WorldPrimitive>& test, const std::vector<WorldPrimitive>& ref,
               const std::vector<PrimitiveErrorBounds>& bounds) {
    ASSERT_EQ(test.size(), ref.size());
    ASSERT_EQ(bounds.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      const SkinnedVertices& t = test[i].vertices;
      const SkinnedVertices& r = ref[i].vertices;
      for (size_t v = 0; v < r.positions.size(); ++v)
        add(distance(t.positions[v], r.positions[v]), bounds[i].position[v], length(r.positions[v]));
      for (size_t v = 0; v < r.normals.size(); ++v) add(distance(t.normals[v], r.normals[v]), bounds[i].normal[v], 1.0);
      for (size_t v = 0; v < r.tangents.size(); ++v)
        add(distance(t.tangents[v], r.tangents[v]), bounds[i].tangent[v], 1.0);
    }
  }
};

// The node indices of the influences of non-zero weight of the worst vertex.
std::vector<int> live_joints(const WorstVertex& worst) {
  std::vector<int> nodes;
  for (size_t i = 0; i < worst.joint_nodes.size() && i < worst.weights.size(); ++i)
    if (worst.weights[i] != 0.0) nodes.push_back(worst.joint_nodes[i]);
  return nodes;
}

bool influenced_by(const WorstVertex& worst, int node) {
  const std::vector<int> nodes = live_joints(worst);
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

// What a case may have besides values within their bounds: exactly this many values without a bound, and
// exactly this many normals and tangents whose direction the analysis cannot bound, which get the cap
// tol::kUnitVectorDifferenceCap (2 + 16 ulp, true of any two unit vectors).
struct Allowed {
  size_t unbounded = 0;
  size_t capped = 0;
};

class GpuVertexBoundsTest : public test::ValidatedGpuTest {
 protected:
  // One float32 run against the reference with its bounds: `gpu_palette` runs the animation pass on the GPU
  // too, at the float32 time, the bounds then carrying its palettes' bounds. Checks that every value is within
  // its bound, that unbounded and capped values are as `allowed`, prints the figures, and adds the ratios to
  // `tally` when given.
  VertexComparison check(const Scene& scene, int animation, double time, const SkinningOptions& options,
                         bool gpu_palette, const std::string& what, RatioTally* tally = nullptr,
                         const Allowed& allowed = {}) {
    EvaluatedPose gpu_pose;
    if (gpu_palette) gpu_pose = gpu::gpu_evaluate_pose(*context_, scene, animation, time);
    const double reference_time = gpu_palette ? gpu_pose.time : time;
    const EvaluatedPose ref_pose = evaluate_pose(scene, animation, reference_time);
    const std::vector<WorldPrimitive> gpu =
        gpu::gpu_evaluate_vertices(*context_, scene, gpu_palette ? gpu_pose : ref_pose, options);
    const std::vector<WorldPrimitive> ref = evaluate_vertices(scene, ref_pose, options);
    PoseErrorBounds palette_bounds;
    if (gpu_palette) palette_bounds = float32_pose_error_bounds(scene, animation, reference_time);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<PrimitiveErrorBounds> bounds =
        float32_vertex_error_bounds(scene, ref_pose, options, gpu_palette ? &palette_bounds : nullptr);
    const double bound_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const VertexComparison c = compare_vertices(scene, ref, gpu, bounds);
    EXPECT_EQ(c.over, 0u) << what << ": worst " << c.worst.attribute << " of vertex " << c.worst.vertex
                          << " in primitive " << c.worst.primitive_index << ", error " << c.worst.error << " bound "
                          << c.worst.bound;
    EXPECT_GT(c.values, 0u) << what;

    size_t capped = 0;
    for (const PrimitiveErrorBounds& b : bounds) {
      capped += size_t(std::count(b.normal.begin(), b.normal.end(), tol::kUnitVectorDifferenceCap));
      capped += size_t(std::count(b.tangent.begin(), b.tangent.end(), tol::kUnitVectorDifferenceCap));
    }
    EXPECT_EQ(c.unbounded, allowed.unbounded) << what;
    EXPECT_EQ(capped, allowed.capped) << what;
    if (tally) tally->add_all(gpu, ref, bounds);
    std::string notes;
    if (capped) notes += ", " + std::to_string(capped) + " directions at the cap";
    if (c.unbounded) notes += ", " + std::to_string(c.unbounded) + " unbounded";
    std::printf("[ measured ] %-52s %8zu values  error/bound max %.3f median %.2e  bounds %.1f ms%s\n", what.c_str(),
                c.values, c.max_ratio, c.median_ratio, bound_ms, notes.c_str());
    return c;
  }
};

// ---- every built-in scene, LBS and DQS, three times, both palettes; the tightness over all of them --------

// The two exceptions are at builtin:twist's end, where joint 1 has turned a half turn about the axis.
// DQS with a GPU palette has no bound there (no other case lacks one).
// Its quaternion is then orthogonal to joint 0's, (1, 0, 0, 0) against (0, 0, 0, 1): the DQS hemisphere test
// of every vertex that blends the two decides on a dot product of exactly 0. With the reference's palette the
// float computes that 0 exactly (products of exact zeros) and decides as the reference; a GPU palette is off
// by float roundings, so its dot product has either sign and DQS may blend towards +90 or -90 degrees: no
// bound exists (vertex_error_bounds.h). Those are the vertices with both weights non-zero, L/4 < x < 3L/4
// (builtin_scenes.h), their positions and normals.
size_t twist_half_turn_unbounded(const Scene& scene) {
  size_t blended = 0;
  for (const Vec3& p : scene.meshes[0].primitives[0].positions)
    if (p.x() > 0.25 * kTwistLength && p.x() < 0.75 * kTwistLength) ++blended;
  return 2 * blended;
}

TEST_F(GpuVertexBoundsTest, BuiltinScenesWithinBoundsAndTight) {
  RatioTally tally;
  for (const std::string& name : builtin_scene_names()) {
    const Scene scene = make_builtin_scene(name);
    ASSERT_FALSE(scene.animations.empty()) << name;
    for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
      SkinningOptions options;
      options.method = method;
      for (double time : builtin_sample_times(scene, name))
        for (bool gpu_palette : {false, true}) {
          const bool half_turn = name == "twist" && time == scene.animations[0].end_time;
          Allowed allowed;
          if (half_turn && method == SkinningMethod::Dqs && gpu_palette)
            allowed.unbounded = twist_half_turn_unbounded(scene);
          if (half_turn && method == SkinningMethod::Lbs) allowed.capped = twist_collapsed_ring(scene);
          check(scene, 0, time, options, gpu_palette,
                name + " " + method_name(method) + " t=" + time_text(time) + (gpu_palette ? " palette gpu" : ""),
                &tally, allowed);
        }
    }
  }
  ASSERT_GT(tally.differing, 0u);
  const double fraction = double(tally.above_thousandth) / double(tally.differing);
  std::printf("[ measured ] all built-in cases: %zu values differ, %.1f %% of them with error/bound > 1e-3, largest"
              " ratio %.3f\n",
              tally.differing, 100.0 * fraction, tally.max_ratio);
  // More than half above 1/1000 is the median above 1/1000: the bound is not vacuous.
  EXPECT_GT(fraction, 0.5);
  EXPECT_LE(tally.max_ratio, 1.0);
}

TEST_F(GpuVertexBoundsTest, WeightAndNormalOptionsWithinBounds) {
  // The weights scaled to sum to 0.7 (as gpu_skinning_test does), both policies and both normal conventions.
  const Scene scene = test::twist_with_scaled_weights(0.7);
  for (const SkinningOptions& options : test::weight_and_normal_options())
    check(scene, 0, 0.4, options, false, "twist x0.7 " + test::options_label(options));
}

TEST_F(GpuVertexBoundsTest, MillionVertexBoundsTakeWellUnderASecondPerThread) {
  const Scene scene = make_builtin_scene("million");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.8);
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
    SkinningOptions options;
    options.method = method;
    const auto start = std::chrono::steady_clock::now();
    const std::vector<PrimitiveErrorBounds> bounds = float32_vertex_error_bounds(scene, pose, options, nullptr);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(bounds.size(), 1u);
    EXPECT_EQ(bounds[0].position.size(), 1001000u);
    std::printf("[ measured ] million %s: bounds of %zu vertices in %.0f ms (1 thread)\n", method_name(method),
                bounds[0].position.size(), ms);
  }
}

// ---- the corpus ---------------------------------------------------------------------------------------------

class GpuVertexBoundsCorpusTest : public GpuVertexBoundsTest,
                                  public ::testing::WithParamInterface<test::CorpusModel> {};

TEST_P(GpuVertexBoundsCorpusTest, WithinBoundsAtThreeTimes) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  const Scene scene = load_model(test::corpus_dir() + "/" + GetParam().path);
  const int animation = scene.animations.empty() ? -1 : 0;
  // DQS applies to skinned nodes only: a model without skins is skinned the same either way.
  std::vector<SkinningMethod> methods{SkinningMethod::Lbs};
  if (!scene.skins.empty()) methods.push_back(SkinningMethod::Dqs);
  RatioTally tally;
  for (double time : sample_times(scene, animation))
    for (SkinningMethod method : methods)
      for (bool gpu_palette : {false, true}) {
        SkinningOptions options;
        options.method = method;
        check(scene, animation, time, options, gpu_palette,
              std::string(GetParam().name) + " " + method_name(method) + " t=" + time_text(time) +
                  (gpu_palette ? " palette gpu" : ""),
              &tally);
      }
  if (tally.differing > 0)
    std::printf("[ measured ] %s: %zu values differ, %.1f %% with error/bound > 1e-3\n", GetParam().name,
                tally.differing, 100.0 * double(tally.above_thousandth) / double(tally.differing));
}

INSTANTIATE_TEST_SUITE_P(Corpus, GpuVertexBoundsCorpusTest, ::testing::ValuesIn(test::kCorpusModels),
                         test::model_test_name);

// ---- mutations: each must be caught ---------------------------------------------------------------------------

class GpuVertexMutationTest : public GpuVertexBoundsTest {
 protected:
  // The GPU's vertices from `gpu_pose` with `gpu_options` against the reference's from `ref_pose` with
  // `options`, held to the bounds of the reference's run.
  VertexComparison compare_runs(const Scene& scene, const EvaluatedPose& ref_pose, const EvaluatedPose& gpu_pose,
                                const SkinningOptions& options, const SkinningOptions& gpu_options,
                                const std::string& what) {
    const std::vector<WorldPrimitive> gpu = gpu::gpu_evaluate_vertices(*context_, scene, gpu_pose, gpu_options);
    const std::vector<WorldPrimitive> ref = evaluate_vertices(scene, ref_pose, options);
    const VertexComparison c =
        compare_vertices(scene, ref, gpu, float32_vertex_error_bounds(scene, ref_pose, options, nullptr));
    std::printf("[ measured ] %-44s %6zu of %6zu values over their bound, max error/bound %.3g; worst: %s of vertex"
                " %zu, error %.2e, bound %.2e\n",
                what.c_str(), c.over, c.values, c.max_ratio, c.worst.attribute.c_str(), c.worst.vertex, c.worst.error,
                c.worst.bound);
    return c;
  }
};

TEST_F(GpuVertexMutationTest, PaletteJointTurnedByAMilliradianIsCaught) {
  // builtin:bend: the elbow's palette entry turned by 1e-3 rad about +Y in bind space (a rotation about the
  // bind-space origin, so every vertex the elbow influences moves by up to 1e-3 of its distance from it).
  const Scene scene = make_builtin_scene("bend");
  const EvaluatedPose ref_pose = evaluate_pose(scene, 0, 0.3);
  const size_t culprit = 1;  // the elbow
  const int culprit_node = scene.skins[0].joints[culprit];
  EvaluatedPose wrong = ref_pose;
  Mat4 turn = Mat4::Identity();
  turn.topLeftCorner<3, 3>() = Eigen::AngleAxisd(1e-3, Vec3::UnitY()).toRotationMatrix();
  Mat4& jm = wrong.palettes[0].skinning[culprit];
  jm = jm * turn;
  wrong.palettes[0].normal[culprit] = normal_matrix(jm.topLeftCorner<3, 3>());
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
    SkinningOptions options;
    options.method = method;
    const VertexComparison c = compare_runs(scene, ref_pose, wrong, options, options,
                                            std::string("elbow turned 1e-3 rad, ") + method_name(method));
    EXPECT_GT(c.over, 0u) << method_name(method);
    EXPECT_FALSE(c.passed());
    EXPECT_TRUE(influenced_by(c.worst, culprit_node)) << method_name(method) << ": worst vertex " << c.worst.vertex;
    EXPECT_GT(c.max_ratio, 10.0) << method_name(method);
  }
}

TEST_F(GpuVertexMutationTest, OtherNormalConventionIsCaught) {
  // builtin:chain64 between keys: neighbouring joints differ by a rotation of about 1.6 degrees, so the blend of
  // two normal matrices (rotations) and the inverse transpose of the blended matrix differ by a few 1e-5 in
  // direction (their difference is second order in the angle), far above float rounding. None of the built-in
  // palettes has a non-uniform scale (the one non-uniform scale of node-transforms is on a non-joint node,
  // ignored by skinning), so a blend of rotations is where the conventions part.
  const Scene scene = make_builtin_scene("chain64");
  const double time = 0.4 * scene.animations[0].end_time;
  const EvaluatedPose pose = evaluate_pose(scene, 0, time);
  SkinningOptions options;  // inverse transpose
  SkinningOptions blended;
  blended.normals = NormalMode::BlendedNormalMatrices;
  // How far the two conventions are apart in the reference itself: measurably.
  const std::vector<WorldPrimitive> a = evaluate_vertices(scene, pose, options);
  const std::vector<WorldPrimitive> b = evaluate_vertices(scene, pose, blended);
  double apart = 0.0;
  for (size_t v = 0; v < a[0].vertices.normals.size(); ++v)
    apart = std::max(apart, (a[0].vertices.normals[v] - b[0].vertices.normals[v]).norm());
  std::printf("[ measured ] chain64 t=%g: the two normal conventions differ by up to %.2e in the reference\n", time,
              apart);
  EXPECT_GT(apart, 1e-5);

  const VertexComparison c = compare_runs(scene, pose, pose, options, blended, "chain64 blend-normal-matrices");
  EXPECT_GT(c.over, 0u);
  EXPECT_EQ(c.worst.attribute, "normal");
  // Where a vertex has one live influence the conventions agree: the worst is a blend of two joints.
  EXPECT_GE(live_joints(c.worst).size(), 2u) << "worst vertex " << c.worst.vertex;
}

TEST_F(GpuVertexMutationTest, RenormalizedWeightsAreCaught) {
  // Weights summing to 0.7 used as stored by the reference, renormalized on the GPU.
  const Scene scene = test::twist_with_scaled_weights(0.7);
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.4);
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
    SkinningOptions options;
    options.method = method;
    SkinningOptions renormalized = options;
    renormalized.weights = WeightPolicy::Renormalize;
    const VertexComparison c = compare_runs(scene, pose, pose, options, renormalized,
                                            std::string("twist x0.7 renormalized on the GPU, ") + method_name(method));
    EXPECT_GT(c.over, 0u) << method_name(method);
    EXPECT_EQ(c.worst.attribute, "position") << method_name(method);
    // Every vertex is moved (by 1/0.7 of its scaled position): the worst has live influences, as every vertex.
    EXPECT_FALSE(live_joints(c.worst).empty());
  }
}

// ---- the command line -------------------------------------------------------------------------------------------

TEST(GpuVertexBoundsCliTest, CompareVulkanDumpWithReferenceDumpExitsZero) {
  const test::TempDir dir;
  // 0.625 is a float32 value, so the reference at --time 0.625 is the one the GPU animation pass is held to.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--method", "lbs"}, std::vector<std::string>{"--method", "dqs"},
        std::vector<std::string>{"--method", "lbs", "--palette", "gpu"}}) {
    std::string label;
    for (const std::string& e : extra) label += " " + e;
    SCOPED_TRACE(label);
    std::vector<std::string> gpu_args{"skin", "builtin:bend", "--time", "0.625", "--backend", "vulkan", "--validate",
                                      "--out", dir.file("gpu.skv")};
    std::vector<std::string> ref_args{"skin", "builtin:bend", "--time", "0.625", "--out", dir.file("ref.skv")};
    std::vector<std::string> compare_args{"compare",      dir.file("ref.skv"), dir.file("gpu.skv"),
                                          "--model",      "builtin:bend",      "--time",
                                          "0.625",        "--report",          dir.file("report")};
    gpu_args.insert(gpu_args.end(), extra.begin(), extra.end());
    ref_args.insert(ref_args.end(), extra.begin(), extra.begin() + 2);  // the reference has no --palette
    compare_args.insert(compare_args.end(), extra.begin(), extra.end());
    const test::CliRun gpu = test::run_cli(dir, gpu_args);
    ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
    const test::CliRun ref = test::run_cli(dir, ref_args);
    ASSERT_EQ(ref.exit_code, 0) << ref.err;
    const test::CliRun compare = test::run_cli(dir, compare_args);
    EXPECT_EQ(compare.exit_code, 0) << compare.out << compare.err;
    EXPECT_NE(compare.out.find("PASS"), std::string::npos) << compare.out;
    const nlohmann::json report = nlohmann::json::parse(test::read_bytes(dir.file("report/vertices.json")));
    EXPECT_EQ(report["pass"], true);
    EXPECT_EQ(report["over"], 0);
    EXPECT_EQ(report["values"], 2 * make_builtin_scene("bend").meshes[0].primitives[0].vertex_count());
    std::printf("[ measured ] skinref compare (vulkan%s): %s", label.c_str(),
                compare.out.substr(compare.out.find("vertices:")).c_str());
  }
}

}  // namespace
}  // namespace skinref
