// `skinref golden update` without its command line: every selected case evaluated by the reference at each of
// its times and written under GOLDEN_DIR/cases/NAME/ (golden_update.cc says how the set is staged and swapped in
// atomically). The command line (tools/cli/cmd_golden.cc) parses the options into GoldenUpdateSettings.
//
// Contract: update_goldens() prints one line per case (a progress line on a terminal) and a summary; cases that
// fail keep their old files and make it throw std::runtime_error naming them, after the others went in.
#pragma once

#include <optional>
#include <string>

namespace skinref::golden {

struct GoldenUpdateSettings {
  std::string golden_dir;
  std::optional<std::string> filter;  // fnmatch glob over case names; none: every case
  int threads = 1;
};

void update_goldens(const GoldenUpdateSettings& settings);

}  // namespace skinref::golden
