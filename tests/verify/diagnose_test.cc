// diagnose() (reference/verify/diagnose.h) on planted engines: the reference under known conventions, rounded to
// float32 (support/planted_engine.h), on the scene built to show every convention (support/convention_scene.h).
// Every single convention at three random times, pairs and triples, an engine that follows none (glTF 2.0
// itself), positions-only dumps, and a joint perturbed by 1e-3 rad that no convention may explain.
#include "support/convention_scene.h"
#include "support/planted_engine.h"

#include "anim/evaluate_pose.h"
#include "anim/recipe.h"
#include "io/builtin_scenes.h"
#include "skin/evaluate_vertices.h"
#include "verify/convention_pipeline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <sstream>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::classify;
using test::joined;
using test::planted_engine_dump;
using test::Verdict;

struct PlantedCase {
  std::vector<std::string> assignments;
  unsigned seed;
};

std::string case_name(const std::vector<std::string>& assignments) { return joined(assignments); }

std::string times_text(const std::vector<double>& times) {
  std::string text;
  for (double time : times) text += (text.empty() ? "" : ", ") + std::to_string(time);
  return text;
}

Diagnosis diagnose_planted(const Scene& scene, const std::vector<std::string>& assignments,
                           const std::vector<double>& times, BoundsModel bounds = test::kPlantedBounds) {
  std::vector<DiagnoseObservation> observations;
  for (double time : times) observations.push_back({"planted", time, planted_engine_dump(scene, 0, time, assignments)});
  DiagnoseSettings settings;
  settings.animation = 0;
  settings.bounds = bounds;
  return diagnose(scene, observations, settings);
}

// Whether `candidate` acts on `scene` at `times`, and, for a quantization with key-scope=every-joint, acts
// otherwise than the quantization alone: where every rest value is on the quantization's grid (0, 1, the
// identity under half floats and the 16-bit grid), the scope shows on the conformance cases instead.
bool acts_here(const Scene& scene, const std::vector<std::string>& candidate, const std::vector<double>& times) {
  if (!test::acts_on(scene, candidate, times)) return false;
  if (candidate.size() < 2 || candidate.back() != "key-scope=every-joint") return true;
  return !test::same_on_model(scene, 0, times, candidate, {candidate.front()});
}

TEST(DiagnoseTest, AnEngineFollowingGltfMatchesTheSpecification) {
  const Scene scene = testing::make_convention_scene();
  for (double time : {0.0, 0.77, 1.5, 2.6}) {
    const Diagnosis d = diagnose_planted(scene, {}, {time});
    EXPECT_TRUE(d.matches_specification) << time;
    EXPECT_EQ(d.base.failing(), 0u) << time;
    EXPECT_EQ(d.candidates_tried, 1u) << "nothing else is evaluated once the specification matches";
    EXPECT_LT(d.engine_error, 1e-6);
  }
}

// Under any-order bounds (the default for an engine's dumps), which are wider, a convention whose effect is
// within them no longer fails the specification; diagnose must still name it, as a far closer fit. Every
// single convention: named exactly, or named as the closer fit. The counts are printed.
TEST(DiagnoseTest, AnyOrderBoundsStillNameEveryConvention) {
  const Scene scene = testing::make_convention_scene();
  size_t exact = 0, closer = 0, cases = 0;
  unsigned seed = 1;
  for (const std::vector<std::string>& candidate : diagnose_candidates()) {
    const std::vector<double> times = testing::convention_case_times(candidate, seed++).front();
    if (!acts_here(scene, candidate, times)) continue;  // planted on the conformance cases instead
    SCOPED_TRACE(case_name(candidate) + " at t = " + times_text(times));
    const Diagnosis d = diagnose_planted(scene, candidate, times, BoundsModel::AnyOrder);
    const Verdict verdict = classify(d, candidate);
    ++cases;
    exact += verdict == Verdict::Exact;
    closer += verdict == Verdict::CloserFit;
    EXPECT_TRUE(verdict == Verdict::Exact || verdict == Verdict::CloserFit || verdict == Verdict::Tied)
        << test::verdict_name(verdict) << ": named " << joined(d.best().settings);
  }
  std::printf("  any-order bounds: %zu cases, %zu over the bounds and named exactly, %zu within them and named as "
              "the closer fit\n", cases, exact, closer);
}

