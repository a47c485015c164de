// GPU compute skinning (gpu/skinning_gpu.h) against the double-precision reference (evaluate_vertices): every
// built-in scene at three times with LBS and DQS, the corpus skin models, morph targets, rigid and mirrored
// nodes, the weight and normal options, zero-weight vertices, any number of influences, errors, timings, the
// prepared GpuSkinning dispatched more than once, and `skinref skin --backend vulkan`. The reference is the
// independent computation; the bound on positions is tol::kGpuVertexRelative of the model's extent, on
// normals and tangents tol::kGpuUnitVector. The validation layer is on in every test, and any warning or
// error fails it. Each case prints its largest deviations and the timings (device time from timestamp
// queries, end to end) so that the margins are visible in the log.
#include "anim/evaluate_pose.h"
#include "gpu/context.h"
#include "gpu/skinning_gpu.h"
#include "io/builtin_scenes.h"
#include "io/load_model.h"
#include "io/vertex_dump.h"
#include "skin/evaluate_vertices.h"
#include "support/cli_runner.h"
#include "support/corpus_models.h"
#include "support/gpu_fixture.h"
#include "support/skinning_cases.h"
#include "support/skinning_fixtures.h"
#include "support/temp_dir.h"
#include "support/tolerances.h"
#include "support/vector_distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::method_name;
using test::sample_times;
using test::time_text;

// The largest deviations of one GPU result from the reference's.
struct Deviation {
  double extent = 1.0;    // max(1, largest absolute coordinate of the reference's positions)
  double position = 0.0;  // largest |p_gpu - p_ref| / extent
  double normal = 0.0;    // largest |n_gpu - n_ref| (unit vectors)
  double tangent = 0.0;   // largest |t_gpu.xyz - t_ref.xyz| (unit vectors)
  size_t vertices = 0;
};

// Compares the two results primitive by primitive (same order, same identity, same sizes) and returns the
// deviations; a tangent's handedness must be copied exactly.
Deviation compare(const std::vector<WorldPrimitive>& gpu, const std::vector<WorldPrimitive>& ref) {
  Deviation d;
  EXPECT_EQ(gpu.size(), ref.size());
  if (gpu.size() != ref.size()) return d;
  for (const WorldPrimitive& prim : ref)
    for (const Vec3& p : prim.vertices.positions) d.extent = std::max(d.extent, test::max_abs(p));
  for (size_t i = 0; i < ref.size(); ++i) {
    const SkinnedVertices& g = gpu[i].vertices;
    const SkinnedVertices& r = ref[i].vertices;
    EXPECT_EQ(gpu[i].node, ref[i].node);
    EXPECT_EQ(gpu[i].mesh, ref[i].mesh);
    EXPECT_EQ(gpu[i].primitive, ref[i].primitive);
    EXPECT_EQ(gpu[i].skinned, ref[i].skinned);
    EXPECT_EQ(g.positions.size(), r.positions.size());
    EXPECT_EQ(g.normals.size(), r.normals.size());
    EXPECT_EQ(g.tangents.size(), r.tangents.size());
    if (g.positions.size() != r.positions.size() || g.normals.size() != r.normals.size() ||
        g.tangents.size() != r.tangents.size())
      return d;
    d.vertices += r.positions.size();
    // By hand (support/vector_distance.h), and the handedness asserted once per primitive: these loops run over
    // the million-vertex scene in unoptimized test code under the sanitizers.
    for (size_t v = 0; v < r.positions.size(); ++v)
      d.position = std::max(d.position, test::distance(g.positions[v], r.positions[v]) / d.extent);
    for (size_t v = 0; v < r.normals.size(); ++v) d.normal = std::max(d.normal, test::distance(g.normals[v], r.normals[v]));
    size_t handedness_differs = 0, first_differing = 0;
    for (size_t v = 0; v < r.tangents.size(); ++v) {
      d.tangent = std::max(d.tangent, test::distance_xyz(g.tangents[v], r.tangents[v]));
      if (g.tangents[v].data()[3] != r.tangents[v].data()[3] && handedness_differs++ == 0) first_differing = v;
    }
    EXPECT_EQ(handedness_differs, 0u) << "primitive " << i << ": tangent handedness differs, first at vertex "
                                      << first_differing;
  }
  return d;
}

