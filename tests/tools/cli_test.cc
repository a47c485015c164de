// The skinref command line, run as a separate process: exit statuses, one-line error messages that name the
// problem, no output file after any failure, deterministic dumps (also across thread counts), the pose
// and info outputs, export followed by skinning of the exported file, pose recipes (--recipe), and render
// (PNG size, views, joints by name, ids and dump outputs, bad values, no output after a failed one).
#include "anim/evaluate_pose.h"
#include "core/sanitizers.h"
#include "io/builtin_scenes.h"
#include "io/image_io.h"
#include "io/vertex_dump.h"
#include "support/cli_runner.h"
#include "support/png_builder.h"
#include "support/skinning_fixtures.h"
#include "support/temp_dir.h"
#include "support/tolerances.h"
#include "verify/bounds_model.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

namespace fs = std::filesystem;
using test::read_bytes;
using test::write_bytes;

using namespace test::exit_codes;

// Joints of builtin:twist (builtin_scenes.h: joint 0 at the origin, joint 1 at the middle).
constexpr size_t kTwistJointCount = 2;

using RunResult = test::CliRun;

class CliTest : public ::testing::Test {
 protected:
  // A path in the directory the commands write into (captured output lives elsewhere).
  std::string work(const std::string& name) const { return work_dir_.file(name); }

  std::vector<std::string> work_entries() const { return work_dir_.entries(); }

  RunResult run(const std::vector<std::string>& args) const { return test::run_cli(captures_dir_, args); }

  // Two .skv dumps hold the same vertices, bit for bit (their records may differ: they say what made them).
  static void expect_same_skv_vertices(const std::string& a, const std::string& b) {
    const VertexDump first = read_vertices_skv(a);
    const VertexDump second = read_vertices_skv(b);
    EXPECT_EQ(first.precision, second.precision);
    EXPECT_FALSE(first.primitives.empty());
    test::expect_same_primitives(first.primitives, second.primitives);
  }

  // Rewrites a dump without its record, as an engine's writer that records nothing would have written it.
  static void strip_record(const std::string& path) {
    VertexDump dump = read_vertices_skv(path);
    dump.record = DumpRecord{};
    write_vertex_dump(Scene{}, dump, path);
  }

  // Exit 2, exactly one stderr line "skinref: ..." mentioning every string in `mentions`, and the work
  // directory holding only `inputs` (no output, no leftover temporary).
  void expect_bad_input(const std::vector<std::string>& args, const std::vector<std::string>& mentions,
                        std::vector<std::string> inputs = {}) const {
    std::string line;
    for (const std::string& arg : args) line += " " + arg;
    SCOPED_TRACE("skinref" + line);
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, kExitBadInput) << result.err;
    EXPECT_EQ(result.err.rfind("skinref: ", 0), 0u) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_FALSE(result.err.empty() || result.err.back() != '\n') << result.err;
    for (const std::string& mention : mentions) {
      EXPECT_NE(result.err.find(mention), std::string::npos) << "stderr does not mention " << mention << ": "
                                                             << result.err;
    }
    std::sort(inputs.begin(), inputs.end());
    EXPECT_EQ(work_entries(), inputs);
  }

  void expect_ok(const std::vector<std::string>& args, RunResult* result_out = nullptr) const {
    std::string line;
    for (const std::string& arg : args) line += " " + arg;
    SCOPED_TRACE("skinref" + line);
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, kExitOk) << result.err;
    EXPECT_TRUE(result.err.empty()) << result.err;
    if (result_out != nullptr) *result_out = result;
  }

  // A glTF whose only accessor claims 4 VEC3 floats (48 bytes) from a 36-byte bufferView; everything else
  // in it is valid (POSITION min/max given, buffer length matching the .bin file).
  void write_accessor_overflow_gltf(const std::string& gltf_name, const std::string& bin_name) const {
    const std::vector<float> triangle{0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f};
    std::string bin(triangle.size() * sizeof(float), '\0');
    for (size_t i = 0; i < triangle.size(); ++i) {
      const uint32_t bits = std::bit_cast<uint32_t>(triangle[i]);
      for (size_t b = 0; b < 4; ++b) bin[4 * i + b] = static_cast<char>((bits >> (8 * b)) & 0xffu);
    }
    write_bytes(work(bin_name), bin);
    const nlohmann::json gltf = {
        {"asset", {{"version", "2.0"}}},
        {"buffers", {{{"uri", bin_name}, {"byteLength", bin.size()}}}},
        {"bufferViews", {{{"buffer", 0}, {"byteOffset", 0}, {"byteLength", bin.size()}}}},
        {"accessors",
         {{{"bufferView", 0},
           {"componentType", 5126},
           {"count", 4},
           {"type", "VEC3"},
           {"min", {0.0, 0.0, 0.0}},
           {"max", {1.0, 1.0, 0.0}}}}},
        {"meshes", {{{"primitives", {{{"attributes", {{"POSITION", 0}}}}}}}}},
        {"nodes", {{{"mesh", 0}}}},
        {"scenes", {{{"nodes", {0}}}}},
        {"scene", 0}};
    write_bytes(work(gltf_name), gltf.dump(2));
  }

  // Separate directories, so that a command's captured stdout and stderr never show among its outputs.
  test::TempDir work_dir_{"work"};
  test::TempDir captures_dir_{"captures"};
};

// ---- success paths -----------------------------------------------------------------------------------------

TEST_F(CliTest, InfoReportsTheTwistJointCount) {
  RunResult text;
  expect_ok({"info", "builtin:twist"}, &text);
  EXPECT_NE(text.out.find(std::to_string(kTwistJointCount) + " joints"), std::string::npos) << text.out;

  RunResult json_run;
  expect_ok({"info", "builtin:twist", "--json"}, &json_run);
  const nlohmann::json info = nlohmann::json::parse(json_run.out);
  ASSERT_EQ(info.at("skins").size(), 1u);
  EXPECT_EQ(info.at("skins")[0].at("joint_count"), kTwistJointCount);
  ASSERT_EQ(info.at("animations").size(), 1u);
  EXPECT_EQ(info.at("animations")[0].at("name"), "main");
  EXPECT_EQ(info.at("animations")[0].at("duration").get<double>(), kTwistDuration);
  EXPECT_EQ(work_entries(), std::vector<std::string>{});
}

TEST_F(CliTest, SkinWritesEveryFormat) {
  for (const std::string extension : {"json", "skv", "ply"}) {
    const std::string out = work("twist." + extension);
    expect_ok({"skin", "builtin:twist", "--time", "0.5", "--out", out});
    ASSERT_TRUE(fs::exists(out)) << out;
    EXPECT_GT(fs::file_size(out), 0u) << out;
  }
  const nlohmann::json json = nlohmann::json::parse(read_bytes(work("twist.json")));
  EXPECT_EQ(json.at("format"), "skinref-vertices");
  EXPECT_EQ(json.at("precision"), "f64");
  EXPECT_EQ(read_bytes(work("twist.ply")).rfind("ply\nformat binary_little_endian 1.0\n", 0), 0u);
  const VertexDump dump = read_vertices_skv(work("twist.skv"));
  EXPECT_EQ(dump.precision, DumpPrecision::F64);
  ASSERT_EQ(dump.primitives.size(), 1u);
  EXPECT_TRUE(dump.primitives[0].skinned);
  // The JSON and the .skv of the same evaluation hold the same doubles.
  const nlohmann::json& positions = json.at("primitives")[0].at("positions");
  ASSERT_EQ(positions.size(), 3 * dump.primitives[0].vertices.positions.size());
  for (size_t v = 0; v < dump.primitives[0].vertices.positions.size(); ++v) {
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ(positions[3 * v + static_cast<size_t>(c)].get<double>(),
                dump.primitives[0].vertices.positions[v][c]);
    }
  }
}

TEST_F(CliTest, SkinHonoursTimeAndPrecision) {
  expect_ok({"skin", "builtin:twist", "--time", "0", "--out", work("rest.skv")});
  expect_ok({"skin", "builtin:twist", "--time", "0.5", "--out", work("half.skv")});
  expect_ok({"skin", "builtin:twist", "--time", "0.5", "--precision", "f32", "--out", work("half32.skv")});
  const VertexDump rest = read_vertices_skv(work("rest.skv"));
  const VertexDump half = read_vertices_skv(work("half.skv"));
  const VertexDump half32 = read_vertices_skv(work("half32.skv"));
  ASSERT_EQ(rest.primitives.size(), 1u);
  ASSERT_EQ(half.primitives.size(), 1u);
  ASSERT_EQ(half32.primitives.size(), 1u);
  EXPECT_EQ(half32.precision, DumpPrecision::F32);
  const std::vector<Vec3>& at_rest = rest.primitives[0].vertices.positions;
  const std::vector<Vec3>& twisted = half.primitives[0].vertices.positions;
  ASSERT_EQ(at_rest.size(), twisted.size());
  ASSERT_EQ(half32.primitives[0].vertices.positions.size(), twisted.size());
  // Twisting about +X through points on the X axis keeps every x and never moves a vertex away from the
  // axis (weights sum to 1), while at t = 0.5 (90 degrees) the mid-cylinder vertices have moved.
  double largest_move = 0.0;
  for (size_t v = 0; v < twisted.size(); ++v) {
    EXPECT_NEAR(twisted[v].x(), at_rest[v].x(), tol::kFloatInput) << "vertex " << v;
    EXPECT_NEAR(at_rest[v].tail<2>().norm(), kTwistRadius, tol::kTwistRadius) << "vertex " << v;
    EXPECT_LE(twisted[v].tail<2>().norm(), kTwistRadius + tol::kTwistRadius) << "vertex " << v;
    largest_move = std::max(largest_move, (twisted[v] - at_rest[v]).norm());
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(half32.primitives[0].vertices.positions[v][c],
                static_cast<double>(static_cast<float>(twisted[v][c])));
    }
  }
  EXPECT_GT(largest_move, kTwistRadius);
}

TEST_F(CliTest, SkinDumpsAreDeterministicAndIndependentOfThreads) {
  for (const std::string extension : {"skv", "json", "ply"}) {
    const std::string first = work("first." + extension);
    const std::string second = work("second." + extension);
    expect_ok({"skin", "builtin:twist", "--time", "0.37", "--out", first});
    expect_ok({"skin", "builtin:twist", "--time", "0.37", "--out", second});
    EXPECT_EQ(read_bytes(first), read_bytes(second)) << extension;
  }
  expect_ok({"skin", "builtin:chain64", "--time", "0.8", "--threads", "1", "--out", work("one.skv")});
  expect_ok({"skin", "builtin:chain64", "--time", "0.8", "--threads", "2", "--out", work("two.skv")});
  EXPECT_FALSE(read_bytes(work("one.skv")).empty());
  EXPECT_EQ(read_bytes(work("one.skv")), read_bytes(work("two.skv")));
}

