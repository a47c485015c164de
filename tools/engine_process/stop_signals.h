// Stopping a run from outside: SIGINT (Ctrl-C), SIGTERM and SIGHUP to the runner. Engine queries run in
// process groups of their own, so the terminal's Ctrl-C does not reach them; were the runner to die at once,
// they would run on as orphans and nothing would be written. Instead the signal is noted, every running query
// sees it within its poll interval and kills its process group, and the runner writes what finished.
//
// Contract:
// - StopSignals: while one lives, SIGINT, SIGTERM and SIGHUP set the stop flag (the first signal's number);
//   a second signal while the flag is set ends the process at once with 128 + its number (a user who presses
//   Ctrl-C twice means it). Its destructor restores the handlers that were there before. One at a time.
// - stop_signal(): the signal that asked the run to stop, 0 while none did (async-signal-safe to set, any
//   thread may read).
// - stop_exit_status(signal): the exit status for a run stopped by `signal`, 128 + its number (130 for SIGINT,
//   143 for SIGTERM, 129 for SIGHUP), as a shell reports a process that signal killed.
#pragma once

#include <signal.h>

namespace skinref::engine_process {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction previous_[3];
};

int stop_signal();

int stop_exit_status(int signal);

// For tests and embedders that drive the runner without signals: as if `signal` had arrived.
void request_stop(int signal);
// The flag cleared, for a runner that starts again in the same process.
void clear_stop();

}  // namespace skinref::engine_process
