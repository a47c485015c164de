#include "conformance/engines_history.h"

#include "conformance/engines_table.h"
#include "core/input_error.h"

#include <algorithm>

namespace skinref::conformance {
namespace {

std::string engine_name(const Expectations& e) {
  const size_t space = e.engine.rfind(' ');
  return space == std::string::npos ? e.engine : e.engine.substr(0, space);
}

std::string release_of(const Expectations& e) {
  const size_t space = e.engine.rfind(' ');
  return space == std::string::npos ? std::string("?") : e.engine.substr(space + 1);
}

std::string cell_of(const Expectations& e, const std::string& id) {
  const auto found = e.cases.find(id);
  return found == e.cases.end() ? "not run" : expectation_cell(found->second);
}

// "`id`: BEFORE → AFTER; ..." for each case whose cell differs, in the suite's order; "–" when none does.
std::string changes(const Expectations& before, const Expectations& after) {
  std::string text;
  for (const ConformanceCase& c : conformance_cases()) {
    const std::string was = cell_of(before, c.id), now = cell_of(after, c.id);
    if (was != now) text += (text.empty() ? "" : "; ") + ("`" + c.id + "`: " + was + " → " + now);
  }
  return text.empty() ? "–" : text;
}

std::string engine_rows(const std::vector<const Expectations*>& releases) {
  std::string text = "### " + engine_name(*releases.front()) + "\n\n" +
                     "| release | glTF 2.0 | normals | what changed from the release before |\n|---|---|---|---|\n";
  for (size_t r = 0; r < releases.size(); ++r) {
    const TierCounts n = tier_counts(*releases[r]);
    text += "| " + release_of(*releases[r]) + " | " + std::to_string(n.passed) + " of " + std::to_string(n.cases) +
            " | " + std::to_string(n.normals_correct) + " of " + std::to_string(n.normals_judged) + " | " +
            (r == 0 ? std::string("(the first release run)") : changes(*releases[r - 1], *releases[r])) + " |\n";
  }
  return text;
}

}  // namespace

std::string engines_history(const std::vector<Expectations>& releases) {
  std::vector<std::string> names;
  for (const Expectations& e : releases)
    if (std::find(names.begin(), names.end(), engine_name(e)) == names.end()) names.push_back(engine_name(e));
  std::string text;
  for (const std::string& name : names) {
    std::vector<const Expectations*> of_engine;
    for (const Expectations& e : releases)
      if (engine_name(e) == name) of_engine.push_back(&e);
    text += (text.empty() ? "" : "\n") + engine_rows(of_engine);
  }
  return text;
}

std::string section_in_document(const std::string& text, const std::string& path, const std::string& begin_marker,
                                const std::string& end_marker) {
  const size_t begin = text.find(begin_marker);
  const size_t end = text.find(end_marker);
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw InputError(path, "", "the lines " + begin_marker + " and " + end_marker + " around the section");
  const size_t first = text.find('\n', begin);
  return first == std::string::npos || first + 1 > end ? std::string() : text.substr(first + 1, end - first - 1);
}

}  // namespace skinref::conformance