TEST_F(CliTest, PoseWritesTheDocumentedJson) {
  expect_ok({"pose", "builtin:twist", "--anim", "main", "--time", "0.5", "--out", work("pose.json")});
  const nlohmann::json pose = nlohmann::json::parse(read_bytes(work("pose.json")));
  EXPECT_EQ(pose.at("format"), "skinref-pose");
  EXPECT_EQ(pose.at("animation"), 0);
  EXPECT_EQ(pose.at("time").get<double>(), 0.5);
  ASSERT_EQ(pose.at("skins").size(), 1u);
  EXPECT_EQ(pose.at("skins")[0].at("joints").size(), kTwistJointCount);
  EXPECT_EQ(pose.at("skins")[0].at("palette").size(), kTwistJointCount);
  EXPECT_EQ(pose.at("skins")[0].at("palette")[0].size(), 16u);
  EXPECT_EQ(pose.at("nodes")[0].at("global").size(), 16u);

  // Index 0 names the same animation as "main".
  expect_ok({"pose", "builtin:twist", "--anim", "0", "--time", "0.5", "--out", work("pose0.json")});
  EXPECT_EQ(read_bytes(work("pose.json")), read_bytes(work("pose0.json")));
}

// builtin:bend's clip at half speed: at the recipe's time 0.5 it plays at 0.25.
constexpr char kHalfSpeedRecipe[] = R"({"format": "skinref-recipe", "version": 1, "time": 0.5,
  "layers": [{"clip": {"animation": "main", "rate": 0.5}}]})";

TEST_F(CliTest, PoseAndSkinPlayARecipe) {
  const std::string recipe = work("arm.recipe.json");
  write_bytes(recipe, kHalfSpeedRecipe);
  expect_ok({"pose", "builtin:bend", "--recipe", recipe, "--out", work("recipe.json")});
  expect_ok({"pose", "builtin:bend", "--anim", "main", "--time", "0.25", "--out", work("direct.json")});
  const nlohmann::json played = nlohmann::json::parse(read_bytes(work("recipe.json")));
  const nlohmann::json direct = nlohmann::json::parse(read_bytes(work("direct.json")));
  EXPECT_TRUE(played.at("animation").is_null());
  EXPECT_EQ(played.at("time").get<double>(), 0.5);
  // One clip at the mapped time is the clip itself, to the last bit.
  EXPECT_EQ(played.at("nodes"), direct.at("nodes"));
  EXPECT_EQ(played.at("skins"), direct.at("skins"));

  // --time overrides the recipe's time: 1 plays the clip at 0.5.
  expect_ok({"pose", "builtin:bend", "--recipe", recipe, "--time", "1", "--out", work("later.json")});
  expect_ok({"pose", "builtin:bend", "--time", "0.5", "--out", work("direct_later.json")});
  const nlohmann::json later = nlohmann::json::parse(read_bytes(work("later.json")));
  EXPECT_EQ(later.at("time").get<double>(), 1.0);
  EXPECT_EQ(later.at("nodes"), nlohmann::json::parse(read_bytes(work("direct_later.json"))).at("nodes"));

  expect_ok({"skin", "builtin:bend", "--recipe", recipe, "--out", work("recipe.skv")});
  expect_ok({"skin", "builtin:bend", "--time", "0.25", "--out", work("direct.skv")});
  expect_same_skv_vertices(work("recipe.skv"), work("direct.skv"));
}

TEST_F(CliTest, ExportedGlbSkinsLikeTheBuiltin) {
  expect_ok({"export", "builtin:bend", "--out", work("bend.glb")});
  ASSERT_TRUE(fs::exists(work("bend.glb")));
  EXPECT_EQ(read_bytes(work("bend.glb")).substr(0, 4), "glTF");
  expect_ok({"skin", work("bend.glb"), "--time", "0.25", "--out", work("exported.skv")});
  expect_ok({"skin", "builtin:bend", "--time", "0.25", "--out", work("builtin.skv")});
  // Built-in scenes are float32-representable, so export and reload reproduce them exactly
  // (builtin_scenes.h), and so does everything evaluated from them.
  expect_same_skv_vertices(work("exported.skv"), work("builtin.skv"));

  expect_ok({"export", "builtin:bend", "--out", work("bend.gltf")});
  expect_ok({"info", work("bend.gltf")});
}

TEST_F(CliTest, HelpAndVersionExitZero) {
  RunResult result;
  expect_ok({"--help"}, &result);
  EXPECT_NE(result.out.find("usage"), std::string::npos);
  expect_ok({"help"}, &result);
  EXPECT_NE(result.out.find("skin"), std::string::npos);
  expect_ok({"help", "skin"}, &result);
  EXPECT_NE(result.out.find("--threads"), std::string::npos);
  expect_ok({"skin", "--help"}, &result);
  EXPECT_NE(result.out.find("--precision"), std::string::npos);
  expect_ok({"pose", "--help"}, &result);
  EXPECT_NE(result.out.find("--anim"), std::string::npos);
  expect_ok({"--version"}, &result);
  EXPECT_EQ(result.out.rfind("skinref ", 0), 0u);
}

// Every command and subcommand prints one help, from its declarations, whichever way it is asked for.
TEST_F(CliTest, HelpOfEveryCommandIsTheSameAskedEitherWay) {
  const std::vector<std::vector<std::string>> paths{
      {"info"},          {"pose"},          {"skin"},         {"export"},        {"render"},
      {"devices"},       {"compare"},       {"bisect"},       {"diagnose"},      {"golden", "update"},
      {"golden", "check"}, {"conformance", "generate"}, {"conformance", "check"}, {"conformance", "run"},
      {"conformance", "report"}, {"conformance", "table"}, {"conformance", "history"}, {"shader-interface"}};
  for (const std::vector<std::string>& path : paths) {
    std::vector<std::string> help_args{"help"}, flag_args = path;
    help_args.insert(help_args.end(), path.begin(), path.end());
    flag_args.push_back("--help");
    RunResult by_help, by_flag;
    expect_ok(help_args, &by_help);
    expect_ok(flag_args, &by_flag);
    EXPECT_EQ(by_help.out, by_flag.out);
    std::string joined = "skinref";
    for (const std::string& word : path) joined += " " + word;
    EXPECT_EQ(by_help.out.rfind("usage: " + joined, 0), 0u) << by_help.out;
  }
  // A command of subcommands lists them.
  RunResult golden;
  expect_ok({"golden", "--help"}, &golden);
  EXPECT_NE(golden.out.find("skinref golden update"), std::string::npos) << golden.out;
  EXPECT_NE(golden.out.find("skinref golden check"), std::string::npos) << golden.out;
}

// A typo of a command, a subcommand or an option names the one meant.
TEST_F(CliTest, TyposSuggestTheNearestName) {
  const std::string out = work("out.skv");
  expect_bad_input({"skn", "builtin:twist", "--out", out}, {"unknown command 'skn'", "did you mean 'skin'"});
  expect_bad_input({"conformance", "rn"}, {"'rn'", "did you mean 'run'"});
  expect_bad_input({"help", "golden", "chek"}, {"'chek'", "did you mean 'check'"});
  expect_bad_input({"skin", "builtin:twist", "--thread", "2", "--out", out}, {"--thread", "did you mean --threads?"});
  expect_bad_input({"skin", "builtin:twist", "--ou", out}, {"--ou", "did you mean --out?"});
  expect_bad_input({"render", "builtin:twist", "--camrea", "auto", "--out", work("x.png")},
                   {"did you mean --camera?"});
  // Nothing close: the list of what the command takes, not a guess.
  expect_bad_input({"skin", "builtin:twist", "--frobnicate", "--out", out}, {"--frobnicate", "allowed:", "--threads"});
  expect_bad_input({"frobnicate"}, {"unknown command 'frobnicate'", "commands:"});
  // A choice outside the declared ones names the option, the value and the choices.
  expect_bad_input({"skin", "builtin:twist", "--method", "slerp", "--out", out}, {"--method", "slerp", "lbs", "dqs"});
}

// ---- failures: exit 2, one line naming the problem, no output -------------------------------------------

TEST_F(CliTest, UsageErrorsNameTheProblem) {
  const std::string out = work("out.skv");
  expect_bad_input({}, {"command"});
  expect_bad_input({"frobnicate", "builtin:twist", "--out", out}, {"frobnicate"});
  expect_bad_input({"skin", "builtin:twist", "--bogus", "1", "--out", out}, {"--bogus"});
  expect_bad_input({"skin", "builtin:twist", "--time", "abc", "--out", out}, {"--time", "abc"});
  expect_bad_input({"skin", "builtin:twist", "--time", "1.5x", "--out", out}, {"--time", "1.5x"});
  expect_bad_input({"skin", "builtin:twist", "--time", "inf", "--out", out}, {"--time", "inf"});
  expect_bad_input({"skin", "builtin:twist"}, {"--out"});
  expect_bad_input({"skin", "builtin:twist", "--out"}, {"--out"});
  expect_bad_input({"skin", "--out", out}, {"MODEL"});
  expect_bad_input({"skin", "builtin:twist", "builtin:bend", "--out", out}, {"builtin:bend"});
  expect_bad_input({"skin", "builtin:twist", "--time", "0.1", "--time", "0.2", "--out", out}, {"--time"});
  expect_bad_input({"skin", "builtin:twist", "--threads", "0", "--out", out}, {"--threads", "0"});
  expect_bad_input({"skin", "builtin:twist", "--threads", "two", "--out", out}, {"--threads", "two"});
  expect_bad_input({"skin", "builtin:twist", "--precision", "f16", "--out", out}, {"--precision", "f16"});
  expect_bad_input({"skin", "builtin:twist", "--weights", "sum", "--out", out}, {"--weights", "sum"});
  expect_bad_input({"skin", "builtin:twist", "--normals", "raw", "--out", out}, {"--normals", "raw"});
  expect_bad_input({"skin", "builtin:twist", "--out", work("out.txt")}, {"--out", "out.txt"});
  expect_bad_input({"pose", "builtin:twist", "--out", work("pose.skv")}, {"--out", "pose.skv"});
  expect_bad_input({"export", "builtin:twist", "--out", work("twist.obj")}, {"--out", "twist.obj"});
  expect_bad_input({"info", "builtin:twist", "--out", out}, {"--out"});
  expect_bad_input({"help", "frobnicate"}, {"frobnicate"});
}

TEST_F(CliTest, BadModelsAndAnimationsNameTheProblem) {
  const std::string out = work("out.skv");
  expect_bad_input({"skin", "builtin:no_such_scene", "--out", out}, {"no_such_scene"});
  expect_bad_input({"info", "builtin:no_such_scene"}, {"no_such_scene"});
  expect_bad_input({"skin", "builtin:twist", "--anim", "99", "--out", out}, {"--anim", "99"});
  expect_bad_input({"skin", "builtin:twist", "--anim", "-1", "--out", out}, {"--anim", "-1"});
  // The message lists the animations that do exist (builtin:twist has one, "main").
  expect_bad_input({"pose", "builtin:twist", "--anim", "nosuchclip", "--out", work("pose.json")},
                   {"--anim", "nosuchclip", "main"});
  expect_bad_input({"skin", work("absent.gltf"), "--out", out}, {"absent.gltf"});
  expect_bad_input({"export", work("absent.glb"), "--out", work("copy.glb")}, {"absent.glb"});
}

TEST_F(CliTest, MalformedGltfReportsTheJsonPath) {
  write_accessor_overflow_gltf("overflow.gltf", "overflow.bin");
  const std::vector<std::string> inputs{"overflow.bin", "overflow.gltf"};
  expect_bad_input({"skin", work("overflow.gltf"), "--out", work("out.skv")},
                   {"overflow.gltf", "/accessors/0/count"}, inputs);
  expect_bad_input({"pose", work("overflow.gltf"), "--out", work("pose.json")}, {"/accessors/0/count"}, inputs);
  expect_bad_input({"info", work("overflow.gltf")}, {"/accessors/0/count"}, inputs);
  expect_bad_input({"export", work("overflow.gltf"), "--out", work("copy.glb")}, {"/accessors/0/count"}, inputs);
}

