#include "conformance/expectations.h"

#include "core/input_error.h"

#include <fstream>
#include <set>
#include <sstream>

namespace skinref::conformance {
namespace {

using Json = nlohmann::ordered_json;

const char* const kFormat = "skinref-conformance-expectations";
constexpr int kExpectationsVersion = 2;  // 1: without the geometry tier

std::string engine_label(const RunRecord& run) {
  return run.engine.version.empty() ? run.engine.name : run.engine.name + " " + run.engine.version;
}

const Json& require(const Json& object, const char* key, bool (Json::*is)() const, const char* what,
                    const std::string& path, const std::string& pointer) {
  if (!object.is_object() || !object.contains(key) || !(object.at(key).*is)())
    throw InputError(path, pointer + "/" + key, what);
  return object.at(key);
}

const std::set<std::string> kGeometryOutcomes = {"correct", "wrong", "not judged"};

void read_geometry(const Json& entry, const std::string& path, const std::string& pointer, ExpectedCase& expected) {
  expected.geometry = require(entry, "geometry", &Json::is_string, "correct, wrong or not judged", path, pointer);
  if (!kGeometryOutcomes.count(expected.geometry))
    throw InputError(path, pointer + "/geometry", "correct, wrong or not judged");
  if (entry.contains("geometry_departure"))
    expected.geometry_departure =
        require(entry, "geometry_departure", &Json::is_string, "a departure's name", path, pointer);
}

// Where the case's geometry tier departs from the expectation, or "".
std::string geometry_difference(const ExpectedCase& e, const CaseVerdict& v) {
  if (e.geometry.empty()) return "";
  const std::string geometry = geometry_outcome_name(v.geometry.outcome);
  const std::string& id = v.definition->id;
  if (e.geometry != geometry)
    return id + ": normals " + geometry + (v.geometry.departure.empty() ? "" : " (" + v.geometry.departure + ")") +
           ", expected " + e.geometry + (e.geometry_departure.empty() ? "" : " (" + e.geometry_departure + ")");
  if (v.geometry.outcome == GeometryOutcome::Wrong && e.geometry_departure != v.geometry.departure)
    return id + ": normals wrong with '" + v.geometry.departure + "', expected '" + e.geometry_departure + "'";
  return "";
}

}  // namespace

Json expectations_json(const RunRecord& run, const std::vector<CaseVerdict>& verdicts) {
  Json cases = Json::object();
  for (const CaseVerdict& v : verdicts) {
    Json entry = {{"outcome", case_outcome_name(v.outcome)}};
    if (v.outcome == CaseOutcome::Failed) entry["departure"] = v.departure;
    entry["geometry"] = geometry_outcome_name(v.geometry.outcome);
    if (v.geometry.outcome == GeometryOutcome::Wrong) entry["geometry_departure"] = v.geometry.departure;
    cases[v.definition->id] = std::move(entry);
  }
  return {{"format", kFormat}, {"version", kExpectationsVersion}, {"engine", engine_label(run)}, {"cases", std::move(cases)}};
}

Expectations read_expectations(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "a readable expectations file (" + std::string(kFormat) + ")");
  std::stringstream text;
  text << in.rdbuf();
  const Json document = Json::parse(text.str(), nullptr, false);
  if (document.is_discarded()) throw InputError(path, "", "JSON text");
  if (require(document, "format", &Json::is_string, "\"skinref-conformance-expectations\"", path, "") != kFormat)
    throw InputError(path, "/format", std::string(kFormat));
  const Json& version = require(document, "version", &Json::is_number_integer, "version 1 or 2", path, "");
  if (version != 1 && version != kExpectationsVersion) throw InputError(path, "/version", "version 1 or 2");
  Expectations expectations;
  expectations.engine = require(document, "engine", &Json::is_string, "the engine's name", path, "");
  std::set<std::string> ids;
  for (const ConformanceCase& c : conformance_cases()) ids.insert(c.id);
  static const std::set<std::string> kOutcomes = {"pass", "fail", "crash", "refused", "bad output", "input changed", "not run"};
  for (const auto& [id, entry] : require(document, "cases", &Json::is_object, "an object of cases", path, "").items()) {
    const std::string pointer = "/cases/" + id;
    if (!ids.count(id)) throw InputError(path, pointer, "a case of the suite");
    ExpectedCase expected;
    expected.outcome = require(entry, "outcome", &Json::is_string, "pass, fail, crash, refused, bad output, input changed or not run", path, pointer);
    if (!kOutcomes.count(expected.outcome)) throw InputError(path, pointer + "/outcome", "pass, fail, crash, refused, bad output, input changed or not run");
    if (entry.contains("departure"))
      expected.departure = require(entry, "departure", &Json::is_string, "a departure's name", path, pointer);
    if (version == kExpectationsVersion) read_geometry(entry, path, pointer, expected);
    expectations.cases[id] = expected;
  }
  return expectations;
}

std::vector<std::string> expectation_differences(const Expectations& expected, const std::vector<CaseVerdict>& verdicts) {
  std::vector<std::string> differences;
  for (const CaseVerdict& v : verdicts) {
    const std::string& id = v.definition->id;
    const std::string outcome = case_outcome_name(v.outcome);
    const auto found = expected.cases.find(id);
    if (found == expected.cases.end()) {
      differences.push_back(id + ": " + outcome + ", and the expectations do not list the case");
      continue;
    }
    const ExpectedCase& e = found->second;
    if (e.outcome != outcome)
      differences.push_back(id + ": " + outcome + (v.departure.empty() ? "" : " (" + v.departure + ")") +
                            ", expected " + e.outcome + (e.departure.empty() ? "" : " (" + e.departure + ")"));
    else if (v.outcome == CaseOutcome::Failed && e.departure != v.departure)
      differences.push_back(id + ": fails with '" + v.departure + "', expected '" + e.departure + "'");
    const std::string geometry = geometry_difference(e, v);
    if (!geometry.empty()) differences.push_back(geometry);
  }
  return differences;
}

}  // namespace skinref::conformance
