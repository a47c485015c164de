// Headless Chromium for the tests of the HTML reports (golden check's, the conformance report card's): the
// executable on PATH, and a page loaded once for its DOM (after its scripts ran) and once for a screenshot.
#pragma once

#include "support/cli_runner.h"
#include "support/temp_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace skinref::test {

// The chromium executable on PATH, or "" when there is none.
inline std::string find_chromium() {
  const char* path = std::getenv("PATH");
  const std::string paths = path != nullptr ? path : "";
  size_t start = 0;
  while (start <= paths.size()) {
    const size_t end = std::min(paths.find(':', start), paths.size());
    const std::filesystem::path candidate = std::filesystem::path(paths.substr(start, end - start)) / "chromium";
    if (!paths.substr(start, end - start).empty() && std::filesystem::is_regular_file(candidate) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
    start = end + 1;
  }
  return "";
}

inline const char* kChromiumMissing =
    "chromium is not installed (not on PATH): the report tests open the HTML reports in headless Chromium; "
    "'./run test' installs Debian's chromium package (or: apt-get install --no-install-recommends chromium)";

// Loads `page` in headless Chromium with `mode`, "--dump-dom" (stdout to `output`) or "--screenshot=FILE" (the
// PNG to FILE; `output` takes stdout), giving its scripts 5 s of virtual time; the exit status.
inline int run_headless_chromium(const std::string& chromium, const TempDir& browser, const std::string& page,
                                 const std::string& mode, const std::string& output) {
  const std::string command = shell_quoted(chromium) + " --headless --no-sandbox --disable-gpu --hide-scrollbars" +
                              " --window-size=1200,1600 --user-data-dir=" + shell_quoted(browser.file("profile")) +
                              " --virtual-time-budget=5000 " + mode + " " + shell_quoted("file://" + page) + " >" +
                              shell_quoted(output) + " 2>" + shell_quoted(browser.file("chromium.log"));
  return std::system(command.c_str());
}

}  // namespace skinref::test
