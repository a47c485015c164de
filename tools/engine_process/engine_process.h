// One engine query as a child process: a shell command line run under /bin/sh in a process group of its own,
// in a working folder of its own, its stdout and stderr written to a log file, killed with its whole group
// when it outlives its time limit or the run is stopped, and with every process it left outside the group
// (stray_processes.h) when it ends. An engine that crashes, hangs or daemonizes is one outcome among others,
// never the runner's end.
//
// Contract:
// - run_engine_command() forks, and the child only makes async-signal-safe calls before exec (the strings and
//   the environment, the query's tag added, are prepared before the fork), so it is safe from the runner's
//   worker threads. The child's stdin is /dev/null; its working folder is `work_dir` (the runner's own when
//   empty).
// - The outcome says how the command ended: exit status, the signal that killed it, the time limit (then
//   SIGKILL went to its process group, children included), or a stop signal to the runner (stop_signals.h:
//   the same kill, at once). `seconds` is the wall time until it ended; `strays` how many processes outside
//   the group had to be killed at its end.
// - A failure to start (no fork, a log file that cannot be created) throws std::runtime_error naming the file
//   and the reason; nothing else throws.
#pragma once

#include <cstddef>
#include <string>

namespace skinref::engine_process {

enum class ProcessEnd { Exited, Signaled, TimedOut, Stopped };

struct ProcessOutcome {
  ProcessEnd end = ProcessEnd::Exited;
  int code = 0;  // the exit status, or the signal number (Stopped: the runner's stop signal)
  double seconds = 0.0;
  size_t strays = 0;
};

ProcessOutcome run_engine_command(const std::string& command, const std::string& log_path, double timeout_seconds,
                                  const std::string& work_dir = "");

// "exit 3", "killed by signal 11 (Segmentation fault)", "timed out after 30 s", "stopped by SIGINT to the runner".
std::string describe_outcome(const ProcessOutcome& outcome, double timeout_seconds);

// "; 2 processes that left the query's process group were killed at its end", or "" when none had to be.
std::string describe_strays(size_t strays);

}  // namespace skinref::engine_process