// Each single convention diagnose knows, planted alone, at three times where it acts: diagnose names exactly
// it. The table of verdicts is printed for the record. The conventions that need what this scene lacks (a node
// matrix, integer weights, shared names, 260 joints, CUBICSPLINE weights, morph normals) are planted on the
// conformance cases built for them instead (ConformanceRunner.EveryPlantedDepartureFailsItsCaseAndIsNamed);
// they are listed here.
TEST(DiagnoseTest, EverySingleConventionIsNamedExactly) {
  const Scene scene = testing::make_convention_scene();
  std::map<std::string, std::string> table;
  size_t exact = 0, tied = 0, cases = 0;
  unsigned seed = 1;
  std::string elsewhere;
  for (const std::vector<std::string>& candidate : diagnose_candidates()) {
    const std::vector<std::vector<double>> case_times = testing::convention_case_times(candidate, seed++);
    std::vector<double> all_times;
    for (const std::vector<double>& times : case_times) all_times.insert(all_times.end(), times.begin(), times.end());
    if (!acts_here(scene, candidate, all_times)) {
      elsewhere += " " + case_name(candidate);
      continue;
    }
    for (const std::vector<double>& times : case_times) {
      SCOPED_TRACE(case_name(candidate) + " at t = " + times_text(times));
      const Diagnosis d = diagnose_planted(scene, candidate, times);
      const Verdict verdict = classify(d, candidate);
      ++cases;
      exact += verdict == Verdict::Exact;
      tied += verdict == Verdict::Tied;
      table[case_name(candidate)] += std::string(table[case_name(candidate)].empty() ? "" : " ") + test::verdict_name(verdict);
      // The scene is built so that every convention shows and none is indistinguishable from another, but for
      // morph-targets=0: the scene animates no morph weights, so it zeroes the default weights exactly as
      // morph-defaults=ignored does (listed first, named, and the other given as equal). Only a weights channel
      // tells them apart.
      const Verdict expected = case_name(candidate) == "morph-targets=0" ? Verdict::Tied : Verdict::Exact;
      EXPECT_EQ(verdict, expected) << "named " << joined(d.best().settings) << ": " << d.best().over
                                   << " over; as specified " << d.base.over << " over";
      EXPECT_FALSE(d.matches_specification);
    }
  }
  for (const auto& [name, verdicts] : table) std::printf("  %-40s %s\n", name.c_str(), verdicts.c_str());
  std::printf("  planted on the conformance cases instead:%s\n", elsewhere.c_str());
  std::printf("  %zu cases: %zu exact, %zu tied with an equivalent\n", cases, exact, tied);
}

// Two and three conventions together, as real engines combine them: all are named, and nothing more.
TEST(DiagnoseTest, PairsAndTriplesAreNamedExactly) {
  const Scene scene = testing::make_convention_scene();
  const std::vector<std::vector<std::string>> combinations{
      {"rotation=nlerp", "normals=blend-normal-matrices"},
      {"key-rotation=q15", "key-translation-scale=half"},
      {"mesh-node=applied", "weights=sum"},
      {"clip-start=first-key", "normalize=no"},
      {"skeleton-ancestors=dropped", "morph-defaults=ignored"},
      {"influences=top4-renormalized", "rotation=nlerp"},
      {"rotation=nlerp", "normals=blend-upper3x3", "weights=sum"},
      {"key-rotation=q15", "key-translation-scale=half", "normals=blend-normal-matrices"},
      {"inverse-bind=from-rest-pose", "morph-order=after-skinning", "weights=l2"},
  };
  unsigned seed = 1000;
  for (const std::vector<std::string>& planted : combinations) {
    for (const std::vector<double>& times : testing::convention_case_times(planted, seed++)) {
      SCOPED_TRACE(case_name(planted) + " at t = " + times_text(times));
      const Diagnosis d = diagnose_planted(scene, planted, times);
      EXPECT_EQ(classify(d, planted), Verdict::Exact) << "named " << joined(d.best().settings) << " with "
                                                      << d.best().over << " over";
    }
  }
}

