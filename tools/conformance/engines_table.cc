#include "conformance/engines_table.h"

#include "core/input_error.h"

#include <algorithm>

namespace skinref::conformance {
namespace {

std::string spec_cell(const ExpectedCase& expected) {
  if (expected.outcome != "fail") return expected.outcome;
  return "fail: " + (expected.departure.empty() ? std::string("no known departure") : expected.departure);
}

// The geometry tier's cause of a case whose normals are wrong and whose positions pass ("" otherwise: a failed
// case's wrong normals come from its own cause).
std::string normals_cause(const ExpectedCase& expected) {
  if (expected.geometry != "wrong" || expected.outcome != "pass") return "";
  return expected.geometry_departure.empty() ? std::string("no known departure") : expected.geometry_departure;
}

std::string cell(const Expectations& engine, const std::string& id) {
  const auto found = engine.cases.find(id);
  return found == engine.cases.end() ? "–" : expectation_cell(found->second);
}

using CauseList = std::vector<std::pair<std::string, std::vector<std::string>>>;

void add_to_cause(CauseList& causes, const std::string& name, const std::string& id) {
  auto found = std::find_if(causes.begin(), causes.end(), [&](const auto& cause) { return cause.first == name; });
  if (found == causes.end()) found = causes.insert(causes.end(), {name, {}});
  found->second.push_back(id);
}

// "INDENT- `CAUSE` (K): `id`, ..." per cause, the most cases first.
std::string cause_lines(CauseList causes, const std::string& indent) {
  std::stable_sort(causes.begin(), causes.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::string text;
  for (const auto& [name, ids] : causes) {
    text += indent + "- `" + name + "` (" + std::to_string(ids.size()) + "):";
    for (size_t i = 0; i < ids.size(); ++i) text += (i ? ", `" : " `") + ids[i] + "`";
    text += "\n";
  }
  return text;
}

size_t case_count(const CauseList& causes) {
  size_t cases = 0;
  for (const auto& cause : causes) cases += cause.second.size();
  return cases;
}

std::string counted(size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// "- **ENGINE**: conformant to glTF 2.0 on N of M cases; normals correct on K of L." then the causes of the cases
// that do not pass, and those of the passing cases whose normals are wrong, each once with its cases.
std::string engine_causes(const Expectations& engine) {
  CauseList failing, normals;
  for (const ConformanceCase& c : conformance_cases()) {
    const auto found = engine.cases.find(c.id);
    if (found == engine.cases.end()) continue;
    const ExpectedCase& e = found->second;
    if (e.outcome != "pass") add_to_cause(failing, spec_cell(e), c.id);
    if (!normals_cause(e).empty()) add_to_cause(normals, normals_cause(e), c.id);
  }
  const TierCounts n = tier_counts(engine);
  std::string text = "- **" + engine.engine + "**: conformant to glTF 2.0 on " + std::to_string(n.passed) + " of " +
                     counted(n.cases, "case", "cases") + "; normals correct on " + std::to_string(n.normals_correct) +
                     " of " + std::to_string(n.normals_judged) + ".";
  text += failing.empty() ? "\n" : " " + counted(failing.size(), "cause", "causes") + " behind the " +
                                       counted(case_count(failing), "case", "cases") + " that do not pass:\n";
  text += cause_lines(failing, "  ");
  if (!normals.empty())
    text += "  - Normals wrong where the positions pass (the geometry tier; glTF does not say how normals transform), " +
            counted(normals.size(), "cause", "causes") + ":\n" + cause_lines(normals, "    ");
  return text;
}

}  // namespace

std::string expectation_cell(const ExpectedCase& expected) {
  const std::string normals = normals_cause(expected);
  return spec_cell(expected) + (normals.empty() ? "" : "; normals wrong: " + normals);
}

TierCounts tier_counts(const Expectations& engine) {
  TierCounts n;
  for (const ConformanceCase& c : conformance_cases()) {
    const auto found = engine.cases.find(c.id);
    if (found == engine.cases.end()) continue;
    const ExpectedCase& e = found->second;
    ++n.cases;
    n.passed += e.outcome == "pass";
    n.normals_judged += e.geometry == "correct" || e.geometry == "wrong";
    n.normals_correct += e.geometry == "correct";
  }
  return n;
}

std::string engines_table(const std::vector<Expectations>& engines) {
  std::string table = "| case | section |", rule = "|---|---|";
  for (const Expectations& engine : engines) {
    table += " " + engine.engine + " |";
    rule += "---|";
  }
  table += "\n" + rule + "\n";
  for (const ConformanceCase& c : conformance_cases()) {
    table += "| `" + c.id + "` | " + c.section + " |";
    for (const Expectations& engine : engines) table += " " + cell(engine, c.id) + " |";
    table += "\n";
  }
  table += "\n";
  for (const Expectations& engine : engines) table += engine_causes(engine);
  return table;
}

std::string table_in_document(const std::string& text, const std::string& path) {
  const size_t begin = text.find(kTableBegin);
  const size_t end = text.find(kTableEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw InputError(path, "", std::string("the lines ") + kTableBegin + " and " + kTableEnd + " around the table");
  const size_t first = text.find('\n', begin);
  return first == std::string::npos || first + 1 > end ? std::string() : text.substr(first + 1, end - first - 1);
}

}  // namespace skinref::conformance
