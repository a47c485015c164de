// One engine query as a child process: a shell command line run under /bin/sh in a process group of its own,
// its stdout and stderr written to a log file, killed with its whole group when it outlives its time limit.
// An engine that crashes or hangs is one outcome among others, never the runner's end.
//
// Contract:
// - run_engine_command() forks, and the child only makes async-signal-safe calls before exec (the strings are
//   prepared before the fork), so it is safe from the runner's worker threads.
// - The outcome says how the command ended: exit status, the signal that killed it, or the time limit (then
//   SIGKILL went to its process group, children included). `seconds` is the wall time until it ended.
// - A failure to start (no fork, no log file) throws std::runtime_error; nothing else throws.
#pragma once

#include <string>

namespace skinref::conformance {

enum class ProcessEnd { Exited, Signaled, TimedOut };

struct ProcessOutcome {
  ProcessEnd end = ProcessEnd::Exited;
  int code = 0;  // the exit status, or the signal number
  double seconds = 0.0;
};

ProcessOutcome run_engine_command(const std::string& command, const std::string& log_path, double timeout_seconds);

// "exit 3", "killed by signal 11 (Segmentation fault)", "timed out after 30 s".
std::string describe_outcome(const ProcessOutcome& outcome, double timeout_seconds);

// `text` quoted for /bin/sh: in single quotes, each ' written as '\''.
std::string shell_quote(const std::string& text);

}  // namespace skinref::conformance
