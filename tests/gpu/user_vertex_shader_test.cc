// A user's skinning vertex shader in skinref's Vulkan path (gpu/user_vertex_shader.h, gpu/user_vertex_skinning.h):
// the five samples in examples/shaders run under the validation layer, their outputs captured by transform
// feedback. The three correct ones (the tutorial's in GLSL and in HLSL, the mat3x4 storage buffer's) pass the
// any-order bounds on every small built-in scene; the one that reads the "no joint" sentinel is named when it
// runs; the one that moves normals like points passes on positions,
// fails on normals, and diagnose names normals=as-point. Interface files that contradict the SPIR-V are
// refused with exit 2 naming the JSON path, and the transform feedback decorations are checked in the SPIR-V.
#include "anim/pose_selection.h"
#include "core/input_error.h"
#include "gpu/spirv_xfb.h"
#include "gpu/user_vertex_shader.h"
#include "gpu/user_vertex_skinning.h"
#include "io/builtin_scenes.h"
#include "io/vertex_dump.h"
#include "support/cli_runner.h"
#include "support/gpu_fixture.h"
#include "support/temp_dir.h"
#include "verify/bounds_model.h"
#include "verify/vertex_compare.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#ifndef SKINREF_EXAMPLES_DIR
#error "SKINREF_EXAMPLES_DIR must name examples/ (set by CMakeLists.txt)"
#endif

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using namespace test::exit_codes;
using Json = nlohmann::ordered_json;

std::string vertex_example(const std::string& name) { return std::string(SKINREF_EXAMPLES_DIR) + "/shaders/" + name; }

const char* const kTutorial = "tutorial_skinning.vert";
const char* const kTutorialInterface = "tutorial_skinning.json";
const char* const kTutorialHlsl = "tutorial_skinning.hlsl";
const char* const kTutorialHlslInterface = "tutorial_skinning_hlsl.json";
const char* const kRows = "rows_storage_skinning.vert";
const char* const kRowsInterface = "rows_storage_skinning.json";
const char* const kNoSentinelCheck = "tutorial_no_sentinel_check.vert";
const char* const kNormalAsPoint = "tutorial_normal_as_point.vert";
const char* const kTutorialTangents = "tutorial_tangent_skinning.vert";
const char* const kTutorialTangentsInterface = "tutorial_tangent_skinning.json";
const char* const kTutorialDqs = "tutorial_dqs.vert";
const char* const kTutorialDqsInterface = "tutorial_dqs.json";

gpu::UserVertexShader load_vertex(const char* shader, const char* interface) {
  return gpu::load_user_vertex_shader(vertex_example(shader), vertex_example(interface));
}

EvaluatedPose pose_at(const Scene& scene, double time) {
  PoseSource source;
  source.animation = scene.animations.empty() ? -1 : 0;
  return select_pose(scene, source, time);
}

// The shader's vertices of `scene` at `time` against the reference under the any-order bounds.
VertexComparison run_vertex_sample(gpu::Context& context, const gpu::UserVertexShader& shader, const Scene& scene,
                                   double time) {
  const EvaluatedPose pose = pose_at(scene, time);
  SkinningOptions options;
  options.method = shader.interface.method;
  gpu::UserVertexSkinning skinning(context, shader, scene, pose, options);
  skinning.dispatch();
  const std::vector<WorldPrimitive> test = skinning.read_back();
  const std::vector<WorldPrimitive> reference = evaluate_vertices(scene, pose, options);
  return compare_vertices(scene, reference, test,
                          vertex_error_bounds(BoundsModel::AnyOrder, scene, pose, options, nullptr));
}

class UserVertexShaderTest : public test::ValidatedGpuTest {};

