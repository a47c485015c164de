// `skinref golden` as a user runs it: the committed goldens reproduce bit for bit (GoldenReproducible, the
// ctest golden_reproducible), and the command's behaviour on small manifests written here: a missing golden
// is a failure and never created by check, altered goldens fail at the stage and place that was altered,
// bad manifests are refused with the manifest's path and JSON pointer, a failed update leaves the previous
// goldens intact, outputs of dropped times are removed, and corpus cases are skipped visibly without the
// corpus.
#include "io/image_io.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <random>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#ifndef SKINREF_GOLDEN_DIR
#error "SKINREF_GOLDEN_DIR must name the source tree's golden folder (set by CMakeLists.txt)"
#endif
#ifndef SKINREF_CORPUS_DIR
#error "SKINREF_CORPUS_DIR must be defined by the build (see CMakeLists.txt)"
#endif

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

namespace fs = std::filesystem;
using test::read_bytes;
using test::write_bytes;

using namespace test::exit_codes;

std::string corpus_dir() {
  if (const char* env = std::getenv("SKINREF_CORPUS_DIR"); env != nullptr && *env != '\0') return env;
  return SKINREF_CORPUS_DIR;
}

// Every regular file below `root`, as paths relative to it, sorted.
std::vector<std::string> files_below(const fs::path& root) {
  std::vector<std::string> files;
  if (!fs::is_directory(root)) return files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), root).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- the committed goldens ---------------------------------------------------------------------------------

TEST(GoldenReproducible, UpdateIntoAFreshFolderReproducesTheCommittedGoldensBitForBit) {
  const fs::path committed = SKINREF_GOLDEN_DIR;
  const test::TempDir work("golden"), captures("captures");
  fs::copy_file(committed / "manifest.json", work.path() / "manifest.json");
  fs::copy(committed / "recipes", work.path() / "recipes", fs::copy_options::recursive);

  const test::CliRun run = test::run_cli(captures, {"golden", "update", "--golden-dir", work.path().string()});
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;

  // Without the corpus its cases are not regenerated (the update says so); their committed files stay out.
  const nlohmann::json manifest = nlohmann::json::parse(read_bytes(committed / "manifest.json"));
  const bool corpus = fs::is_directory(corpus_dir());
  std::set<std::string> not_regenerated;
  for (const nlohmann::json& golden_case : manifest.at("cases")) {
    const std::string name = golden_case.at("name").get<std::string>();
    if (!corpus && golden_case.at("model").get<std::string>().rfind("corpus:", 0) == 0) {
      not_regenerated.insert(name);
      EXPECT_TRUE(contains(run.out, "SKIPPED: corpus not found at " + corpus_dir() + ": case " + name)) << run.out;
    }
  }
  if (!not_regenerated.empty()) {
    std::cout << "corpus not found at " << corpus_dir() << ": " << not_regenerated.size()
              << " corpus cases not regenerated, their committed goldens not compared\n";
  }
  std::vector<std::string> expected;
  for (const std::string& file : files_below(committed / "cases")) {
    if (not_regenerated.count(fs::path(file).begin()->string()) == 0) expected.push_back(file);
  }
  const std::vector<std::string> regenerated = files_below(work.path() / "cases");
  ASSERT_FALSE(expected.empty()) << "no committed goldens under " << (committed / "cases");
  EXPECT_EQ(regenerated, expected) << "the update wrote other files than are committed (a case added, renamed "
                                      "or given other times without committing its goldens?)";
  size_t differing = 0;
  for (const std::string& file : expected) {
    if (!fs::is_regular_file(work.path() / "cases" / file)) continue;
    if (read_bytes(committed / "cases" / file) != read_bytes(work.path() / "cases" / file)) {
      if (++differing <= 10) ADD_FAILURE() << "cases/" << file << " differs from the committed golden";
    }
  }
  EXPECT_EQ(differing, 0u) << "of " << expected.size() << " files";
}

// ---- the command on small manifests ----------------------------------------------------------------------

