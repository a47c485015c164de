#include "conformance/verdict.h"

#include "conformance/query_inputs.h"
#include "conformance/suite.h"
#include "core/input_error.h"
#include "engine_process/engine_process.h"
#include "engine_process/log_message.h"
#include "engine_process/safe_text.h"
#include "io/gltf_load.h"
#include "io/vertex_dump.h"
#include "profile/engine_profile.h"
#include "verify/verify_run.h"
#include "verify/diagnose.h"
#include "verify/vertex_compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <memory>
#include <sstream>

namespace skinref::conformance {
namespace {

namespace fs = std::filesystem;

// How much of a reader's message about an engine's dump a verdict quotes.
constexpr size_t kDetailBytes = 1000;

bool all_finite(const std::vector<WorldPrimitive>& primitives) {
  for (const WorldPrimitive& p : primitives) {
    for (const Vec3& v : p.vertices.positions)
      if (!v.allFinite()) return false;
    for (const Vec3& v : p.vertices.normals)
      if (!v.allFinite()) return false;
    for (const Vec4& v : p.vertices.tangents)
      if (!v.allFinite()) return false;
  }
  return true;
}

std::string first_failed_query(const std::vector<const QueryResult*>& results) {
  for (const QueryResult* r : results) {
    if (r->ok()) continue;
    // In a batch log, the line naming the case and time (the batch adapters write "CASE at t = T: ...").
    const std::string message =
        engine_process::log_message(r->query.log, r->query.case_id + " at t = " + time_text(r->query.time));
    return "t=" + time_text(r->query.time) + ": " + r->status + (message.empty() ? "" : ": \"" + message + "\"") +
           " (log: " + r->query.log + ")";
  }
  return "";
}

// Whether a query's status says the engine ended cleanly without a dump: "exit N" with N from 1 to 128 (above,
// a shell's code for a signal), "no output" (exit 0, nothing written), or a batch's "no output (the batch exit N)".
bool is_clean_refusal(const std::string& status) {
  const auto clean_exit = [](const std::string& text, size_t at) {
    size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == at || end - at > 3) return false;
    const int code = std::stoi(text.substr(at, end - at));
    return code >= 1 && code <= 128;
  };
  if (status == "no output") return true;
  if (status.rfind("exit ", 0) == 0) return clean_exit(status, 5);
  const std::string batch = "no output (the batch exit ";
  return status.rfind(batch, 0) == 0 && clean_exit(status, batch.size());
}

bool first_failure_is_refusal(const std::vector<const QueryResult*>& results) {
  for (const QueryResult* r : results)
    if (!r->ok()) return is_clean_refusal(r->status);
  return false;
}

// "t=0.5: its copy of X.gltf was changed (...)" for the first query whose inputs differ from their hashes.
std::string first_changed_input(const std::vector<const QueryResult*>& results, const InputHashes& inputs) {
  for (const QueryResult* r : results) {
    const bool ran = !is_not_run(r->status) && !is_could_not_start(r->status);
    const std::vector<std::string> changes = input_changes(r->query, ran, inputs);
    if (!changes.empty())
      return "the engine wrote to its input: t=" + time_text(r->query.time) + ": " + changes.front() +
             (changes.size() > 1 ? " (and " + std::to_string(changes.size() - 1) + " more)" : "");
  }
  return "";
}

// "; 2 processes that left ... (t=0.5)" for the queries whose strays had to be killed.
std::string strays_text(const std::vector<const QueryResult*>& results) {
  std::string text;
  for (const QueryResult* r : results)
    if (r->strays != 0) text += engine_process::describe_strays(r->strays) + " (t=" + time_text(r->query.time) + ")";
  return text;
}

// "; within bounds widened as for A; or B" when diagnose fitted allowances that explain the dumps, else "".
std::string allowances_text(const Diagnosis& diagnosis) {
  std::string text;
  for (const AllowanceFit& a : diagnosis.allowance_fits)
    text += (text.empty() ? "; within bounds widened as for " : "; or ") +
            (a.settings.empty() ? std::string() : join_assignments(a.settings) + " and ") +
            describe_engine_allowances(a.allowances);
  return text;
}

// "; equally explained by G2: morph-targets=0" for each explanation the dumps cannot tell from the one named
// (the departure names the commoner; the others are said, not hidden).
std::string equally_text(const Diagnosis& diagnosis, const ConformanceCase& definition) {
  std::string text;
  for (const std::string& other : diagnosis.equally) {
    const std::string cls = departure_class_of(split_assignments(other), definition);
    text += (text.empty() ? "; equally explained by " : "; or ") + (cls.empty() ? std::string() : cls + ": ") + other;
  }
  return text;
}

// Diagnose over every dump of the case, given the engine's profile (what holds across the run): the conventions
// that explain them all beyond it, as a departure name; else what explains them in part, or the allowances.
void name_departure(const Scene& scene, const ConformanceCase& definition, std::vector<DiagnoseObservation> observed,
                    const EngineProfile& profile, CaseVerdict& verdict) {
  DiagnoseSettings settings;
  settings.animation = scene.animations.empty() ? -1 : 0;
  settings.method = definition.method;
  settings.reload = [model = scene.source](const LoadConventions& reading) { return load_gltf_file(model, reading); };
  settings.base = profile_conventions(profile);
  settings.allowances = profile.allowances;
  const Diagnosis diagnosis = diagnose(scene, observed, settings);
  if (!profile.empty() && diagnosis.matches_specification) {
    verdict.given_profile = "passes its rule given the profile";
    verdict.detail += "; passes its rule given the engine's profile";
    return;
  }
  if (diagnosis.explained && !diagnosis.best().settings.empty()) {
    const std::string cls = departure_class_of(diagnosis.best().settings, definition);
    verdict.departure = (cls.empty() ? std::string() : cls + ": ") + join_assignments(diagnosis.best().settings);
    verdict.detail += equally_text(diagnosis, definition);
    if (!profile.empty()) verdict.given_profile = "fails its rule given the profile: " + verdict.departure;
    return;
  }
  if (!profile.empty()) verdict.given_profile = "fails its rule given the profile: no known departure explains it";
  for (const TimeMismatch& m : diagnosis.time_mismatches) {
    verdict.departure = "another time: the dump of t = " + time_text(m.given) + " matches t = " + time_text(m.fits);
    return;
  }
  if (diagnosis.partial) {
    const PartialExplanation& p = *diagnosis.partial;
    const std::string cls = departure_class_of(p.score.settings, definition);
    std::ostringstream text;
    text << "; partly explained by " << (cls.empty() ? std::string() : cls + ": ") << join_assignments(p.score.settings);
    for (const std::string& other : p.equally) {
      const std::string other_class = departure_class_of(split_assignments(other), definition);
      text << " or " << (other_class.empty() ? std::string() : other_class + ": ") << other;
    }
    text << " (worst error/bound " << diagnosis.base.max_ratio << " -> " << p.score.max_ratio << "); left: "
         << p.score.failing() << " values over"
         << (p.rest_stage.stage == PipelineStage::None ? std::string(", no stage over its bound alone")
                                                       : std::string(", first at ") + pipeline_stage_name(p.rest_stage.stage));
    verdict.detail += text.str() + allowances_text(diagnosis);
    return;
  }
  verdict.detail += "; no known departure explains the dumps" + allowances_text(diagnosis);
}

// A dump is read only when it is a regular file no larger than any dump of the case's vertices can be, so that
// what the engine wrote (a FIFO, a device, gigabytes) cannot block the runner or exhaust its memory.
void require_plausible_size(const std::string& path, const std::vector<WorldPrimitive>& expected) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) throw InputError(path, "", "a dump in a regular file");
  const uintmax_t size = fs::file_size(path, error);
  if (error) throw InputError(path, "", "a readable dump (" + error.message() + ")");
  const uint64_t most = max_skv_bytes(expected);
  if (size > most)
    throw InputError(path, "", "a .skv of at most " + std::to_string(most) + " bytes (the case's vertices in f64 "
                               "with every attribute and the largest record), got " + std::to_string(size) + " bytes");
}

