// A user's own skinning shader in skinref's Vulkan path (gpu/user_shader.h, gpu/user_skinning.h): the three
// samples in examples/shaders run under the validation layer on every small built-in scene and are held to the
// any-order bounds (the two correct ones pass, the planted bug fails where the mesh node moves the mesh), the
// command line's verdicts (compare exit 0, diagnose naming mesh-node=applied), and interface files that
// contradict the SPIR-V's reflection refused with exit 2 naming the binding.
#include "anim/pose_selection.h"
#include "gpu/user_shader.h"
#include "gpu/user_skinning.h"
#include "core/input_error.h"
#include "io/builtin_scenes.h"
#include "io/vertex_dump.h"
#include "support/cli_runner.h"
#include "support/gpu_fixture.h"
#include "support/temp_dir.h"
#include "verify/bounds_model.h"
#include "verify/vertex_compare.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#ifndef SKINREF_EXAMPLES_DIR
#error "SKINREF_EXAMPLES_DIR must name examples/ (set by CMakeLists.txt)"
#endif

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using namespace test::exit_codes;
using Json = nlohmann::ordered_json;

std::string example(const std::string& name) { return std::string(SKINREF_EXAMPLES_DIR) + "/shaders/" + name; }

struct Sample {
  const char* shader;
  const char* interface;
  SkinningMethod method;
};
const Sample kEngineLbs{"engine_lbs.comp", "engine_lbs.json", SkinningMethod::Lbs};
const Sample kEngineDqs{"engine_dqs.hlsl", "engine_dqs.json", SkinningMethod::Dqs};
const Sample kMeshNodeBug{"mesh_node_bug.comp", "mesh_node_bug.json", SkinningMethod::Lbs};

EvaluatedPose clip_pose(const Scene& scene, double time) {
  PoseSource source;
  source.animation = scene.animations.empty() ? -1 : 0;
  return select_pose(scene, source, time);
}

gpu::UserShader load(const Sample& sample) {
  return gpu::load_user_shader(example(sample.shader), example(sample.interface));
}

// The sample's vertices of `scene` at `time` against the reference under the any-order bounds (the engine's
// own evaluation order is unknown to skinref; the palette is the reference's, rounded to float32).
VertexComparison run_sample(gpu::Context& context, const gpu::UserShader& shader, const Scene& scene, double time) {
  const EvaluatedPose pose = clip_pose(scene, time);
  SkinningOptions options;
  options.method = shader.interface.method;
  gpu::UserShaderSkinning skinning(context, shader, scene, pose, options);
  skinning.dispatch();
  const std::vector<WorldPrimitive> test = skinning.read_back();
  const std::vector<WorldPrimitive> reference = evaluate_vertices(scene, pose, options);
  return compare_vertices(scene, reference, test,
                          vertex_error_bounds(BoundsModel::AnyOrder, scene, pose, options, nullptr));
}

class UserShaderTest : public test::ValidatedGpuTest {};

TEST_F(UserShaderTest, SamplesReflectAsTheirInterfacesSay) {
  const gpu::UserShader lbs = load(kEngineLbs);
  EXPECT_EQ(lbs.reflection.local_size[0], 128u);
  ASSERT_EQ(lbs.reflection.buffers.size(), 3u);
  EXPECT_EQ(lbs.reflection.push_bytes, 4u);
  const gpu::UserShader dqs = load(kEngineDqs);  // HLSL through glslc
  EXPECT_EQ(dqs.reflection.local_size[0], 64u);
  EXPECT_EQ(dqs.reflection.buffers.size(), 7u);
  EXPECT_EQ(dqs.interface.method, SkinningMethod::Dqs);
  const gpu::UserShader bug = load(kMeshNodeBug);
  EXPECT_EQ(bug.reflection.push_members.size(), 2u);
}