class GoldenCommandTest : public ::testing::Test {
 protected:
  GoldenCommandTest() : golden_("golden"), captures_("captures") {}

  // A manifest of `cases` (JSON objects as text) in the work folder.
  void write_manifest(const std::vector<std::string>& cases) const {
    std::string text = "{\"format\": \"skinref-golden-manifest\", \"version\": 1, \"cases\": [";
    for (size_t i = 0; i < cases.size(); ++i) text += (i ? ",\n" : "\n") + cases[i];
    write_bytes(manifest(), text + "\n]}\n");
  }

  std::string manifest() const { return golden_.file("manifest.json"); }
  fs::path case_file(const std::string& name, const std::string& file) const {
    return golden_.path() / "cases" / name / file;
  }

  test::CliRun golden(std::vector<std::string> args) const {
    args.insert(args.begin(), "golden");
    args.insert(args.begin() + 2, {"--golden-dir", golden_.path().string()});
    return test::run_cli(captures_, args);
  }

  void expect_bad_manifest(const std::string& case_text, const std::string& pointer, const std::string& mention) const {
    SCOPED_TRACE(case_text);
    write_manifest({case_text});
    const test::CliRun run = golden({"check", "--backend", "reference"});
    EXPECT_EQ(run.exit_code, kExitBadInput) << run.out << run.err;
    EXPECT_TRUE(contains(run.err, "skinref: " + manifest() + ": " + pointer + ": ")) << run.err;
    EXPECT_TRUE(contains(run.err, mention)) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_FALSE(fs::exists(golden_.path() / "cases"));
  }

  // One small case of builtin:twist (a 48x48 image per time).
  static std::string twist_case(const std::string& name, const std::string& times) {
    return "{\"name\": \"" + name + "\", \"model\": \"builtin:twist\", \"times\": " + times + ", \"size\": \"48x48\"}";
  }

  test::TempDir golden_, captures_;
};

TEST_F(GoldenCommandTest, AMissingGoldenIsAFailureAndCheckNeverCreatesIt) {
  write_manifest({twist_case("twist-small", "[0.5]")});
  const test::CliRun run = golden({"check", "--backend", "reference"});
  EXPECT_EQ(run.exit_code, kExitFailed) << run.out << run.err;
  EXPECT_TRUE(contains(run.out, "MISSING twist-small t0.5: missing golden ")) << run.out;
  EXPECT_TRUE(contains(run.out, "0 passed, 1 failed")) << run.out;
  EXPECT_FALSE(fs::exists(golden_.path() / "cases"));
}

TEST_F(GoldenCommandTest, UpdateWritesImageAndDumpsPerTimeAndTheReferenceCheckPasses) {
  write_manifest({twist_case("twist-small", "[0.25, 0.5]")});
  const test::CliRun update = golden({"update", "--threads", "1"});
  ASSERT_EQ(update.exit_code, kExitOk) << update.out << update.err;
  for (const char* file : {"t0.25.png", "t0.25.skv", "t0.25.pose.json", "t0.5.png", "t0.5.skv", "t0.5.pose.json"}) {
    EXPECT_TRUE(fs::is_regular_file(case_file("twist-small", file))) << file;
  }
  EXPECT_EQ(files_below(golden_.path() / "cases").size(), 6u);
  const RgbaImage image = read_png(case_file("twist-small", "t0.5.png").string());
  EXPECT_EQ(image.width, 48);
  EXPECT_EQ(image.height, 48);
  const test::CliRun check = golden({"check", "--backend", "reference"});
  EXPECT_EQ(check.exit_code, kExitOk) << check.out << check.err;
  EXPECT_TRUE(contains(check.out, "PASS twist-small t0.25")) << check.out;
  EXPECT_TRUE(contains(check.out, "2 passed, 0 failed, 0 skipped")) << check.out;
}

