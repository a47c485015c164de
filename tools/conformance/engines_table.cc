#include "conformance/engines_table.h"

#include "core/input_error.h"

namespace skinref::conformance {
namespace {

std::string cell(const Expectations& engine, const std::string& id) {
  const auto found = engine.cases.find(id);
  if (found == engine.cases.end()) return "–";
  const ExpectedCase& expected = found->second;
  if (expected.outcome != "fail") return expected.outcome;
  return "fail: " + (expected.departure.empty() ? std::string("no known departure") : expected.departure);
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