// Not every difference is a convention: one joint's rotation off by 1e-3 rad is named by none, and diagnose
// says so, with the worst vertex.
TEST(DiagnoseTest, APerturbedJointIsExplainedByNoConvention) {
  const Scene scene = testing::make_convention_scene();
  for (double time : {0.8, 1.3, 1.8}) {
    SCOPED_TRACE(time);
    Scene perturbed = scene;
    Node& spine = perturbed.nodes[2];
    ASSERT_EQ(spine.name, "spine");
    // The perturbation must survive the animation: the animated rotation of "spine" is composed with a
    // rotation of its child "arm" (not animated in rotation) instead.
    Node& arm = perturbed.nodes[3];
    arm.rest.rotation = Quat(Eigen::AngleAxisd(1e-3, Vec3::UnitX())) * arm.rest.rotation;
    const std::vector<WorldPrimitive> dump = planted_engine_dump(perturbed, 0, time, {});
    DiagnoseSettings settings;
    settings.animation = 0;
    settings.bounds = test::kPlantedBounds;
    const Diagnosis d = diagnose(scene, {{"perturbed", time, dump}}, settings);
    EXPECT_FALSE(d.matches_specification);
    EXPECT_FALSE(d.explained) << "named " << joined(d.best().settings);
    // No convention moves the values that fail towards the dump: no partial name either.
    EXPECT_FALSE(d.partial) << "partly named " << joined(d.partial->score.settings);
    EXPECT_GT(d.base.over, 0u);
    // Vertices alone: the first stage over its bound is the skinning.
    EXPECT_EQ(d.first_stage.stage, PipelineStage::Skinning);
    EXPECT_NE(d.first_stage.location.find("vertex"), std::string::npos) << d.first_stage.location;
    // With the engine's pose dump, the joint: "arm"'s local rotation is where it left glTF.
    const EvaluatedPose engine_pose = evaluate_pose(perturbed, 0, double(float(time)));
    const Diagnosis with_pose = diagnose(scene, {{"perturbed", time, dump, engine_pose}}, settings);
    EXPECT_FALSE(with_pose.explained);
    EXPECT_EQ(with_pose.first_stage.stage, PipelineStage::Sampling);
    EXPECT_EQ(with_pose.first_stage.node, 3);
    EXPECT_NE(with_pose.first_stage.location.find("'arm' rotation"), std::string::npos) << with_pose.first_stage.location;
  }
}

// A structural departure (the skeleton's ancestors dropped) on top of an error no convention models (the same
// 1e-3 rad turn of "arm"): nothing explains the dumps whole, the departure is named as the partial explanation
// with the worst error/bound it leaves, and, with the engine's pose dump, what is left first shows at "arm"'s
// sampled rotation.
TEST(DiagnoseTest, AStructuralDepartureUnderAnUnmodelledErrorIsAPartialExplanation) {
  const Scene scene = testing::make_convention_scene();
  const std::vector<std::string> planted{"skeleton-ancestors=dropped"};
  for (double time : {0.8, 1.8}) {
    SCOPED_TRACE(time);
    Scene perturbed = scene;
    Node& arm = perturbed.nodes[3];
    arm.rest.rotation = Quat(Eigen::AngleAxisd(1e-3, Vec3::UnitX())) * arm.rest.rotation;
    const std::vector<WorldPrimitive> dump = planted_engine_dump(perturbed, 0, time, planted);
    Conventions conventions;
    set_convention(conventions, planted[0]);
    const EvaluatedPose engine_pose = evaluate_pose(perturbed, 0, double(float(time)), conventions);
    DiagnoseSettings settings;
    settings.animation = 0;
    settings.bounds = test::kPlantedBounds;
    const Diagnosis d = diagnose(scene, {{"planted", time, dump, engine_pose}}, settings);
    EXPECT_FALSE(d.explained) << "named " << joined(d.best().settings);
    ASSERT_TRUE(d.partial);
    EXPECT_EQ(d.partial->score.settings, planted);
    EXPECT_GE(d.partial->removed_share, kPartialShare);
    EXPECT_LE(d.partial->score.max_ratio * kPartialGain, d.base.max_ratio);
    EXPECT_GT(d.partial->score.failing(), 0u);
    EXPECT_EQ(d.partial->rest_stage.stage, PipelineStage::Sampling);
    EXPECT_NE(d.partial->rest_stage.location.find("'arm' rotation"), std::string::npos) << d.partial->rest_stage.location;
    std::ostringstream report;
    print_diagnosis(d, report);
    EXPECT_NE(report.str().find("partly explained by skeleton-ancestors=dropped"), std::string::npos) << report.str();
    EXPECT_NE(report.str().find("left unexplained"), std::string::npos) << report.str();
    std::printf("%s", report.str().c_str());
    const nlohmann::ordered_json json = diagnosis_json(d);
    EXPECT_EQ(json["partial"]["settings"], nlohmann::ordered_json(planted));
    EXPECT_EQ(json["partial"]["rest_first_stage"]["stage"], "sampling");
  }
}

// An engine that dumps positions only is diagnosed from its positions.
TEST(DiagnoseTest, PositionsOnlyDumpsAreDiagnosed) {
  const Scene scene = testing::make_convention_scene();
  for (const std::vector<std::string>& planted : {std::vector<std::string>{"rotation=nlerp"},
                                                 std::vector<std::string>{"mesh-node=applied"}}) {
    std::vector<WorldPrimitive> dump = planted_engine_dump(scene, 0, 0.8, planted);
    for (WorldPrimitive& primitive : dump) {
      primitive.vertices.normals.clear();
      primitive.vertices.tangents.clear();
    }
    DiagnoseSettings settings;
    settings.animation = 0;
    settings.bounds = test::kPlantedBounds;
    const Diagnosis d = diagnose(scene, {{"positions", 0.8, dump}}, settings);
    EXPECT_EQ(classify(d, planted), Verdict::Exact) << joined(d.best().settings);
    EXPECT_EQ(d.base.over_normals, 0u);
  }
}

