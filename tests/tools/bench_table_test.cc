// The benchmark tooling, without running benchmarks:
// - skinref_bench_table (tools/bench_table.cc) as a separate process on hand-written Google Benchmark JSON:
//   the medians it must pick are set apart from every other run's values (means, first repetitions), so each
//   expected cell below follows from the file alone; plus bad input (exit 2, the file named, nothing written).
// - The synthetic scenes of bench/bench_scenes.h against their contract: counts, distinct joints, weights in
//   1/256 steps summing to exactly 1, float32-representable positions, unit normals, a pose at t = 0.5 that
//   moves every joint, a branching animation skeleton; and 1 or 2 influences going through the reference
//   and the CPU backend alike.
#include "support/cli_runner.h"

#include "anim/evaluate_pose.h"
#include "backend/backend.h"
#include "bench/bench_scenes.h"
#include "skin/method.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace skinref::test {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

// Runs of one benchmark: `repetition_values` as iteration runs, then the aggregates (mean deliberately off
// the median). Each value is the JSON text of the run's figures.
std::string iteration_run(const std::string& name, const std::string& figures, int index, int repetitions) {
  return R"({"name": ")" + name + R"(", "run_name": ")" + name +
         R"(", "run_type": "iteration", "repetitions": )" + std::to_string(repetitions) +
         R"(, "repetition_index": )" + std::to_string(index) + R"(, "threads": 1, "iterations": 3, )" + figures + "}";
}

std::string aggregate_run(const std::string& name, const std::string& aggregate, const std::string& figures) {
  return R"({"name": ")" + name + "_" + aggregate + R"(", "run_name": ")" + name +
         R"(", "run_type": "aggregate", "repetitions": 3, "threads": 1, "aggregate_name": ")" + aggregate +
         R"(", "iterations": 3, )" + figures + "}";
}

std::string error_run(const std::string& name, const std::string& message, int index) {
  return R"({"name": ")" + name + R"(", "run_name": ")" + name +
         R"(", "run_type": "iteration", "repetitions": 3, "repetition_index": )" + std::to_string(index) +
         R"(, "threads": 1, "error_occurred": true, "error_message": ")" + message + R"("})";
}

const std::string kContext = R"("context": {
    "date": "2024-01-01T00:00:00+00:00", "host_name": "testhost", "executable": "skinref_bench",
    "num_cpus": 2, "mhz_per_cpu": 2700, "cpu_scaling_enabled": false,
    "caches": [{"type": "Data", "level": 1, "size": 49152, "num_sharing": 1},
               {"type": "Unified", "level": 3, "size": 503316480, "num_sharing": 2}],
    "load_avg": [0.5, 0.25, 0.125], "library_build_type": "release",
    "skinref_reference_kernel": "avx512", "skinref_cpu_kernel": "avx512", "skinref_all_threads": "2",
    "skinref_vulkan_device": "llvmpipe [cpu], driver llvmpipe, Vulkan 1.3.230"})";

// A skinref_bench JSON file of kContext and `runs`.
std::string bench_file_text(const std::vector<std::string>& runs) {
  std::string text = "{" + kContext + ",\n  \"benchmarks\": [\n";
  for (size_t i = 0; i < runs.size(); ++i) text += "    " + runs[i] + (i + 1 < runs.size() ? ",\n" : "\n");
  return text + "  ]\n}\n";
}