TEST_F(CliTest, MalformedRecipeReportsTheJsonPath) {
  const std::string recipe = work("bad.recipe.json");
  const std::vector<std::string> inputs{"bad.recipe.json"};
  write_bytes(recipe, R"({"format": "skinref-recipe", "version": 1,
    "layers": [{"clip": {"animation": "main"}, "weight": -1}]})");
  expect_bad_input({"pose", "builtin:bend", "--recipe", recipe, "--out", work("pose.json")},
                   {"bad.recipe.json", "/layers/0/weight"}, inputs);
  expect_bad_input({"skin", "builtin:bend", "--recipe", recipe, "--out", work("out.skv")},
                   {"bad.recipe.json", "/layers/0/weight"}, inputs);
  write_bytes(recipe, R"({"format": "skinref-recipe", "version": 1,
    "layers": [{"clip": {"animation": "main"}, "wieght": 1}]})");
  expect_bad_input({"pose", "builtin:bend", "--recipe", recipe, "--out", work("pose.json")}, {"/layers/0/wieght"},
                   inputs);
  // Names resolve against the model: builtin:twist has no node "elbow".
  write_bytes(recipe, R"({"format": "skinref-recipe", "version": 1,
    "layers": [{"clip": {"animation": "main"}, "mask": {"joint": "elbow"}}]})");
  expect_bad_input({"skin", "builtin:twist", "--recipe", recipe, "--out", work("out.skv")},
                   {"/layers/0/mask/joint", "elbow"}, inputs);
  // Invalid JSON: nlohmann's message, still on one line.
  write_bytes(recipe, "{\"format\": \"skinref-recipe\",\n\"version\": 1,\n");
  expect_bad_input({"pose", "builtin:bend", "--recipe", recipe, "--out", work("pose.json")},
                   {"bad.recipe.json", "parse error"}, inputs);
  expect_bad_input({"pose", "builtin:bend", "--recipe", work("absent.json"), "--out", work("pose.json")},
                   {"absent.json"}, inputs);
}

TEST_F(CliTest, RecipeWithAnimIsAUsageError) {
  const std::string recipe = work("arm.recipe.json");
  write_bytes(recipe, kHalfSpeedRecipe);
  const std::vector<std::string> inputs{"arm.recipe.json"};
  expect_bad_input({"pose", "builtin:bend", "--recipe", recipe, "--anim", "main", "--out", work("pose.json")},
                   {"--recipe", "--anim"}, inputs);
  expect_bad_input({"skin", "builtin:bend", "--anim", "0", "--recipe", recipe, "--out", work("out.skv")},
                   {"--recipe", "--anim"}, inputs);
}

// --pose bind: every palette entry is the identity, so the skinned positions are the mesh's own bind-space
// positions (read from the scene here, not through any skinning); --pose rest is the rest pose, not the clip.
TEST_F(CliTest, PoseBindShowsTheMeshAsAuthoredAndPoseRestTheRestPose) {
  expect_ok({"skin", "builtin:bend", "--pose", "bind", "--out", work("bind.skv")});
  const Scene bend = make_builtin_scene("bend");
  const VertexDump bind = read_vertices_skv(work("bind.skv"));
  ASSERT_EQ(bind.primitives.size(), 1u);
  const std::vector<Vec3>& authored = bend.meshes[0].primitives[0].positions;
  ASSERT_EQ(bind.primitives[0].vertices.positions.size(), authored.size());
  for (size_t v = 0; v < authored.size(); ++v)
    for (int c = 0; c < 3; ++c)
      ASSERT_NEAR(bind.primitives[0].vertices.positions[v][c], authored[v][c], tol::kClosedForm) << "vertex " << v;
  EXPECT_EQ(bind.record.animation, "bind");

  // The rest pose is the nodes' own TRS, which is not the clip at 0.5 s (the elbow bent 45 degrees).
  expect_ok({"skin", "builtin:bend", "--pose", "rest", "--out", work("rest.skv")});
  expect_ok({"skin", "builtin:bend", "--anim", "0", "--time", "0", "--out", work("clip0.skv")});
  expect_ok({"skin", "builtin:bend", "--anim", "0", "--time", "0.5", "--out", work("clip.skv")});
  EXPECT_EQ(read_vertices_skv(work("rest.skv")).record.animation, "rest");
  const VertexDump clip = read_vertices_skv(work("clip.skv"));
  const VertexDump rest = read_vertices_skv(work("rest.skv"));
  double moved = 0.0;
  for (size_t v = 0; v < authored.size(); ++v)
    moved = std::max(moved, (clip.primitives[0].vertices.positions[v] - rest.primitives[0].vertices.positions[v]).norm());
  EXPECT_GT(moved, 0.1);

  // Both render, and pose writes the bind pose's dump.
  expect_ok({"render", "builtin:bend", "--pose", "bind", "--size", "64x64", "--out", work("bind.png")});
  expect_ok({"pose", "builtin:bend", "--pose", "bind", "--out", work("bind.pose.json")});
  EXPECT_TRUE(fs::exists(work("bind.png")));
}

TEST_F(CliTest, PoseOptionIsRefusedWithAnimRecipeAndBadValues) {
  const std::string recipe = work("arm.recipe.json");
  write_bytes(recipe, kHalfSpeedRecipe);
  const std::vector<std::string> inputs{"arm.recipe.json"};
  expect_bad_input({"skin", "builtin:bend", "--pose", "bind", "--anim", "0", "--out", work("out.skv")},
                   {"--pose bind", "--anim"}, inputs);
  expect_bad_input({"pose", "builtin:bend", "--pose", "rest", "--recipe", recipe, "--out", work("pose.json")},
                   {"--pose rest", "--recipe"}, inputs);
  expect_bad_input({"render", "builtin:bend", "--pose", "tpose", "--out", work("x.png")}, {"--pose", "tpose"}, inputs);
  expect_bad_input({"skin", "builtin:bend", "--pose", "bind", "--convention", "rotation=nlerp", "--out",
                    work("out.skv")},
                   {"--pose bind", "rotation=nlerp"}, inputs);
}

TEST_F(CliTest, CompareRefusesADumpOfTheBindPose) {
  expect_ok({"skin", "builtin:bend", "--pose", "bind", "--out", work("bind.skv")});
  expect_bad_input({"compare", work("bind.skv"), work("bind.skv")}, {"bind.skv", "records the bind pose"},
                   {"bind.skv"});
}

TEST_F(CliTest, UnwritableOutputIsBadInputAndLeavesNothing) {
  const std::string out = work("missing-directory/out.skv");
  expect_bad_input({"skin", "builtin:twist", "--out", out}, {out});
}

// ---- render ------------------------------------------------------------------------------------------------

TEST_F(CliTest, RenderWritesAPngOfTheRequestedSize) {
  RunResult result;
  expect_ok({"render", "builtin:twist", "--time", "0.5", "--size", "40x30", "--out", work("twist.png")}, &result);
  EXPECT_NE(result.out.find("40x30"), std::string::npos) << result.out;
  const RgbaImage image = read_png(work("twist.png"));
  EXPECT_EQ(image.width, 40);
  EXPECT_EQ(image.height, 30);
  // Default size, every view, the other cameras and DQS.
  expect_ok({"render", "builtin:bend", "--out", work("bend.png")});
  EXPECT_EQ(read_png(work("bend.png")).width, 512);
  EXPECT_EQ(read_png(work("bend.png")).height, 512);
  for (const std::string view : {"shaded", "normals", "depth", "weights:1"}) {
    expect_ok({"render", "builtin:twist", "--size", "32x32", "--view", view, "--out", work("view.png")});
    EXPECT_EQ(read_png(work("view.png")).width, 32) << view;
  }
  expect_ok({"render", "builtin:twist", "--size", "32x32", "--camera", "1,0.5,4:1,0,0:50", "--method", "dqs",
             "--out", work("look.png")});
  EXPECT_EQ(work_entries(), (std::vector<std::string>{"bend.png", "look.png", "twist.png", "view.png"}));
}

TEST_F(CliTest, RenderWeightsJointByNameOrIndexAndThreadsAgree) {
  expect_ok({"render", "builtin:twist", "--size", "48x48", "--view", "weights:joint1", "--out", work("name.png")});
  expect_ok({"render", "builtin:twist", "--size", "48x48", "--view", "weights:1", "--threads", "3", "--out",
             work("index.png")});
  EXPECT_FALSE(read_bytes(work("name.png")).empty());
  EXPECT_EQ(read_bytes(work("name.png")), read_bytes(work("index.png")));
}

TEST_F(CliTest, RenderIdsAndDump) {
  expect_ok({"render", "builtin:twist", "--time", "0.25", "--size", "48x40", "--ids", work("ids.png"), "--dump",
             work("drawn.skv"), "--out", work("image.png")});
  const RgbaImage ids = read_png(work("ids.png"));
  ASSERT_EQ(ids.width, 48);
  ASSERT_EQ(ids.height, 40);
  // id + 1 as 24 bits of RGB: 0 where the background shows, at most the twist's 32 x 24 x 2 triangles.
  const RgbaImage image = read_png(work("image.png"));
  size_t covered = 0;
  for (size_t p = 0; p < size_t(48 * 40); ++p) {
    const uint32_t value = (uint32_t(ids.pixels[4 * p]) << 16) | (uint32_t(ids.pixels[4 * p + 1]) << 8) |
                           uint32_t(ids.pixels[4 * p + 2]);
    EXPECT_LE(value, 32u * 24u * 2u);
    covered += value != 0 ? 1 : 0;
  }
  EXPECT_GT(covered, 0u);
  EXPECT_LT(covered, size_t(48 * 40));
  // The dump holds what `skin` computes at the same time.
  expect_ok({"skin", "builtin:twist", "--time", "0.25", "--out", work("skinned.skv")});
  expect_same_skv_vertices(work("drawn.skv"), work("skinned.skv"));
}