TEST_F(UserVertexShaderTest, CorrectSamplesPassOnBuiltinScenes) {
  ASSERT_TRUE(context_->transform_feedback_supported()) << "lavapipe and the usual GPUs offer VK_EXT_transform_feedback";
  const gpu::UserVertexShader tutorial = load_vertex(kTutorial, kTutorialInterface);
  const gpu::UserVertexShader rows = load_vertex(kRows, kRowsInterface);
  const gpu::UserVertexShader hlsl = load_vertex(kTutorialHlsl, kTutorialHlslInterface);
  for (const char* name : {"twist", "bend", "chain64", "node-transforms"}) {
    const Scene scene = make_builtin_scene(name);
    for (double time : {0.0, 0.35, 0.8}) {
      SCOPED_TRACE(std::string(name) + " at " + std::to_string(time));
      for (const gpu::UserVertexShader* shader : {&tutorial, &rows, &hlsl}) {
        const VertexComparison c = run_vertex_sample(*context_, *shader, scene, time);
        EXPECT_TRUE(c.passed()) << shader->interface.name << ": " << c.over << " of " << c.values
                                << " over, max ratio " << c.max_ratio;
        EXPECT_GT(c.values, 0u);
      }
    }
  }
}

// The DQS tutorial shader on the scenes whose palettes are rigid (DQS models rigid bone motion only).
TEST_F(UserVertexShaderTest, DqsSamplePassesOnRigidScenes) {
  const gpu::UserVertexShader dqs = load_vertex(kTutorialDqs, kTutorialDqsInterface);
  ASSERT_EQ(dqs.interface.method, SkinningMethod::Dqs);
  for (const char* name : {"twist", "bend"}) {
    const Scene scene = make_builtin_scene(name);
    for (double time : {0.0, 0.35, 0.8}) {
      SCOPED_TRACE(std::string(name) + " at " + std::to_string(time));
      const VertexComparison c = run_vertex_sample(*context_, dqs, scene, time);
      EXPECT_TRUE(c.passed()) << c.over << " of " << c.values << " over, max ratio " << c.max_ratio;
      EXPECT_GT(c.values, 0u);
    }
  }
}

// builtin:bend with a tangent per vertex: perpendicular to its normal (about the x axis where it can), the
// bitangent's sign alternating; the skinned tangents are captured and compared with the reference's.
TEST_F(UserVertexShaderTest, TangentsAreCapturedAndCompared) {
  const gpu::UserVertexShader shader = load_vertex(kTutorialTangents, kTutorialTangentsInterface);
  Scene scene = make_builtin_scene("bend");
  size_t tangents = 0;
  for (Mesh& mesh : scene.meshes)
    for (Primitive& prim : mesh.primitives) {
      prim.tangents.resize(prim.vertex_count());
      for (size_t v = 0; v < prim.vertex_count(); ++v) {
        Vec3 around = prim.normals[v].cross(Vec3::UnitX());
        if (around.norm() < 0.5) around = prim.normals[v].cross(Vec3::UnitY());  // a cap's normal along x
        around.normalize();
        prim.tangents[v] = Vec4(around.x(), around.y(), around.z(), v % 2 == 0 ? 1.0 : -1.0);
      }
      tangents += prim.vertex_count();
    }
  ASSERT_GT(tangents, 0u);
  for (double time : {0.0, 0.5}) {
    SCOPED_TRACE(time);
    const VertexComparison c = run_vertex_sample(*context_, shader, scene, time);
    EXPECT_TRUE(c.passed()) << c.over << " of " << c.values << " over, max ratio " << c.max_ratio;
    // A position, a normal and a tangent per vertex.
    EXPECT_EQ(c.values, 3 * tangents);
  }
}

TEST_F(UserVertexShaderTest, NormalsMovedLikePointsFailOnNormalsOnly) {
  const gpu::UserVertexShader shader = load_vertex(kNormalAsPoint, kTutorialInterface);
  const VertexComparison c = run_vertex_sample(*context_, shader, make_builtin_scene("bend"), 0.25);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.over_positions, 0u);
  EXPECT_GT(c.over, 0u);
}

