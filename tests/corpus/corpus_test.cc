// Corpus tests on the public glTF sample models under SKINREF_CORPUS_DIR (Khronos glTF-Sample-Assets and
// glTF-Asset-Generator): every file loads, and the reference's world-space vertices match those of
// tests/support/independent_gltf (a separate implementation sharing no code with reference/) for every animation
// at several times. Each test skips, visibly, when the corpus folder is absent.
#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "io/load_model.h"
#include "skin/evaluate_vertices.h"
#include "support/corpus_models.h"
#include "support/independent_gltf.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>


inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using skinref::test::corpus_dir;
using skinref::test::corpus_present;
using skinref::test::corpus_skip_reason;
using skinref::test::CorpusModel;
using skinref::test::kCorpusModels;
using skinref::test::model_test_name;


// Sample points inside every key interval, as fractions of it: off-centre so that symmetric mistakes (e.g.
// swapped Hermite tangents) do not cancel.
constexpr double kIntervalFractions[] = {0.37, 0.61};
// How far past the last key the clamped sample is taken, in seconds.
constexpr double kPastEndSeconds = 0.5;

std::string scientific(double value) {
  std::ostringstream out;
  out.precision(3);
  out << std::scientific << value;
  return out.str();
}

// Every digit of a double, so that a failing time or position can be reproduced exactly.
std::string exact(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

std::string describe(const skinref::Vec3& p) {
  std::ostringstream out;
  out.precision(17);
  out << "(" << p.x() << ", " << p.y() << ", " << p.z() << ")";
  return out.str();
}

std::string describe(const std::array<double, 3>& p) {
  std::ostringstream out;
  out.precision(17);
  out << "(" << p[0] << ", " << p[1] << ", " << p[2] << ")";
  return out.str();
}

// Times at which an animation is compared: t = 0 (before the first key for some files), every key time
// exactly (where the key's own value must be used, STEP included), two points inside every key interval, and
// past the end (clamped). The rest pose (-1) is compared at t = 0 only.
std::vector<double> sample_times(const independent::GltfFile& file, int animation) {
  if (animation < 0) return {0.0};
  const std::vector<double> keys = file.key_times(animation);
  std::vector<double> times = {0.0};
  for (size_t k = 0; k < keys.size(); ++k) {
    times.push_back(keys[k]);
    if (k + 1 == keys.size()) break;
    for (const double fraction : kIntervalFractions) times.push_back(keys[k] + fraction * (keys[k + 1] - keys[k]));
  }
  times.push_back(keys.back() + kPastEndSeconds);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

// The largest absolute coordinate, at least 1: the scale that a relative tolerance applies to.
double model_extent(const std::vector<independent::PrimitivePositions>& primitives) {
  double extent = 1.0;
  for (const auto& primitive : primitives)
    for (const auto& p : primitive.positions)
      for (double c : p) extent = std::max(extent, std::abs(c));
  return extent;
}

// Largest coordinate difference between two evaluations of the same file.
double max_difference(const std::vector<independent::PrimitivePositions>& a,
                      const std::vector<independent::PrimitivePositions>& b) {
  double worst = 0.0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    for (size_t v = 0; v < std::min(a[i].positions.size(), b[i].positions.size()); ++v)
      for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(a[i].positions[v][c] - b[i].positions[v][c]));
  return worst;
}

// Skips every corpus test visibly when the folder is absent; fails when it is present but incomplete.
class CorpusModelTest : public ::testing::TestWithParam<CorpusModel> {
 protected:
  void SetUp() override {
    if (!corpus_present()) {
      GTEST_SKIP() << corpus_skip_reason();
    }
    path_ = (std::filesystem::path(corpus_dir()) / GetParam().path).string();
    ASSERT_TRUE(std::filesystem::is_regular_file(path_)) << "the corpus folder exists but lacks " << path_;
  }
  std::string path_;
};

class CorpusLoadTest : public CorpusModelTest {};
class CorpusIndependentTest : public CorpusModelTest {};

class CorpusListTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!corpus_present()) {
      GTEST_SKIP() << corpus_skip_reason();
    }
  }
};

// The fixed list is what gtest_discover_tests sees; this keeps it equal to the folder's content, so a model
// added to the corpus cannot go untested.
TEST_F(CorpusListTest, EveryModelFileOfTheCorpusIsListed) {
  std::set<std::string> listed;
  for (const CorpusModel& model : kCorpusModels) listed.insert(model.path);
  std::set<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(corpus_dir())) {
    const std::string extension = entry.path().extension().string();
    if (entry.is_regular_file() && (extension == ".gltf" || extension == ".glb"))
      found.insert(std::filesystem::relative(entry.path(), corpus_dir()).generic_string());
  }
  for (const std::string& path : found)
    EXPECT_EQ(listed.count(path), 1u) << path << " is in the corpus but not in kCorpusModels";
  for (const std::string& path : listed)
    EXPECT_EQ(found.count(path), 1u) << path << " is listed in kCorpusModels but not in the corpus";
}