std::string sample_file() {
  const std::string copy1 = "BM_Copy/cpu_1t/manual_time";
  const std::string skin_ref = "BM_Skin/reference/lbs/vertices:100000/influences:4/manual_time";
  const std::string skin_1t = "BM_Skin/cpu_1t/lbs/vertices:100000/influences:4/manual_time";
  const std::string skin_all = "BM_Skin/cpu_all/lbs/vertices:100000/influences:4/manual_time";
  const std::string skin_vk = "BM_Skin/vulkan_device/lbs/vertices:100000/influences:4/iterations:5/manual_time";
  const std::string dqs_16m = "BM_Skin/reference/dqs/vertices:16000000/influences:8/iterations:1/manual_time";
  const std::string anim = "BM_Animation/joints:64";
  const std::string render_ref = "BM_Render/million/512x512/reference_1t/real_time";
  const std::string render_vk = "BM_Render/million/512x512/vulkan/real_time";
  const std::vector<std::string> runs = {
      // Copy, 1 thread: repetitions 10, 12, 11 GB/s; mean 11.5 (off), median 11.
      iteration_run(copy1, R"("real_time": 50, "time_unit": "ms", "bytes/s": 10e9)", 0, 3),
      iteration_run(copy1, R"("real_time": 40, "time_unit": "ms", "bytes/s": 12e9)", 1, 3),
      iteration_run(copy1, R"("real_time": 45, "time_unit": "ms", "bytes/s": 11e9)", 2, 3),
      aggregate_run(copy1, "mean", R"("real_time": 44, "time_unit": "ms", "bytes/s": 11.5e9)"),
      aggregate_run(copy1, "median", R"("real_time": 45, "time_unit": "ms", "bytes/s": 11e9)"),
      aggregate_run(copy1, "stddev", R"("real_time": 4, "time_unit": "ms", "bytes/s": 1e9)"),
      // Copy, all threads: aggregates only (--benchmark_report_aggregates_only).
      aggregate_run("BM_Copy/cpu_all/manual_time", "mean", R"("real_time": 30, "time_unit": "ms", "bytes/s": 19e9)"),
      aggregate_run("BM_Copy/cpu_all/manual_time", "median", R"("real_time": 27, "time_unit": "ms", "bytes/s": 20e9)"),
      // Skinning, LBS 100k x 4: reference 50 M/s, cpu_1t 200 M/s (ratio 4), cpu_all a single run (no
      // aggregate) of 350 M/s, vulkan_device failed in every repetition, vulkan_e2e absent.
      aggregate_run(skin_ref, "mean", R"("real_time": 2, "time_unit": "ms", "vertices/s": 49e6, "fraction_of_bandwidth": 0.3)"),
      aggregate_run(skin_ref, "median", R"("real_time": 2, "time_unit": "ms", "vertices/s": 50e6, "fraction_of_bandwidth": 0.25)"),
      aggregate_run(skin_1t, "median", R"("real_time": 0.5, "time_unit": "ms", "vertices/s": 200e6, "fraction_of_bandwidth": 0.5)"),
      iteration_run(skin_all, R"("real_time": 0.3, "time_unit": "ms", "vertices/s": 350e6, "fraction_of_bandwidth": 0.4)", 0, 1),
      error_run(skin_vk, "no Vulkan context: none", 0),
      error_run(skin_vk, "no Vulkan context: none", 1),
      error_run(skin_vk, "no Vulkan context: none", 2),
      // DQS 16M x 8, reference only: three runs and no aggregate; the median real_time (2000 ms) is 8 M/s.
      iteration_run(dqs_16m, R"("real_time": 3000, "time_unit": "ms", "vertices/s": 5.3e6, "fraction_of_bandwidth": 0.05)", 0, 3),
      iteration_run(dqs_16m, R"("real_time": 1000, "time_unit": "ms", "vertices/s": 16e6, "fraction_of_bandwidth": 0.2)", 1, 3),
      iteration_run(dqs_16m, R"("real_time": 2000, "time_unit": "ms", "vertices/s": 8e6, "fraction_of_bandwidth": 0.1)", 2, 3),
      // Animation: one clip 400 k poses/s (limit 800 k), two clips 180 k poses/s, 5.55 us.
      aggregate_run("BM_AnimationClip/joints:64", "median",
                    R"("real_time": 2.5, "time_unit": "us", "items_per_second": 400000, "pose_limit/s": 800000, )"
                    R"("fraction_of_limit": 0.5, "bytes_per_pose": 32448)"),
      aggregate_run(anim, "mean", R"("real_time": 6, "time_unit": "us", "items_per_second": 170000)"),
      aggregate_run(anim, "median", R"("real_time": 5.55, "time_unit": "us", "items_per_second": 180000)"),
      // Rendering: reference_1t 2.5 frames/s, vulkan 10 (ratio 4), reference_all absent.
      aggregate_run(render_ref, "median", R"("real_time": 400, "time_unit": "ms", "items_per_second": 2.5)"),
      aggregate_run(render_vk, "median", R"("real_time": 100, "time_unit": "ms", "items_per_second": 10)"),
      // Something the tables do not know.
      iteration_run("BM_Unknown", R"("real_time": 12.5, "time_unit": "ms")", 0, 1),
  };
  return bench_file_text(runs);
}

