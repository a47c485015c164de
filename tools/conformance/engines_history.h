// The engines' history over their releases (docs/engines.md, "Over their releases"): one engine's committed or
// scratch expectations (conformance/expectations.h), one file per release, oldest first, made by
// `./run engines --history`, which plays the current suite with each release.
//
// Contract:
// - engines_history() groups the files by engine name (the expectations' "engine" up to its last space, which
//   begins the version) in the order first given, and writes for each a heading ("### three.js") and a table:
//   "| release | glTF 2.0 | normals | what changed from the release before |", one row per release in the
//   order given. The two tiers read "N of M" (conformance/engines_table.h's counts); the changes list each case
//   whose cell differs from the release before ("`id`: fail: S3: step=linear → pass"), each once, in the suite's
//   order, "–" when nothing changed, "(the first release run)" on the first row. A cell names the departure,
//   so each change says its cause.
// - section_in_document() finds the text between two marker lines of a document (the markers excluded), or
//   throws InputError naming the document when either is missing.
#pragma once

#include "conformance/expectations.h"

#include <string>
#include <vector>

namespace skinref::conformance {

inline constexpr const char* kHistoryBegin = "<!-- engines-history: skinref conformance history -->";
inline constexpr const char* kHistoryEnd = "<!-- /engines-history -->";

std::string engines_history(const std::vector<Expectations>& releases);

std::string section_in_document(const std::string& document_text, const std::string& document_path,
                                const std::string& begin, const std::string& end);

}  // namespace skinref::conformance
