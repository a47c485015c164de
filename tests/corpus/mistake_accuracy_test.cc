// diagnose's accuracy on implementation mistakes (core/mistakes.h, docs/mistakes.md): every mistake planted
// (support/planted_engine.h) on builtin:bend, builtin:chain64, CesiumMan, RiggedFigure and two conformance cases
// (one with morph targets), at two random times between keys, one dump each. A planting whose mistake changes
// the output must be named first, exactly or tied with an equivalent (the same vertices on that model: the
// verdict's `equally` list, or an explanation that gives the same vertices), in at least kNamedShare of the
// plantings; none may get a wrong name. Every pair of two mistakes from the matrices, TRS and skinning families
// is named on builtin:bend. The table of docs/mistakes.md is this test's output (ctest -L accuracy -R mistake
// -V). Corpus models skip visibly without ../shared/corpus.
#include "conformance/conformance_case.h"
#include "conformance/suite.h"
#include "io/builtin_scenes.h"
#include "io/load_model.h"
#include "support/corpus_models.h"
#include "support/planted_engine.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::joined;
using test::Verdict;

constexpr double kNamedShare = 0.95;  // of the plantings that change the output, named first at least
constexpr int kTimesPerMistake = 2;

struct Tally {
  std::array<size_t, 6> counts{};  // by Verdict
  std::vector<std::string> wrong;
  size_t acting() const { return counts[0] + counts[1] + counts[2] + counts[3] + counts[5]; }
  size_t named() const { return counts[0] + counts[1]; }
};

// A time strictly inside the clip, away from its ends (float32, as an engine's clock).
double time_between_keys(const Scene& scene, std::mt19937& random) {
  const Animation& clip = scene.animations[0];
  const double span = clip.end_time - clip.start_time;
  return double(float(std::uniform_real_distribution<double>(clip.start_time + 0.05 * span,
                                                             clip.end_time - 0.05 * span)(random)));
}

Verdict diagnose_planted(const Scene& scene, const std::vector<std::string>& planted, double time, Tally& tally) {
  DiagnoseSettings settings;
  settings.animation = 0;
  settings.bounds = test::kPlantedBounds;
  const Diagnosis d = diagnose(scene, {{"planted", time, test::planted_engine_dump(scene, 0, time, planted)}}, settings);
  const Verdict verdict = test::classify_on(scene, 0, {time}, d, planted);
  ++tally.counts[size_t(verdict)];
  if (verdict == Verdict::Wrong) {
    char text[64];
    std::snprintf(text, sizeof text, " at t = %.6g: named [", time);
    tally.wrong.push_back(joined(planted) + text + (d.explained ? joined(d.best().settings) : "nothing") + "]");
  }
  return verdict;
}

// Plants every mistake on `scene` and prints one table row per mistake (the verdicts at each time).
void check_model(const std::string& label, const Scene& scene) {
  if (scene.animations.empty() || drawn_nodes(scene).empty()) GTEST_SKIP() << label << " has no clip or nothing drawn";
  const auto start = std::chrono::steady_clock::now();
  std::mt19937 random(20261205);
  Tally tally;
  std::printf("| %s | mistake | verdicts |\n|---|---|---|\n", label.c_str());
  for (const std::vector<std::string>& mistake : diagnose_mistakes()) {
    std::string row;
    for (int i = 0; i < kTimesPerMistake; ++i)
      row += std::string(i ? ", " : "") + test::verdict_name(diagnose_planted(scene, mistake, time_between_keys(scene, random), tally));
    std::printf("| | `%s` | %s |\n", joined(mistake).c_str(), row.c_str());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %zu plantings change the output, %zu named first (%zu exact, %zu tied), %zu wrong; %zu no effect "
              "(%.1f s)\n",
              label.c_str(), tally.acting(), tally.named(), tally.counts[0], tally.counts[1], tally.counts[5],
              tally.counts[4], seconds);
  EXPECT_TRUE(tally.wrong.empty()) << joined(tally.wrong);
  EXPECT_GE(double(tally.named()), kNamedShare * double(tally.acting())) << label;
}

class MistakeBuiltinAccuracy : public ::testing::TestWithParam<std::string> {};

TEST_P(MistakeBuiltinAccuracy, NamesThePlantedMistake) { check_model("builtin:" + GetParam(), make_builtin_scene(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Scenes, MistakeBuiltinAccuracy, ::testing::Values("bend", "chain64"));

class MistakeCorpusAccuracy : public ::testing::TestWithParam<std::string> {};

TEST_P(MistakeCorpusAccuracy, NamesThePlantedMistake) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  check_model(GetParam(), load_model(test::corpus_dir() + "/" + GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Corpus, MistakeCorpusAccuracy,
                         ::testing::Values("glTF-Sample-Assets/CesiumMan/glTF/CesiumMan.gltf",
                                           "glTF-Sample-Assets/RiggedFigure/glTF/RiggedFigure.gltf"));

class MistakeCaseAccuracy : public ::testing::TestWithParam<std::string> {};

TEST_P(MistakeCaseAccuracy, NamesThePlantedMistake) {
  for (const conformance::ConformanceCase& c : conformance::conformance_cases())
    if (c.id == GetParam()) return check_model(c.id, conformance::load_case_scene(c));
  FAIL() << "no conformance case " << GetParam();
}

// A skinned chain whose rotations are slerped, and a skinned ribbon whose morph weights are animated.
INSTANTIATE_TEST_SUITE_P(Cases, MistakeCaseAccuracy,
                         ::testing::Values("rotation-linear-slerp", "morph-weights-start-after-zero"));

// The matrices, TRS and skinning families' mistakes (docs/mistakes.md).
std::vector<std::string> paired_families() {
  return {"palette-matrices=transposed", "palette-product=inverse-bind-times-global", "inverse-bind-use=missing",
          "inverse-bind-use=twice", "inverse-bind-use=transposed", "mesh-node=applied-twice",
          "trs-order=s-r-t", "trs-order=r-s-t", "trs-order=t-s-r", "quaternion-order=wxyz",
          "rotation-sense=conjugated", "translation-channels=ignored", "rotation-channels=ignored",
          "scale-channels=ignored", "skinning=skipped", "influences=first-influence", "weights=equal",
          "weights=ones", "weights=last-from-others", "joint-offset=1", "normals=unskinned", "morph-targets=0",
          "morph-weights=shifted", "morph-weights=reversed"};
}

TEST(MistakePairs, EveryPairIsNamedOnBend) {
  const Scene scene = make_builtin_scene("bend");
  const std::vector<std::string> mistakes = paired_families();
  const double time = double(float(0.37));
  Tally tally;
  const auto start = std::chrono::steady_clock::now();
  for (size_t a = 0; a < mistakes.size(); ++a)
    for (size_t b = a + 1; b < mistakes.size(); ++b) {
      const std::string field_a = mistakes[a].substr(0, mistakes[a].find('='));
      if (field_a == mistakes[b].substr(0, mistakes[b].find('='))) continue;  // one field holds one value
      diagnose_planted(scene, {mistakes[a], mistakes[b]}, time, tally);
    }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("pairs on builtin:bend: %zu change the output, %zu named first (%zu exact, %zu tied), %zu wrong, %zu "
              "no effect (%.1f s)\n",
              tally.acting(), tally.named(), tally.counts[0], tally.counts[1], tally.counts[5], tally.counts[4], seconds);
  EXPECT_TRUE(tally.wrong.empty()) << joined(tally.wrong);
  EXPECT_EQ(tally.named(), tally.acting());
}

}  // namespace
}  // namespace skinref