// The two correct samples within the any-order bounds on every scene whose palettes they can represent
// (DQS: rigid bones only, so not the scaled ones), at three times.
TEST_F(UserShaderTest, CorrectSamplesPassOnBuiltinScenes) {
  const gpu::UserShader lbs = load(kEngineLbs);
  const gpu::UserShader dqs = load(kEngineDqs);
  for (const char* name : {"twist", "bend", "chain64", "node-transforms"}) {
    const Scene scene = make_builtin_scene(name);
    for (double time : {0.0, 0.35, 0.8}) {
      SCOPED_TRACE(std::string(name) + " at " + std::to_string(time));
      const VertexComparison with_lbs = run_sample(*context_, lbs, scene, time);
      EXPECT_TRUE(with_lbs.passed()) << "LBS: " << with_lbs.over << " of " << with_lbs.values << " over, max ratio "
                                     << with_lbs.max_ratio;
      EXPECT_GT(with_lbs.values, 0u);
      const VertexComparison with_dqs = run_sample(*context_, dqs, scene, time);
      EXPECT_TRUE(with_dqs.passed()) << "DQS: " << with_dqs.over << " of " << with_dqs.values << " over, max ratio "
                                     << with_dqs.max_ratio;
    }
  }
}

// The planted bug moves every vertex of a mesh node that is not at the origin, and nothing else.
TEST_F(UserShaderTest, MeshNodeBugFailsWhereTheNodeMoves) {
  const gpu::UserShader bug = load(kMeshNodeBug);
  const VertexComparison moved = run_sample(*context_, bug, make_builtin_scene("node-transforms"), 0.35);
  EXPECT_FALSE(moved.passed());
  EXPECT_GT(moved.over_positions, 0u);
  const VertexComparison at_origin = run_sample(*context_, bug, make_builtin_scene("bend"), 0.35);
  EXPECT_TRUE(at_origin.passed()) << at_origin.over << " over, max ratio " << at_origin.max_ratio;
}

TEST_F(UserShaderTest, MoreInfluencesThanTheShaderReadsAreRefusedNamingTheConvention) {
  const gpu::UserShader lbs = load(kEngineLbs);
  const Scene scene = make_builtin_scene("eight-influences");
  const EvaluatedPose pose = clip_pose(scene, 0.5);
  try {
    gpu::UserShaderSkinning skinning(*context_, lbs, scene, pose, SkinningOptions{});
    FAIL() << "eight influences accepted by a shader that reads four";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("influences=top4-renormalized"), std::string::npos) << error.what();
  }
}

// ---- the command line -----------------------------------------------------------------------------------------

class UserShaderCliTest : public ::testing::Test {
 protected:
  test::CliRun run(const std::vector<std::string>& args) const { return test::run_cli(captures_, args); }
  std::string work(const std::string& name) const { return work_.file(name); }

  // The sample's interface with `edit` applied, written into the work directory.
  std::string edited_interface(const Sample& sample, const std::function<void(Json&)>& edit) const {
    std::ifstream in(example(sample.interface));
    Json json = Json::parse(in);
    edit(json);
    const std::string path = work("edited.json");
    std::ofstream(path) << json.dump(2);
    return path;
  }

  void expect_refused(const Sample& sample, const std::string& interface, const std::vector<std::string>& mentions) {
    const std::string out = work("refused.skv");
    const test::CliRun result = run({"skin", "builtin:bend", "--time", "0.25", "--backend", "vulkan", "--shader",
                                     example(sample.shader), "--interface", interface, "--out", out});
    EXPECT_EQ(result.exit_code, kExitBadInput) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    for (const std::string& mention : mentions)
      EXPECT_NE(result.err.find(mention), std::string::npos) << "no '" << mention << "' in: " << result.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }

  test::TempDir captures_, work_;
};

TEST_F(UserShaderCliTest, EngineLbsDumpPassesCompareUnderAnyOrderBounds) {
  const std::string ref = work("ref.skv"), test = work("engine.skv");
  ASSERT_EQ(run({"skin", "builtin:bend", "--time", "0.625", "--out", ref}).exit_code, kExitOk);
  const test::CliRun skinned = run({"skin", "builtin:bend", "--time", "0.625", "--backend", "vulkan", "--validate",
                                    "--shader", example(kEngineLbs.shader), "--interface",
                                    example(kEngineLbs.interface), "--out", test});
  ASSERT_EQ(skinned.exit_code, kExitOk) << skinned.err;
  EXPECT_NE(skinned.out.find("user shader"), std::string::npos) << skinned.out;
  const VertexDump dump = read_vertices_skv(test);
  EXPECT_EQ(dump.record.writer, "user shader engine_lbs.comp (skinref vulkan)");
  const test::CliRun compared = run({"compare", ref, test});
  EXPECT_EQ(compared.exit_code, kExitOk) << compared.out << compared.err;
  EXPECT_NE(compared.out.find("any-order"), std::string::npos) << compared.out;
}