// Several dumps of one engine: the verdict holds for all of them together.
TEST(DiagnoseTest, SeveralDumpsAreDiagnosedTogether) {
  const Scene scene = testing::make_convention_scene();
  const std::vector<std::string> planted{"key-rotation=q15"};
  std::vector<DiagnoseObservation> observations;
  // At the rotation keys: between them the float32 bounds of a slerp are wider than a 15-bit key's error.
  for (double time : {1.0, 1.5, 2.0}) observations.push_back({"t", time, planted_engine_dump(scene, 0, time, planted)});
  DiagnoseSettings settings;
  settings.animation = 0;
  settings.bounds = test::kPlantedBounds;
  const Diagnosis d = diagnose(scene, observations, settings);
  EXPECT_EQ(classify(d, planted), Verdict::Exact) << joined(d.best().settings);
  ASSERT_EQ(d.effects.size(), 1u);
  // Quantized rotation keys move the vertices by far more than float32 rounding, and the engine's remaining
  // error against the named convention is rounding only.
  EXPECT_GT(d.effects[0].effect, 1e-6);
  EXPECT_LT(d.engine_error, 1e-6);
}

// An engine that plays a recipe (a blend with an additive layer and two-bone IK on builtin:bend) under one
// convention a recipe's evaluation takes: diagnose, given the recipe, names it; the conventions a recipe's
// evaluation does not take are not tried.
TEST(DiagnoseTest, ARecipesEngineIsDiagnosedAgainstTheRecipe) {
  const Scene scene = make_builtin_scene("bend");
  const Recipe recipe = parse_recipe(R"({"format": "skinref-recipe", "version": 1,
    "layers": [{"clip": {"animation": 0}}],
    "additive": [{"clip": {"animation": 0, "start": 0.25}, "reference": "rest", "weight": 0.3}],
    "ik": [{"type": "two-bone", "root": "shoulder", "middle": "elbow", "end": "wrist",
            "target": [1.2, 0.9, 0.0], "pole": [1.0, 2.0, 0.0]}]})",
                                     "recipe.json", scene);
  for (const std::vector<std::string>& planted :
       std::vector<std::vector<std::string>>{{"influences=top1"}, {"weights=l2"}}) {
    SCOPED_TRACE(joined(planted));
    Conventions conventions;
    for (const std::string& assignment : planted) set_convention(conventions, assignment);
    ASSERT_TRUE(recipe_applicable(conventions));
    std::vector<DiagnoseObservation> observations;
    for (double time : {0.3, 0.7}) {
      Scene adjusted = scene;
      apply_scene_conventions(adjusted, conventions);
      const EvaluatedPose pose = evaluate_recipe(adjusted, recipe, double(float(time)));
      SkinningOptions options;
      options = skinning_options_under(options, conventions.skinning);
      observations.push_back(
          {"recipe engine", time, test::rounded_to_float32(evaluate_vertices(adjusted, pose, options, conventions))});
    }
    DiagnoseSettings settings;
    settings.recipe = recipe;
    const Diagnosis d = diagnose(scene, observations, settings);
    const Verdict verdict = classify(d, planted);
    EXPECT_TRUE(verdict == Verdict::Exact || verdict == Verdict::Tied || verdict == Verdict::CloserFit)
        << test::verdict_name(verdict) << ": named " << joined(d.best().settings);
    for (const CandidateScore& tried : d.ranked) {
      Conventions c;
      for (const std::string& assignment : tried.settings) set_convention(c, assignment);
      EXPECT_TRUE(recipe_applicable(c)) << joined(tried.settings);
    }
    std::printf("  recipe engine with %s: %s (%zu candidates tried)\n", joined(planted).c_str(),
                test::verdict_name(verdict), d.candidates_tried);
  }
  // An engine that follows glTF 2.0 matches it.
  std::vector<DiagnoseObservation> gltf;
  gltf.push_back({"glTF", 0.3, evaluate_vertices(scene, evaluate_recipe(scene, recipe, double(float(0.3))), {})});
  DiagnoseSettings settings;
  settings.recipe = recipe;
  EXPECT_TRUE(diagnose(scene, gltf, settings).matches_specification);
}

}  // namespace
}  // namespace skinref
