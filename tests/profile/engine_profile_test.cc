// The engine profile (profile/engine_profile.h) over the whole conformance suite, with planted engines whose
// dumps are the reference under chosen conventions: an engine that compresses every key as ozz-animation does
// and nlerps gets a profile naming those, and each of its failing cases passes its rule given the profile or is
// named by its own departure; an engine with one departure per case, each shown by that case alone, gets the
// empty profile. The profile file round-trips and refuses bad input.
#include "anim/evaluate_pose.h"
#include "conformance/runner.h"
#include "conformance/suite.h"
#include "conformance/verdict.h"
#include "core/input_error.h"
#include "io/vertex_dump.h"
#include "profile/engine_profile.h"
#include "skin/evaluate_vertices.h"
#include "support/temp_dir.h"
#include "verify/convention_pipeline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>

#ifndef SKINREF_CONFORMANCE_DIR
#error "SKINREF_CONFORMANCE_DIR must name the committed suite (set by CMakeLists.txt)"
#endif

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using namespace conformance;
namespace fs = std::filesystem;

// A run of the whole suite by an engine that is the reference under `conventions_of(case)`, its dumps f32 .skv.
// The scene an engine whose interpolation factor is u (1 + e) (an approximate reciprocal of the key interval)
// plays at `time`: in each LINEAR sampler, the interval holding `time` ends at t_k + (t_k+1 - t_k) / (1 + e)
// instead, so that (time - t_k) over it is u (1 + e). Intervals where that would reach 1 are left alone.
Scene with_interpolation_error(Scene scene, double time, double e) {
  for (Animation& animation : scene.animations)
    for (AnimationSampler& sampler : animation.samplers) {
      if (sampler.interpolation != Interpolation::Linear) continue;
      for (size_t k = 0; k + 1 < sampler.times.size(); ++k) {
        const double t0 = sampler.times[k], t1 = sampler.times[k + 1];
        if (!(t0 <= time && time < t1) || (time - t0) / (t1 - t0) * (1.0 + e) >= 1.0) continue;
        sampler.times[k + 1] = t0 + (t1 - t0) / (1.0 + e);
        break;
      }
    }
  finalize_scene(scene);
  return scene;
}

