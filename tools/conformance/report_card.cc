#include "conformance/report_card.h"

#include "ci_report/ci_reports.h"
#include "conformance/departure_classes.h"
#include "core/atomic_file.h"
#include "engine_process/safe_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>
#include <string.h>

namespace skinref::conformance {
namespace {

using Json = nlohmann::ordered_json;

std::vector<const CaseVerdict*> failures_first(const std::vector<CaseVerdict>& verdicts) {
  std::vector<const CaseVerdict*> order;
  for (const CaseVerdict& v : verdicts) order.push_back(&v);
  std::stable_sort(order.begin(), order.end(), [](const CaseVerdict* a, const CaseVerdict* b) { return failures_rank(*a) < failures_rank(*b); });
  return order;
}

// The rule quoted for a case: the specification's sentence, or, where only the geometry tier failed, that glTF
// is silent on how normals transform and what the correct transform is.
std::string quoted_rule(const CaseVerdict& v) {
  if (only_normals_wrong(v))
    return std::string("(normals, the geometry tier) ") + kGeometryRule + " Positions (" + v.definition->section +
           "): " + v.definition->rule;
  return v.definition->rule;
}

void markdown_causes(std::ostringstream& md, const std::vector<Cause>& causes, const std::string& heading,
                     const std::string& lead) {
  if (causes.empty()) return;
  md << "\n## " << heading << "\n\n" << causes.size() << (causes.size() == 1 ? " cause " : " causes ") << lead
     << ", each once:\n\n";
  for (const Cause& c : causes) {
    md << "- **" << c.name << "** (" << c.cases.size() << "):";
    for (size_t i = 0; i < c.cases.size(); ++i) md << (i ? ", " : " ") << "`" << c.cases[i] << "`";
    md << "\n";
  }
}

std::string margin_text(const CaseVerdict& v) {
  if (v.outcome != CaseOutcome::Passed && v.outcome != CaseOutcome::Failed) return "-";
  std::ostringstream text;
  text << std::setprecision(3) << v.margin;
  return text.str();
}

// "| a | b |" with the cell text's pipes escaped.
std::string markdown_row(const std::vector<std::string>& cells) {
  std::string row = "|";
  for (std::string cell : cells) {
    for (size_t at = cell.find('|'); at != std::string::npos; at = cell.find('|', at + 2)) cell.replace(at, 1, "\\|");
    row += " " + cell + " |";
  }
  return row + "\n";
}

std::string markdown(const RunRecord& run, const std::vector<CaseVerdict>& verdicts, const EngineProfile& profile) {
  std::ostringstream md;
  md << "# Conformance report: " << engine_process::safe_text(run.engine.name + " " + run.engine.version) << "\n\n"
     << summary_line(run, verdicts) << "\n\n";
  if (!profile.empty()) md << profile_line(profile) << "\n\n";
  md
     << "Suite: skinref's glTF 2.0 conformance suite (skins, animation, morph targets); every value held to the "
        "any-order float32 bounds.\n\n## By section\n\n| section | cases | pass |\n|---|---|---|\n";
  std::vector<std::string> sections;
  std::map<std::string, std::pair<int, int>> counts;
  for (const CaseVerdict& v : verdicts) {
    if (!counts.count(v.definition->section)) sections.push_back(v.definition->section);
    auto& [cases, passed] = counts[v.definition->section];
    ++cases;
    passed += v.outcome == CaseOutcome::Passed;
  }
  for (const std::string& s : sections)
    md << markdown_row({s, std::to_string(counts[s].first), std::to_string(counts[s].second)});
  markdown_causes(md, causes_of(verdicts), "Causes", "behind the cases that did not pass");
  markdown_causes(md, normals_causes_of(verdicts), "Normals wrong where the positions pass",
                  "behind wrong normals in cases whose positions pass (the geometry tier: glTF 2.0 does not say how "
                  "normals transform, and the cases pass the specification)");
  md << "\n## Cases, failures first\n\n| case | outcome | error/bound | departure | normals | section | detail |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (const CaseVerdict* v : failures_first(verdicts))
    md << markdown_row({v->definition->id, case_outcome_name(v->outcome), margin_text(*v), v->departure,
                        normals_text(*v, true), v->definition->section, v->detail});
  std::vector<std::string> classes;
  for (const CaseVerdict& v : verdicts)
    for (const std::string* departure : {&v.departure, &v.geometry.departure})
      for (const std::string& code : class_codes_in(*departure))
        if (std::find(classes.begin(), classes.end(), code) == classes.end()) classes.push_back(code);
  std::sort(classes.begin(), classes.end());
  if (!classes.empty()) {
    md << "\n## Departure classes\n\n";
    for (const std::string& code : classes) md << "- **" << code << "**: " << departure_class_title(code) << "\n";
  }
  md << "\n## Rules\n\n";
  for (const CaseVerdict& v : verdicts)
    md << "- **" << v.definition->id << "** (" << v.definition->section << "): " << quoted_rule(v) << "\n";
  return md.str();
}

Json json_report(const RunRecord& run, const std::vector<CaseVerdict>& verdicts, const EngineProfile& profile) {
  Json cases = Json::array();
  for (const CaseVerdict* v : failures_first(verdicts))
    cases.push_back({{"id", v->definition->id}, {"title", v->definition->title}, {"section", v->definition->section},
                     {"rule", v->definition->rule}, {"outcome", case_outcome_name(v->outcome)},
                     {"error_over_bound", v->margin}, {"worst_time", v->worst_time}, {"departure", v->departure},
                     {"detail", v->detail}, {"given_profile", v->given_profile}, {"seconds", v->seconds},
                     {"normals_tier", v->definition->rule_covers_normals ? "specification" : "geometry"},
                     {"geometry", {{"outcome", geometry_outcome_name(v->geometry.outcome)},
                                   {"error_over_bound", v->geometry.margin},
                                   {"worst_time", v->geometry.worst_time},
                                   {"departure", v->geometry.departure},
                                   {"detail", v->geometry.detail}}},
                     {"quoted_rule", quoted_rule(*v)}});
  const auto causes_json = [](const std::vector<Cause>& list) {
    Json causes = Json::array();
    for (const Cause& c : list) causes.push_back({{"cause", c.name}, {"cases", c.cases}});
    return causes;
  };
  return {{"format", "skinref-conformance-report"},
          {"version", 2},
          {"causes", causes_json(causes_of(verdicts))},
          {"normals_causes", causes_json(normals_causes_of(verdicts))},
          {"engine", {{"name", run.engine.name}, {"version", run.engine.version},
                      {"query_command", run.engine.query_command}, {"batch_command", run.engine.batch_command}}},
          {"summary", summary_line(run, verdicts)},
          {"profile", profile_json(profile)},
          {"profile_text", describe_engine_profile(profile)},
          {"cases", cases}};
}

std::vector<JunitCase> junit_cases(const std::vector<CaseVerdict>& verdicts) {
  std::vector<JunitCase> cases;
  for (const CaseVerdict& v : verdicts) {
    JunitCase j;
    j.classname = "skinref.conformance." + v.definition->section;
    j.name = v.definition->id;
    j.seconds = v.seconds;
    switch (v.outcome) {
      case CaseOutcome::Passed: j.outcome = JunitOutcome::Passed; break;
      case CaseOutcome::Failed: j.outcome = JunitOutcome::Failed; break;
      case CaseOutcome::Crashed:
      case CaseOutcome::Refused:
      case CaseOutcome::BadOutput:
      case CaseOutcome::InputChanged: j.outcome = JunitOutcome::Error; break;
      case CaseOutcome::NotRun: j.outcome = JunitOutcome::Skipped; break;
    }
    j.message = v.departure.empty() ? v.detail : v.departure + " (" + v.detail + ")";
    j.details = v.definition->section + ": " + quoted_rule(v) + "\nnormals: " + normals_text(v, true);
    cases.push_back(std::move(j));
  }
  return cases;
}

}  // namespace

namespace {

void add_to_causes(std::vector<Cause>& causes, const std::string& name, const std::string& id) {
  auto found = std::find_if(causes.begin(), causes.end(), [&](const Cause& c) { return c.name == name; });
  if (found == causes.end()) found = causes.insert(causes.end(), Cause{name, {}});
  found->cases.push_back(id);
}

std::vector<Cause> most_cases_first(std::vector<Cause> causes) {
  std::stable_sort(causes.begin(), causes.end(), [](const Cause& a, const Cause& b) {
    return a.cases.size() != b.cases.size() ? a.cases.size() > b.cases.size() : a.name < b.name;
  });
  return causes;
}

}  // namespace

std::vector<Cause> causes_of(const std::vector<CaseVerdict>& verdicts) {
  std::vector<Cause> causes;
  for (const CaseVerdict& v : verdicts) {
    if (v.outcome == CaseOutcome::Passed) continue;
    std::string name = case_outcome_name(v.outcome);
    if (v.outcome == CaseOutcome::Failed)
      name = v.departure.empty() ? "no known departure (worst: " + (v.worst_attribute.empty() ? "?" : v.worst_attribute) + ")"
                                 : v.departure;
    add_to_causes(causes, name, v.definition->id);
  }
  return most_cases_first(std::move(causes));
}

std::vector<Cause> normals_causes_of(const std::vector<CaseVerdict>& verdicts) {
  std::vector<Cause> causes;
  for (const CaseVerdict& v : verdicts)
    if (only_normals_wrong(v))
      add_to_causes(causes,
                    v.geometry.departure.empty() ? "no known departure (worst: " + v.geometry.worst_attribute + ")"
                                                 : v.geometry.departure,
                    v.definition->id);
  return most_cases_first(std::move(causes));
}

std::string summary_line(const RunRecord& run, const std::vector<CaseVerdict>& verdicts) {
  std::map<CaseOutcome, size_t> count;
  size_t normals_judged = 0, normals_correct = 0;
  for (const CaseVerdict& v : verdicts) {
    ++count[v.outcome];
    normals_judged += v.geometry.outcome != GeometryOutcome::NotJudged;
    normals_correct += v.geometry.outcome == GeometryOutcome::Correct;
  }
  std::string line = engine_process::safe_text(run.engine.name + (run.engine.version.empty() ? "" : " " + run.engine.version)) +
                     ": conformant to glTF 2.0 on " + std::to_string(count[CaseOutcome::Passed]) + " of " +
                     std::to_string(verdicts.size()) + " cases";
  std::string rest;
  for (CaseOutcome o : {CaseOutcome::Failed, CaseOutcome::Crashed, CaseOutcome::Refused, CaseOutcome::BadOutput,
                        CaseOutcome::InputChanged, CaseOutcome::NotRun})
    if (count[o]) rest += (rest.empty() ? "" : ", ") + std::to_string(count[o]) + " " + case_outcome_name(o);
  if (run.stopped_by != 0)
    rest += std::string(rest.empty() ? "" : "; ") + "the run was stopped by SIG" + sigabbrev_np(run.stopped_by);
  return (rest.empty() ? line : line + " (" + rest + ")") + "; normals correct on " + std::to_string(normals_correct) +
         " of " + std::to_string(normals_judged);
}

// "correct", "wrong: N1: normals=blend-upper3x3 (t=0.5: ...)", "in the rule" or "-" (not judged).
std::string normals_text(const CaseVerdict& v, bool with_detail) {
  const GeometryVerdict& g = v.geometry;
  switch (g.outcome) {
    case GeometryOutcome::NotJudged: return v.definition->rule_covers_normals ? "in the rule" : "-";
    case GeometryOutcome::Correct: return "correct";
    case GeometryOutcome::Wrong:
      return "wrong" + (g.departure.empty() ? std::string() : ": " + g.departure) +
             (with_detail && !g.detail.empty() ? " (" + g.detail + ")" : "");
  }
  return "?";
}

bool only_normals_wrong(const CaseVerdict& v) {
  return v.outcome == CaseOutcome::Passed && v.geometry.outcome == GeometryOutcome::Wrong;
}

int failures_rank(const CaseVerdict& v) { return v.outcome != CaseOutcome::Passed ? 0 : only_normals_wrong(v) ? 1 : 2; }

std::string profile_line(const EngineProfile& profile) {
  return "Engine profile (what departs across the run, each case judged given it): " + describe_engine_profile(profile);
}

void write_report_card(const RunRecord& run, const std::vector<CaseVerdict>& verdicts, const std::string& dir,
                       const EngineProfile& profile) {
  std::filesystem::create_directories(dir);
  const std::string md = markdown(run, verdicts, profile);
  const std::string json = json_report(run, verdicts, profile).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  write_file_atomically(dir + "/report.md", [&md](std::ostream& out) { out << md; });
  write_file_atomically(dir + "/report.json", [&json](std::ostream& out) { out << json; });
  write_junit(dir + "/junit.xml", "skinref conformance: " + run.engine.name, junit_cases(verdicts));
  write_report_html(run, verdicts, dir, profile);
}

void print_report_card(const RunRecord& run, const std::vector<CaseVerdict>& verdicts, std::ostream& out,
                       const EngineProfile& profile) {
  if (!profile.empty()) out << profile_line(profile) << "\n";
  for (const CaseVerdict* v : failures_first(verdicts)) {
    out << "  " << std::left << std::setw(14) << case_outcome_name(v->outcome) << std::setw(40) << v->definition->id;
    if (v->outcome != CaseOutcome::Passed)
      out << " " << (v->departure.empty() ? "" : v->departure + "; ") << v->detail
          << (v->given_profile.empty() ? "" : " [" + v->given_profile + "]");
    else
      out << " error/bound " << margin_text(*v);
    if (v->geometry.outcome == GeometryOutcome::Wrong) out << "; normals " << normals_text(*v, true);
    out << "\n";
  }
  for (const Cause& c : causes_of(verdicts))
    out << "  cause: " << c.name << " (" << c.cases.size() << (c.cases.size() == 1 ? " case)\n" : " cases)\n");
  for (const Cause& c : normals_causes_of(verdicts))
    out << "  normals wrong, positions pass: " << c.name << " (" << c.cases.size()
        << (c.cases.size() == 1 ? " case)\n" : " cases)\n");
  out << summary_line(run, verdicts) << "\n";
}

}  // namespace skinref::conformance
