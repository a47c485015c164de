// The engines' conformance table of docs/engines.md, made from their committed expectations
// (conformance/expectations.h): one row per case of the suite, in the suite's order, with its section and one
// column per engine ("pass", "fail: CLASS: CONVENTIONS", "crash", "refused", "bad output"; "pass; normals wrong:
// CAUSE" where only the geometry tier fails), then each engine's two tiers and causes: the departures and
// outcomes behind its cases that do not pass, and those behind wrong normals where the positions pass, each once
// with its cases.
//
// Contract:
// - engines_table() gives the Markdown table, header included, ending with a newline; an engine without an
//   expectation for a case shows "–" there. After a blank line, a bullet per engine: "**ENGINE**: conformant to
//   glTF 2.0 on N of M cases; normals correct on K of L. C causes behind the F cases that do not pass:", a
//   sub-bullet per cause, the most cases first ("`fail: CAUSE` (K): `id`, ..."), then the geometry tier's causes
//   under a sub-bullet of their own. L counts the cases whose normals were judged (expectations of version 1
//   judge none).
// - table_in_document() finds the table between the lines kTableBegin and kTableEnd of a document (the markers
//   themselves excluded), or throws InputError naming the document when either is missing.
#pragma once

#include "conformance/expectations.h"

#include <string>
#include <vector>

namespace skinref::conformance {

inline constexpr const char* kTableBegin = "<!-- engines-table: skinref conformance table -->";
inline constexpr const char* kTableEnd = "<!-- /engines-table -->";

std::string engines_table(const std::vector<Expectations>& engines);

// A case's cell in the table: "pass", "fail: CLASS: CONVENTIONS" (or "fail: no known departure"), "crash", ...,
// with "; normals wrong: CAUSE" where only the geometry tier fails.
std::string expectation_cell(const ExpectedCase& expected);

// An engine's two tiers over the cases its expectations list.
struct TierCounts {
  size_t cases = 0, passed = 0;                // the specification's tier
  size_t normals_judged = 0, normals_correct = 0;  // the geometry tier
};
TierCounts tier_counts(const Expectations& engine);
std::string table_in_document(const std::string& document_text, const std::string& document_path);

}  // namespace skinref::conformance
