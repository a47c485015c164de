// The report card of one engine over the suite: "conformant to glTF 2.0 on N of M cases; normals correct on K of
// L" (the two tiers, verdict.h), a summary per specification section, the causes, then every case with its rule,
// outcome, margin, named departure and normals, failures first.
//
// Contract:
// - write_report_card() writes, under `dir`, report.html, report.md (Markdown), report.json and junit.xml (one
//   test case per suite case: a crash or bad output is an error, a failed case a failure), each atomically.
// - The HTML (write_report_html()) shows each failed case's reference and engine at its worst time rendered
//   side by side (one camera framing both) with their difference as a heat map (verify/image_compare.h), in
//   images/ID.png; each case links to its rule, quoted on the page, and the rule to the specification's
//   section. A picture that cannot be drawn (an engine's dump that does not match the model) is replaced by
//   the reason.
// - Order: failed, crashed and bad-output cases first (by section, then id), then the passes whose normals are
//   wrong, then the other passes; the summary lists sections in the suite's order. Every format lists the causes
//   (causes_of()) after the sections, each once with its cases, so that one departure behind several failures
//   reads as one, then the geometry tier's (normals_causes_of()). The rule quoted for a case whose normals alone
//   are wrong is kGeometryRule (glTF is silent there) before the positions' sentence.
// - The engine's name and version and the run's commands head every format; an engine profile that is not empty
//   follows the summary line (the JSON always holds it), and each case's `given_profile`.
#pragma once

#include "conformance/verdict.h"

#include <ostream>
#include <string>
#include <vector>

namespace skinref::conformance {

void write_report_card(const RunRecord& run, const std::vector<CaseVerdict>& verdicts, const std::string& dir,
                       const EngineProfile& profile = EngineProfile{});
void write_report_html(const RunRecord& run, const std::vector<CaseVerdict>& verdicts, const std::string& dir,
                       const EngineProfile& profile = EngineProfile{});

// A cause of the run's failures, once, with the cases it explains: a named departure ("S2: rotation=nlerp"), "no
// known departure (worst: normal)" for failed cases diagnose names nothing for, by their worst attribute, or the
// outcome of the cases that gave no dump to judge ("refused", "crash", "bad output", "input changed", "not run").
// In order of the most cases first, then of the name.
struct Cause {
  std::string name;
  std::vector<std::string> cases;
};
std::vector<Cause> causes_of(const std::vector<CaseVerdict>& verdicts);

// The geometry tier's causes: of the cases that pass whose normals or tangents are wrong, by the departure named in
// `geometry` ("no known departure (worst: normal)" where none is), in the same order.
std::vector<Cause> normals_causes_of(const std::vector<CaseVerdict>& verdicts);

// Whether the case passes the specification and only its geometry tier (normals, tangents) is wrong.
bool only_normals_wrong(const CaseVerdict& v);

// The order of the cards' cases: 0 for a case that does not pass, 1 for a pass with wrong normals, 2 for the rest.
int failures_rank(const CaseVerdict& v);

// A case's normals: "correct", "wrong: DEPARTURE" (with its detail when asked), "in the rule" where the case's rule
// covers them, "-" where they were not judged.
std::string normals_text(const CaseVerdict& v, bool with_detail);

// "Engine profile (what departs across the run, each case judged given it): ..." (profile/engine_profile.h).
std::string profile_line(const EngineProfile& profile);

// "three.js r170: conformant to glTF 2.0 on 20 of 26 cases (4 fail, 1 crash, 1 bad output); normals correct on 18
// of 24": the specification's tier, then the geometry tier over the cases whose normals were judged.
std::string summary_line(const RunRecord& run, const std::vector<CaseVerdict>& verdicts);

void print_report_card(const RunRecord& run, const std::vector<CaseVerdict>& verdicts, std::ostream& out,
                       const EngineProfile& profile = EngineProfile{});

}  // namespace skinref::conformance