void expect_line(const std::string& text, const std::string& line) {
  EXPECT_NE(text.find("\n" + line + "\n"), std::string::npos) << "missing line:\n" << line << "\nin:\n" << text;
}

TEST(BenchTable, PicksMediansFallsBackToRunsAndShowsSkippedCases) {
  TempDir dir;
  write_bytes(dir.file("bench.json"), sample_file());
  const CliRun run = run_cli(dir, {dir.file("bench.json")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const std::string& md = run.out;
  expect_line(md, "| host | testhost |");
  expect_line(md, "| CPUs | 2 at 2700 MHz |");
  expect_line(md, "| caches | L1 Data 48 KiB, L3 Unified 480 MiB (shared by 2) |");
  expect_line(md, "| Vulkan device | llvmpipe [cpu], driver llvmpipe, Vulkan 1.3.230 |");
  expect_line(md, "| CPU copy, 1 thread (reference, cpu_1t) | 11.0 |");
  expect_line(md, "| CPU copy, all threads (cpu_all) | 20.0 |");
  expect_line(md, "| Vulkan, device time, the faster of vkCmdCopyBuffer and a compute shader (vulkan_device, vulkan_e2e) | - |");
  expect_line(md, "| LBS | 100k | 4 | 50.0 (0.25) | 200 (0.50) | 350 (0.40) | skipped (no Vulkan context: none) | - | 4.00x |");
  expect_line(md, "| DQS | 16M | 8 | 8.00 (0.10) | - | - | - | - | - |");
  // 64 joints: one clip 400 k poses/s at 2.5 us against a limit of 800 k (0.50); two clips 180 k at 5.55 us.
  expect_line(md, "| 64 | 400 | 2.50 us | 800 | 0.50 | 180 | 5.55 us |");
  expect_line(md, "| million | 512x512 | 2.50 | - | 10.0 | 4.00x |");
  expect_line(md, "| BM_Unknown | 12.5 ms |");
  // LBS rows before DQS rows.
  EXPECT_LT(md.find("| LBS | 100k"), md.find("| DQS | 16M"));
}

// The user's shader (skinref_bench --shader) gets a column of its own beside skin.comp's, only when the run has it.
TEST(BenchTable, ShowsTheUserShaderBesideSkinComp) {
  TempDir dir;
  const std::string vk = "BM_Skin/vulkan_device/lbs/vertices:100000/influences:4/iterations:5/manual_time";
  const std::string user = "BM_Skin/user_shader_device/lbs/vertices:100000/influences:4/iterations:5/manual_time";
  const std::vector<std::string> runs = {
      aggregate_run(vk, "median", R"("real_time": 1, "time_unit": "ms", "vertices/s": 100e6, "fraction_of_bandwidth": 0.6)"),
      aggregate_run(user, "median", R"("real_time": 4, "time_unit": "ms", "vertices/s": 25e6, "fraction_of_bandwidth": 0.2)"),
  };
  write_bytes(dir.file("bench.json"), bench_file_text(runs));
  const CliRun run = run_cli(dir, {dir.file("bench.json")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_line(run.out, "| method | vertices | influences | reference | cpu_1t | cpu_all | vulkan_device | vulkan_e2e | "
                       "user_shader_device | cpu_1t / reference |");
  expect_line(run.out, "| LBS | 100k | 4 | - | - | - | 100 (0.60) | - | 25.0 (0.20) | - |");
}

// The aims, each beside its target: each row reads its benchmark, compares with the target, and says
// "not measured" with the reason where the run has no figure.
TEST(BenchTable, ShowsEachAimBesideItsTarget) {
  TempDir dir;
  const std::string lbs = "BM_Skin/cpu_1t/lbs/vertices:1000000/influences:4/manual_time";
  const std::string dqs = "BM_Skin/cpu_1t/dqs/vertices:1000000/influences:4/manual_time";
  const std::string all = "BM_Skin/cpu_all/lbs/vertices:16000000/influences:4/iterations:2/manual_time";
  const std::string ref = "BM_Skin/reference/dqs/vertices:1000000/influences:4/manual_time";
  const std::string gpu = "BM_Skin/vulkan_device/lbs/vertices:16000000/influences:4/iterations:3/manual_time";
  const std::vector<std::string> runs = {
      aggregate_run(lbs, "median", R"("real_time": 3, "time_unit": "ms", "vertices/s": 300e6, "fraction_of_bandwidth": 1.5)"),
      aggregate_run(dqs, "median", R"("real_time": 6, "time_unit": "ms", "vertices/s": 150e6, "fraction_of_bandwidth": 0.7)"),
      aggregate_run(all, "median", R"("real_time": 90, "time_unit": "ms", "vertices/s": 400e6, "fraction_of_bandwidth": 0.85)"),
      aggregate_run(ref, "median", R"("real_time": 40, "time_unit": "ms", "vertices/s": 25e6, "fraction_of_bandwidth": 0.1)"),
      error_run(gpu, "no Vulkan context: none", 0),
  };
  write_bytes(dir.file("bench.json"), bench_file_text(runs));
  const CliRun run = run_cli(dir, {dir.file("bench.json")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string& md = run.out;
  expect_line(md, "| cpu backend, one core, LBS, 4 influences, 1M vertices, positions + normals | >= 290 M vertices/s | "
                  "300 M vertices/s | yes |");
  expect_line(md, "| cpu backend, all cores, LBS, 4 influences, 16M vertices | >= 0.80 of the copy bandwidth | 0.85 of it | yes |");
  // 150 / 300 = 0.50 < 0.60.
  expect_line(md, "| cpu backend, one core, DQS over LBS, 4 influences, 1M vertices | >= 0.60 | 0.50 (DQS 150 M vertices/s) | no |");
  expect_line(md, "| reference DQS, one core, 4 influences, 1M vertices | >= 50.0 M vertices/s | 25.0 M vertices/s | no |");
  expect_line(md, "| reference animation, one clip sampled to model space, 64 joints, one core | >= 450 k poses/s | not run | "
                  "not measured |");
  expect_line(md, "| vulkan_device, LBS, 4 influences, 16M vertices | >= 0.70 of the device copy bandwidth | skipped (no "
                  "Vulkan context: none) | not measured |");
}

// The CPU kernel study: one row per method and attribute set, a column per kernel and palette reading; a
// kernel the CPU lacks shows its skip reason, and a case the file lacks a dash.
TEST(BenchTable, ShowsTheCpuKernelStudy) {
  TempDir dir;
  const std::vector<std::string> runs = {
      aggregate_run("BM_SkinKernel/avx512/per_vertex/lbs/normals/manual_time", "median",
                    R"("real_time": 4, "time_unit": "ms", "vertices/s": 250e6, "fraction_of_bandwidth": 0.625)"),
      aggregate_run("BM_SkinKernel/avx512/gathers/lbs/normals/manual_time", "median",
                    R"("real_time": 8, "time_unit": "ms", "vertices/s": 125e6, "fraction_of_bandwidth": 0.3125)"),
      aggregate_run("BM_SkinKernel/scalar/per_vertex/dqs/positions/manual_time", "median",
                    R"("real_time": 50, "time_unit": "ms", "vertices/s": 20e6, "fraction_of_bandwidth": 0.05)"),
      error_run("BM_SkinKernel/avx2/per_vertex/lbs/normals/manual_time", "the avx2 kernel: not on this CPU or build", 0),
  };
  write_bytes(dir.file("bench.json"), bench_file_text(runs));
  const CliRun run = run_cli(dir, {dir.file("bench.json")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string& md = run.out;
  expect_line(md, "| method | attributes | scalar per vertex | avx2 per vertex | avx2 gathers | avx512 per vertex | avx512 "
                  "gathers |");
  expect_line(md, "| LBS | positions + normals | - | skipped (the avx2 kernel: not on this CPU or build) | - | 250 (0.62) | "
                  "125 (0.31) |");
  expect_line(md, "| DQS | positions | 20.0 (0.05) | - | - | - | - |");
  EXPECT_EQ(md.find("BM_SkinKernel"), std::string::npos) << "the study's cases are not \"other\" benchmarks";
}

TEST(BenchTable, WritesTheSameTableToOutAndNothingToStdout) {
  TempDir dir;
  write_bytes(dir.file("bench.json"), sample_file());
  const CliRun to_stdout = run_cli(dir, {dir.file("bench.json")});
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  const CliRun to_file = run_cli(dir, {dir.file("bench.json"), "--out", dir.file("bench.md")});
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(read_bytes(dir.file("bench.md")), to_stdout.out);
}

// Each bad input: exit 2, one stderr line naming the file and what was expected, no output file.
void expect_refused(const std::string& contents, const std::string& expected_fragment) {
  TempDir dir("refused");
  write_bytes(dir.file("in.json"), contents);
  const CliRun run = run_cli(dir, {dir.file("in.json"), "--out", dir.file("out.md")});
  EXPECT_EQ(run.exit_code, 2) << contents;
  EXPECT_NE(run.err.find(dir.file("in.json")), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(expected_fragment), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.md")));
}

TEST(BenchTable, RefusesBadInput) {
  expect_refused("{ this is not json", "not JSON");
  expect_refused("[1, 2, 3]", "a JSON object with \"context\" and \"benchmarks\"");
  expect_refused(R"({"context": {}, "runs": []})", "/benchmarks: expected an array of runs");
  expect_refused(R"({"benchmarks": []})", "/context: expected an object");
  expect_refused(R"({"context": {}, "benchmarks": [{"real_time": 1}]})", "/benchmarks/0: expected a run object");
  // A known benchmark without the counter its table needs.
  expect_refused("{" + kContext + R"(, "benchmarks": [)" +
                     aggregate_run("BM_Skin/cpu_1t/lbs/vertices:100000/influences:4/manual_time", "median",
                                   R"("real_time": 1, "time_unit": "ms", "fraction_of_bandwidth": 0.5)") +
                     "]}",
                 "/benchmarks/0: expected a number \"vertices/s\"");
}

TEST(BenchTable, RefusesAMissingFileAndBadUsage) {
  TempDir dir;
  const CliRun missing = run_cli(dir, {dir.file("absent.json")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find(dir.file("absent.json") + ": cannot open the file"), std::string::npos) << missing.err;
  EXPECT_EQ(run_cli(dir, {}).exit_code, 2);
  EXPECT_EQ(run_cli(dir, {"a.json", "b.json"}).exit_code, 2);
  EXPECT_EQ(run_cli(dir, {"a.json", "--frobnicate"}).exit_code, 2);
  // An output path in a directory that does not exist: refused, nothing written.
  write_bytes(dir.file("bench.json"), sample_file());
  const CliRun unwritable = run_cli(dir, {dir.file("bench.json"), "--out", dir.file("no/such/dir/bench.md")});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.err.find(dir.file("no/such/dir/bench.md")), std::string::npos) << unwritable.err;
}


// ---- the synthetic scenes --------------------------------------------------------------------------------------

TEST(BenchScenes, SkinningSceneKeepsItsContract) {
  for (const int k : {1, 2, 4, 8}) {
    SCOPED_TRACE("influences " + std::to_string(k));
    const Scene scene = bench::make_skinning_bench_scene(1000, k);
    ASSERT_EQ(scene.meshes.size(), 1u);
    ASSERT_EQ(scene.meshes[0].primitives.size(), 1u);
    const Primitive& prim = scene.meshes[0].primitives[0];
    ASSERT_EQ(prim.vertex_count(), 1000u);
    ASSERT_EQ(prim.normals.size(), 1000u);
    EXPECT_TRUE(prim.tangents.empty());
    ASSERT_EQ(prim.influences_per_vertex, k);
    ASSERT_EQ(prim.joints.size(), 1000u * size_t(k));
    ASSERT_EQ(prim.weights.size(), 1000u * size_t(k));
    ASSERT_EQ(scene.skins.size(), 1u);
    ASSERT_EQ(scene.skins[0].joints.size(), size_t(bench::kSkinningBenchJoints));
    for (size_t v = 0; v < 1000; ++v) {
      std::set<uint32_t> joints;
      double sum = 0.0;
      for (size_t i = 0; i < size_t(k); ++i) {
        const uint32_t joint = prim.joints[v * size_t(k) + i];
        const double weight = prim.weights[v * size_t(k) + i];
        EXPECT_LT(joint, uint32_t(bench::kSkinningBenchJoints));
        joints.insert(joint);
        EXPECT_GT(weight, 0.0);
        EXPECT_EQ(weight * 256.0, std::floor(weight * 256.0)) << "vertex " << v;  // a multiple of 1/256
        sum += weight;
      }
      EXPECT_EQ(joints.size(), size_t(k)) << "vertex " << v << ": joints not distinct";
      EXPECT_EQ(sum, 1.0) << "vertex " << v;
      for (int c = 0; c < 3; ++c)
        EXPECT_EQ(double(float(prim.positions[v][c])), prim.positions[v][c]) << "vertex " << v;
      EXPECT_NEAR(prim.normals[v].norm(), 1.0, 1e-15) << "vertex " << v;
    }
  }
}

TEST(BenchScenes, SkinningSceneVerticesDependOnlyOnTheirIndex) {
  const Scene small = bench::make_skinning_bench_scene(10, 4);
  const Scene large = bench::make_skinning_bench_scene(5000, 4);
  const Primitive& a = small.meshes[0].primitives[0];
  const Primitive& b = large.meshes[0].primitives[0];
  for (size_t v = 0; v < 10; ++v) {
    EXPECT_EQ(a.positions[v], b.positions[v]);
    EXPECT_EQ(a.normals[v], b.normals[v]);
  }
  EXPECT_TRUE(std::equal(a.joints.begin(), a.joints.end(), b.joints.begin()));
  EXPECT_TRUE(std::equal(a.weights.begin(), a.weights.end(), b.weights.begin()));
}

// Every joint's skinning matrix at t = 0.5 rotates by a real angle and translates: JM = G(t) * G(rest)^-1.
TEST(BenchScenes, PoseMovesEveryJoint) {
  const Scene scene = bench::make_skinning_bench_scene(1, 1);
  const EvaluatedPose pose = evaluate_pose(scene, 0, bench::kSkinningBenchTime);
  ASSERT_EQ(pose.palettes.size(), 1u);
  ASSERT_EQ(pose.palettes[0].skinning.size(), size_t(bench::kSkinningBenchJoints));
  for (size_t j = 0; j < size_t(bench::kSkinningBenchJoints); ++j) {
    const Mat4& jm = pose.palettes[0].skinning[j];
    const Mat3 linear = jm.topLeftCorner<3, 3>();
    const double cos_angle = std::clamp((linear.trace() - 1.0) / 2.0, -1.0, 1.0);
    EXPECT_GT(std::acos(cos_angle), 0.05) << "joint " << j;
    const Vec3 translation = jm.topRightCorner<3, 1>();
    EXPECT_GT(translation.norm(), 1e-3) << "joint " << j;
  }
}

// 1 and 2 influences are not whole glTF sets: the reference and the CPU backend both take them, and agree
// to float32 rounding (positions within a box of size ~10: 1e-4 is a thousand float ulps there).
TEST(BenchScenes, OneAndTwoInfluencesGoThroughReferenceAndCpu) {
  const std::unique_ptr<Backend> reference_backend = make_backend(BackendKind::Reference);
  const std::unique_ptr<Backend> cpu_backend = make_backend(BackendKind::Cpu);
  for (const int k : {1, 2}) {
    for (const SkinningMethod method : kSkinningMethods) {
      SCOPED_TRACE("influences " + std::to_string(k) + " " + skinning_method_name(method));
      bench::SkinningBenchFixture fixture;
      const bench::SkinningBenchScene& posed = fixture.scene(300, k);
      SkinningJob& reference_job = fixture.job(*reference_backend, 300, k, method);
      reference_job.run();
      const std::vector<WorldPrimitive> reference = reference_job.vertices();
      SkinningJob& cpu_job = fixture.job(*cpu_backend, 300, k, method);
      cpu_job.run();
      const std::vector<WorldPrimitive> fast = cpu_job.vertices();
      ASSERT_EQ(reference.size(), 1u);
      ASSERT_EQ(fast.size(), 1u);
      ASSERT_EQ(fast[0].vertices.positions.size(), 300u);
      for (size_t v = 0; v < 300; ++v) {
        EXPECT_LT((fast[0].vertices.positions[v] - reference[0].vertices.positions[v]).norm(), 1e-4) << "vertex " << v;
        EXPECT_LT((fast[0].vertices.normals[v] - reference[0].vertices.normals[v]).norm(), 1e-4) << "vertex " << v;
        // The vertex moved: the pose is not the bind pose.
        EXPECT_GT((reference[0].vertices.positions[v] - posed.primitive().positions[v]).norm(), 1e-3) << "vertex " << v;
      }
    }
  }
}

TEST(BenchScenes, FixtureKeepsOneSceneAndServesTheRequestedOne) {
  const std::unique_ptr<Backend> cpu_backend = make_backend(BackendKind::Cpu);
  bench::SkinningBenchFixture fixture;
  EXPECT_EQ(fixture.scene(100, 2).primitive().vertex_count(), 100u);
  EXPECT_EQ(fixture.scene(200, 8).primitive().influences_per_vertex, 8);
  SkinningJob& dqs = fixture.job(*cpu_backend, 200, 8, SkinningMethod::Dqs);
  dqs.run();
  EXPECT_EQ(dqs.vertices().at(0).vertices.positions.size(), 200u);
  SkinningJob& lbs = fixture.job(*cpu_backend, 50, 1, SkinningMethod::Lbs);
  lbs.run();
  EXPECT_EQ(lbs.vertices().at(0).vertices.positions.size(), 50u);
  EXPECT_EQ(fixture.scene(50, 1).primitive().vertex_count(), 50u);
  EXPECT_THROW(fixture.scene(10, 3), std::invalid_argument);
  EXPECT_THROW(fixture.scene(0, 4), std::invalid_argument);
}

TEST(BenchScenes, AnimationSceneBranchesAndHasTwoLoopingClips) {
  for (const int joints : {64, 200, 1000}) {
    SCOPED_TRACE("joints " + std::to_string(joints));
    const Scene scene = bench::make_animation_bench_scene(joints);
    ASSERT_EQ(scene.nodes.size(), size_t(joints));
    size_t branching = 0;
    for (int j = 0; j < joints; ++j) {
      EXPECT_EQ(scene.nodes[size_t(j)].parent, bench::bench_joint_parent(j));
      EXPECT_LT(scene.nodes[size_t(j)].parent, j);
      if (scene.nodes[size_t(j)].children.size() >= 2) ++branching;
    }
    EXPECT_GE(branching, size_t(joints / 6 - 1)) << "not a branching tree";
    ASSERT_EQ(scene.animations.size(), 2u);
    EXPECT_EQ(scene.animations[0].end_time, 1.0);
    EXPECT_EQ(scene.animations[1].end_time, 1.6);
    for (const Animation& animation : scene.animations) {
      std::set<int> rotated;
      for (const AnimationChannel& channel : animation.channels)
        if (channel.path == ChannelPath::Rotation) rotated.insert(channel.node);
      EXPECT_EQ(rotated.size(), size_t(joints)) << animation.name;
    }
  }
  EXPECT_THROW(bench::make_animation_bench_scene(0), std::invalid_argument);
}

}  // namespace
}  // namespace skinref::test