TEST_F(GoldenCommandTest, AnAlteredPixelFailsAtTheRenderStageAndNamesThePixel) {
  write_manifest({twist_case("twist-small", "[0.5]")});
  ASSERT_EQ(golden({"update"}).exit_code, kExitOk);
  const fs::path png = case_file("twist-small", "t0.5.png");
  RgbaImage image = read_png(png.string());
  uint8_t& green = image.pixels[4 * (size_t(9) * 48 + 5) + 1];  // pixel (5, 9), G
  green = uint8_t(green ^ 0x40);
  write_png(image, png.string());
  const test::CliRun check = golden({"check", "--backend", "reference", "--report", golden_.file("report")});
  EXPECT_EQ(check.exit_code, kExitFailed) << check.out << check.err;
  EXPECT_TRUE(contains(check.out, "FAIL twist-small t0.5: image: 1 pixels differ")) << check.out;
  EXPECT_TRUE(contains(check.out, "first diverging stage: render at pixel (5, 9) channel G")) << check.out;
  EXPECT_TRUE(fs::is_regular_file(golden_.path() / "report" / "index.html"));
  EXPECT_TRUE(fs::is_regular_file(golden_.path() / "report" / "twist-small" / "t0.5-diff.png"));
}

TEST_F(GoldenCommandTest, AnAlteredVertexFailsAtTheSkinningStageAndNamesTheVertex) {
  write_manifest({twist_case("twist-small", "[0.5]")});
  ASSERT_EQ(golden({"update"}).exit_code, kExitOk);
  const fs::path skv = case_file("twist-small", "t0.5.skv");
  std::string bytes = read_bytes(skv);
  // .skv (vertex_dump.h): a 32-byte header, a 32-byte primitive record, then f64 positions x y z per vertex.
  const size_t offset = 32 + 32 + (3 * 7 + 1) * sizeof(double);  // vertex 7, y
  ASSERT_GT(bytes.size(), offset + sizeof(double));
  double y = 0;
  std::memcpy(&y, bytes.data() + offset, sizeof y);
  y += 0.125;
  std::memcpy(bytes.data() + offset, &y, sizeof y);
  write_bytes(skv, bytes);
  const test::CliRun check = golden({"check", "--backend", "reference"});
  EXPECT_EQ(check.exit_code, kExitFailed) << check.out << check.err;
  EXPECT_TRUE(contains(check.out, "skinning: 1 values differ")) << check.out;
  EXPECT_TRUE(contains(check.out, "first diverging stage: skinning at primitive 0 (node 2, mesh 0 primitive 0) vertex 7 position.y"))
      << check.out;
}

TEST_F(GoldenCommandTest, AnAlteredPoseValueFailsAtTheSamplingStageAndNamesTheNode) {
  write_manifest({twist_case("twist-small", "[0.5]")});
  ASSERT_EQ(golden({"update"}).exit_code, kExitOk);
  const fs::path pose = case_file("twist-small", "t0.5.pose.json");
  nlohmann::json json = nlohmann::json::parse(read_bytes(pose));
  ASSERT_EQ(json["nodes"][1]["name"], "joint1");
  json["nodes"][1]["rotation"][2] = json["nodes"][1]["rotation"][2].get<double>() + 0.25;
  write_bytes(pose, json.dump());
  const test::CliRun check = golden({"check", "--backend", "reference"});
  EXPECT_EQ(check.exit_code, kExitFailed) << check.out << check.err;
  EXPECT_TRUE(contains(check.out, "first diverging stage: sampling at node 1 'joint1' rotation.z")) << check.out;
  EXPECT_TRUE(contains(check.out, "sampling: 1 values differ")) << check.out;
}