TEST_F(CliTest, RenderTraceNamesThePixelsTriangleAndBarycentrics) {
  // The --ids image says which triangle each pixel shows; --trace must name the same one, with barycentrics
  // that sum to 1, and call a pixel the ids image leaves at 0 background.
  expect_ok({"render", "builtin:twist", "--time", "0.25", "--size", "48x40", "--ids", work("ids.png"), "--out",
             work("image.png")});
  const RgbaImage ids = read_png(work("ids.png"));
  size_t covered_pixel = SIZE_MAX, background_pixel = SIZE_MAX;
  uint32_t covered_value = 0;
  for (size_t p = 0; p < size_t(48 * 40); ++p) {
    const uint32_t value = (uint32_t(ids.pixels[4 * p]) << 16) | (uint32_t(ids.pixels[4 * p + 1]) << 8) |
                           uint32_t(ids.pixels[4 * p + 2]);
    if (value != 0 && covered_pixel == SIZE_MAX) {
      covered_pixel = p;
      covered_value = value;
    }
    if (value == 0 && background_pixel == SIZE_MAX) background_pixel = p;
  }
  ASSERT_NE(covered_pixel, SIZE_MAX);
  ASSERT_NE(background_pixel, SIZE_MAX);
  auto trace = [&](size_t p) {
    RunResult result;
    expect_ok({"render", "builtin:twist", "--time", "0.25", "--size", "48x40", "--trace",
               std::to_string(p % 48) + "," + std::to_string(p / 48), "--out", work("traced.png")},
              &result);
    return result.out;
  };
  const std::string covered = trace(covered_pixel);
  EXPECT_NE(covered.find("triangle " + std::to_string(covered_value - 1) + " = node"), std::string::npos) << covered;
  const size_t at = covered.find("barycentrics (");
  ASSERT_NE(at, std::string::npos) << covered;
  double b0 = 0, b1 = 0, b2 = 0;
  ASSERT_EQ(std::sscanf(covered.c_str() + at, "barycentrics (%lf, %lf, %lf)", &b0, &b1, &b2), 3) << covered;
  EXPECT_NEAR(b0 + b1 + b2, 1.0, tol::kClosedForm) << covered;
  for (double b : {b0, b1, b2}) {
    EXPECT_GE(b, -tol::kClosedForm);
    EXPECT_LE(b, 1.0 + tol::kClosedForm);
  }
  EXPECT_NE(trace(background_pixel).find("background"), std::string::npos);
  const std::vector<std::string> earlier{"ids.png", "image.png", "traced.png"};
  expect_bad_input({"render", "builtin:twist", "--size", "48x40", "--trace", "48,0", "--out", work("t.png")},
                   {"--trace", "outside"}, earlier);
  expect_bad_input({"render", "builtin:twist", "--trace", "3", "--out", work("t.png")}, {"--trace"}, earlier);
}

TEST_F(CliTest, RenderBadValuesExitTwoWritingNothing) {
  const std::string out = work("out.png");
  for (const std::string size : {"0x10", "10x0", "16385x10", "10x16385", "10", "axb", "10x10x10", "-5x10", "x10"}) {
    expect_bad_input({"render", "builtin:twist", "--size", size, "--out", out}, {"--size", size});
  }
  for (const std::string view : {"bogus", "weights:", "weights", "Shaded"}) {
    expect_bad_input({"render", "builtin:twist", "--view", view, "--out", out}, {"--view", view});
  }
  expect_bad_input({"render", "builtin:twist", "--view", "weights:2", "--out", out}, {"--view", "2"});
  expect_bad_input({"render", "builtin:twist", "--view", "weights:elbow", "--out", out}, {"elbow", "joint1"});
  for (const std::string camera : {"gltf:x", "1,2,3", "1,2,3:0,0,0:0", "0,5,0:0,0,0:45", "sideways"}) {
    expect_bad_input({"render", "builtin:twist", "--camera", camera, "--out", out}, {"--camera", camera});
  }
  // builtin:twist has no cameras.
  expect_bad_input({"render", "builtin:twist", "--camera", "gltf:0", "--out", out}, {"camera 0"});
  expect_bad_input({"render", "builtin:twist", "--out", work("out.jpg")}, {"--out", "out.jpg"});
  expect_bad_input({"render", "builtin:twist", "--ids", work("ids.txt"), "--out", out}, {"--ids"});
  expect_bad_input({"render", "builtin:twist", "--ids", out, "--out", out}, {"--ids", "--out"});
  expect_bad_input({"render", "builtin:twist", "--dump", work("d.obj"), "--out", out}, {"--dump"});
  expect_bad_input({"render", "builtin:twist", "--threads", "0", "--out", out}, {"--threads"});
  expect_bad_input({"render", "builtin:twist", "--method", "slerp", "--out", out}, {"--method", "slerp"});
  expect_bad_input({"render", "builtin:twist"}, {"--out"});
  expect_bad_input({"render", "builtin:no_such_scene", "--out", out}, {"no_such_scene"});
}

TEST_F(CliTest, RenderFailingSecondOutputLeavesNoFirst) {
  // --ids cannot be written (missing directory): the image, staged first, is not left behind either.
  const std::string ids = work("missing-directory/ids.png");
  expect_bad_input({"render", "builtin:twist", "--size", "16x16", "--ids", ids, "--out", work("out.png")}, {ids});
}

// ---- compare -----------------------------------------------------------------------------------------------

// A 7x5 grey image, and the same with pixel (4, 2) 3 steps greener: 1 of 35 pixels over threshold 1.
RgbaImage compare_grey_image() {
  RgbaImage image;
  image.width = 7;
  image.height = 5;
  for (int p = 0; p < 35; ++p) image.pixels.insert(image.pixels.end(), {100, 150, 200, 255});
  return image;
}

RgbaImage compare_off_by_three_image() {
  RgbaImage image = compare_grey_image();
  image.pixels[(2 * 7 + 4) * 4 + 1] = 153;
  return image;
}

// An 8x4 image: columns x < edge orange, the rest another colour.
RgbaImage compare_edge_image(int edge) {
  RgbaImage image;
  image.width = 8;
  image.height = 4;
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 8; ++x) {
      if (x < edge) {
        image.pixels.insert(image.pixels.end(), {220, 120, 40, 255});
      } else {
        image.pixels.insert(image.pixels.end(), {30, 30, 30, 255});
      }
    }
  }
  return image;
}