// A failed case's model and dumps, kept for the profile and for naming its departure.
struct FailedCase {
  size_t verdict = 0;  // its index among the verdicts
  std::unique_ptr<Scene> scene;
  std::vector<DiagnoseObservation> observed;
};

// The dump with one tier's values taken from the reference, so that a comparison sees the other tier alone:
// `keep_positions` false puts the reference's positions in (the geometry tier: normals and tangents); true puts
// the reference's normals and tangents in where the dump has them (the specification's tier: positions). A dump
// of another shape is returned as it is, for verify_within() to refuse.
std::vector<WorldPrimitive> one_tier_of(const std::vector<WorldPrimitive>& test, const std::vector<WorldPrimitive>& reference,
                                        bool keep_positions) {
  std::vector<WorldPrimitive> tier = test;
  if (tier.size() != reference.size()) return tier;
  for (size_t p = 0; p < tier.size(); ++p) {
    SkinnedVertices& v = tier[p].vertices;
    const SkinnedVertices& r = reference[p].vertices;
    if (v.positions.size() != r.positions.size()) return test;
    if (!keep_positions) {
      v.positions = r.positions;
      continue;
    }
    if (v.normals.size() == r.normals.size()) v.normals = r.normals;
    if (v.tangents.size() == r.tangents.size()) v.tangents = r.tangents;
  }
  return tier;
}

