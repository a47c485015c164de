#include "conformance/engines_table.h"

#include "core/input_error.h"

#include <algorithm>

namespace skinref::conformance {
namespace {

std::string cell(const Expectations& engine, const std::string& id) {
  const auto found = engine.cases.find(id);
  if (found == engine.cases.end()) return "–";
  const ExpectedCase& expected = found->second;
  if (expected.outcome != "fail") return expected.outcome;
  return "fail: " + (expected.departure.empty() ? std::string("no known departure") : expected.departure);
}

// "- **ENGINE**: N causes behind M cases that do not pass:" and a line per cause, the most cases first.
std::string engine_causes(const Expectations& engine) {
  std::vector<std::pair<std::string, std::vector<std::string>>> causes;
  for (const ConformanceCase& c : conformance_cases()) {
    const std::string outcome = cell(engine, c.id);
    if (outcome == "pass" || outcome == "–") continue;
    auto found = std::find_if(causes.begin(), causes.end(), [&](const auto& cause) { return cause.first == outcome; });
    if (found == causes.end()) found = causes.insert(causes.end(), {outcome, {}});
    found->second.push_back(c.id);
  }
  std::stable_sort(causes.begin(), causes.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  size_t cases = 0;
  for (const auto& cause : causes) cases += cause.second.size();
  std::string text = "- **" + engine.engine + "**: " + std::to_string(causes.size()) +
                     (causes.size() == 1 ? " cause" : " causes") + " behind " + std::to_string(cases) +
                     (cases == 1 ? " case" : " cases") + " that do not pass" + (causes.empty() ? "\n" : ":\n");
  for (const auto& [name, ids] : causes) {
    text += "  - `" + name + "` (" + std::to_string(ids.size()) + "):";
    for (size_t i = 0; i < ids.size(); ++i) text += (i ? ", `" : " `") + ids[i] + "`";
    text += "\n";
  }
  return text;
}

}  // namespace

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
