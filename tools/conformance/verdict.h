// The verdict on each case of a run (runner.h): what the engine's dumps say against the reference and its
// bounds, and, when they fail, the departure that explains them, named by diagnose (verify/diagnose.h).
//
// Contract:
// - Input changed (checked first): a file the engine read, its query's copy or the suite's own, differs from
//   the hash the run began with (query_inputs.h); the case is never judged then, whatever the dumps hold:
//   "the engine wrote to its input: t=0.5: its copy of X.gltf was changed (...)".
// - Not run: a query of the case did not run (the run was stopped: its status says by which signal).
// - Two tiers (conformance_case.h). The outcome is the specification's: a case passes when every query of it
//   ran ("ok"), every dump reads (io/vertex_dump.h) and matches the case's primitives, and every value its rule
//   covers (positions; normals and tangents too where `rule_covers_normals`) is within its any-order bound at
//   every time. `geometry` is the second tier, judged where the rule does not cover normals and the dumps hold
//   normals or tangents: correct when every one is within its bound (and of unit length) at every time, else
//   wrong, with its own margin, worst time and attribute, and the departure that explains it. A case whose
//   normals alone are wrong passes; its departure is named in `geometry.departure`, never in `departure`.
// - Crashed: a query ended by a signal (killed by one, or a shell's 128 + N), ran past its time limit, or could
//   not be started (its status, e.g. "t=0.5: killed by signal 11 (Segmentation fault)"). Refused: the engine
//   ended cleanly without a dump, an exit status from 1 to 128 or 0 with nothing written, as a loader that
//   rejects a file does (its status and the message it printed last: "t=0: exit 1: \"Unsupported itemSize\"").
//   Bad output: a dump that is not a regular file, is larger than any dump of the case's vertices can be
//   (refused from its size, before it is read), does not read, holds non-finite values, or does not match the
//   model's primitives (the reader's message). Text from the engine (its log's last line, a reader's message
//   quoting its bytes) is quoted as engine_process/safe_text.h makes it, so any report can hold it. Processes
//   that had to be killed outside a query's group are said in `detail`, whatever the outcome. Failed: values over their bounds; `departure` then names the class and the
//   conventions that explain every dump of the case when diagnose finds them ("S2: rotation=nlerp"), or says
//   that a dump is of another time of the clip ("another time: the dump of t = 0.5 matches t = 0.75"), else
//   it is empty and `detail` says which departure explains most of them and what it leaves (diagnose's partial
//   explanation: "partly explained by P1: skeleton-ancestors=dropped (worst error/bound 1.9e5 -> 18); left: 40
//   values over, first at sampling"), or that nothing known explains them. A dump whose record holds the content
//   hash of another model is bad output.
// - `margin` is the largest error/bound over the case's times of the values the specification's tier covers
//   (below 1 for a pass).
// - The engine's profile (profile/engine_profile.h): judge_run_with_profile() finds it over the failed cases
//   (or takes the one given), then names each failed case's departure given it: the profile's conventions as
//   what is known of the engine, its allowances widening the bounds. With a profile that is not empty,
//   `given_profile` says "passes its rule given the profile" (the departures across the run are all there is)
//   or "fails its rule given the profile: DEPARTURE". The outcome stays glTF 2.0's. judge_run() is
//   judge_run_with_profile(run, nullptr).verdicts; an engine whose failures share no departure has the empty
//   profile and its verdicts are as without one.
#pragma once

#include "conformance/runner.h"
#include "profile/engine_profile.h"

#include <string>
#include <vector>

namespace skinref::conformance {

enum class CaseOutcome { Passed, Failed, Crashed, Refused, BadOutput, InputChanged, NotRun };

// "pass", "fail", "crash", "refused", "bad output", "input changed", "not run"
const char* case_outcome_name(CaseOutcome outcome);

// The geometry tier of a case: its normals and tangents against the geometrically correct transform.
enum class GeometryOutcome { NotJudged, Correct, Wrong };

// "not judged", "correct", "wrong"
const char* geometry_outcome_name(GeometryOutcome outcome);

struct GeometryVerdict {
  GeometryOutcome outcome = GeometryOutcome::NotJudged;
  double margin = 0.0;     // the largest error/bound of a normal or tangent over the case's times
  double worst_time = 0.0;
  std::string worst_dump;
  std::string worst_attribute;  // "normal" or "tangent" (wrong)
  std::string departure;        // what explains the wrong normals ("N1: normals=blend-upper3x3"), or ""
  std::string detail;
};

struct CaseVerdict {
  const ConformanceCase* definition = nullptr;
  CaseOutcome outcome = CaseOutcome::Passed;
  double margin = 0.0;
  double worst_time = 0.0;
  std::string departure;
  std::string detail;
  double seconds = 0.0;  // the engine's time over the case's queries
  std::string model;       // the case's .gltf
  std::string worst_dump;  // the engine's dump at worst_time
  std::string worst_attribute;  // of the worst value there among those the rule covers (a failed case)
  std::string given_profile;  // with a profile: whether the case passes its rule given it
  GeometryVerdict geometry;
};

struct JudgedRun {
  EngineProfile profile;
  std::vector<CaseVerdict> verdicts;
};

std::vector<CaseVerdict> judge_run(const RunRecord& run);
JudgedRun judge_run_with_profile(const RunRecord& run, const EngineProfile* given);

// The departure classes of `settings`: the class whose planted conventions are exactly `settings`, among the
// case's own targets first (one convention can be two classes: rotation=lerp is S2 on keys in one hemisphere
// and S1 across them), then among every case's; else, setting by setting, the class of a target that plants
// the same field (influences=first-set-renormalized is L3 as influences=first-set is), the distinct classes
// joined by ", "; "" when no target plants any of them.
std::string departure_class_of(const std::vector<std::string>& settings, const ConformanceCase& in_case);

}  // namespace skinref::conformance