void expect_within_bounds(const Deviation& d, const std::string& what) {
  EXPECT_LE(d.position, tol::kGpuVertexRelative) << what << " (extent " << d.extent << ")";
  EXPECT_LE(d.normal, tol::kGpuUnitVector) << what;
  EXPECT_LE(d.tangent, tol::kGpuUnitVector) << what;
}

void print_case(const std::string& what, const Deviation& d, const gpu::GpuTiming& timing) {
  std::printf("[ measured ] %-44s %8zu vertices  position/extent %.2e  normal %.2e  tangent %.2e  device %.3f ms"
              "  end to end %.3f ms\n",
              what.c_str(), d.vertices, d.position, d.normal, d.tangent, timing.device_ms, timing.end_to_end_ms);
}


class GpuSkinningTest : public test::ValidatedGpuTest {
 protected:
  // The GPU result and the reference's for one scene, pose and options; checked against the bounds and printed.
  Deviation check(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options,
                  const std::string& what) {
    gpu::GpuTiming timing;
    const std::vector<WorldPrimitive> gpu = gpu::gpu_evaluate_vertices(*context_, scene, pose, options, &timing);
    const std::vector<WorldPrimitive> ref = evaluate_vertices(scene, pose, options);
    const Deviation d = compare(gpu, ref);
    expect_within_bounds(d, what);
    EXPECT_GT(timing.end_to_end_ms, 0.0) << what;
    if (context_->timestamps_supported()) EXPECT_GT(timing.device_ms, 0.0) << what;
    else EXPECT_EQ(timing.device_ms, 0.0) << what;
    print_case(what, d, timing);
    return d;
  }
};

// ---- every built-in scene, LBS and DQS, three times ----------------------------------------------------------

class GpuSkinningBuiltinTest : public GpuSkinningTest,
                               public ::testing::WithParamInterface<std::tuple<std::string, SkinningMethod>> {};

TEST_P(GpuSkinningBuiltinTest, MatchesReferenceAtThreeTimes) {
  const auto& [name, method] = GetParam();
  const Scene scene = make_builtin_scene(name);
  ASSERT_FALSE(scene.animations.empty());
  SkinningOptions options;
  options.method = method;
  for (double time : test::builtin_sample_times(scene, name)) {
    const EvaluatedPose pose = evaluate_pose(scene, 0, time);
    check(scene, pose, options, name + " " + method_name(method) + " t=" + time_text(time));
  }
}

// `million` (1,001,000 vertices) included: about 0.6 s per GPU run and 0.1 s per reference run on lavapipe
// with two cores, so each of its two tests takes a few seconds.
INSTANTIATE_TEST_SUITE_P(
    Scenes, GpuSkinningBuiltinTest,
    ::testing::Combine(::testing::Values("twist", "bend", "chain64", "eight-influences", "node-transforms", "million"),
                       ::testing::Values(SkinningMethod::Lbs, SkinningMethod::Dqs)),
    [](const ::testing::TestParamInfo<GpuSkinningBuiltinTest::ParamType>& info) {
      std::string name = std::get<0>(info.param) + "_" + method_name(std::get<1>(info.param));
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

// ---- options, influences, morph targets, rigid nodes -----------------------------------------------------------

TEST_F(GpuSkinningTest, WeightPoliciesAndNormalModesMatchReference) {
  // Weights scaled to sum to 0.7: as stored, the model shrinks towards the origin (what a shader does);
  // renormalized, it does not. Both must match the reference's handling.
  const Scene scene = test::twist_with_scaled_weights(0.7);
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.4);
  for (WeightPolicy weights : {WeightPolicy::AsStored, WeightPolicy::Renormalize}) {
    for (NormalMode normals : {NormalMode::InverseTransposeOfBlend, NormalMode::BlendedNormalMatrices}) {
      for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
        SkinningOptions options;
        options.weights = weights;
        options.normals = normals;
        options.method = method;
        check(scene, pose, options,
              std::string("twist x0.7 ") + method_name(method) +
                  (weights == WeightPolicy::Renormalize ? " renormalize" : " as-stored") +
                  (normals == NormalMode::BlendedNormalMatrices ? " blend-normal-matrices" : ""));
      }
    }
  }
  // The two policies differ by far more than the bound, so the comparison above tells them apart.
  SkinningOptions stored, renormalized;
  renormalized.weights = WeightPolicy::Renormalize;
  const Deviation apart = compare(gpu::gpu_evaluate_vertices(*context_, scene, pose, stored),
                                  evaluate_vertices(scene, pose, renormalized));
  EXPECT_GT(apart.position, 100 * tol::kGpuVertexRelative);
}

