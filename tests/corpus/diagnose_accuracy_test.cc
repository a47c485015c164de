// diagnose's accuracy on every built-in scene and every animated corpus model: each single convention planted
// (support/planted_engine.h) at three random times of the model's first clip. On a model where a convention
// acts beyond the float32 bounds diagnose must name exactly it (or, for two the dumps cannot tell apart, list
// it as equal); where it stays within glTF's bounds it may only report it as a far closer fit, or say the dumps
// match glTF; it must never name another. The table of verdicts per model is printed (the issue note's
// accuracy table comes from it). One test per model; corpus models skip visibly without ../shared/corpus.
#include "io/builtin_scenes.h"
#include "io/load_model.h"
#include "support/corpus_models.h"
#include "support/skinning_cases.h"
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

// Times for a planted candidate on a clip [start, end]: inside it, or past the end for the loop's own
// conventions (a whole period for at-end, with a mid-loop dump), or at a STEP key for step-boundary.
std::vector<double> case_times(const Scene& scene, const std::vector<std::string>& candidate, std::mt19937& random) {
  const Animation& clip = scene.animations[0];
  const double start = clip.start_time, end = clip.end_time;
  auto uniform = [&](double low, double high) {
    return double(float(std::uniform_real_distribution<double>(low, high)(random)));
  };
  const std::string last = candidate.back();
  if (last.rfind("at-end=", 0) == 0) return {end * 2.0, end + uniform(0.2, 0.8) * (end - start)};
  if (last.rfind("wrap-period=", 0) == 0 || last.rfind("playback=", 0) == 0)
    return {end + uniform(0.1, 0.9) * (end - start)};
  if (last.rfind("step-boundary=", 0) == 0) {
    for (const AnimationSampler& s : clip.samplers)
      if (s.interpolation == Interpolation::Step && s.times.size() > 1)
        return {s.times[1 + size_t(std::uniform_int_distribution<int>(0, int(s.times.size()) - 2)(random))]};
  }
  return {uniform(start, end)};
}

struct Tally {
  std::array<size_t, 6> counts{};  // by Verdict
  std::vector<std::string> wrong;
};

void check_model(const std::string& label, const Scene& scene) {
  if (scene.animations.empty() || drawn_nodes(scene).empty()) GTEST_SKIP() << label << " has no clip or nothing drawn";
  const auto start = std::chrono::steady_clock::now();
  std::mt19937 random(20261125);
  Tally tally;
  std::map<std::string, std::string> rows;
  for (const std::vector<std::string>& candidate : diagnose_candidates()) {
    for (int i = 0; i < 3; ++i) {
      const std::vector<double> times = case_times(scene, candidate, random);
      std::vector<DiagnoseObservation> observations;
      for (double t : times) observations.push_back({"planted", t, test::planted_engine_dump(scene, 0, t, candidate)});
      DiagnoseSettings settings;
      settings.animation = 0;
      settings.bounds = test::kPlantedBounds;
      const Diagnosis d = diagnose(scene, observations, settings);
      const Verdict verdict = test::classify_on(scene, 0, times, d, candidate);
      ++tally.counts[size_t(verdict)];
      rows[joined(candidate)] += std::string(" ") + test::verdict_name(verdict);
      if (verdict == Verdict::Wrong) {
        char text[96];
        std::snprintf(text, sizeof text, " at t = %.6g", times.front());
        tally.wrong.push_back(joined(candidate) + text + ": named [" + joined(d.best().settings) + "]" +
                              (d.matches_specification ? " (matches glTF, closer fit)" : ""));
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %zu exact, %zu tied, %zu closer-fit, %zu within-bounds, %zu no-effect, %zu wrong (%.1f s)\n",
              label.c_str(), tally.counts[0], tally.counts[1], tally.counts[2], tally.counts[3], tally.counts[4],
              tally.counts[5], seconds);
  for (const auto& [name, verdicts] : rows) std::printf("  %-44s%s\n", name.c_str(), verdicts.c_str());
  EXPECT_TRUE(tally.wrong.empty()) << joined(tally.wrong);
}

class DiagnoseBuiltinAccuracy : public ::testing::TestWithParam<std::string> {};

TEST_P(DiagnoseBuiltinAccuracy, NamesOnlyThePlantedConvention) {
  check_model("builtin:" + GetParam(), make_builtin_scene(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(All, DiagnoseBuiltinAccuracy, ::testing::ValuesIn(test::small_builtin_scene_names()),
                         test::builtin_test_name);

class DiagnoseCorpusAccuracy : public ::testing::TestWithParam<test::CorpusModel> {};

TEST_P(DiagnoseCorpusAccuracy, NamesOnlyThePlantedConvention) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  const std::string path = test::corpus_dir() + "/" + GetParam().path;
  check_model(GetParam().path, load_model(path));
}

INSTANTIATE_TEST_SUITE_P(Corpus, DiagnoseCorpusAccuracy, ::testing::ValuesIn(test::kCorpusModels),
                         test::model_test_name);

}  // namespace
}  // namespace skinref
