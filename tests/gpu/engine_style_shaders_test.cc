// Skinning vertex shaders written as engines and tutorials write them (examples/shaders/engines/), run as
// written: inputs that skinning does not use (texture coordinates, colours) fed from the model, blocks in two
// descriptor sets, push constants, a per-draw joint offset into a storage buffer of many skins, and a
// specialization constant. Each runs under the validation layer (`--validate`) and gets its verdict from
// `diagnose`; each new form of the interface, contradicted, is refused naming its JSON path.
//
// Like the rest of gpu_tests, this runs only where the Vulkan path was built.
#include "support/cli_runner.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#ifndef SKINREF_EXAMPLES_DIR
#error "SKINREF_EXAMPLES_DIR must name examples/ (set by CMakeLists.txt)"
#endif

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using namespace test::exit_codes;
using Json = nlohmann::json;

std::string engine_sample(const std::string& name) { return std::string(SKINREF_EXAMPLES_DIR) + "/shaders/engines/" + name; }

// A time of bend's clip where every joint has turned.
constexpr const char* kTime = "0.37";

class EngineStyleShaderTest : public ::testing::Test {
 protected:
  test::CliRun run(const std::vector<std::string>& args) const { return test::run_cli(captures_, args); }
  std::string work(const std::string& name) const { return work_.file(name); }

 public:
  std::string path(const std::string& name) const { return work(name); }
  test::CliRun skin_shader(const std::string& shader, const std::string& interface, const std::string& out) const {
    return skin(shader, interface, out);
  }

 protected:

  // Every sample's includes are found in examples/shaders/engines/include (--shader-include).
  test::CliRun skin(const std::string& shader, const std::string& interface, const std::string& out,
                    bool with_includes = true) const {
    std::vector<std::string> args{"skin", "builtin:bend", "--time", kTime, "--backend", "vulkan", "--validate",
                                  "--shader", shader, "--interface", interface, "--out", out};
    if (with_includes) args.insert(args.end(), {"--shader-include", engine_sample("include")});
    return run(args);
  }

  // The sample's interface edited by `edit`: refused, one line naming each of `mentions`, no dump written.
  void expect_refused(const std::string& sample, const std::function<void(Json&)>& edit,
                      const std::vector<std::string>& mentions) {
    std::ifstream in(engine_sample(sample + ".json"));
    Json json = Json::parse(in);
    edit(json);
    const std::string interface = work("edited.json"), out = work("refused.skv");
    std::ofstream(interface) << json.dump(2);
    const test::CliRun result = skin(engine_sample(sample + ".vert"), interface, out);
    EXPECT_EQ(result.exit_code, kExitBadInput) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    for (const std::string& mention : mentions)
      EXPECT_NE(result.err.find(mention), std::string::npos) << "no '" << mention << "' in: " << result.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }

  test::TempDir captures_, work_;
};

// Each engine's sample as its engine writes it: glTF 2.0's positions, and its normal rule named (each moves the
// normal by the blended matrix's 3x3, equal on bend to the blended normal matrices):
// - the tutorial as printed: a texcoord passed through, the UBO and the bones in two blocks, ">= 0" for a joint;
// - three.js: the bones in a 64 x 64 RGBA32F texture read at texel centres with normalized coordinates,
//   bindMatrix and bindMatrixInverse, float joint indices, a second UV set;
// - Unreal: three float4 rows a bone in a uniform texel buffer (samplerBuffer), unsigned byte indices;
// - HLSL: a Buffer<float4> of four rows a bone, compiled by glslc.
TEST_F(EngineStyleShaderTest, EachEngineSampleRunsAndItsNormalRuleIsNamed) {
  for (const std::string sample : {"tutorial_as_printed.vert", "threejs_bone_texture.vert", "unreal_bone_buffer.vert",
                                   "hlsl_bone_buffer.hlsl"}) {
    const std::string stem = sample.substr(0, sample.find('.'));
    const std::string dump = work(stem + ".skv");
    const test::CliRun skinned = skin(engine_sample(sample), engine_sample(stem + ".json"), dump);
    ASSERT_EQ(skinned.exit_code, kExitOk) << sample << ": " << skinned.err;
    const test::CliRun diagnosed = run({"diagnose", "builtin:bend", dump, "--time", kTime});
    EXPECT_EQ(diagnosed.exit_code, kExitFailed) << sample;
    EXPECT_NE(diagnosed.out.find("matches glTF 2.0 with normals=blend-normal-matrices: 0 of 672 values over"),
              std::string::npos)
        << sample << ": " << diagnosed.out;
    EXPECT_NE(diagnosed.out.find("normals=blend-upper3x3"), std::string::npos) << sample << ": " << diagnosed.out;
    EXPECT_NE(diagnosed.out.find("moves positions by up to 0 of the extent"), std::string::npos) << diagnosed.out;
  }
}