TEST_F(CliTest, CompareExitsZeroWhenWithinToleranceAndOneOtherwise) {
  write_png(compare_grey_image(), work("a.png"));
  write_png(compare_off_by_three_image(), work("b.png"));
  RunResult result;
  expect_ok({"compare", work("a.png"), work("a.png")}, &result);
  EXPECT_NE(result.out.find("PASS"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("inf dB"), std::string::npos) << result.out;

  result = run({"compare", work("a.png"), work("b.png")});
  EXPECT_EQ(result.exit_code, kExitComparisonFailed) << result.err;
  EXPECT_TRUE(result.err.empty()) << result.err;
  EXPECT_NE(result.out.find("FAIL"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("3 at (4, 2) channel G"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("1 / 35"), std::string::npos) << result.out;

  expect_ok({"compare", work("a.png"), work("b.png"), "--threshold", "3"});
  expect_ok({"compare", work("a.png"), work("b.png"), "--max-fraction", "0.03"});  // 1 / 35 = 0.0286
  EXPECT_EQ(run({"compare", work("a.png"), work("b.png"), "--max-fraction", "0.02"}).exit_code,
            kExitComparisonFailed);
  // Without --report nothing is written.
  EXPECT_EQ(work_entries(), (std::vector<std::string>{"a.png", "b.png"}));
}

TEST_F(CliTest, CompareToleratesAOnePixelEdgeShiftWithToleranceOnly) {
  write_png(compare_edge_image(3), work("a.png"));
  write_png(compare_edge_image(4), work("b.png"));
  EXPECT_EQ(run({"compare", work("a.png"), work("b.png")}).exit_code, kExitComparisonFailed);
  RunResult result;
  expect_ok({"compare", work("a.png"), work("b.png"), "--tolerance-px", "1"}, &result);
  EXPECT_NE(result.out.find("position-tolerant failures 0 / 32"), std::string::npos) << result.out;
  write_png(compare_edge_image(5), work("c.png"));
  EXPECT_EQ(run({"compare", work("a.png"), work("c.png"), "--tolerance-px", "1"}).exit_code,
            kExitComparisonFailed);
  expect_ok({"compare", work("a.png"), work("c.png"), "--tolerance-px", "2"});
}

TEST_F(CliTest, CompareReportWritesImagesAndJson) {
  const RgbaImage a = compare_grey_image();
  const RgbaImage b = compare_off_by_three_image();
  write_png(a, work("a.png"));
  write_png(b, work("b.png"));
  const std::string report = work("reports/first");  // two levels, neither exists yet
  const RunResult result = run({"compare", work("a.png"), work("b.png"), "--report", report});
  EXPECT_EQ(result.exit_code, kExitComparisonFailed) << result.err;
  EXPECT_NE(result.out.find("side_by_side.png"), std::string::npos) << result.out;
  // Exactly the five files: no temporary left beside them.
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(report)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a.png", "b.png", "compare.json", "diff.png", "side_by_side.png"}));
  EXPECT_EQ(read_png(report + "/a.png").pixels, a.pixels);
  EXPECT_EQ(read_png(report + "/b.png").pixels, b.pixels);
  const RgbaImage diff = read_png(report + "/diff.png");
  EXPECT_EQ(diff.width, 7);
  EXPECT_EQ(diff.height, 5);
  // d = 3 > 1: on the ramp between blue (d = 1) and cyan (d = 4), so R = 0, B = 255.
  const size_t at = (2 * 7 + 4) * 4;
  EXPECT_EQ(diff.pixels[at], 0);
  EXPECT_EQ(diff.pixels[at + 2], 255);
  const RgbaImage montage = read_png(report + "/side_by_side.png");
  EXPECT_EQ(montage.width, 3 * 7 + 2 * 4);
  EXPECT_EQ(montage.height, 5);
  const nlohmann::json json = nlohmann::json::parse(read_bytes(report + "/compare.json"));
  EXPECT_EQ(json["format"], "skinref-image-comparison");
  EXPECT_EQ(json["max_channel_difference"], 3);
  EXPECT_EQ(json["max_at"]["x"], 4);
  EXPECT_EQ(json["max_at"]["y"], 2);
  EXPECT_EQ(json["max_at"]["channel"], "G");
  EXPECT_EQ(json["pixels_over_threshold"], 1);
  EXPECT_EQ(json["pixel_count"], 35);
  EXPECT_EQ(json["pass"], false);
  EXPECT_NEAR(json["psnr_rgb_db"].get<double>(), 10.0 * std::log10(255.0 * 255.0 / (9.0 / 105.0)), 1e-9);
  // A passing comparison writes the report too; identical images have no PSNR in JSON (null = infinite).
  expect_ok({"compare", work("a.png"), work("a.png"), "--report", report});
  const nlohmann::json same = nlohmann::json::parse(read_bytes(report + "/compare.json"));
  EXPECT_TRUE(same["psnr_rgb_db"].is_null());
  EXPECT_TRUE(same["max_at"].is_null());
  EXPECT_EQ(same["pass"], true);
  EXPECT_EQ(read_png(report + "/b.png").pixels, a.pixels);
}

TEST_F(CliTest, CompareBadInputExitsTwo) {
  write_png(compare_grey_image(), work("a.png"));
  RgbaImage wide = compare_grey_image();
  wide.width = 5;
  wide.height = 7;
  write_png(wide, work("tall.png"));
  write_bytes(work("text.png"), "not a png");
  const std::vector<std::string> inputs{"a.png", "tall.png", "text.png"};
  const std::string a = work("a.png");
  expect_bad_input({"compare", a, work("missing.png")}, {"missing.png"}, inputs);
  expect_bad_input({"compare", work("missing.png"), a}, {"missing.png"}, inputs);
  expect_bad_input({"compare", a, work("text.png")}, {"text.png"}, inputs);
  expect_bad_input({"compare", a, work("tall.png"), "--report", work("report")}, {"tall.png", "7x5", "5x7"}, inputs);
  expect_bad_input({"compare", a}, {"A and B"}, inputs);
  expect_bad_input({"compare", a, a, a}, {"A and B"}, inputs);
  expect_bad_input({"compare", a, work("b.skv")}, {"b.skv", ".png"}, inputs);
  expect_bad_input({"compare", a, a, "--threshold", "256"}, {"--threshold", "256"}, inputs);
  expect_bad_input({"compare", a, a, "--threshold", "one"}, {"--threshold", "one"}, inputs);
  expect_bad_input({"compare", a, a, "--tolerance-px", "-1"}, {"--tolerance-px", "-1"}, inputs);
  expect_bad_input({"compare", a, a, "--tolerance-px", "17"}, {"--tolerance-px", "17"}, inputs);
  expect_bad_input({"compare", a, a, "--max-fraction", "1.5"}, {"--max-fraction", "1.5"}, inputs);
  expect_bad_input({"compare", a, a, "--max-fraction", "nan"}, {"--max-fraction", "nan"}, inputs);
  expect_bad_input({"compare", a, a, "--bogus"}, {"--bogus"}, inputs);
  // --report naming a file: refused, and the file is left as it was.
  expect_bad_input({"compare", a, a, "--report", work("text.png")}, {"--report", "text.png"}, inputs);
  EXPECT_EQ(read_bytes(work("text.png")), "not a png");
  RunResult help;
  expect_ok({"compare", "--help"}, &help);
  EXPECT_NE(help.out.find("--tolerance-px"), std::string::npos);
}

TEST_F(CliTest, CompareReportThatCannotBeCompletedLeavesNoTemporaries) {
  write_png(compare_grey_image(), work("a.png"));
  const std::string report = work("report");
  fs::create_directories(report + "/diff.png");  // a directory where the heat map goes: its rename fails
  const RunResult result = run({"compare", work("a.png"), work("a.png"), "--report", report});
  EXPECT_EQ(result.exit_code, kExitBadInput) << result.out;
  EXPECT_NE(result.err.find("diff.png"), std::string::npos) << result.err;
  for (const auto& entry : fs::directory_iterator(report)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

// ---- compare of vertex dumps ---------------------------------------------------------------------------------

// `skin --precision f32` writes the reference's values rounded to float32: each differs from the f64 dump by
// at most half an ulp per component, which every derived float32 bound covers (the last operation of each
// output alone rounds by up to one ulp).
TEST_F(CliTest, CompareVertexDumpsWithinBoundsExitsZero) {
  for (const char* method : {"lbs", "dqs"}) {
    SCOPED_TRACE(method);
    expect_ok({"skin", "builtin:twist", "--time", "0.4", "--method", method, "--out", work("ref.skv")});
    expect_ok({"skin", "builtin:twist", "--time", "0.4", "--method", method, "--precision", "f32", "--out",
               work("f32.skv")});
    RunResult result;
    expect_ok({"compare", work("ref.skv"), work("f32.skv"), "--model", "builtin:twist", "--time", "0.4", "--method",
               method, "--report", work("report")},
              &result);
    EXPECT_NE(result.out.find("PASS: 0 over, 0 unbounded of 1584 values"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("worst: "), std::string::npos) << result.out;
    const nlohmann::json json = nlohmann::json::parse(read_bytes(work("report/vertices.json")));
    EXPECT_EQ(json["format"], "skinref-vertex-comparison");
    EXPECT_EQ(json["values"], 2 * 792);
    EXPECT_EQ(json["over"], 0);
    EXPECT_EQ(json["pass"], true);
    EXPECT_LE(json["max_ratio"].get<double>(), 1.0);
    // The report directory holds the one file: no temporary left beside it.
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(work("report"))) names.push_back(entry.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"vertices.json"});
  }
}

TEST_F(CliTest, CompareVertexDumpsOverTheBoundExitsOne) {
  // The test run at another time: every vertex the twisting joint moves is off by far more than rounding.
  expect_ok({"skin", "builtin:twist", "--time", "0.4", "--out", work("ref.skv")});
  expect_ok({"skin", "builtin:twist", "--time", "0.41", "--precision", "f32", "--out", work("later.skv")});
  // Its record says 0.41: compare refuses to check it at another time, naming both.
  expect_bad_input({"compare", work("ref.skv"), work("later.skv"), "--time", "0.4"},
                   {"--time 0.4", "later.skv", "time 0.41"}, {"later.skv", "ref.skv"});
  // An engine's dump records nothing: it is checked at the time given, against the bounds of an engine that
  // computes its own palette (the default for such a dump).
  strip_record(work("later.skv"));
  const RunResult result =
      run({"compare", work("ref.skv"), work("later.skv"), "--model", "builtin:twist", "--time", "0.4"});
  EXPECT_EQ(result.exit_code, kExitComparisonFailed) << result.err;
  EXPECT_TRUE(result.err.empty()) << result.err;
  EXPECT_NE(result.out.find("FAIL"), std::string::npos) << result.out;
  // The worst vertex is one the twisting joint influences: it lists both joints.
  EXPECT_NE(result.out.find("joints (nodes)"), std::string::npos) << result.out;
}

TEST_F(CliTest, CompareVertexDumpsBadInputExitsTwo) {
  expect_ok({"skin", "builtin:twist", "--out", work("twist.skv")});
  expect_ok({"skin", "builtin:bend", "--out", work("bend.skv")});
  const std::vector<std::string> inputs{"bend.skv", "twist.skv"};
  const std::string twist = work("twist.skv"), bend = work("bend.skv");
  // Without --model, and without a record naming it, there is no bound to compare against.
  expect_ok({"skin", "builtin:twist", "--out", work("engine.skv")});
  strip_record(work("engine.skv"));
  expect_bad_input({"compare", work("engine.skv"), work("engine.skv")}, {"--model"},
                   {"bend.skv", "engine.skv", "twist.skv"});
  fs::remove(work("engine.skv"));
  // A record stands in for the options: the dump names its model, animation and time.
  expect_ok({"compare", twist, twist});
  // Dumps of different models: one that records another model is refused by that name; without a record, the
  // first difference is named (the skinned mesh hangs under node 2 in builtin:twist, after its two joints, and
  // under node 3 in builtin:bend, after its three).
  expect_bad_input({"compare", twist, bend, "--model", "builtin:twist"},
                   {"bend.skv", "a dump of builtin:twist, but it records the model builtin:bend"}, inputs);
  expect_ok({"skin", "builtin:bend", "--out", work("bend-unrecorded.skv")});
  strip_record(work("bend-unrecorded.skv"));
  expect_bad_input({"compare", twist, work("bend-unrecorded.skv"), "--model", "builtin:twist"},
                   {"bend-unrecorded.skv", "primitive 0: node 2 in the reference, 3 in the test"},
                   {"bend-unrecorded.skv", "bend.skv", "twist.skv"});
  fs::remove(work("bend-unrecorded.skv"));
  // Dumps that match each other but not the model.
  expect_bad_input({"compare", twist, twist, "--model", "builtin:bend"}, {"twist.skv", "the model"}, inputs);
  expect_bad_input({"compare", twist, work("missing.skv"), "--model", "builtin:twist"}, {"missing.skv"}, inputs);
  expect_bad_input({"compare", twist, twist, "--model", "builtin:twist", "--method", "slerp"}, {"--method", "slerp"},
                   inputs);
  expect_bad_input({"compare", twist, twist, "--model", "builtin:twist", "--palette", "cpu"}, {"--palette", "cpu"},
                   inputs);
  expect_bad_input({"compare", twist, twist, "--model", "builtin:twist", "--threshold", "2"}, {"--threshold"}, inputs);
  expect_bad_input({"compare", twist, twist, "--model", "builtin:twist", "--anim", "7"}, {"--anim", "7"}, inputs);
  write_png(compare_grey_image(), work("a.png"));
  expect_bad_input({"compare", work("a.png"), work("a.png"), "--model", "builtin:twist"}, {"--model", "image"},
                   {"a.png", "bend.skv", "twist.skv"});
  RunResult help;
  expect_ok({"compare", "--help"}, &help);
  EXPECT_NE(help.out.find("REF.skv TEST.skv [--model MODEL]"), std::string::npos) << help.out;
}

TEST_F(CliTest, ComparePoseDumpsAgainstTheirDerivedBounds) {
  // The reference's pose against itself: every value within its bound (exactly equal), exit 0.
  expect_ok({"pose", "builtin:bend", "--time", "0.25", "--out", work("ref.json")});
  RunResult same;
  expect_ok({"compare", work("ref.json"), work("ref.json"), "--report", work("report")}, &same);
  EXPECT_NE(same.out.find("within their derived float32 bounds"), std::string::npos) << same.out;
  EXPECT_TRUE(fs::is_regular_file(work("report/pose.json")));
  // One local rotation component off by 1e-3 (far over a float32 rounding): the sampling stage, that node.
  std::string text = read_bytes(work("ref.json"));
  const std::string elbow = "\"name\":\"elbow\"";
  const size_t node = text.find(elbow);
  ASSERT_NE(node, std::string::npos);
  const size_t rotation = text.find("\"rotation\":[", node) + std::string("\"rotation\":[").size();
  const size_t comma = text.find(',', rotation);
  const double x = std::stod(text.substr(rotation, comma - rotation));
  char nudged[64];
  std::snprintf(nudged, sizeof nudged, "%.17g", x + 1e-3);
  text.replace(rotation, comma - rotation, nudged);
  write_bytes(work("wrong.json"), text);
  const RunResult wrong = run({"compare", work("ref.json"), work("wrong.json")});
  EXPECT_EQ(wrong.exit_code, kExitComparisonFailed) << wrong.err;
  EXPECT_NE(wrong.out.find("first stage over its bound: sampling"), std::string::npos) << wrong.out;
  EXPECT_NE(wrong.out.find("'elbow' rotation.x"), std::string::npos) << wrong.out;
  // Another time is another moment: bad input, naming the times.
  expect_ok({"pose", "builtin:bend", "--time", "0.5", "--out", work("later.json")});
  const RunResult later = run({"compare", work("ref.json"), work("later.json")});
  EXPECT_EQ(later.exit_code, kExitBadInput) << later.err;
  EXPECT_NE(later.err.find("/time"), std::string::npos) << later.err;
  const RunResult option = run({"compare", work("ref.json"), work("ref.json"), "--time", "1"});
  EXPECT_EQ(option.exit_code, kExitBadInput) << option.err;
}

// An engine's pose dump: every number rounded to float32 (what a float32 engine holds), its writer dropped
// (an engine's dump), and optionally one node's rotation component nudged.
void write_engine_pose(const std::string& from, const std::string& to, const std::string& node_name = "",
                       int component = 0, double nudge = 0.0) {
  nlohmann::json pose = nlohmann::json::parse(read_bytes(from));
  std::function<void(nlohmann::json&)> round = [&](nlohmann::json& value) {
    if (value.is_number_float()) value = double(float(value.get<double>()));
    if (value.is_array() || value.is_object())
      for (nlohmann::json& item : value) round(item);
  };
  for (nlohmann::json& node : pose["nodes"]) {
    round(node);
    if (!node_name.empty() && node["name"] == node_name)
      node["rotation"][size_t(component)] = node["rotation"][size_t(component)].get<double>() + nudge;
  }
  for (nlohmann::json& skin : pose["skins"]) round(skin);
  pose.erase("writer");
  write_bytes(to, pose.dump());
}

// A recipe's pose (blend and additive layers): pose dumps record the recipe, compare and bisect hold an
// engine's rounded dumps to the recipe's bounds and name an additive error at the blend stage.
TEST_F(CliTest, CompareAndBisectHoldARecipesPoseToItsBounds) {
  write_bytes(work("additive.json"), R"({"format": "skinref-recipe", "version": 1,
    "layers": [{"clip": {"animation": "main"}}],
    "additive": [{"clip": {"animation": "main"}, "reference": "rest", "weight": 0.5, "mask": {"joint": "joint1"}}]})");
  expect_ok({"pose", "builtin:twist", "--recipe", work("additive.json"), "--time", "0.5", "--out", work("ref.json")});
  const nlohmann::json written = nlohmann::json::parse(read_bytes(work("ref.json")));
  EXPECT_EQ(written["recipe"], work("additive.json"));
  EXPECT_EQ(written["writer"], "skinref reference");
  write_engine_pose(work("ref.json"), work("engine.json"));
  RunResult same;
  expect_ok({"compare", work("ref.json"), work("engine.json")}, &same);
  EXPECT_NE(same.out.find("recipe " + work("additive.json")), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("bounds any-order"), std::string::npos) << same.out;
  // joint1's rotation w off by 1e-4 (about 2e-4 rad): the blend stage, that joint.
  write_engine_pose(work("ref.json"), work("wrong.json"), "joint1", 3, 1e-4);
  const RunResult wrong = run({"compare", work("ref.json"), work("wrong.json")});
  EXPECT_EQ(wrong.exit_code, kExitComparisonFailed) << wrong.err;
  EXPECT_NE(wrong.out.find("first stage over its bound: blend"), std::string::npos) << wrong.out;
  EXPECT_NE(wrong.out.find("'joint1' rotation.w"), std::string::npos) << wrong.out;
  // The vertex dumps record the recipe too; bisect walks blend -> local-to-model -> ... -> skinning.
  expect_ok({"skin", "builtin:twist", "--recipe", work("additive.json"), "--time", "0.5", "--out", work("ref.skv")});
  expect_ok({"skin", "builtin:twist", "--recipe", work("additive.json"), "--time", "0.5", "--precision", "f32",
             "--out", work("engine.skv")});
  RunResult vertices;
  expect_ok({"compare", work("ref.skv"), work("engine.skv")}, &vertices);
  EXPECT_NE(vertices.out.find("recipe "), std::string::npos) << vertices.out;
  RunResult bisect;
  expect_ok({"bisect", work("ref.json"), work("engine.json"), work("ref.skv"), work("engine.skv")}, &bisect);
  EXPECT_NE(bisect.out.find("no stage diverges"), std::string::npos) << bisect.out;
  const RunResult diverged = run({"bisect", work("ref.json"), work("wrong.json"), work("ref.skv"), work("engine.skv")});
  EXPECT_EQ(diverged.exit_code, kExitComparisonFailed) << diverged.err;
  EXPECT_NE(diverged.out.find("first diverging stage: blend"), std::string::npos) << diverged.out;
  // Recipes have any-order bounds only; a recipe the dump does not record is refused.
  const RunResult exact_order = run({"compare", work("ref.json"), work("engine.json"), "--bounds", "skinref-order"});
  EXPECT_EQ(exact_order.exit_code, kExitBadInput) << exact_order.out;
  EXPECT_NE(exact_order.err.find("skinref-order does not apply to a recipe"), std::string::npos) << exact_order.err;
  write_bytes(work("other.json"), read_bytes(work("additive.json")));
  const RunResult other = run({"compare", work("ref.json"), work("engine.json"), "--recipe", work("other.json")});
  EXPECT_EQ(other.exit_code, kExitBadInput) << other.out;
  EXPECT_NE(other.err.find("contradicts"), std::string::npos) << other.err;
}

// A .skv record's joint_names must be the model's joints: a dump of another skeleton is refused (exit 2).
TEST_F(CliTest, CompareRefusesADumpOfAnotherSkeleton) {
  expect_ok({"skin", "builtin:bend", "--time", "0.3", "--out", work("ref.skv")});
  expect_ok({"skin", "builtin:bend", "--time", "0.3", "--precision", "f32", "--out", work("engine.skv")});
  VertexDump engine = read_vertices_skv(work("engine.skv"));
  engine.record.joint_names = {"shoulder", "elbow", "wrist"};
  write_vertex_dump(Scene{}, engine, work("engine.skv"));
  expect_ok({"compare", work("ref.skv"), work("engine.skv")});
  engine.record.joint_names = {"shoulder", "knee"};
  write_vertex_dump(Scene{}, engine, work("engine.skv"));
  expect_bad_input({"compare", work("ref.skv"), work("engine.skv")}, {"joint_names/1", "knee"},
                   {"ref.skv", "engine.skv"});
}

// A run over its stated any-order bound at one vertex and within its wide bound there: compare fails it (exit 1)
// and names the assumption it needs; --bounds any-order-wide passes it. Moved 20 times the wide bound, no such line.
TEST_F(CliTest, CompareNamesTheWideAllowancesARunNeeds) {
  expect_ok({"skin", "builtin:bend", "--time", "0.3", "--out", work("ref.skv")});
  expect_ok({"skin", "builtin:bend", "--time", "0.3", "--precision", "f32", "--out", work("engine.skv")});
  const Scene scene = make_builtin_scene("bend");
  const double time = double(float(0.3));
  const EvaluatedPose pose = evaluate_pose(scene, 0, time);
  std::vector<double> stated, wide;
  for (BoundsModel model : {BoundsModel::AnyOrder, BoundsModel::AnyOrderWide}) {
    const PoseErrorBounds palette = pose_error_bounds(model, scene, 0, time);
    const std::vector<PrimitiveErrorBounds> bounds = vertex_error_bounds(model, scene, pose, {}, &palette);
    ASSERT_EQ(bounds.size(), 1u);
    (model == BoundsModel::AnyOrder ? stated : wide) = bounds[0].position;
  }
  // The vertex whose wide bound is the most times its stated one.
  size_t vertex = 0;
  for (size_t v = 0; v < stated.size(); ++v)
    if (wide[v] / stated[v] > wide[vertex] / stated[vertex]) vertex = v;
  ASSERT_GT(wide[vertex], 2.0 * stated[vertex]);
  const VertexDump reference = read_vertices_skv(work("engine.skv"));
  auto write_moved = [&](double by) {
    VertexDump engine = reference;
    engine.record.writer = "an engine";
    engine.record.palette = "own";  // it computed its own animation and palette
    engine.primitives[0].vertices.positions[vertex].x() += by;
    write_vertex_dump(Scene{}, engine, work("moved.skv"));
  };
  write_moved(0.5 * (stated[vertex] + wide[vertex]));
  const RunResult between = run({"compare", work("ref.skv"), work("moved.skv")});
  EXPECT_EQ(between.exit_code, kExitComparisonFailed) << between.err;
  EXPECT_NE(between.out.find("FAIL: 1 over"), std::string::npos) << between.out;
  EXPECT_NE(between.out.find("within the any-order-wide bounds (slerp within 16 ulp, quaternion normalization "
                             "within 12 ulp): over the stated bounds only, which assume 4 and 4 ulp"),
            std::string::npos)
      << between.out;
  expect_ok({"compare", work("ref.skv"), work("moved.skv"), "--bounds", "any-order-wide"});
  write_moved(20.0 * wide[vertex]);
  const RunResult far = run({"compare", work("ref.skv"), work("moved.skv")});
  EXPECT_EQ(far.exit_code, kExitComparisonFailed) << far.err;
  EXPECT_EQ(far.out.find("any-order-wide"), std::string::npos) << far.out;
}

// --bounds: any-order by default for an engine's dump, skinref-order for skinref's own; both named.
TEST_F(CliTest, CompareChoosesItsBoundsByTheDumpsWriter) {
  expect_ok({"pose", "builtin:bend", "--time", "0.25", "--out", work("ref.json")});
  write_engine_pose(work("ref.json"), work("engine.json"));
  RunResult engine, own, forced;
  expect_ok({"compare", work("ref.json"), work("engine.json")}, &engine);
  EXPECT_NE(engine.out.find("bounds any-order (the default for a dump that skinref did not write)"), std::string::npos)
      << engine.out;
  expect_ok({"compare", work("ref.json"), work("ref.json")}, &own);
  EXPECT_NE(own.out.find("bounds skinref-order (the default for skinref's own float32 dump)"), std::string::npos)
      << own.out;
  expect_ok({"compare", work("ref.json"), work("engine.json"), "--bounds", "skinref-order"}, &forced);
  EXPECT_NE(forced.out.find("bounds skinref-order\n"), std::string::npos) << forced.out;
  const RunResult bad = run({"compare", work("ref.json"), work("engine.json"), "--bounds", "loose"});
  EXPECT_EQ(bad.exit_code, kExitBadInput);
  EXPECT_NE(bad.err.find("--bounds"), std::string::npos) << bad.err;
}

// Engine conventions on the command line: skin records them in its dump, compare and bisect refuse options
// that contradict a record, the float32 backends refuse what they do not implement, and diagnose names them.
TEST_F(CliTest, SkinRecordsItsConventionsAndCompareHoldsThemToTheRecord) {
  expect_ok({"skin", "builtin:bend", "--time", "0.3", "--convention", "rotation=nlerp", "--out", work("ref.skv")});
  expect_ok({"skin", "builtin:bend", "--time", "0.3", "--convention", "rotation=nlerp", "--precision", "f32", "--out",
             work("engine.skv")});
  const VertexDump dump = read_vertices_skv(work("engine.skv"));
  ASSERT_TRUE(dump.record.present);
  EXPECT_EQ(dump.record.model, "builtin:bend");
  EXPECT_EQ(dump.record.time, 0.3);
  EXPECT_EQ(dump.record.method, "lbs");
  ASSERT_TRUE(dump.record.conventions.has_value());
  EXPECT_EQ(describe_conventions(*dump.record.conventions), "glTF 2.0 with rotation=nlerp");
  // Everything the comparison needs is in the records.
  RunResult same;
  expect_ok({"compare", work("ref.skv"), work("engine.skv")}, &same);
  EXPECT_NE(same.out.find("glTF 2.0 with rotation=nlerp"), std::string::npos) << same.out;
  // A convention flag that contradicts the record is refused, naming both.
  expect_bad_input({"compare", work("ref.skv"), work("engine.skv"), "--convention", "rotation=slerp"},
                   {"engine.skv", "rotation=nlerp"}, {"engine.skv", "ref.skv"});
  // The same convention given twice with two values, and an unknown one.
  expect_bad_input({"skin", "builtin:bend", "--convention", "rotation=nlerp", "--convention", "rotation=lerp", "--out",
                    work("x.skv")},
                   {"rotation=lerp", "rotation=nlerp"}, {"engine.skv", "ref.skv"});
  expect_bad_input({"skin", "builtin:bend", "--convention", "rotashun=nlerp", "--out", work("x.skv")},
                   {"unknown convention 'rotashun'"}, {"engine.skv", "ref.skv"});
  // --weights renormalize is weights=sum: with --convention weights=l2 it contradicts itself.
  expect_bad_input({"skin", "builtin:bend", "--weights", "renormalize", "--convention", "weights=l2", "--out",
                    work("x.skv")},
                   {"weights=sum", "weights=l2"}, {"engine.skv", "ref.skv"});
  // The float32 CPU backend implements glTF (and weights=sum): nlerp runs on the reference.
  expect_bad_input({"skin", "builtin:bend", "--backend", "cpu", "--convention", "rotation=nlerp", "--out",
                    work("x.skv")},
                   {"--backend cpu", "rotation=nlerp", "--backend reference"}, {"engine.skv", "ref.skv"});
  expect_ok({"skin", "builtin:bend", "--backend", "cpu", "--convention", "weights=sum", "--out", work("cpu.skv")});
}

// An engine that leaves its normals unnormalized: compare names it, and diagnose names the convention.
TEST_F(CliTest, UnnormalizedNormalsAreNamed) {
  expect_ok({"skin", "builtin:bend", "--time", "0.35", "--out", work("ref.skv")});
  expect_ok({"skin", "builtin:bend", "--time", "0.35", "--precision", "f32", "--convention", "normalize=no", "--out",
             work("engine.skv")});
  strip_record(work("engine.skv"));
  const RunResult compared = run({"compare", work("ref.skv"), work("engine.skv")});
  EXPECT_EQ(compared.exit_code, kExitComparisonFailed) << compared.err;
  EXPECT_NE(compared.out.find("not unit length:"), std::string::npos) << compared.out;
  const RunResult diagnosed = run({"diagnose", "builtin:bend", work("engine.skv"), "--time", "0.35"});
  EXPECT_EQ(diagnosed.exit_code, kExitComparisonFailed) << diagnosed.err;
  EXPECT_NE(diagnosed.out.find("matches glTF 2.0 with normalize=no: 0 of"), std::string::npos) << diagnosed.out;
}

// Rewrites every number of a JSON text with %.9g, as an engine that prints floats with 9 digits would.
std::string with_nine_digits(const std::string& json) {
  std::string out;
  for (size_t i = 0; i < json.size();) {
    const char c = json[i];
    const bool starts_number = (c == '-' || (c >= '0' && c <= '9')) && (i == 0 || std::string(":,[ \n").find(json[i - 1]) != std::string::npos);
    if (!starts_number) {
      out += c;
      ++i;
      continue;
    }
    size_t length = 0;
    const double value = std::stod(json.substr(i), &length);
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    out += text;
    i += length;
  }
  return out;
}

// An engine's pose dump with a mistake (core/mistakes.h): bisect finds the stage, and names the mistake that
// reproduces it from the engine's own inputs to that stage ("your globals are your locals"), before any vertex.
TEST_F(CliTest, BisectNamesTheMistakeOfThePoseStage) {
  expect_ok({"pose", "builtin:bend", "--time", "0.37", "--out", work("ref.json")});
  expect_ok({"skin", "builtin:bend", "--time", "0.37", "--out", work("ref.skv")});
  struct Case {
    const char* mistake;
    const char* stage;
    const char* words;
  };
  for (const Case& c : {Case{"parent-chain=ignored", "local-to-model", "your globals are your locals"},
                        Case{"palette-matrices=transposed", "palette", "your joint matrices are transposed"},
                        Case{"inverse-bind-use=missing", "palette", "the inverse bind matrices are not applied"},
                        Case{"quaternion-order=wxyz", "sampling", "your rotations are read as (w, x, y, z)"}}) {
    SCOPED_TRACE(c.mistake);
    expect_ok({"pose", "builtin:bend", "--time", "0.37", "--convention", c.mistake, "--out", work("engine.json")});
    // An engine's dump records no conventions.
    nlohmann::json engine = nlohmann::json::parse(read_bytes(work("engine.json")));
    engine.erase("conventions");
    write_bytes(work("engine.json"), engine.dump());
    const RunResult result = run({"bisect", work("ref.json"), work("engine.json"), work("ref.skv"), work("ref.skv"),
                                  "--report", work("bisect")});
    EXPECT_EQ(result.exit_code, kExitComparisonFailed) << result.err;
    EXPECT_NE(result.out.find(std::string("first diverging stage: ") + c.stage), std::string::npos) << result.out;
    EXPECT_NE(result.out.find(c.words), std::string::npos) << result.out;
    EXPECT_NE(result.out.find(std::string("the mistake ") + c.mistake + " reproduces this stage"), std::string::npos)
        << result.out;
    const nlohmann::json report = nlohmann::json::parse(read_bytes(work("bisect/bisect.json")));
    EXPECT_EQ(report["mistake"]["assignment"], c.mistake);
  }
}

// A pose dump printed with 9 significant digits (a float's own precision) is not a failure for its printing
// rounding: compare and bisect charge it to the bounds. A real difference is still caught.
TEST_F(CliTest, PoseDumpsPrintedWithNineDigitsAreChargedTheirRounding) {
  // builtin:chain64's unanimated rest values are float32 values with more than 9 digits (bound: exact), so
  // without the charge 63 of them were over.
  expect_ok({"pose", "builtin:chain64", "--time", "0.25", "--out", work("ref.json")});
  write_bytes(work("nine.json"), with_nine_digits(read_bytes(work("ref.json"))));
  RunResult result;
  expect_ok({"compare", work("ref.json"), work("nine.json")}, &result);
  EXPECT_NE(result.out.find("within their derived float32 bounds"), std::string::npos) << result.out;
  expect_ok({"skin", "builtin:chain64", "--time", "0.25", "--out", work("ref.skv")});
  expect_ok({"bisect", work("ref.json"), work("nine.json"), work("ref.skv"), work("ref.skv")});
  // A joint's rotation off by 1e-3: caught through the printing charge (about 5e-9 of each value).
  nlohmann::json off = nlohmann::json::parse(read_bytes(work("ref.json")));
  off["nodes"][1]["rotation"][0] = off["nodes"][1]["rotation"][0].get<double>() + 1e-3;
  write_bytes(work("off.json"), with_nine_digits(off.dump()));
  EXPECT_EQ(run({"compare", work("ref.json"), work("off.json")}).exit_code, kExitComparisonFailed);
}

// A dump records its model file's content: the same file edited since is refused. An engine's merged
// vertex buffer (one .skv primitive with a range table) is split back into its primitives.
TEST_F(CliTest, ModelHashAndMergedBuffers) {
  expect_ok({"export", "builtin:twist", "--out", work("twist.gltf")});
  expect_ok({"skin", work("twist.gltf"), "--time", "0.3", "--out", work("ref.skv")});
  const VertexDump ref = read_vertices_skv(work("ref.skv"));
  EXPECT_EQ(ref.record.model_hash.rfind("fnv1a64:", 0), 0u) << ref.record.model_hash;
  EXPECT_EQ(ref.record.model_hash, model_content_hash(work("twist.gltf")));
  expect_ok({"compare", work("ref.skv"), work("ref.skv")});
  // The engine keeps its vertices in one buffer: the one primitive, with a range for it.
  VertexDump merged = ref;
  merged.record = DumpRecord{};
  merged.record.present = true;
  merged.record.ranges.push_back({ref.primitives[0].node, ref.primitives[0].mesh, ref.primitives[0].primitive, 0,
                                  ref.primitives[0].vertices.positions.size(), true});
  write_vertex_dump(Scene{}, merged, work("merged.skv"));
  const VertexDump back = read_vertices_skv(work("merged.skv"));
  test::expect_same_primitives(back.primitives, ref.primitives);
  expect_ok({"compare", work("ref.skv"), work("merged.skv")});
  // A range past the buffer's end is refused.
  merged.record.ranges[0].count += 1;
  write_vertex_dump(Scene{}, merged, work("bad.skv"));
  EXPECT_EQ(run({"compare", work("ref.skv"), work("bad.skv")}).exit_code, kExitBadInput);
  fs::remove(work("bad.skv"));
  // The model file edited after the dump: refused, naming both hashes.
  std::string text = read_bytes(work("twist.gltf"));
  text += "\n";
  write_bytes(work("twist.gltf"), text);
  expect_bad_input({"compare", work("ref.skv"), work("merged.skv")}, {"ref.skv", "the file changed"},
                   {"merged.skv", "ref.skv", "twist.gltf"});
}

TEST_F(CliTest, ConventionsFileAndPoseRecord) {
  write_bytes(work("engine.json"), R"({"rotation": "nlerp", "normals": "blend-normal-matrices"})");
  expect_ok({"skin", "builtin:twist", "--time", "0.6", "--conventions", work("engine.json"), "--out", work("file.skv")});
  expect_ok({"skin", "builtin:twist", "--time", "0.6", "--convention", "rotation=nlerp", "--normals",
             "blend-normal-matrices", "--out", work("flags.skv")});
  expect_same_skv_vertices(work("file.skv"), work("flags.skv"));
  write_bytes(work("bad.json"), R"({"rotation": "spline"})");
  expect_bad_input({"skin", "builtin:twist", "--conventions", work("bad.json"), "--out", work("x.skv")},
                   {"bad.json", "slerp|nlerp|lerp"}, {"bad.json", "engine.json", "file.skv", "flags.skv"});
  expect_ok({"pose", "builtin:twist", "--time", "0.6", "--convention", "rotation=nlerp", "--out", work("pose.json")});
  const nlohmann::json pose = nlohmann::json::parse(read_bytes(work("pose.json")));
  EXPECT_EQ(pose.at("conventions").at("rotation"), "nlerp");
  EXPECT_EQ(pose.at("conventions").at("normals"), "inverse-transpose");
}

TEST_F(CliTest, DiagnoseNamesTheConventionsOfAnEngineDump) {
  // An engine that blends normal matrices and nlerps, dumped at two times; its dumps record nothing of that.
  // (builtin:bend's joints are rigid, so blending their normal matrices is blending their rotations, the same
  // as normals=blend-upper3x3: the commoner name is given, and the other listed as equal.)
  for (const char* time : {"0.35", "0.7"}) {
    const std::string path = work(std::string("engine_") + time + ".skv");
    expect_ok({"skin", "builtin:bend", "--time", time, "--precision", "f32", "--convention", "rotation=nlerp",
               "--normals", "blend-normal-matrices", "--out", path});
    strip_record(path);
  }
  const RunResult result = run({"diagnose", "builtin:bend", work("engine_0.35.skv"), work("engine_0.7.skv"), "--time",
                                "0.35", "--time", "0.7", "--report", work("report")});
  EXPECT_EQ(result.exit_code, kExitComparisonFailed) << result.err;
  EXPECT_TRUE(result.err.empty()) << result.err;
  EXPECT_NE(result.out.find("matches glTF 2.0 with rotation=nlerp, normals=blend-normal-matrices: 0 of"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("(as specified: "), std::string::npos) << result.out;
  const nlohmann::json report = nlohmann::json::parse(read_bytes(work("report/diagnosis.json")));
  EXPECT_EQ(report.at("format"), "skinref-diagnosis");
  EXPECT_EQ(report.at("verdict"), (std::vector<std::string>{"rotation=nlerp", "normals=blend-normal-matrices"}));
  EXPECT_EQ(report.at("explained"), true);
  EXPECT_EQ(report.at("dumps").size(), 2u);

  // A glTF engine: exit 0. Its dump records its time, so no --time is needed.
  expect_ok({"skin", "builtin:twist", "--time", "0.35", "--precision", "f32", "--out", work("gltf.skv")});
  RunResult gltf;
  expect_ok({"diagnose", "builtin:twist", work("gltf.skv")}, &gltf);
  EXPECT_NE(gltf.out.find("matches glTF 2.0: 0 of"), std::string::npos) << gltf.out;
}

// An engine's profile (a conformance run's profile.json) given to diagnose: its conventions are what is known of
// the engine, so an nlerp engine matches "glTF 2.0 with rotation=nlerp" (exit 0); a profile that contradicts a
// --convention, or does not read, is refused naming it.
TEST_F(CliTest, DiagnoseTakesAnEngineProfile) {
  expect_ok({"skin", "builtin:bend", "--time", "0.35", "--precision", "f32", "--convention", "rotation=nlerp", "--out",
             work("engine.skv")});
  strip_record(work("engine.skv"));
  {
    std::ofstream profile(work("profile.json"));
    profile << R"({"format": "skinref-engine-profile", "version": 1, "conventions": ["rotation=nlerp"],)"
            << R"( "allowances": {"rotation_rad": 0, "translation_scale_relative": 0, "interpolation_relative": 0}})";
  }
  RunResult given;
  expect_ok({"diagnose", "builtin:bend", work("engine.skv"), "--time", "0.35", "--profile", work("profile.json")}, &given);
  EXPECT_NE(given.out.find("matches glTF 2.0 with rotation=nlerp: 0 of"), std::string::npos) << given.out;
  const std::vector<std::string> inputs{"engine.skv", "profile.json"};
  expect_bad_input({"diagnose", "builtin:bend", work("engine.skv"), "--time", "0.35", "--profile", work("profile.json"),
                    "--convention", "rotation=lerp"},
                   {"--profile", "rotation=nlerp", "rotation=lerp"}, inputs);
  {
    std::ofstream bad(work("bad.json"));
    bad << R"({"format": "skinref-engine-profile", "version": 1, "conventions": ["rotation=squad"], "allowances": {}})";
  }
  expect_bad_input({"diagnose", "builtin:bend", work("engine.skv"), "--time", "0.35", "--profile", work("bad.json")},
                   {"bad.json", "/conventions/0"}, {"engine.skv", "profile.json", "bad.json"});
}

TEST_F(CliTest, DiagnoseRefusesBadInput) {
  expect_ok({"skin", "builtin:twist", "--time", "0.35", "--out", work("twist.skv")});
  expect_ok({"skin", "builtin:bend", "--time", "0.35", "--out", work("bend.skv")});
  const std::vector<std::string> inputs{"bend.skv", "twist.skv"};
  expect_bad_input({"diagnose", "builtin:twist"}, {"TEST.skv"}, inputs);
  expect_bad_input({"diagnose", "builtin:twist", work("twist.skv"), "--time", "0.1", "--time", "0.2"},
                   {"2 --time values for 1 dumps"}, inputs);
  expect_bad_input({"diagnose", "builtin:twist", work("twist.skv"), "--time", "0.5"},
                   {"--time 0.5", "twist.skv", "time 0.35"}, inputs);
  expect_bad_input({"diagnose", "builtin:twist", work("bend.skv")}, {"bend.skv"}, inputs);  // another model's dump
  expect_bad_input({"diagnose", "builtin:twist", work("missing.skv")}, {"missing.skv"}, inputs);
  expect_bad_input({"diagnose", "builtin:twist", work("twist.skv"), "--max-conventions", "9"}, {"--max-conventions"},
                   inputs);
  // A pose dump must show the vertex dump's moment.
  expect_ok({"pose", "builtin:twist", "--time", "0.5", "--out", work("pose.json")});
  const std::vector<std::string> with_pose{"bend.skv", "pose.json", "twist.skv"};
  expect_bad_input({"diagnose", "builtin:twist", work("twist.skv"), "--pose", work("pose.json")},
                   {"pose.json", "/time", "twist.skv"}, with_pose);
  expect_bad_input({"diagnose", "builtin:twist", work("twist.skv"), "--pose", work("pose.json"), "--pose",
                    work("pose.json")},
                   {"2 --pose dumps for 1 vertex dumps"}, with_pose);
  expect_ok({"pose", "builtin:twist", "--time", "0.35", "--out", work("pose.json")});
  expect_ok({"diagnose", "builtin:twist", work("twist.skv"), "--pose", work("pose.json")});
  strip_record(work("twist.skv"));
  expect_bad_input({"diagnose", "builtin:twist", work("twist.skv")}, {"does not record its time", "--time"}, with_pose);
}


// ---- stated resource limits (core/limits.h) ----------------------------------------------------------------

// A chain of `depth` nodes, each the only child of the one before.
std::string node_chain_gltf(size_t depth) {
  std::string nodes;
  for (size_t i = 0; i < depth; ++i) {
    if (i > 0) nodes += ",";
    nodes += i + 1 < depth ? "{\"children\":[" + std::to_string(i + 1) + "]}" : "{}";
  }
  return R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[)" + nodes + "]}";
}

// A GLB whose JSON declares `byte_length` bytes of buffer 0 over a 4-byte BIN chunk.
std::string glb_declaring_buffer(const std::string& byte_length) {
  std::string json = R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":)" + byte_length + "}]}";
  while (json.size() % 4 != 0) json += ' ';
  auto u32 = [](uint32_t v) {
    std::string b(4, '\0');
    for (size_t i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
    return b;
  };
  const uint32_t total = uint32_t(12 + 8 + json.size() + 8 + 4);
  return "glTF" + u32(2) + u32(total) + u32(uint32_t(json.size())) + "JSON" + json + u32(4) + std::string("BIN\0", 4) +
         std::string(4, '\0');
}

// A PNG whose IHDR declares width x height RGBA8 pixels, with an empty IDAT: the size must be refused before
// anything reads the image data.
std::string png_declaring(uint32_t width, uint32_t height) { return test::png_file(width, height, 8, 6, false, ""); }

// Runs skinref through the shell with its address space limited to `kib` KiB (ulimit -v): a command that tried to
// allocate what the file declares would fail with std::bad_alloc (exit 3 or a crash), not exit 2. Skipped under
// AddressSanitizer, whose shadow memory alone exceeds any such limit.
int run_with_address_space_limit(const std::vector<std::string>& args, size_t kib, std::string* err,
                                 const test::TempDir& captures) {
  std::string command = "ulimit -v " + std::to_string(kib) + " && " + test::shell_quoted(SKINREF_CLI);
  for (const std::string& arg : args) command += " " + test::shell_quoted(arg);
  command += " 2>" + test::shell_quoted(captures.file("limited-stderr.txt")) + " >/dev/null";
  const int status = std::system(("/bin/sh -c " + test::shell_quoted(command)).c_str());
  *err = read_bytes(captures.file("limited-stderr.txt"));
  return (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
}

constexpr bool kAddressSanitizer = kUnderAddressSanitizer;  // core/sanitizers.h

TEST_F(CliTest, TimeNanAndInfinityAreRefused) {
  for (const std::string time : {"nan", "NaN", "inf", "-inf", "1e999"}) {
    expect_bad_input({"pose", "builtin:bend", "--time", time, "--out", work("pose.json")},
                     {"option --time", "'" + time + "'", "is not a finite number"});
  }
  // A time far beyond the clip is a valid, finite time: the clip's end holds.
  expect_ok({"pose", "builtin:bend", "--time", "1e300", "--out", work("pose.json")});
  fs::remove(work("pose.json"));
}

TEST_F(CliTest, HundredThousandDeepNodeChainIsRefusedByTheDepthLimit) {
  write_bytes(work("chain.gltf"), node_chain_gltf(100000));
  for (const char* command : {"info", "pose"}) {
    std::vector<std::string> args{command, work("chain.gltf")};
    if (std::string(command) == "pose") args.insert(args.end(), {"--out", work("pose.json")});
    expect_bad_input(args, {"chain.gltf: /nodes/9999/children: a node hierarchy depth <= 10000",
                            "kMaxHierarchyDepth", "node 10000 is at depth 10001"},
                     {"chain.gltf"});
  }
  // At the limit it loads, poses, exports and exports again (every walk over the hierarchy is iterative).
  write_bytes(work("limit.gltf"), node_chain_gltf(10000));
  expect_ok({"pose", work("limit.gltf"), "--out", work("pose.json")});
  expect_ok({"export", work("limit.gltf"), "--out", work("again.glb")});
  expect_ok({"info", work("again.glb")});
}

TEST_F(CliTest, MillionAnimationsAreRefusedQuicklyByTheirLimit) {
  std::string text = R"({"asset":{"version":"2.0"},"animations":[)";
  text.reserve(3'200'000);
  for (size_t i = 0; i < 1'000'000; ++i) text += i == 0 ? "{}" : ",{}";
  text += "]}";
  write_bytes(work("anims.gltf"), text);
  const auto start = std::chrono::steady_clock::now();
  expect_bad_input({"info", work("anims.gltf")},
                   {"anims.gltf: /animations: a count of animations <= 65536", "kMaxAnimations"}, {"anims.gltf"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

TEST_F(CliTest, FourGibBufferIsRefusedWithoutAllocatingIt) {
  const std::string gltf = R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":4294967296,)"
                           R"("uri":"data:application/octet-stream;base64,AAAA"}]})";
  write_bytes(work("big.gltf"), gltf);
  write_bytes(work("big.glb"), glb_declaring_buffer("4294967296"));
  for (const char* name : {"big.gltf", "big.glb"}) {
    const std::vector<std::string> mentions{std::string(name) + ": /buffers/0/byteLength: a buffer byteLength <= 2147483648",
                                            "kMaxBufferBytes", "got 4294967296"};
    expect_bad_input({"info", work(name)}, mentions, {"big.glb", "big.gltf"});
    expect_bad_input({"skin", work(name), "--out", work("v.skv")}, mentions, {"big.glb", "big.gltf"});
    if (kAddressSanitizer) continue;
    std::string err;
    EXPECT_EQ(run_with_address_space_limit({"info", work(name)}, 1024 * 1024, &err, captures_dir_), kExitBadInput)
        << err;
    for (const std::string& mention : mentions) EXPECT_NE(err.find(mention), std::string::npos) << err;
  }
}

TEST_F(CliTest, OversizedImagesAreRefusedBeforeAllocating) {
  expect_bad_input({"render", "builtin:bend", "--size", "16384x16384", "--out", work("r.png")},
                   {"option --size: '16384x16384' has 268435456 pixels", "<= 67108864", "kMaxImagePixels"});
  expect_bad_input({"render", "builtin:bend", "--size", "16385x1", "--out", work("r.png")},
                   {"option --size", "1 to 16384"});
  write_bytes(work("huge.png"), png_declaring(100000, 100000));
  const std::vector<std::string> mentions{"huge.png: an image of width and height <= 16384", "kMaxImageDimension",
                                          "got 100000x100000"};
  expect_bad_input({"compare", work("huge.png"), work("huge.png")}, mentions, {"huge.png"});
  write_bytes(work("wide.png"), png_declaring(16385, 1));
  expect_bad_input({"compare", work("wide.png"), work("wide.png")}, {"got 16385x1", "kMaxImageDimension"},
                   {"huge.png", "wide.png"});
  if (!kAddressSanitizer) {
    std::string err;
    EXPECT_EQ(run_with_address_space_limit({"compare", work("huge.png"), work("huge.png")}, 1024 * 1024, &err,
                                           captures_dir_),
              kExitBadInput)
        << err;
    EXPECT_NE(err.find("got 100000x100000"), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace skinref