// One tier's worst over a case's dumps.
struct TierTally {
  size_t over = 0;  // over their bounds, unbounded or not of unit length, over every time
  double margin = 0.0;
  double worst_time = 0.0;
  std::string worst_dump, worst_attribute, detail;
  bool judged = false;
};

// `values`: how many of the comparison's values are the tier's (the others were made the reference's).
void add_to_tally(const VertexComparison& c, size_t values, const QueryResult& r, TierTally& tally) {
  tally.judged = true;
  tally.over += c.over + c.unbounded + c.unnormalized;
  if (c.max_ratio <= tally.margin && !tally.worst_dump.empty()) return;
  tally.margin = c.max_ratio;
  tally.worst_time = r.query.time;
  tally.worst_dump = r.query.out;
  tally.worst_attribute = c.worst.attribute;
  std::ostringstream detail;
  detail << "t=" << time_text(r.query.time) << ": " << c.over << " of " << values << " values over their bounds";
  if (c.unnormalized != 0) detail << ", " << c.unnormalized << " not of unit length";
  if (!c.worst.attribute.empty())
    detail << ", worst " << c.worst.attribute << " of vertex " << c.worst.vertex << ", error " << c.worst.error
           << " against a bound of " << c.worst.bound;
  tally.detail = detail.str();
}

size_t position_count(const std::vector<WorldPrimitive>& primitives) {
  size_t count = 0;
  for (const WorldPrimitive& p : primitives) count += p.vertices.positions.size();
  return count;
}

// One dump against the reference, tier by tier; throws InputError for a dump that cannot be judged.
void judge_dump(const Scene& scene, const ConformanceCase& definition, const QueryResult& r, VertexDump& dump,
                TierTally& specification, TierTally& geometry) {
  const TimeReference reference = evaluate_reference(scene, definition, r.query.time);
  require_plausible_size(r.query.out, reference.vertices);
  dump = read_vertices_skv(r.query.out);
  if (!all_finite(dump.primitives)) throw InputError(r.query.out, "", "finite values (the dump holds NaN or inf)");
  const std::string hash = model_content_hash(r.query.model);
  if (!dump.record.model_hash.empty() && dump.record.model_hash != hash)
    throw InputError(r.query.out, "/record/model_hash",
                     "a dump of the case's model (" + hash + "), but it records " + dump.record.model_hash);
  if (definition.rule_covers_normals) {
    const VertexComparison whole = verify_within(scene, reference.vertices, dump.primitives, reference.bounds);
    add_to_tally(whole, whole.values, r, specification);
    return;
  }
  const size_t positions = position_count(dump.primitives);
  add_to_tally(verify_within(scene, reference.vertices, one_tier_of(dump.primitives, reference.vertices, true),
                                reference.bounds),
               positions, r, specification);
  const VertexComparison normals = verify_within(
      scene, reference.vertices, one_tier_of(dump.primitives, reference.vertices, false), reference.bounds);
  if (normals.values > positions) add_to_tally(normals, normals.values - positions, r, geometry);
}