// A sample's shader with each (from, to) of `replacements` made, and its interface with `edit`, skinned; the dump's
// path, or "" when skin failed (the failure reported).
std::string skin_variant(const EngineStyleShaderTest& t, const std::string& sample, const std::string& name,
                         const std::vector<std::pair<std::string, std::string>>& replacements,
                         const std::function<void(Json&)>& edit) {
  std::ifstream source_in(engine_sample(sample + ".vert"));
  std::string source((std::istreambuf_iterator<char>(source_in)), std::istreambuf_iterator<char>());
  for (const auto& [from, to] : replacements) {
    EXPECT_NE(source.find(from), std::string::npos) << from;
    for (size_t at = source.find(from); at != std::string::npos; at = source.find(from, at + to.size()))
      source.replace(at, from.size(), to);
  }
  const std::string shader = t.path(name + ".vert"), interface = t.path(name + ".json"), dump = t.path(name + ".skv");
  std::ofstream(shader) << source;
  std::ifstream in(engine_sample(sample + ".json"));
  Json json = Json::parse(in);
  edit(json);
  std::ofstream(interface) << json.dump(2);
  const test::CliRun skinned = t.skin_shader(shader, interface, dump);
  EXPECT_EQ(skinned.exit_code, kExitOk) << name << ": " << skinned.err;
  return skinned.exit_code == kExitOk ? dump : "";
}

// The other forms of the same reads, each by editing a sample: the Unreal palette in a storage texel buffer
// (imageBuffer, imageLoad); three.js's bone texture read with texelFetch (as three.js does since WebGL 2); a
// per-draw joint offset in a uniform block rather than a push constant. Each gets the sample's verdict.
TEST_F(EngineStyleShaderTest, TheOtherFormsOfThePaletteAreRead) {
  const char* const kNormalRule = "matches glTF 2.0 with normals=blend-normal-matrices: 0 of 672 values over";
  std::vector<std::string> dumps;
  dumps.push_back(skin_variant(*this, "unreal_bone_buffer", "storage_texels",
                               {{"uniform samplerBuffer BoneMatrices", "layout(rgba32f) uniform readonly imageBuffer BoneMatrices"},
                                {"texelFetch(BoneMatrices", "imageLoad(BoneMatrices"}},
                               [](Json& j) { j["palette"]["descriptor"] = "storage-texel-buffer"; }));
  dumps.push_back(skin_variant(*this, "threejs_bone_texture", "texel_fetch",
                               {{"vec4 v1 = texture(boneTexture, vec2(dx * (x + 0.5), y));",
                                 "ivec2 at = ivec2(int(x), int(y / dy)); vec4 v1 = texelFetch(boneTexture, at, 0);"},
                                {"vec4 v2 = texture(boneTexture, vec2(dx * (x + 1.5), y));",
                                 "vec4 v2 = texelFetch(boneTexture, at + ivec2(1, 0), 0);"},
                                {"vec4 v3 = texture(boneTexture, vec2(dx * (x + 2.5), y));",
                                 "vec4 v3 = texelFetch(boneTexture, at + ivec2(2, 0), 0);"},
                                {"vec4 v4 = texture(boneTexture, vec2(dx * (x + 3.5), y));",
                                 "vec4 v4 = texelFetch(boneTexture, at + ivec2(3, 0), 0);"}},
                               [](Json&) {}));
  dumps.push_back(skin_variant(*this, "tutorial_as_printed", "uniform_offset",
                               {{"  mat4 proj;\n", "  mat4 proj;\n  uint boneOffset;\n"},
                                {"boneBuffer.bones[skinIndices[i]]", "boneBuffer.bones[ubo.boneOffset + skinIndices[i]]"}},
                               [](Json& j) { j["palette"]["joint_offset"] = {{"value", 100}, {"binding", 0}, {"offset", 192}}; }));
  for (const std::string& dump : dumps) {
    if (dump.empty()) continue;
    const test::CliRun diagnosed = run({"diagnose", "builtin:bend", dump, "--time", kTime});
    EXPECT_NE(diagnosed.out.find(kNormalRule), std::string::npos) << dump << ": " << diagnosed.out;
  }
}