TEST_F(GoldenCommandTest, BadManifestsAreRefusedWithTheManifestPathAndJsonPointer) {
  expect_bad_manifest(twist_case("a", "[0.1]"), "/cases/0/times/0", "exactly representable in float32");
  expect_bad_manifest(twist_case("a", "[0.5, 0.25]"), "/cases/0/times/1", "strictly increasing");
  expect_bad_manifest(twist_case("a", "[]"), "/cases/0/times", "a non-empty array");
  expect_bad_manifest(R"({"name": "a", "model": "builtin:twist", "times": [0], "colour": "red"})", "/cases/0/colour",
                      "no such key here");
  expect_bad_manifest(R"({"name": "a", "model": "builtin:twist", "times": [0], "times": [1]})", "/cases/0/times",
                      "\"times\" is repeated");
  expect_bad_manifest(R"({"name": "a", "model": "builtin:nothing", "times": [0]})", "/cases/0/model",
                      "a built-in scene");
  expect_bad_manifest(R"({"name": "a", "model": "corpus:../x.gltf", "times": [0]})", "/cases/0/model",
                      "below the corpus folder");
  expect_bad_manifest(R"({"name": "A b", "model": "builtin:twist", "times": [0]})", "/cases/0/name", "[a-z0-9._-]");
  expect_bad_manifest(R"({"name": "a", "model": "builtin:twist", "times": [0], "dumps": false})",
                      "/cases/0/dumps_reason", "a non-empty reason");
  expect_bad_manifest(R"({"name": "a", "model": "builtin:twist", "times": [0], "view": "weight:1"})", "/cases/0/view",
                      "weights:JOINT");
  expect_bad_manifest(R"({"name": "a", "model": "builtin:twist", "times": [0], "size": "0x10"})", "/cases/0/size",
                      "WxH");
  expect_bad_manifest(R"({"name": "a", "model": "builtin:twist", "times": [0], "recipe": "none.json"})",
                      "/cases/0/recipe", "an existing recipe file");
  expect_bad_manifest(R"({"name": "a", "model": "builtin:twist", "times": [0],
                          "tolerances": {"reference": {"image_max_fraction": 0.1, "reason": "r"}}})",
                      "/cases/0/tolerances/reference", "no such key here; expected one of vulkan");
  expect_bad_manifest(R"({"name": "a", "model": "builtin:twist", "times": [0],
                          "tolerances": {"vulkan": {"image_max_fraction": 0.1}}})",
                      "/cases/0/tolerances/vulkan", "the key \"reason\"");
  write_manifest({twist_case("same", "[0]"), twist_case("same", "[1]")});
  const test::CliRun run = golden({"update"});
  EXPECT_EQ(run.exit_code, kExitBadInput);
  EXPECT_TRUE(contains(run.err, manifest() + ": /cases/1/name: a unique case name")) << run.err;
}

TEST_F(GoldenCommandTest, AFilterThatMatchesNoCaseIsAUsageError) {
  write_manifest({twist_case("twist-small", "[0.5]")});
  const test::CliRun run = golden({"check", "--backend", "reference", "--filter", "bend-*"});
  EXPECT_EQ(run.exit_code, kExitBadInput);
  EXPECT_TRUE(contains(run.err, "--filter 'bend-*' matches no case")) << run.err;
  const test::CliRun missing_backend = golden({"check"});
  EXPECT_EQ(missing_backend.exit_code, kExitBadInput);
  EXPECT_TRUE(contains(missing_backend.err, "missing required option --backend")) << missing_backend.err;
}

TEST_F(GoldenCommandTest, AFailedUpdateLeavesThePreviousGoldensIntact) {
  fs::create_directories(golden_.path() / "recipes");
  const fs::path recipe = golden_.path() / "recipes" / "r.json";
  write_bytes(recipe, R"({"format": "skinref-recipe", "version": 1, "layers": [{"clip": {"animation": "main"}}]})");
  write_manifest({R"({"name": "bend-recipe", "model": "builtin:bend", "recipe": "recipes/r.json", "times": [0.25, 0.5],
                      "size": "40x40"})"});
  ASSERT_EQ(golden({"update"}).exit_code, kExitOk);
  const std::vector<std::string> files = files_below(golden_.path() / "cases");
  ASSERT_EQ(files.size(), 6u);
  std::vector<std::string> before;
  for (const std::string& file : files) before.push_back(read_bytes(golden_.path() / "cases" / file));

  // The recipe now names an animation the model lacks: the case cannot be evaluated.
  write_bytes(recipe, R"({"format": "skinref-recipe", "version": 1, "layers": [{"clip": {"animation": "walk"}}]})");
  const test::CliRun run = golden({"update"});
  EXPECT_EQ(run.exit_code, kExitBadInput) << run.out << run.err;
  EXPECT_TRUE(contains(run.err, "bend-recipe")) << run.err;
  EXPECT_TRUE(contains(run.err, "walk")) << run.err;
  EXPECT_EQ(files_below(golden_.path() / "cases"), files);  // no temporaries left either
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(read_bytes(golden_.path() / "cases" / files[i]), before[i]) << files[i];
  }
}