TEST_F(GpuSkinningTest, TwelveInfluencesMatchReference) {
  // Three influence sets: the twist's four slots, then eight more with half of slot 0's weight moved to slot 9
  // (joint 1 there) and the rest zero, so every loop over influences runs past 8 with live weights.
  Scene scene = make_builtin_scene("twist");
  Primitive& prim = scene.meshes[0].primitives[0];
  const size_t n = prim.vertex_count();
  std::vector<uint32_t> joints(n * 12, 0);
  std::vector<double> weights(n * 12, 0.0);
  for (size_t v = 0; v < n; ++v) {
    for (size_t i = 0; i < 4; ++i) {
      joints[v * 12 + i] = prim.joints[v * 4 + i];
      weights[v * 12 + i] = prim.weights[v * 4 + i];
    }
    for (size_t i = 4; i < 12; ++i) joints[v * 12 + i] = uint32_t(i % 2);
    if (joints[v * 12] == 1) {
      weights[v * 12 + 9] = weights[v * 12] / 2;  // halving a float32 is exact: the sum is unchanged
      weights[v * 12] /= 2;
    }
  }
  prim.influences_per_vertex = 12;
  prim.joints = joints;
  prim.weights = weights;
  finalize_scene(scene);
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
    SkinningOptions options;
    options.method = method;
    check(scene, evaluate_pose(scene, 0, 0.85), options, std::string("twist 12 influences ") + method_name(method));
  }
}

TEST_F(GpuSkinningTest, ZeroWeightVerticesKeepBindAttributes) {
  // Every third vertex loses all its weights: it keeps its bind position and normal exactly (they are float32
  // values, so the GPU's float copy is exact), like the reference.
  Scene scene = make_builtin_scene("bend");
  Primitive& prim = scene.meshes[0].primitives[0];
  const size_t k = size_t(prim.influences_per_vertex);
  for (size_t v = 0; v < prim.vertex_count(); v += 3)
    for (size_t i = 0; i < k; ++i) prim.weights[v * k + i] = 0.0;
  finalize_scene(scene);
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.4);
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
    SkinningOptions options;
    options.method = method;
    check(scene, pose, options, std::string("bend zero weights ") + method_name(method));
    const std::vector<WorldPrimitive> gpu = gpu::gpu_evaluate_vertices(*context_, scene, pose, options);
    ASSERT_EQ(gpu.size(), 1u);
    for (size_t v = 0; v < prim.vertex_count(); v += 3) {
      EXPECT_EQ(gpu[0].vertices.positions[v], prim.positions[v]) << "vertex " << v;
      EXPECT_EQ(gpu[0].vertices.normals[v], prim.normals[v]) << "vertex " << v;
    }
    // ... and the skinned ones did move (the elbow bends by 36 degrees at t = 0.4).
    EXPECT_GT((gpu[0].vertices.positions[1] - prim.positions[1]).norm() +
                  (gpu[0].vertices.positions[prim.vertex_count() - 1] - prim.positions[prim.vertex_count() - 1]).norm(),
              1e-3);
  }
}