// The sentinel slots' NaN weights show in the outputs of exactly the vertices that have such a slot.
TEST_F(UserVertexShaderTest, ReadingTheSentinelIsNamed) {
  const gpu::UserVertexShader shader = load_vertex(kNoSentinelCheck, kTutorialInterface);
  const Scene scene = make_builtin_scene("bend");
  gpu::UserVertexSkinning skinning(*context_, shader, scene, pose_at(scene, 0.5), SkinningOptions{});
  try {
    skinning.dispatch();
    FAIL() << "a shader reading the sentinel's palette entry was not named";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("sentinel -1"), std::string::npos) << message;
    EXPECT_NE(message.find("if (boneIds[i] == -1) continue;"), std::string::npos) << message;
  }
}

// The captured SPIR-V declares what transform feedback needs: the capability, the Xfb mode, and the offsets,
// buffer and stride on the captured outputs (read back by SPIRV-Cross); the source's SPIR-V has none of them.
TEST_F(UserVertexShaderTest, CapturedSpirvCarriesTheTransformFeedbackDecorations) {
  const gpu::UserVertexShader shader = load_vertex(kRows, kRowsInterface);
  spirv_cross::Compiler original(shader.spirv), captured(shader.captured);
  EXPECT_FALSE(original.get_execution_mode_bitset().get(spv::ExecutionModeXfb));
  EXPECT_TRUE(captured.get_execution_mode_bitset().get(spv::ExecutionModeXfb));
  const auto caps = captured.get_declared_capabilities();
  EXPECT_NE(std::find(caps.begin(), caps.end(), spv::CapabilityTransformFeedback), caps.end());
  std::map<uint32_t, uint32_t> offset_by_location;
  for (const spirv_cross::Resource& output : captured.get_shader_resources().stage_outputs) {
    EXPECT_EQ(captured.get_decoration(output.id, spv::DecorationXfbBuffer), 0u);
    EXPECT_EQ(captured.get_decoration(output.id, spv::DecorationXfbStride), 32u);  // a position and a normal
    offset_by_location[captured.get_decoration(output.id, spv::DecorationLocation)] =
        captured.get_decoration(output.id, spv::DecorationOffset);
  }
  EXPECT_EQ(offset_by_location[0], 0u);   // the position
  EXPECT_EQ(offset_by_location[1], 16u);  // the normal
  EXPECT_THROW(gpu::add_transform_feedback(shader.spirv, "main", {{false, 7, 0}}, 32, "rows"), InputError);
  EXPECT_THROW(gpu::add_transform_feedback(shader.spirv, "not_main", {{true, 0, 0}}, 32, "rows"), InputError);
}

// ---- the command line -----------------------------------------------------------------------------------------

class UserVertexShaderCliTest : public ::testing::Test {
 protected:
  test::CliRun run(const std::vector<std::string>& args) const { return test::run_cli(captures_, args); }
  std::string work(const std::string& name) const { return work_.file(name); }

  test::CliRun skin(const std::string& shader, const std::string& interface, const std::string& model, double time,
                    const std::string& out) const {
    return run({"skin", model, "--time", std::to_string(time), "--backend", "vulkan", "--validate", "--shader", shader,
                "--interface", interface, "--out", out});
  }

  // The tutorial's interface with `edit` applied: refused with exit 2, on one line naming `mentions`.
  void expect_refused(const std::function<void(Json&)>& edit, const std::vector<std::string>& mentions) {
    std::ifstream in(vertex_example(kTutorialInterface));
    Json json = Json::parse(in);
    edit(json);
    const std::string interface = work("edited.json"), out = work("refused.skv");
    std::ofstream(interface) << json.dump(2);
    const test::CliRun result = skin(vertex_example(kTutorial), interface, "builtin:bend", 0.25, out);
    EXPECT_EQ(result.exit_code, kExitBadInput) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    for (const std::string& mention : mentions)
      EXPECT_NE(result.err.find(mention), std::string::npos) << "no '" << mention << "' in: " << result.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }

  test::TempDir captures_, work_;
};

TEST_F(UserVertexShaderCliTest, TutorialDumpPassesCompare) {
  const std::string ref = work("ref.skv"), test = work("engine.skv");
  ASSERT_EQ(run({"skin", "builtin:bend", "--time", "0.625", "--out", ref}).exit_code, kExitOk);
  const test::CliRun skinned =
      skin(vertex_example(kTutorial), vertex_example(kTutorialInterface), "builtin:bend", 0.625, test);
  ASSERT_EQ(skinned.exit_code, kExitOk) << skinned.err;
  EXPECT_EQ(read_vertices_skv(test).record.writer, "user shader tutorial_skinning.vert (skinref vulkan)");
  const test::CliRun compared = run({"compare", ref, test});
  EXPECT_EQ(compared.exit_code, kExitOk) << compared.out << compared.err;
}

TEST_F(UserVertexShaderCliTest, NormalsAsPointsAreDiagnosed) {
  const std::string test = work("engine.skv");
  ASSERT_EQ(skin(vertex_example(kNormalAsPoint), vertex_example(kTutorialInterface), "builtin:bend", 0.25, test)
                .exit_code,
            kExitOk);
  const test::CliRun diagnosed = run({"diagnose", "builtin:bend", test});
  EXPECT_EQ(diagnosed.exit_code, kExitFailed) << diagnosed.out << diagnosed.err;
  EXPECT_NE(diagnosed.out.find("normals=as-point"), std::string::npos) << diagnosed.out;
}

TEST_F(UserVertexShaderCliTest, ReadingTheSentinelIsRefusedNamingIt) {
  const std::string out = work("engine.skv");
  const test::CliRun result =
      skin(vertex_example(kNoSentinelCheck), vertex_example(kTutorialInterface), "builtin:bend", 0.5, out);
  EXPECT_EQ(result.exit_code, kExitBadInput) << result.err;
  EXPECT_NE(result.err.find("tutorial_no_sentinel_check.vert"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("sentinel -1"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(UserVertexShaderCliTest, InterfacesThatContradictTheShaderAreRefused) {
  expect_refused([](Json& j) {
                   j["inputs"][2]["format"] = "R16G16B16A16_UINT";  // ivec4 read from unsigned shorts
                   j["inputs"][2].erase("sentinel");
                 },
                 {"edited.json", "/inputs/2/format", "int4"});
  expect_refused([](Json& j) { j["inputs"][1]["location"] = 7; }, {"/inputs", "location 1"});
  expect_refused([](Json& j) { j["palette"]["descriptor"] = "storage"; }, {"/palette/descriptor", "uniform"});
  expect_refused([](Json& j) { j["palette"]["joints"] = 1024; }, {"/palette", "32960 bytes"});
  expect_refused([](Json& j) { j["outputs"]["normal"]["location"] = 3; }, {"/outputs/normal", "location 3"});
  expect_refused([](Json& j) { j["inputs"][2].erase("sentinel"); j["inputs"][2]["sentinel"] = 70000; },
                 {"/inputs/2/sentinel", "-32768 to 32767"});
  expect_refused([](Json& j) { j["inputs"][3]["first"] = 1; }, {"/inputs", "slot 0"});
  expect_refused([](Json& j) { j["stage"] = "fragment"; }, {"/stage", "vertex"});
  expect_refused([](Json& j) { j["outputs"]["tangent"] = {{"location", 0}}; },
                 {"/outputs/tangent", "a tangent input to skin"});
  // A palette of matrices cannot be blended as dual quaternions, nor the other way round.
  expect_refused([](Json& j) { j["method"] = "dqs"; }, {"/palette/layout", "dual-quaternion for method dqs"});
  expect_refused([](Json& j) { j["palette"]["layout"] = "dual-quaternion"; },
                 {"/palette/layout", "for method lbs, got dual-quaternion"});
}

}  // namespace
}  // namespace skinref
