// `skinref golden check` without its command line: every output of every selected case computed by the chosen
// backend and compared with its golden files (golden_check.cc says how, per backend). The command line
// (tools/cli/cmd_golden.cc) parses the options into GoldenCheckSettings and maps the outcome to an exit status.
//
// Contract: check_goldens() prints one line per case that is not a plain pass (and, on a terminal, a progress
// line on stderr) and a summary line to stdout; it writes the HTML report (report_dir, which must exist) and the
// JUnit file (junit_path, atomically) when given, creating report_dir first. A missing golden file is a failure, never created. Corpus
// cases are skipped, with a line, when the corpus is absent. A filter that matches no case, an unreadable
// manifest or a backend that cannot be made (an unknown Vulkan device) throws before any case runs.
#pragma once

#include "backend/backend.h"
#include "ci_report/ci_reports.h"

#include <optional>
#include <string>

namespace skinref::golden {

struct GoldenCheckSettings {
  BackendOptions backend;  // reference: exact comparison; cpu, vulkan: within derived bounds
  std::string golden_dir;
  std::optional<std::string> filter;  // fnmatch glob over case names; none: every case
  std::optional<std::string> report_dir;
  std::optional<std::string> junit_path;
  int threads = 1;  // cases at once (vulkan: 1)
  Shard shard;
  std::string command_line;  // for the report's header: "skinref golden check ..."
};

enum class GoldenCheckOutcome {
  AllPassed,   // every output passed or was skipped
  SomeFailed,  // an output failed or its golden is missing
  SetupError,  // a case could not be set up (an unknown animation or joint, an unreadable recipe)
};

GoldenCheckOutcome check_goldens(const GoldenCheckSettings& settings);

}  // namespace skinref::golden