// builtin:twist with tangents, three morph targets (positions, normals and tangents; positions only; a
// zero-weight one), and a second, rigid node drawing the same mesh with a mirroring, non-uniform scale.
Scene morph_and_rigid_scene() {
  Scene scene = make_builtin_scene("twist");
  Primitive& prim = scene.meshes[0].primitives[0];
  const size_t n = prim.vertex_count();
  prim.tangents.resize(n);
  for (size_t v = 0; v < n; ++v) prim.tangents[v] = Vec4(1.0, 0.0, 0.0, v % 2 == 0 ? 1.0 : -1.0);
  prim.targets.resize(3);
  for (size_t v = 0; v < n; ++v) {
    const Vec3& p = prim.positions[v];
    // Target 0 bulges the tube radially in its middle, tilts normals along x and tangents about z.
    const double bulge = std::sin(p.x() * 1.5);
    prim.targets[0].position_deltas.push_back(Vec3(0.0, p.y(), p.z()) * (0.5 * bulge));
    prim.targets[0].normal_deltas.push_back(Vec3(0.3 * bulge, 0.0, 0.0));
    prim.targets[0].tangent_deltas.push_back(Vec3(0.0, 0.2 * bulge, 0.1));
    prim.targets[1].position_deltas.push_back(Vec3(0.1 * p.x() * p.x(), 0.05, -0.02 * p.x()));
    prim.targets[2].position_deltas.push_back(Vec3(100.0, 100.0, 100.0));  // weight 0: must add nothing
  }
  scene.meshes[0].default_weights = {0.8, -0.45, 0.0};

  Node rigid;
  rigid.name = "rigid_mirrored";
  rigid.mesh = 0;
  rigid.rest.translation = Vec3(0.5, 1.0, -2.0);
  rigid.rest.rotation = Quat(Eigen::AngleAxisd(0.7, Vec3(1.0, 2.0, 3.0).normalized()));
  rigid.rest.scale = Vec3(-1.5, 0.5, 2.0);
  scene.nodes.push_back(rigid);
  scene.roots.push_back(int(scene.nodes.size()) - 1);
  finalize_scene(scene);
  return scene;
}

TEST_F(GpuSkinningTest, MorphTargetsTangentsAndRigidMirroredNodeMatchReference) {
  const Scene scene = morph_and_rigid_scene();
  for (double time : sample_times(scene, 0)) {
    const EvaluatedPose pose = evaluate_pose(scene, 0, time);
    for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
      SkinningOptions options;
      options.method = method;
      const Deviation d =
          check(scene, pose, options,
                std::string("twist+morph+rigid ") + method_name(method) + " t=" + time_text(time));
      EXPECT_EQ(d.vertices, 2 * scene.meshes[0].primitives[0].vertex_count());
    }
  }
  // The morph matters: without its targets the result is far outside the bound.
  Scene plain = scene;
  for (Primitive& prim : plain.meshes[0].primitives) prim.targets.clear();
  plain.meshes[0].default_weights.clear();
  finalize_scene(plain);
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.4);
  const Deviation apart = compare(gpu::gpu_evaluate_vertices(*context_, plain, evaluate_pose(plain, 0, 0.4), {}),
                                  evaluate_vertices(scene, pose, {}));
  EXPECT_GT(apart.position, 100 * tol::kGpuVertexRelative);
}

TEST_F(GpuSkinningTest, JointIndexOutsidePaletteIsRefusedLikeReference) {
  const Scene scene = make_builtin_scene("twist");
  EvaluatedPose pose = evaluate_pose(scene, 0, 0.4);
  pose.palettes[0].skinning.pop_back();  // the twist's joint 1 is now outside the palette
  pose.palettes[0].normal.pop_back();
  EXPECT_THROW(evaluate_vertices(scene, pose, {}), std::invalid_argument);
  EXPECT_THROW(gpu::gpu_evaluate_vertices(*context_, scene, pose, {}), std::invalid_argument);
}

TEST_F(GpuSkinningTest, RepeatedRunsGiveIdenticalBits) {
  // The same inputs give the same floats: nothing depends on scheduling (each invocation writes its own vertex).
  const Scene scene = make_builtin_scene("chain64");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.7);
  SkinningOptions options;
  options.method = SkinningMethod::Dqs;
  const std::vector<WorldPrimitive> first = gpu::gpu_evaluate_vertices(*context_, scene, pose, options);
  const std::vector<WorldPrimitive> second = gpu::gpu_evaluate_vertices(*context_, scene, pose, options);
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].vertices.positions, second[i].vertices.positions);
    EXPECT_EQ(first[i].vertices.normals, second[i].vertices.normals);
  }
}