// Loads the model; a refusal must be an InputError that names the file and gives a reason, and since every
// corpus model is valid glTF, any refusal is also a failure. The loaded Scene keeps every node, mesh, skin
// and animation of the file (counted by the independent parser).
TEST_P(CorpusLoadTest, LoadsWithoutRefusal) {
  try {
    const skinref::Scene scene = skinref::load_model(path_);
    RecordProperty("refused", "no");
    const independent::Summary summary = independent::GltfFile(path_).summary();
    EXPECT_EQ(scene.nodes.size(), summary.nodes);
    EXPECT_EQ(scene.meshes.size(), summary.meshes);
    EXPECT_EQ(scene.skins.size(), summary.skins);
    EXPECT_EQ(scene.animations.size(), summary.animations);
  } catch (const skinref::InputError& error) {
    RecordProperty("refused", error.what());
    std::cout << "[ refused  ] " << error.what() << "\n";
    EXPECT_EQ(error.file(), path_) << "the error names the file it was given";
    EXPECT_NE(std::string(error.what()).find(path_), std::string::npos) << "the message names the file";
    EXPECT_FALSE(error.expected().empty()) << "the error gives a reason";
    ADD_FAILURE() << "a valid corpus model was refused: " << error.what();
  }
}

// For the rest pose and every animation at several times, the reference's world-space positions of every
// drawn primitive equal the independent implementation's within kIndependentRelative of the model's extent.
TEST_P(CorpusIndependentTest, SkinnedVerticesMatchAnIndependentImplementation) {
  skinref::Scene scene;
  try {
    scene = skinref::load_model(path_);
  } catch (const skinref::InputError& error) {
    FAIL() << "a valid corpus model was refused: " << error.what();
  }
  const independent::GltfFile file(path_);
  ASSERT_EQ(static_cast<int>(scene.animations.size()), file.animation_count());

  const std::vector<independent::PrimitivePositions> rest = file.skinned_positions(-1, 0.0);
  if (file.summary().skins > 0) {
    const bool any_skinned =
        std::any_of(rest.begin(), rest.end(), [](const auto& primitive) { return primitive.skinned; });
    EXPECT_TRUE(any_skinned) << "a model with skins draws no skinned primitive";
  }

  double worst_relative = 0.0;
  size_t compared = 0;
  for (int animation = -1; animation < file.animation_count(); ++animation) {
    bool moved = false;
    for (const double t : sample_times(file, animation)) {
      SCOPED_TRACE("animation " + std::to_string(animation) + " at t = " + exact(t));
      const skinref::EvaluatedPose pose = skinref::evaluate_pose(scene, animation, t);
      const std::vector<skinref::WorldPrimitive> reference = skinref::evaluate_vertices(scene, pose, {});
      const std::vector<independent::PrimitivePositions> expected = file.skinned_positions(animation, t);
      ASSERT_EQ(reference.size(), expected.size()) << "number of drawn primitives";

      const double extent = model_extent(expected);
      const double bound = skinref::tol::kIndependentRelative * extent;
      moved = moved || max_difference(expected, rest) > bound;
      for (size_t i = 0; i < expected.size(); ++i) {
        const skinref::WorldPrimitive& got = reference[i];
        const independent::PrimitivePositions& want = expected[i];
        SCOPED_TRACE("primitive " + std::to_string(i) + " (node " + std::to_string(want.node) + ", mesh " +
                     std::to_string(want.mesh) + ", primitive " + std::to_string(want.primitive) + ")");
        EXPECT_EQ(got.node, want.node);
        EXPECT_EQ(got.mesh, want.mesh);
        EXPECT_EQ(got.primitive, want.primitive);
        EXPECT_EQ(got.skinned, want.skinned);
        ASSERT_EQ(got.vertices.positions.size(), want.positions.size()) << "vertex count";

        double worst = 0.0;
        size_t worst_vertex = 0;
        for (size_t v = 0; v < want.positions.size(); ++v) {
          for (int c = 0; c < 3; ++c) {
            const double difference = std::abs(got.vertices.positions[v][c] - want.positions[v][c]);
            // Written so that a NaN becomes the worst difference and fails the check below.
            if (!(difference <= worst)) {
              worst = difference;
              worst_vertex = v;
            }
          }
        }
        compared += want.positions.size();
        worst_relative = std::max(worst_relative, worst / extent);
        if (want.positions.empty()) continue;
        EXPECT_LE(worst, bound) << "vertex " << worst_vertex << ": reference "
                                << describe(got.vertices.positions[worst_vertex]) << ", independent "
                                << describe(want.positions[worst_vertex]) << ", model extent " << extent;
      }
    }
    // Guards the comparison itself: sampling must have been exercised, not only the rest pose.
    if (animation >= 0) {
      EXPECT_TRUE(moved) << "animation " << animation << " moves no vertex at any sampled time";
    }
  }

  RecordProperty("positions_compared", std::to_string(compared));
  RecordProperty("max_error_relative_to_extent", scientific(worst_relative));
  std::cout << "[ corpus   ] " << GetParam().path << ": " << compared
            << " positions, max |reference - independent| / extent = " << scientific(worst_relative) << "\n";
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusLoadTest, ::testing::ValuesIn(kCorpusModels), model_test_name);
INSTANTIATE_TEST_SUITE_P(Corpus, CorpusIndependentTest, ::testing::ValuesIn(kCorpusModels), model_test_name);

}  // namespace