TEST_F(GoldenCommandTest, UpdateRemovesTheOutputsOfTimesNoLongerListed) {
  write_manifest({twist_case("twist-small", "[0.25, 0.5]")});
  ASSERT_EQ(golden({"update"}).exit_code, kExitOk);
  write_manifest({twist_case("twist-small", "[0.5]")});
  const test::CliRun run = golden({"update"});
  ASSERT_EQ(run.exit_code, kExitOk) << run.err;
  EXPECT_TRUE(contains(run.out, "removed")) << run.out;
  const std::vector<std::string> expected{"twist-small/t0.5.png", "twist-small/t0.5.pose.json", "twist-small/t0.5.skv"};
  EXPECT_EQ(files_below(golden_.path() / "cases"), expected);
}

TEST_F(GoldenCommandTest, CorpusCasesAreSkippedVisiblyWithoutTheCorpus) {
  const std::string absent = golden_.file("no-corpus-here");
  write_manifest({R"({"name": "rigged", "model": "corpus:glTF-Sample-Assets/RiggedSimple/glTF/RiggedSimple.gltf",
                      "times": [0.5]})",
                  twist_case("twist-small", "[0.5]")});
  ASSERT_EQ(::setenv("SKINREF_CORPUS_DIR", absent.c_str(), 1), 0);
  const test::CliRun update = golden({"update"});
  const test::CliRun check = golden({"check", "--backend", "reference"});
  ::unsetenv("SKINREF_CORPUS_DIR");
  EXPECT_EQ(update.exit_code, kExitOk) << update.out << update.err;
  EXPECT_TRUE(contains(update.out, "SKIPPED: corpus not found at " + absent + ": case rigged")) << update.out;
  EXPECT_EQ(check.exit_code, kExitOk) << check.out << check.err;
  EXPECT_TRUE(contains(check.out, "SKIPPED: corpus not found at " + absent + ": case rigged not checked")) << check.out;
  EXPECT_TRUE(contains(check.out, "1 passed, 0 failed, 1 skipped")) << check.out;
  EXPECT_FALSE(fs::exists(golden_.path() / "cases" / "rigged"));
}


// ---- interrupted updates ----------------------------------------------------------------------------------

// Every file below `root` with its bytes.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const std::string& file : files_below(root)) files[file] = read_bytes(root / file);
  return files;
}