TEST_F(UserShaderCliTest, EngineDqsDumpPassesCompare) {
  const std::string ref = work("ref.skv"), test = work("engine.skv");
  ASSERT_EQ(run({"skin", "builtin:twist", "--time", "0.75", "--method", "dqs", "--out", ref}).exit_code, kExitOk);
  const test::CliRun skinned = run({"skin", "builtin:twist", "--time", "0.75", "--method", "dqs", "--backend",
                                    "vulkan", "--validate", "--shader", example(kEngineDqs.shader), "--interface",
                                    example(kEngineDqs.interface), "--out", test});
  ASSERT_EQ(skinned.exit_code, kExitOk) << skinned.err;
  const test::CliRun compared = run({"compare", ref, test});
  EXPECT_EQ(compared.exit_code, kExitOk) << compared.out << compared.err;
}

// Eight influences, read by a four-influence shader once loaded as an engine's importer loads them: the
// convention is recorded, and compare holds the dump to the reference under the same convention.
TEST_F(UserShaderCliTest, EngineLimitOfFourInfluencesIsNamedAndChecked) {
  const std::string ref = work("ref.skv"), test = work("engine.skv");
  const test::CliRun refused = run({"skin", "builtin:eight-influences", "--time", "0.5", "--backend", "vulkan",
                                    "--shader", example(kEngineLbs.shader), "--interface",
                                    example(kEngineLbs.interface), "--out", test});
  EXPECT_EQ(refused.exit_code, kExitBadInput);
  EXPECT_NE(refused.err.find("--convention influences=top4-renormalized"), std::string::npos) << refused.err;
  const test::CliRun skinned = run({"skin", "builtin:eight-influences", "--time", "0.5", "--convention",
                                    "influences=top4-renormalized", "--backend", "vulkan", "--validate", "--shader",
                                    example(kEngineLbs.shader), "--interface", example(kEngineLbs.interface),
                                    "--out", test});
  ASSERT_EQ(skinned.exit_code, kExitOk) << skinned.err;
  ASSERT_EQ(run({"skin", "builtin:eight-influences", "--time", "0.5", "--convention", "influences=top4-renormalized",
                 "--out", ref}).exit_code, kExitOk);
  const test::CliRun compared = run({"compare", ref, test});
  EXPECT_EQ(compared.exit_code, kExitOk) << compared.out << compared.err;
  EXPECT_NE(compared.out.find("influences=top4-renormalized"), std::string::npos) << compared.out;
}

TEST_F(UserShaderCliTest, MeshNodeBugIsDiagnosed) {
  const std::string test = work("bug.skv");
  const test::CliRun skinned = run({"skin", "builtin:node-transforms", "--time", "0.5", "--backend", "vulkan",
                                    "--validate", "--shader", example(kMeshNodeBug.shader), "--interface",
                                    example(kMeshNodeBug.interface), "--out", test});
  ASSERT_EQ(skinned.exit_code, kExitOk) << skinned.err;
  const test::CliRun diagnosed = run({"diagnose", "builtin:node-transforms", test});
  EXPECT_EQ(diagnosed.exit_code, kExitFailed) << diagnosed.out << diagnosed.err;
  EXPECT_NE(diagnosed.out.find("mesh-node=applied"), std::string::npos) << diagnosed.out;
}

