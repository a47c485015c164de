#include "engine_process/stop_signals.h"

#include <unistd.h>

#include <atomic>

namespace skinref::engine_process {
namespace {

constexpr int kStopSignals[3] = {SIGINT, SIGTERM, SIGHUP};

std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the stop flag is set from a signal handler");

extern "C" void on_stop_signal(int signal) {
  int expected = 0;
  if (!g_stop_signal.compare_exchange_strong(expected, signal)) _exit(128 + signal);
}

}  // namespace

StopSignals::StopSignals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &action, &previous_[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &previous_[i], nullptr);
}

int stop_signal() { return g_stop_signal.load(); }

int stop_exit_status(int signal) { return 128 + signal; }

void request_stop(int signal) { g_stop_signal.store(signal); }

void clear_stop() { g_stop_signal.store(0); }

}  // namespace skinref::engine_process
