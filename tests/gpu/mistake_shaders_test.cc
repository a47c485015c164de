// The broken skinning vertex shaders of examples/shaders/mistakes: each is the tutorial shader
// (examples/shaders/tutorial_skinning.vert) with one implementation mistake of docs/mistakes.md, run on the
// tutorial's own interface (examples/shaders/tutorial_skinning.json) as a user would run it.
//
// Contract, for each shader: `skinref skin MODEL --time 0.37 --backend vulkan --validate --shader SHADER
// --interface tutorial_skinning.json` exits 0 (the shader compiles, runs under the validation layer and reads
// no "no joint" sentinel), and `skinref diagnose MODEL DUMP` exits 1 (the dump fails glTF 2.0) with the verdict
// "a mistake in the code, not a design choice: NAME=VALUE" naming the shader's mistake as the headline, not
// only among the equal explanations. Each runs on a model where its mistake changes the vertices and no other
// candidate explains them as well (each shader's opening comment says why that model):
// - builtin:bend for palette-matrices=transposed and normals=unskinned;
// - conformance/cases/bind-pose-differs-from-rest-pose for skinning=skipped: where the bind pose is the rest
//   pose (every built-in scene), the bind pose is also what animation=not-played gives, named first;
// - builtin:eight-influences read as one JOINTS/WEIGHTS set (influences=first-set) for the weight mistakes and
//   influences=first-influence: all 4 slots weigh more than 0, so the runner writes no -1 for a slot whose
//   joint the reference still uses, and the 4 weights sum to well under 1, so that weights=last-from-others
//   changes something (on builtin:bend it changes nothing). The weight mistakes are diagnosed with
//   influences=first-set known; first-influence without it, being itself a value of `influences`.
// Like the rest of gpu_tests, this runs only where the Vulkan path was built; elsewhere CMakeLists.txt's
// gpu_path_unavailable test reports the GPU tests as skipped.
#include "support/cli_runner.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#ifndef SKINREF_EXAMPLES_DIR
#error "SKINREF_EXAMPLES_DIR must name examples/ (set by CMakeLists.txt)"
#endif

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using namespace test::exit_codes;

std::string examples_file(const std::string& name) { return std::string(SKINREF_EXAMPLES_DIR) + "/" + name; }

// The tutorial's interface; every mistake shader is a copy of its shader with one slip.
const char* const kMistakeInterface = "shaders/tutorial_skinning.json";
const char* const kVerdict = "a mistake in the code, not a design choice: ";
constexpr double kMistakeTime = 0.37;

struct MistakeShaderCase {
  const char* shader;                       // in examples/shaders/mistakes
  std::string model;                        // builtin:NAME, or a glTF file
  std::vector<std::string> skin_settings;   // --convention NAME=VALUE for skin: how the engine loads the model
  std::vector<std::string> known_settings;  // --convention NAME=VALUE for diagnose: what is known of the engine
  const char* mistake;                      // the NAME=VALUE diagnose names
};

void PrintTo(const MistakeShaderCase& c, std::ostream* out) {
  *out << c.shader << " on " << c.model << " -> " << c.mistake;
}

// conformance/ sits beside examples/ at the repository's root.
std::string conformance_case(const std::string& name) {
  return std::string(SKINREF_EXAMPLES_DIR) + "/../conformance/cases/" + name + "/" + name + ".gltf";
}

std::vector<MistakeShaderCase> mistake_shader_cases() {
  const std::vector<std::string> first_set = {"influences=first-set"};
  return {
      {"transposed_palette.vert", "builtin:bend", {}, {}, "palette-matrices=transposed"},
      {"no_skinning.vert", conformance_case("bind-pose-differs-from-rest-pose"), {}, {}, "skinning=skipped"},
      {"normals_not_skinned.vert", "builtin:bend", {}, {}, "normals=unskinned"},
      {"first_influence_only.vert", "builtin:eight-influences", first_set, {}, "influences=first-influence"},
      {"equal_weights.vert", "builtin:eight-influences", first_set, first_set, "weights=equal"},
      {"weights_ignored.vert", "builtin:eight-influences", first_set, first_set, "weights=ones"},
      {"last_weight_derived.vert", "builtin:eight-influences", first_set, first_set, "weights=last-from-others"},
  };
}

// The shader's file name without its extension: a test name.
std::string mistake_case_name(const ::testing::TestParamInfo<MistakeShaderCase>& info) {
  const std::string shader = info.param.shader;
  return shader.substr(0, shader.find('.'));
}

class MistakeShaderTest : public ::testing::TestWithParam<MistakeShaderCase> {
 protected:
  test::CliRun run(const std::vector<std::string>& args) const { return test::run_cli(captures_, args); }
  std::string work(const std::string& name) const { return work_.file(name); }

  static void add_settings(std::vector<std::string>& args, const std::vector<std::string>& settings) {
    for (const std::string& setting : settings) args.insert(args.end(), {"--convention", setting});
  }

  test::CliRun skin(const MistakeShaderCase& c, const std::string& out) const {
    const std::string shader = examples_file(std::string("shaders/mistakes/") + c.shader);
    std::vector<std::string> args = {"skin", c.model, "--time", std::to_string(kMistakeTime), "--backend", "vulkan",
                                     "--validate", "--shader", shader, "--interface", examples_file(kMistakeInterface),
                                     "--out", out};
    add_settings(args, c.skin_settings);
    return run(args);
  }

  test::CliRun diagnose(const MistakeShaderCase& c, const std::string& dump) const {
    std::vector<std::string> args = {"diagnose", c.model, dump};
    add_settings(args, c.known_settings);
    return run(args);
  }

  test::TempDir captures_, work_;
};

TEST_P(MistakeShaderTest, DiagnoseNamesTheMistake) {
  const MistakeShaderCase& c = GetParam();
  const std::string dump = work("engine.skv");
  const test::CliRun skinned = skin(c, dump);
  ASSERT_EQ(skinned.exit_code, kExitOk) << skinned.out << skinned.err;
  const test::CliRun diagnosed = diagnose(c, dump);
  EXPECT_EQ(diagnosed.exit_code, kExitFailed) << diagnosed.out << diagnosed.err;
  const std::string verdict = std::string(kVerdict) + c.mistake;
  EXPECT_NE(diagnosed.out.find(verdict), std::string::npos) << "no '" << verdict << "' in:\n" << diagnosed.out;
}

INSTANTIATE_TEST_SUITE_P(Tutorial, MistakeShaderTest, ::testing::ValuesIn(mistake_shader_cases()), mistake_case_name);

}  // namespace
}  // namespace skinref