TEST_F(UserShaderCliTest, WrongInterfacesAreRefusedNamingTheBinding) {
  // A binding the shader does not have.
  expect_refused(kEngineLbs, edited_interface(kEngineLbs, [](Json& j) { j["buffers"][1]["binding"] = 7; }),
                 {"edited.json", "/buffers/1/binding", "binding 7", "binding 1 'Bones'"});
  // A stride the shader's array contradicts: float4 positions (array stride 16) described as packed float3.
  expect_refused(kEngineDqs, edited_interface(kEngineDqs, [](Json& j) {
                   j["buffers"][0]["attributes"][0]["format"] = "float3";
                   j["buffers"][0]["stride"] = 12;
                 }),
                 {"/buffers/0/stride", "array stride of 16", "12 bytes"});
  // Inputs in a buffer the shader declares writeonly, and outputs in one it declares readonly (HLSL's
  // StructuredBuffer).
  expect_refused(kEngineLbs, edited_interface(kEngineLbs, [](Json& j) { std::swap(j["buffers"][0]["binding"], j["buffers"][2]["binding"]); }),
                 {"/buffers/0", "for position", "binding 2 'Skinned' writeonly"});
  expect_refused(kEngineDqs, edited_interface(kEngineDqs, [](Json& j) { std::swap(j["buffers"][0]["binding"], j["buffers"][5]["binding"]); }),
                 {"/buffers/5", "for skinned_position", "binding 0 'positions' readonly"});
  // A storage buffer of the shader left undescribed.
  expect_refused(kMeshNodeBug, edited_interface(kMeshNodeBug, [](Json& j) { j["buffers"].erase(5); }),
                 {"binding 5 'Model'", "has none"});
  // A push constant the interface does not fill.
  expect_refused(kMeshNodeBug, edited_interface(kMeshNodeBug, [](Json& j) { j["push_constants"].erase(1); }),
                 {"/push_constants", "'vertex_count' at offset 4"});
  // The workgroup size the shader does not declare.
  expect_refused(kEngineLbs, edited_interface(kEngineLbs, [](Json& j) { j["workgroup_size"] = 64; }),
                 {"/workgroup_size", "local_size_x is 128"});
  // A format the attribute cannot take, and a misspelt key.
  expect_refused(kEngineLbs, edited_interface(kEngineLbs, [](Json& j) { j["buffers"][1]["attributes"][0]["format"] = "float4"; }),
                 {"/buffers/1/attributes/0/format", "mat3x4-row-major"});
  expect_refused(kEngineLbs, edited_interface(kEngineLbs, [](Json& j) { j["influence"] = 4; }), {"/influence", "no such key"});
}

// The golden suite on the user's shader: the cases of the other method skipped with the reason, the rest held
// to the any-order bounds.
TEST_F(UserShaderCliTest, GoldenCheckRunsOnTheShader) {
  const test::CliRun checked = run({"golden", "check", "--backend", "vulkan", "--validate", "--filter", "bend-*",
                                    "--shader", example(kEngineLbs.shader), "--interface", example(kEngineLbs.interface)});
  EXPECT_EQ(checked.exit_code, kExitOk) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("SKIPPED bend-dqs: the user shader computes lbs, not dqs"), std::string::npos) << checked.out;
  EXPECT_NE(checked.out.find("PASS bend-lbs"), std::string::npos) << checked.out;
  EXPECT_NE(checked.out.find(" 0 failed"), std::string::npos) << checked.out;
}

// A failing golden output is named as diagnose names it: the shader that applies the mesh node's matrix fails
// node-transforms-lbs with the departure, not only "skinning ... error over bound".
TEST_F(UserShaderCliTest, GoldenCheckNamesTheDeparture) {
  const test::CliRun checked = run({"golden", "check", "--backend", "vulkan", "--validate", "--filter",
                                    "node-transforms-lbs", "--shader", example(kMeshNodeBug.shader), "--interface",
                                    example(kMeshNodeBug.interface)});
  EXPECT_EQ(checked.exit_code, kExitFailed) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("FAIL node-transforms-lbs"), std::string::npos) << checked.out;
  EXPECT_NE(checked.out.find("explained by mesh-node=applied"), std::string::npos) << checked.out;
}

TEST_F(UserShaderCliTest, ShaderThatDoesNotCompileIsRefused) {
  const std::string broken = work("broken.comp");
  std::ofstream(broken) << "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undefined_call(); }\n";
  const test::CliRun result = run({"skin", "builtin:bend", "--backend", "vulkan", "--shader", broken, "--interface",
                                   example(kEngineLbs.interface), "--out", work("x.skv")});
  EXPECT_EQ(result.exit_code, kExitBadInput) << result.err;
  EXPECT_NE(result.err.find("broken.comp"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("glslc"), std::string::npos) << result.err;
  const test::CliRun usage = run({"skin", "builtin:bend", "--shader", example(kEngineLbs.shader), "--out", work("y.skv")});
  EXPECT_EQ(usage.exit_code, kExitBadInput) << usage.err;
  EXPECT_NE(usage.err.find("--backend vulkan"), std::string::npos) << usage.err;
}

}  // namespace
}  // namespace skinref