// The case's dumps against the reference: pass, bad output, or failed, and its geometry tier (`failed` then holds
// its model and dumps when either tier is over its bounds).
void judge_dumps(const ConformanceCase& definition, const std::vector<const QueryResult*>& results,
                 CaseVerdict& verdict, FailedCase& failed) {
  auto loaded = std::make_unique<Scene>(load_gltf_file(results.front()->query.model));
  std::vector<DiagnoseObservation> observed;
  TierTally specification, geometry;
  for (const QueryResult* r : results) {
    VertexDump dump;
    try {
      judge_dump(*loaded, definition, *r, dump, specification, geometry);
    } catch (const std::exception& e) {
      verdict.outcome = CaseOutcome::BadOutput;
      verdict.detail = "t=" + time_text(r->query.time) + ": " + engine_process::safe_text(e.what(), kDetailBytes);
      return;
    }
    observed.emplace_back(r->query.out, r->query.time, dump.primitives);
  }
  verdict.margin = specification.margin;
  verdict.worst_time = specification.worst_time;
  verdict.worst_dump = specification.worst_dump;
  verdict.outcome = specification.over == 0 ? CaseOutcome::Passed : CaseOutcome::Failed;
  if (specification.over != 0) {
    verdict.worst_attribute = specification.worst_attribute;
    verdict.detail = specification.detail;
  }
  if (geometry.judged) {
    GeometryVerdict& g = verdict.geometry;
    g.outcome = geometry.over == 0 ? GeometryOutcome::Correct : GeometryOutcome::Wrong;
    g.margin = geometry.margin;
    g.worst_time = geometry.worst_time;
    g.worst_dump = geometry.worst_dump;
    if (geometry.over != 0) {
      g.worst_attribute = geometry.worst_attribute;
      g.detail = geometry.detail;
    }
  }
  if (specification.over == 0 && geometry.over == 0) return;
  failed.scene = std::move(loaded);
  failed.observed = std::move(observed);
}

// The departure behind a case over its bounds, named in the tier that failed: the specification's when its values
// are over (the same departure then explains the wrong normals, if they are), else the geometry tier's alone.
void name_failed_tier(FailedCase& f, const EngineProfile& profile, CaseVerdict& verdict) {
  if (verdict.outcome == CaseOutcome::Failed) {
    name_departure(*f.scene, *verdict.definition, std::move(f.observed), profile, verdict);
    if (verdict.geometry.outcome == GeometryOutcome::Wrong) verdict.geometry.departure = verdict.departure;
    return;
  }
  CaseVerdict normals;
  normals.definition = verdict.definition;
  name_departure(*f.scene, *verdict.definition, std::move(f.observed), profile, normals);
  verdict.geometry.departure = normals.departure;
  verdict.geometry.detail += normals.detail;
}

// The profile over the run's failed cases (none when `given`).
EngineProfile run_profile(const std::vector<FailedCase>& failed, const std::vector<CaseVerdict>& verdicts) {
  if (failed.size() < kProfileMinimumModels) return {};
  std::vector<ProfileModel> models;
  for (const FailedCase& f : failed) {
    ProfileModel model;
    model.label = verdicts[f.verdict].definition->id;
    model.scene = f.scene.get();
    model.animation = f.scene->animations.empty() ? -1 : 0;
    model.method = verdicts[f.verdict].definition->method;
    model.observations = f.observed;
    model.reload = [source = f.scene->source](const LoadConventions& reading) { return load_gltf_file(source, reading); };
    models.push_back(std::move(model));
  }
  return find_engine_profile(models, BoundsModel::AnyOrder);
}

}  // namespace

const char* geometry_outcome_name(GeometryOutcome outcome) {
  switch (outcome) {
    case GeometryOutcome::NotJudged: return "not judged";
    case GeometryOutcome::Correct: return "correct";
    case GeometryOutcome::Wrong: return "wrong";
  }
  return "?";
}