RunRecord planted_run(const std::string& name, const fs::path& dir,
                      const std::function<std::vector<std::string>(const ConformanceCase&)>& conventions_of,
                      double interpolation_error = 0.0) {
  RunRecord run;
  run.engine.name = name;
  for (const ConformanceCase& c : conformance_cases()) {
    Conventions conventions;
    for (const std::string& assignment : conventions_of(c)) set_convention(conventions, assignment);
    for (const Query& q : suite_queries(SKINREF_CONFORMANCE_DIR, dir.string(), c.id)) {
      const Scene scene = with_interpolation_error(load_model_under(q.model, conventions), q.time, interpolation_error);
      SkinningOptions options;
      options.method = c.method;
      VertexDump dump;
      dump.precision = DumpPrecision::F32;
      dump.primitives = evaluate_vertices(scene, evaluate_pose(scene, 0, q.time, conventions), options, conventions);
      fs::create_directories(fs::path(q.out).parent_path());
      write_vertex_dump(scene, dump, q.out);
      run.results.push_back({q, "ok", 0.0});
    }
  }
  return run;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// The conventions of "CLASS: a, b" (or "a, b").
std::vector<std::string> settings_of(const std::string& named) {
  const size_t colon = named.find(": ");
  return split_assignments(colon == std::string::npos || named.find('=') < colon ? named : named.substr(colon + 2));
}

bool named_only(const std::string& named, const std::vector<std::string>& planted) {
  for (const std::string& s : settings_of(named))
    if (!contains(planted, s)) return false;
  return true;
}

// Whether the detail's "equally explained by A; or B" holds an alternative made of planted conventions only.
bool names_any_alternative(const std::string& detail, const std::vector<std::string>& planted) {
  const std::string marker = "; equally explained by ";
  const size_t at = detail.find(marker);
  if (at == std::string::npos) return false;
  std::string rest = detail.substr(at + marker.size());
  for (size_t start = 0; start < rest.size();) {
    const size_t next = rest.find("; ", start);
    std::string alternative = rest.substr(start, next == std::string::npos ? std::string::npos : next - start);
    if (alternative.rfind("or ", 0) == 0) alternative = alternative.substr(3);
    if (named_only(alternative, planted)) return true;
    if (next == std::string::npos) break;
    start = next + 2;
  }
  return false;
}

// ozz-animation as a game uses it (gltf2ozz's defaults): half-float translations and scales, 15-bit quaternions on
// its offset grid, every joint's values stored as keys, nlerp, no morph targets, the interpolation factor through
// an approximate reciprocal; and, on the cases built for them, the structural departures it has (the skeleton's ancestors dropped, a node's matrix ignored, sparse
// accessors ignored, normals by the blended matrix).
TEST(EngineProfileOverTheSuite, AnEngineThatCompressesEveryKeyIsNamedCaseByCase) {
  const std::vector<std::string> compression{"key-translation-scale=half", "key-rotation=q15-offset",
                                             "key-scope=every-joint", "rotation=nlerp", "morph-targets=0"};
  const std::vector<std::string> structural{"skeleton-ancestors=dropped", "node-matrix=ignored", "sparse=ignored",
                                            "normals=blend-upper3x3"};
  auto own_departure = [&](const ConformanceCase& c) -> std::string {
    for (const DepartureTarget& target : c.targets)
      if (target.conventions.size() == 1 && contains(structural, target.conventions[0])) return target.conventions[0];
    return "";
  };
  test::TempDir dir;
  const double reciprocal = 3e-4;  // the interpolation factor through SSE's rcpps, as ozz's SamplingJob computes it
  const RunRecord run = planted_run(
      "ozz-like", dir.path(),
      [&](const ConformanceCase& c) {
        std::vector<std::string> conventions = compression;
        if (!own_departure(c).empty()) conventions.push_back(own_departure(c));
        return conventions;
      },
      reciprocal);
  const JudgedRun judged = judge_run_with_profile(run, nullptr);
  std::printf("  profile: %s\n", describe_engine_profile(judged.profile).c_str());
  // The compression shows in most cases: it is the profile. nlerp and the half floats show only where keys are
  // far apart or off the half grid, fewer than half the cases: those are named case by case.
  EXPECT_TRUE(contains(judged.profile.settings, "key-rotation=q15-offset"));
  EXPECT_TRUE(contains(judged.profile.settings, "key-scope=every-joint"));
  // The arithmetic: the interpolation factor's allowance, fitted on what each case's own departures leave, within
  // a factor of 2 of the planted error.
  EXPECT_GE(judged.profile.allowances.interpolation, reciprocal / 2.0);
  EXPECT_LE(judged.profile.allowances.interpolation, 2.0 * reciprocal);
  EXPECT_EQ(judged.profile.allowances.rotation, 0.0);
  EXPECT_EQ(judged.profile.allowances.translation_scale, 0.0);
  size_t passes_given = 0, named = 0, partial = 0, unnamed = 0, wrong = 0;
  for (const CaseVerdict& v : judged.verdicts) {
    if (v.outcome != CaseOutcome::Failed) continue;
    const std::string own = own_departure(*v.definition);
    // Right: passes given the profile, or named by conventions the engine has (its own where it shows; an
    // engine without morph targets shows no sparse morph deltas), nothing else.
    std::vector<std::string> planted = compression;
    if (!own.empty()) planted.push_back(own);
    // Where the dumps cannot tell two explanations apart (no morph targets, or the default weights ignored, on a
    // case that animates no weights), the verdict names one and says the other: either may be the engine's.
    const std::string said = v.departure + v.detail;
    bool right = v.given_profile == "passes its rule given the profile";
    if (!v.departure.empty()) right = named_only(v.departure, planted) || names_any_alternative(v.detail, planted);
    // What the allowance leaves over (a reciprocal's error beyond its median size) makes some explanations
    // partial: right when the part named is the engine's.
    const std::string partly = "; partly explained by ";
    if (v.departure.empty() && v.detail.find(partly) != std::string::npos) {
      // "CLASS: a, b or CLASS: c (worst ...": any of the alternatives the dumps cannot tell apart.
      const size_t at = v.detail.find(partly) + partly.size();
      const std::string named = v.detail.substr(at, v.detail.find(" (", at) - at);
      right = false;
      for (size_t start = 0; start <= named.size();) {
        const size_t next = named.find(" or ", start);
        right |= named_only(named.substr(start, next == std::string::npos ? std::string::npos : next - start), planted);
        if (next == std::string::npos) break;
        start = next + 4;
      }
      partial += right;
    } else if (v.departure.empty() && !right) {
      ++unnamed;  // nothing named, nothing wrong: what is left is the allowance's shortfall
      continue;
    }
    // A case's own departure is named where it shows (morph-targets=0 hides the sparse morph deltas).
    if (!own.empty())
      right &= said.find(own) != std::string::npos || said.find("morph-targets=0") != std::string::npos;
    passes_given += v.given_profile == "passes its rule given the profile";
    named += !v.departure.empty();
    if (!right) {
      ++wrong;
      ADD_FAILURE() << v.definition->id << " (planted: " << (own.empty() ? "nothing of its own" : own)
                    << "): departure '" << v.departure << "', " << v.given_profile << "; " << v.detail;
    }
  }
  std::printf("  %zu cases pass their rule given the profile, %zu named by a departure of their own, %zu named in "
              "part by one, %zu named by nothing, %zu wrong\n", passes_given, named, partial, unnamed, wrong);
}

// An engine that bakes every clip at 30 Hz (Godot, raylib, gltf2ozz's default rate): the resampling is its profile
// where it shows in most failing cases, and no case is named by anything else.
TEST(EngineProfileOverTheSuite, AnEngineThatResamplesEveryClipAt30Hz) {
  test::TempDir dir;
  const RunRecord run = planted_run("resampling at 30 Hz", dir.path(), [](const ConformanceCase&) {
    return std::vector<std::string>{"resample=30"};
  });
  const JudgedRun judged = judge_run_with_profile(run, nullptr);
  std::printf("  profile: %s\n", describe_engine_profile(judged.profile).c_str());
  EXPECT_EQ(judged.profile.settings, std::vector<std::string>{"resample=30"});
  size_t failed = 0;
  for (const CaseVerdict& v : judged.verdicts) {
    if (v.outcome != CaseOutcome::Failed) continue;
    ++failed;
    EXPECT_EQ(v.given_profile, "passes its rule given the profile") << v.definition->id << ": " << v.departure;
  }
  std::printf("  %zu cases fail glTF 2.0, each passes its rule given the profile\n", failed);
}

// An engine whose only departure is its arithmetic: the interpolation factor through an approximate reciprocal,
// u (1 + 3e-4) (SSE's rcpps is within 1.5 2^-12). No convention explains it; the profile's allowance does, its kind
// the interpolation factor's, and every case it fails passes its rule given the profile.
TEST(EngineProfileOverTheSuite, AnEngineWithAnApproximateInterpolationFactor) {
  const double planted = 3e-4;
  test::TempDir dir;
  const RunRecord run = planted_run(
      "approximate reciprocal", dir.path(), [](const ConformanceCase&) { return std::vector<std::string>{}; }, planted);
  const JudgedRun judged = judge_run_with_profile(run, nullptr);
  std::printf("  profile: %s\n", describe_engine_profile(judged.profile).c_str());
  EXPECT_TRUE(judged.profile.settings.empty());
  EXPECT_EQ(judged.profile.allowances.rotation, 0.0);
  EXPECT_EQ(judged.profile.allowances.translation_scale, 0.0);
  EXPECT_GE(judged.profile.allowances.interpolation, planted / 8.0);
  EXPECT_LE(judged.profile.allowances.interpolation, 2.0 * planted);
  size_t failed = 0, passes = 0;
  for (const CaseVerdict& v : judged.verdicts) {
    if (v.outcome != CaseOutcome::Failed) continue;
    ++failed;
    passes += v.given_profile == "passes its rule given the profile";
    EXPECT_EQ(v.departure, "") << v.definition->id << ": named by a convention the engine does not have";
  }
  std::printf("  %zu cases fail glTF 2.0, %zu pass their rule given the profile\n", failed, passes);
  // Without a profile (an engine judged case by case), no case is named by a convention either.
  const EngineProfile none;
  for (const CaseVerdict& v : judge_run_with_profile(run, &none).verdicts)
    EXPECT_EQ(v.departure, "") << v.definition->id << ", without a profile: " << v.detail;
}

// One departure per case, each shown by its own case alone: nothing holds across the run, the profile is empty,
// and the verdicts are as without one.
TEST(EngineProfileOverTheSuite, DeparturesOfSingleCasesMakeNoProfile) {
  test::TempDir dir;
  const RunRecord run = planted_run("one departure per case", dir.path(), [](const ConformanceCase& c) {
    for (const DepartureTarget& target : c.targets)
      if (!target.conventions.empty()) return target.conventions;
    return std::vector<std::string>{};
  });
  const JudgedRun judged = judge_run_with_profile(run, nullptr);
  EXPECT_TRUE(judged.profile.empty()) << describe_engine_profile(judged.profile);
  EXPECT_GE(judged.profile.failing, kProfileMinimumModels);
  for (const CaseVerdict& v : judged.verdicts) EXPECT_EQ(v.given_profile, "") << v.definition->id;
}

TEST(EngineProfileFile, RoundTripsAndRefusesBadInput) {
  EngineProfile profile;
  profile.settings = {"rotation=nlerp", "key-rotation=q15-offset"};  // pipeline order
  profile.allowances.interpolation = 3e-4;
  const nlohmann::json json = nlohmann::json::parse(profile_json(profile).dump());
  const EngineProfile back = profile_from_json(json, "profile.json");
  EXPECT_EQ(back.settings, profile.settings);
  EXPECT_EQ(back.allowances.interpolation, 3e-4);
  EXPECT_EQ(back.allowances.rotation, 0.0);
  auto error_of = [](const nlohmann::json& bad) -> std::string {
    try {
      profile_from_json(bad, "p.json");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  nlohmann::json bad = json;
  bad["format"] = "other";
  EXPECT_NE(error_of(bad).find("/format"), std::string::npos);
  bad = json;
  bad["conventions"][1] = "rotation=squad";
  EXPECT_NE(error_of(bad).find("/conventions/1"), std::string::npos) << error_of(bad);
  bad = json;
  bad["allowances"]["rotation_rad"] = -1.0;
  EXPECT_NE(error_of(bad).find("/allowances/rotation_rad"), std::string::npos);
  bad = json;
  bad["version"] = 2;
  EXPECT_NE(error_of(bad).find("/version"), std::string::npos);
}

}  // namespace
}  // namespace skinref
