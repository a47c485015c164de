#include "conformance/cases.h"

#include <set>
#include <stdexcept>

namespace skinref::conformance {
namespace {

// A case's own consistency: what conformance_case.h promises of every case.
void check_case(const ConformanceCase& c, std::set<std::string>& ids) {
  const auto fail = [&c](const std::string& what) {
    throw std::logic_error("conformance case " + c.id + ": " + what);
  };
  if (c.id.empty() || c.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos)
    fail("an id of [a-z0-9-]");
  if (!ids.insert(c.id).second) fail("a second case with this id");
  if (c.title.empty() || c.section.empty() || c.rule.empty() || !c.build) fail("a title, section, rule and build");
  if (c.times.empty()) fail("at least one time");
  for (size_t i = 0; i < c.times.size(); ++i) {
    if (double(float(c.times[i])) != c.times[i]) fail("times exactly representable in float32");
    if (i > 0 && !(c.times[i] > c.times[i - 1])) fail("strictly increasing times");
  }
}

std::vector<ConformanceCase> make_cases() {
  std::vector<ConformanceCase> cases;
  add_accessor_cases(cases);
  add_skin_cases(cases);
  add_hierarchy_cases(cases);
  add_influence_cases(cases);
  add_morph_cases(cases);
  add_animation_cases(cases);
  std::set<std::string> ids;
  for (const ConformanceCase& c : cases) check_case(c, ids);
  return cases;
}

}  // namespace

const std::vector<ConformanceCase>& conformance_cases() {
  static const std::vector<ConformanceCase> cases = make_cases();
  return cases;
}

}  // namespace skinref::conformance