TEST_F(GpuSkinningTest, PreparedSkinningDispatchedTwiceGivesTheOneShotBits) {
  // Uploaded once, dispatched twice: each dispatch recomputes from the same device buffers and reads back
  // exactly what gpu_evaluate_vertices() returns for the same inputs.
  const Scene scene = make_builtin_scene("twist");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.7);
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
    SCOPED_TRACE(method_name(method));
    SkinningOptions options;
    options.method = method;
    const std::vector<WorldPrimitive> one_shot = gpu::gpu_evaluate_vertices(*context_, scene, pose, options);
    gpu::GpuSkinning skinning(*context_, scene, pose, options);
    EXPECT_THROW(skinning.read_back(), std::logic_error);  // nothing dispatched yet
    EXPECT_EQ(skinning.device_ms(), 0.0);
    EXPECT_GT(skinning.prepare_ms(), 0.0);
    for (int dispatch = 1; dispatch <= 2; ++dispatch) {
      SCOPED_TRACE("dispatch " + std::to_string(dispatch));
      skinning.dispatch();
      if (context_->timestamps_supported()) EXPECT_GT(skinning.device_ms(), 0.0);
      else EXPECT_EQ(skinning.device_ms(), 0.0);
      const std::vector<WorldPrimitive> prepared = skinning.read_back();
      ASSERT_FALSE(prepared.empty());
      EXPECT_FALSE(prepared[0].vertices.positions.empty());
      test::expect_same_primitives(prepared, one_shot);
    }
  }
}

TEST_F(GpuSkinningTest, BusyPassesTimePerPassAndLeaveTheDispatchedResults) {
  // busy_pass_ms(): passes back to back in one submission (the benchmarks' device time), under the validation
  // layer like every test here. It reports time per pass and leaves the last dispatch()'s timing and
  // read-back as they were.
  const Scene scene = make_builtin_scene("eight-influences");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.4);
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
    SCOPED_TRACE(method_name(method));
    SkinningOptions options;
    options.method = method;
    const std::vector<WorldPrimitive> one_shot = gpu::gpu_evaluate_vertices(*context_, scene, pose, options);
    gpu::GpuSkinning skinning(*context_, scene, pose, options);
    EXPECT_THROW(skinning.busy_pass_ms(0), std::invalid_argument);
    skinning.dispatch();
    const double dispatch_ms = skinning.device_ms();
    for (int passes : {1, 7}) {
      SCOPED_TRACE(std::to_string(passes) + " passes");
      const double per_pass = skinning.busy_pass_ms(passes);
      if (context_->timestamps_supported()) EXPECT_GT(per_pass, 0.0);
      else EXPECT_EQ(per_pass, 0.0);
      EXPECT_EQ(skinning.device_ms(), dispatch_ms);
      test::expect_same_primitives(skinning.read_back(), one_shot);
    }
    skinning.dispatch();  // the outputs the passes wrote are written again; the same bits come back
    test::expect_same_primitives(skinning.read_back(), one_shot);
  }
}

// ---- the corpus --------------------------------------------------------------------------------------------------

class GpuSkinningCorpusTest : public GpuSkinningTest, public ::testing::WithParamInterface<test::CorpusModel> {};

TEST_P(GpuSkinningCorpusTest, MatchesReferenceAtThreeTimes) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  const Scene scene = load_model(test::corpus_dir() + "/" + GetParam().path);
  const int animation = scene.animations.empty() ? -1 : 0;
  for (double time : sample_times(scene, animation)) {
    const EvaluatedPose pose = evaluate_pose(scene, animation, time);
    for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
      SkinningOptions options;
      options.method = method;
      check(scene, pose, options, std::string(GetParam().name) + " " + method_name(method) + " t=" + time_text(time));
    }
  }
}

// The corpus's skinned models (the plain .gltf file of each sample) and its animated morph-target cube: the
// glTF-Asset-Generator skin sets and the samples named here, picked from kCorpusModels.
std::vector<test::CorpusModel> gpu_corpus_models() {
  std::vector<test::CorpusModel> models;
  for (const test::CorpusModel& model : test::kCorpusModels) {
    const std::string path = model.path;
    bool sample = false;
    for (const char* name : {"SimpleSkin", "RiggedSimple", "RiggedFigure", "CesiumMan", "AnimatedMorphCube"})
      sample = sample || path.find(std::string(name) + "/glTF/") != std::string::npos;
    if (sample || path.find("/Animation_Skin") != std::string::npos) models.push_back(model);
  }
  return models;
}

