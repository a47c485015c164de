// Runs the skinref executable (SKINREF_CLI, set by CMakeLists.txt) as a user would, through the shell, and
// captures its exit status, stdout and stderr. Shared by the CLI tests of every suite.
#pragma once

#include "support/temp_dir.h"

#include <cstdlib>
#include <string>
#include <vector>

#include <sys/wait.h>

#ifndef SKINREF_CLI
#error "SKINREF_CLI must name the skinref executable (set by CMakeLists.txt)"
#endif

namespace skinref::test {

// The command line's exit codes, as the project's contract states them (a test's own expectation, not the
// tool's constants): 0 success, 1 a comparison that failed, 2 bad input or usage.
namespace exit_codes {
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitComparisonFailed = kExitFailed;
inline constexpr int kExitBadInput = 2;
}  // namespace exit_codes

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

// Single-quoted for /bin/sh, embedded quotes included.
inline std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// stdout and stderr go through files in `captures` (which the command never writes into otherwise). The
// test runner's own sharding variables are not passed on: `skinref golden check` takes them as its default
// --shard (docs/ci.md), so a test run as one of gtest's shards would otherwise check a part of its cases.
inline CliRun run_cli(const TempDir& captures, const std::vector<std::string>& args) {
  std::string command =
      "env -u GTEST_SHARD_INDEX -u GTEST_TOTAL_SHARDS -u TEST_SHARD_INDEX -u TEST_TOTAL_SHARDS "
      "-u TEST_SHARD_STATUS_FILE " +
      shell_quoted(SKINREF_CLI);
  for (const std::string& arg : args) command += " " + shell_quoted(arg);
  command += " >" + shell_quoted(captures.file("stdout.txt")) + " 2>" + shell_quoted(captures.file("stderr.txt"));
  const int status = std::system(command.c_str());
  CliRun run;
  run.exit_code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  run.out = read_bytes(captures.file("stdout.txt"));
  run.err = read_bytes(captures.file("stderr.txt"));
  return run;
}

}  // namespace skinref::test