// Starts `skinref golden update --golden-dir DIR --threads 1` with its output discarded; returns its pid.
pid_t start_update(const fs::path& dir) {
  const std::string cli = SKINREF_CLI, golden_dir = dir.string();
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    execl(cli.c_str(), cli.c_str(), "golden", "update", "--golden-dir", golden_dir.c_str(), "--threads", "1",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// SIGKILL at seeded random moments over an update's run time leaves cases/ byte-identical to the old set or to
// the complete new set (the new one changes images and dumps, drops a time and adds one), never a mixture;
// leftovers of a kill are cleaned up by the next run, which completes the new set.
TEST_F(GoldenCommandTest, SigkillAtAnyMomentLeavesTheOldOrTheCompleteNewSet) {
  const std::vector<std::string> old_cases{twist_case("a", "[0.25, 0.5]"), twist_case("b", "[0.5, 1]"),
                                           twist_case("c", "[0, 0.75]"), twist_case("d", "[0.25]")};
  write_manifest(old_cases);
  ASSERT_EQ(golden({"update"}).exit_code, kExitOk);
  const std::map<std::string, std::string> old_set = snapshot(golden_.path() / "cases");
  ASSERT_EQ(old_set.size(), 21u);

  // The new manifest: other sizes (every image differs), case a drops 0.5 and gains 0.75, d is left out of
  // the manifest (its files stay, as a --filter's other cases do).
  auto sized = [](const std::string& name, const std::string& times) {
    return "{\"name\": \"" + name + "\", \"model\": \"builtin:twist\", \"times\": " + times +
           ", \"size\": \"320x320\", \"method\": \"dqs\"}";
  };
  const std::vector<std::string> new_cases{sized("a", "[0.25, 0.75]"), sized("b", "[0.5, 1]"), sized("c", "[0, 0.75]")};
  // The complete new set, from an uninterrupted run in a copy; its duration spreads the kills.
  test::TempDir reference("golden-new");
  fs::copy(golden_.path(), reference.path(), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  write_manifest(new_cases);
  fs::copy_file(manifest(), reference.path() / "manifest.json", fs::copy_options::overwrite_existing);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  ASSERT_EQ(waitpid(start_update(reference.path()), &status, 0) > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
  const double run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::map<std::string, std::string> new_set = snapshot(reference.path() / "cases");
  ASSERT_EQ(new_set.size(), old_set.size());
  ASSERT_NE(new_set, old_set);
  EXPECT_FALSE(fs::exists(reference.path() / ".cases-staging"));

  // Stratified: kill k at a seeded random moment in the k-th tenth of 1.1 x the run time, so that the kills
  // spread over start-up, staging, the writes, the swap and the removal of the old set.
  std::mt19937 random(17);
  std::uniform_real_distribution<double> moment(0.0, 1.0);
  size_t saw_old = 0, saw_new = 0, mid_update = 0;
  for (int kill_index = 0; kill_index < 10; ++kill_index) {
    // Back to the old set (a leftover staging or old folder of the last kill stays, for the next run to clean).
    fs::remove_all(golden_.path() / "cases");
    for (const auto& [file, bytes] : old_set) {
      fs::create_directories((golden_.path() / "cases" / file).parent_path());
      write_bytes(golden_.path() / "cases" / file, bytes);
    }
    const double delay = (kill_index + moment(random)) / 10.0 * 1.1 * run_seconds;
    const pid_t pid = start_update(golden_.path());
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    const std::map<std::string, std::string> now = snapshot(golden_.path() / "cases");
    SCOPED_TRACE("killed after " + std::to_string(delay) + " s of a " + std::to_string(run_seconds) + " s run");
    EXPECT_TRUE(now == old_set || now == new_set) << now.size() << " files, a mixture of the old and new sets";
    saw_old += now == old_set ? 1 : 0;
    saw_new += now == new_set ? 1 : 0;
    mid_update += fs::exists(golden_.path() / ".cases-staging") ? 1 : 0;
  }
  std::cout << "golden update killed 10 times: " << saw_old << " left the old set, " << saw_new
            << " the new set, " << mid_update << " left a staging folder (a full run takes " << run_seconds << " s)\n";
  // A run to completion after the kills: the new set, and no staging or old folder left.
  ASSERT_EQ(waitpid(start_update(golden_.path()), &status, 0) > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
  EXPECT_EQ(snapshot(golden_.path() / "cases"), new_set);
  EXPECT_FALSE(fs::exists(golden_.path() / ".cases-staging"));
  EXPECT_FALSE(fs::exists(golden_.path() / ".cases-old"));
  // golden check agrees.
  const test::CliRun check = golden({"check", "--backend", "reference"});
  EXPECT_EQ(check.exit_code, kExitOk) << check.out << check.err;
}

}  // namespace
}  // namespace skinref