INSTANTIATE_TEST_SUITE_P(Corpus, GpuSkinningCorpusTest, ::testing::ValuesIn(gpu_corpus_models()),
                         test::model_test_name);

// ---- the command line --------------------------------------------------------------------------------------------

using test::CliRun;
using test::run_cli;

TEST(GpuSkinningCliTest, VulkanBackendDumpMatchesReferenceDump) {
  const test::TempDir dir;
  for (const char* method : {"lbs", "dqs"}) {
    const std::string gpu_path = dir.file(std::string("gpu-") + method + ".skv");
    const std::string ref_path = dir.file(std::string("ref-") + method + ".skv");
    const CliRun gpu = run_cli(dir, {"skin", "builtin:twist", "--time", "0.85", "--method", method, "--backend",
                                     "vulkan", "--validate", "--out", gpu_path});
    ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
    EXPECT_NE(test::read_bytes(dir.file("stdout.txt")).find("vulkan on "), std::string::npos);
    const CliRun ref = run_cli(dir, {"skin", "builtin:twist", "--time", "0.85", "--method", method, "--out", ref_path});
    ASSERT_EQ(ref.exit_code, 0) << ref.err;
    const VertexDump gpu_dump = read_vertices_skv(gpu_path);
    const VertexDump ref_dump = read_vertices_skv(ref_path);
    EXPECT_EQ(gpu_dump.precision, DumpPrecision::F32);
    EXPECT_EQ(ref_dump.precision, DumpPrecision::F64);
    const Deviation d = compare(gpu_dump.primitives, ref_dump.primitives);
    EXPECT_EQ(d.vertices, make_builtin_scene("twist").meshes[0].primitives[0].vertex_count());
    expect_within_bounds(d, std::string("skinref skin --backend vulkan --method ") + method);
  }
  // The default backend is the reference: --backend reference gives the same bytes as no --backend.
  const CliRun explicit_ref = run_cli(dir, {"skin", "builtin:twist", "--time", "0.85", "--method", "dqs", "--backend",
                                            "reference", "--out", dir.file("explicit.skv")});
  ASSERT_EQ(explicit_ref.exit_code, 0) << explicit_ref.err;
  EXPECT_EQ(test::read_bytes(dir.file("explicit.skv")), test::read_bytes(dir.file("ref-dqs.skv")));
}

TEST(GpuSkinningCliTest, UnknownDeviceExitsTwoListingDevices) {
  const test::TempDir dir;
  const std::string out = dir.file("x.skv");
  const CliRun run =
      run_cli(dir, {"skin", "builtin:twist", "--backend", "vulkan", "--device", "no-such-gpu", "--out", out});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("no-such-gpu"), std::string::npos) << run.err;
  for (const gpu::DeviceInfo& device : gpu::list_devices())
    EXPECT_NE(run.err.find(device.name), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(GpuSkinningCliTest, BackendUsageErrorsExitTwo) {
  const test::TempDir dir;
  const std::string out = dir.file("x.skv");
  struct Case {
    std::vector<std::string> args;
    const char* expected;  // in the message
  };
  const Case cases[] = {
      {{"skin", "builtin:twist", "--backend", "vulkan", "--precision", "f64", "--out", out}, "float32"},
      {{"skin", "builtin:twist", "--device", "0", "--out", out}, "--backend vulkan"},
      {{"skin", "builtin:twist", "--validate", "--out", out}, "--backend vulkan"},
      {{"skin", "builtin:twist", "--backend", "metal", "--out", out}, "vulkan"},
      {{"skin", "builtin:twist", "--backend", "vulkan", "--device", "99999", "--out", out}, "99999"},
  };
  for (const Case& c : cases) {
    const CliRun run = run_cli(dir, c.args);
    EXPECT_EQ(run.exit_code, 2) << c.args[2] << " " << c.args[3];
    EXPECT_NE(run.err.find(c.expected), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

}  // namespace
}  // namespace skinref