// A read beyond the skin's texels (three.js's lookup shifted 1,200 texels along its row, clamped to the row's
// last) reads NaN, as a read beside a block does: the dump holds NaN, which diagnose refuses naming it.
TEST_F(EngineStyleShaderTest, TexelsBeyondThePaletteAreNaN) {
  const std::string dump = skin_variant(*this, "threejs_bone_texture", "beyond",
                                        {{"texture(boneTexture, vec2(dx * (x + 0.5), y))",
                                          "texture(boneTexture, vec2(dx * (x + 1200.5), y))"}},
                                        [](Json&) {});
  ASSERT_FALSE(dump.empty());
  const test::CliRun diagnosed = run({"diagnose", "builtin:bend", dump, "--time", kTime});
  EXPECT_EQ(diagnosed.exit_code, kExitBadInput);
  EXPECT_NE(diagnosed.err.find("has NaN in its position"), std::string::npos) << diagnosed.err;
}

// Many skins in one storage buffer (set 1), the draw's first bone (200) and the model matrix in push constants,
// MAX_BONES specialized to 100, a colour input in UNORM8 and joints in UINT8, the bones declared in an #include
// of another folder: glTF 2.0 to the float32 bounds. The same shader with MAX_BONES left at its default 1 clamps
// every joint to the skin's first: not glTF. Without --shader-include, glslc's message names the include.
TEST_F(EngineStyleShaderTest, ABatchedShaderWithPushConstantsAndASpecializedConstantPasses) {
  const std::string dump = work("batched.skv");
  const test::CliRun skinned = skin(engine_sample("batched_skins.vert"), engine_sample("batched_skins.json"), dump);
  ASSERT_EQ(skinned.exit_code, kExitOk) << skinned.err;
  const test::CliRun diagnosed = run({"diagnose", "builtin:bend", dump, "--time", kTime});
  EXPECT_EQ(diagnosed.exit_code, kExitOk) << diagnosed.out;
  EXPECT_NE(diagnosed.out.find("matches glTF 2.0: 0 of 672 values over"), std::string::npos) << diagnosed.out;

  std::ifstream in(engine_sample("batched_skins.json"));
  Json json = Json::parse(in);
  json.erase("specialization_constants");
  const std::string unspecialized = work("unspecialized.json"), clamped = work("clamped.skv");
  std::ofstream(unspecialized) << json.dump(2);
  ASSERT_EQ(skin(engine_sample("batched_skins.vert"), unspecialized, clamped).exit_code, kExitOk);
  const test::CliRun wrong = run({"diagnose", "builtin:bend", clamped, "--time", kTime});
  EXPECT_EQ(wrong.exit_code, kExitFailed) << wrong.out;

  const test::CliRun no_include =
      skin(engine_sample("batched_skins.vert"), engine_sample("batched_skins.json"), work("none.skv"), false);
  EXPECT_EQ(no_include.exit_code, kExitBadInput);
  EXPECT_NE(no_include.err.find("batched_bones.glsl"), std::string::npos) << no_include.err;
}

// `skinref shader-interface` drafts each sample's interface from its SPIR-V; with at most the edits docs/vulkan.md
// says a user must make (what SPIR-V cannot say: a texel palette's layout, the specialization constants' values
// the engine sets), the draft gets the verdict the written interface gets.
TEST_F(EngineStyleShaderTest, DraftsRunAfterTheDocumentedEdits) {
  struct Draft {
    const char* shader;
    std::vector<std::pair<const char*, Json>> edits;  // JSON pointer -> value
    const char* verdict;
  };
  const char* const kNormalRule = "matches glTF 2.0 with normals=blend-normal-matrices: 0 of 672 values over";
  const std::vector<Draft> drafts = {
      {"tutorial_as_printed.vert", {}, kNormalRule},
      {"threejs_bone_texture.vert", {}, kNormalRule},
      {"unreal_bone_buffer.vert", {{"/palette/layout", "mat3x4-rows"}}, kNormalRule},
      {"hlsl_bone_buffer.hlsl", {{"/palette/layout", "mat4-row-major"}}, kNormalRule},
      {"batched_skins.vert", {{"/specialization_constants/0/value", 100}}, "matches glTF 2.0: 0 of 672 values over"},
  };
  for (const Draft& d : drafts) {
    const std::string name = d.shader, stem = name.substr(0, name.find('.'));
    const std::string interface = work(stem + "_draft.json"), dump = work(stem + "_draft.skv");
    const test::CliRun drafted = run({"shader-interface", engine_sample(name), "--shader-include",
                                      engine_sample("include"), "--out", interface});
    ASSERT_EQ(drafted.exit_code, kExitOk) << name << ": " << drafted.err;
    EXPECT_NE(drafted.err.find("guessed: /inputs/0/attribute: position, from the name"), std::string::npos)
        << drafted.err;
    std::ifstream in(interface);
    Json json = Json::parse(in);
    for (const auto& [pointer, value] : d.edits) json[Json::json_pointer(pointer)] = value;
    std::ofstream(interface) << json.dump(2);
    const test::CliRun skinned = skin(engine_sample(name), interface, dump);
    ASSERT_EQ(skinned.exit_code, kExitOk) << name << ": " << skinned.err;
    const test::CliRun diagnosed = run({"diagnose", "builtin:bend", dump, "--time", kTime});
    EXPECT_NE(diagnosed.out.find(d.verdict), std::string::npos) << name << ": " << diagnosed.out;
  }
}