const char* case_outcome_name(CaseOutcome outcome) {
  switch (outcome) {
    case CaseOutcome::Passed: return "pass";
    case CaseOutcome::Failed: return "fail";
    case CaseOutcome::Crashed: return "crash";
    case CaseOutcome::Refused: return "refused";
    case CaseOutcome::BadOutput: return "bad output";
    case CaseOutcome::InputChanged: return "input changed";
    case CaseOutcome::NotRun: return "not run";
  }
  return "?";
}

namespace {

std::string field_of(const std::string& assignment) { return assignment.substr(0, assignment.find('=')); }

// The class of the first target, in the case and then in the suite, that plants `field` on its own.
std::string class_of_field(const std::string& field, const ConformanceCase& in_case) {
  auto plants = [&field](const DepartureTarget& t) { return t.conventions.size() == 1 && field_of(t.conventions[0]) == field; };
  for (const DepartureTarget& target : in_case.targets)
    if (plants(target)) return target.departure;
  for (const ConformanceCase& c : conformance_cases())
    for (const DepartureTarget& target : c.targets)
      if (plants(target)) return target.departure;
  return "";
}

}  // namespace

std::string departure_class_of(const std::vector<std::string>& settings, const ConformanceCase& in_case) {
  for (const DepartureTarget& target : in_case.targets)
    if (!target.conventions.empty() && target.conventions == settings) return target.departure;
  for (const ConformanceCase& c : conformance_cases())
    for (const DepartureTarget& target : c.targets)
      if (!target.conventions.empty() && target.conventions == settings) return target.departure;
  std::string classes;
  for (const std::string& setting : settings) {
    const std::string cls = class_of_field(field_of(setting), in_case);
    if (!cls.empty() && (", " + classes + ", ").find(", " + cls + ", ") == std::string::npos)
      classes += (classes.empty() ? "" : ", ") + cls;
  }
  return classes;
}

std::vector<CaseVerdict> judge_run(const RunRecord& run) { return judge_run_with_profile(run, nullptr).verdicts; }

JudgedRun judge_run_with_profile(const RunRecord& run, const EngineProfile* given) {
  JudgedRun judged;
  std::vector<CaseVerdict>& verdicts = judged.verdicts;
  std::vector<FailedCase> failed_cases;
  for (const ConformanceCase& c : conformance_cases()) {
    std::vector<const QueryResult*> results;
    for (const QueryResult& r : run.results)
      if (r.query.case_id == c.id) results.push_back(&r);
    if (results.empty()) continue;
    CaseVerdict verdict;
    verdict.definition = &c;
    verdict.model = results.front()->query.model;
    for (const QueryResult* r : results) verdict.seconds += r->seconds;
    const std::string changed = first_changed_input(results, run.inputs);
    const auto not_run = std::find_if(results.begin(), results.end(), [](const QueryResult* r) { return is_not_run(r->status); });
    const std::string failed = first_failed_query(results);
    if (!changed.empty()) {
      verdict.outcome = CaseOutcome::InputChanged;
      verdict.detail = changed;
    } else if (not_run != results.end()) {
      verdict.outcome = CaseOutcome::NotRun;
      verdict.detail = "t=" + time_text((*not_run)->query.time) + ": " + (*not_run)->status;
    } else if (!failed.empty()) {
      verdict.outcome = first_failure_is_refusal(results) ? CaseOutcome::Refused : CaseOutcome::Crashed;
      verdict.detail = failed;
    } else {
      FailedCase f;
      f.verdict = verdicts.size();
      judge_dumps(c, results, verdict, f);
      if (f.scene) failed_cases.push_back(std::move(f));
    }
    const std::string strays = strays_text(results);
    verdict.detail += verdict.detail.empty() && !strays.empty() ? strays.substr(2) : strays;
    verdicts.push_back(std::move(verdict));
  }
  judged.profile = given ? *given : run_profile(failed_cases, verdicts);
  for (FailedCase& f : failed_cases) name_failed_tier(f, judged.profile, verdicts[f.verdict]);
  return judged;
}

}  // namespace skinref::conformance
