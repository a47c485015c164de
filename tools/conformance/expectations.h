// An engine's committed expectations over the conformance suite: what it is known to do on each case (pass, or
// fail with a named departure, or crash), so that a CI job fails when the engine changes (a new departure, or
// one that went away) rather than on the departures its team already knows (docs/engines.md).
//
// Contract:
// - The file: {"format": "skinref-conformance-expectations", "version": 2, "engine": "NAME VERSION",
//   "cases": {"ID": {"outcome": "pass"|"fail"|"crash"|"refused"|"bad output"|..., "departure": "L3: ...",
//   "geometry": "correct"|"wrong"|"not judged", "geometry_departure": "N1: ..."}, ...}}, every case of the suite
//   once; "departure" only with "fail", as the verdict names it ("" when nothing explains it); "geometry" is the
//   second tier (verdict.h), "geometry_departure" only with "wrong". Version 1 files (no geometry tier) still
//   read, and their geometry is not compared.
// - expectations_json() writes what `verdicts` are; read_expectations() reads a file back, refusing (InputError:
//   the file and the JSON pointer) a wrong format, an unknown case, an unknown outcome or a field of the wrong
//   type.
// - expectation_differences() lists, one line per case judged, where its verdict departs from the expectations:
//   another outcome, another departure, another geometry tier or its departure, or a case the expectations do
//   not list (a case new to the suite). A
//   crash or bad output is compared by its outcome alone (its message names a log). Cases that did not run
//   (--filter) are not compared.
#pragma once

#include "conformance/runner.h"
#include "conformance/verdict.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace skinref::conformance {

struct ExpectedCase {
  std::string outcome;    // case_outcome_name()
  std::string departure;  // with "fail": the verdict's departure
  std::string geometry;   // geometry_outcome_name(); empty in a version 1 file (not compared)
  std::string geometry_departure;  // with "wrong"
};

struct Expectations {
  std::string engine;
  std::map<std::string, ExpectedCase> cases;  // by case id
};

nlohmann::ordered_json expectations_json(const RunRecord& run, const std::vector<CaseVerdict>& verdicts);
Expectations read_expectations(const std::string& path);
std::vector<std::string> expectation_differences(const Expectations& expected, const std::vector<CaseVerdict>& verdicts);

}  // namespace skinref::conformance