TEST_F(EngineStyleShaderTest, InterfacesThatContradictTheNewFormsAreRefused) {
  const char* const batched = "batched_skins";
  // Push constants: the shader's 68 bytes not declared, declared too few, or a value placed beyond them.
  expect_refused(batched, [](Json& j) { j.erase("push_constants"); j["identity_matrices"].erase(2);
                   j["palette"].erase("joint_offset"); },
                 {"/push_constants", "68 bytes of push constants"});
  expect_refused(batched, [](Json& j) { j["push_constants"]["bytes"] = 64; }, {"/palette/joint_offset/push_constant"});
  // Descriptor sets: the palette in set 0, where binding 0 is the 128-byte frame block; at a binding of set 1 the
  // shader does not have.
  expect_refused(batched, [](Json& j) { j["palette"]["set"] = 0; }, {"/palette", "'Frame' (128 bytes)"});
  expect_refused(batched, [](Json& j) { j["palette"]["binding"] = 3; }, {"/palette", "at set 1, binding 3"});
  expect_refused(batched, [](Json& j) { j["palette"]["set"] = 9; }, {"/palette/set", "0 to 3"});
  // Specialization constants: an id the shader does not declare; a value of the wrong type.
  expect_refused(batched, [](Json& j) { j["specialization_constants"][0]["id"] = 5; },
                 {"/specialization_constants/0/id", "constant_id of the shader, got 5"});
  expect_refused(batched, [](Json& j) { j["specialization_constants"][0]["value"] = -1; },
                 {"/specialization_constants/0/value", "uint"});
  // The joint offset: beyond the palette's capacity.
  expect_refused(batched, [](Json& j) { j["palette"]["joint_offset"]["value"] = 300; },
                 {"/palette/joint_offset/value", "below \"joints\" (300)"});
  // Inputs: a colour read as integers by a float input; an attribute that is not one.
  expect_refused(batched, [](Json& j) { j["inputs"][4]["format"] = "R8G8B8A8_UINT"; }, {"/inputs/4/format", "float4"});
  expect_refused(batched, [](Json& j) { j["inputs"][4]["attribute"] = "colour:0"; },
                 {"/inputs/4/attribute", "texcoord:N, color:N"});
  expect_refused(batched, [](Json& j) { j["inputs"][4]["format"] = "R8G8B8_SRGB"; },
                 {"/inputs/4/format", "a Vulkan vertex format"});
  // The tutorial's texture coordinate left out: refused naming it, as before.
  expect_refused("tutorial_as_printed", [](Json& j) { j["inputs"].erase(2); },
                 {"/inputs", "'inTexCoord' at location 2 described"});
  expect_refused("tutorial_as_printed", [](Json& j) { j["inputs"][2]["attribute"] = "constant"; },
                 {"/inputs/2/value", "1 to 4 finite numbers"});
  // Textures and texel buffers: the kind the shader declares, an image too small for the palette, a matrix placed
  // in a texel buffer.
  expect_refused("threejs_bone_texture", [](Json& j) { j["palette"]["descriptor"] = "uniform-texel-buffer";
                   j["palette"].erase("width"); j["palette"].erase("height"); },
                 {"/palette/descriptor", "sampled-image"});
  expect_refused("threejs_bone_texture", [](Json& j) { j["palette"]["height"] = 8; },
                 {"/palette/height", "at least 4096 texels for 1024 joints, got 64 x 8"});
  expect_refused("unreal_bone_buffer", [](Json& j) { j["palette"]["descriptor"] = "uniform"; },
                 {"/palette/descriptor", "uniform-texel-buffer"});
  expect_refused("unreal_bone_buffer", [](Json& j) { j["identity_matrices"][1]["binding"] = 1; },
                 {"/identity_matrices/1", "is a uniform-texel-buffer"});
}

}  // namespace SKINREF_UNITY_ID
}  // namespace skinref
