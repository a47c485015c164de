#include "engine_process/engine_process.h"

#include "engine_process/stop_signals.h"
#include "engine_process/stray_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace skinref::engine_process {
namespace {

// How often the runner looks whether a query has ended or the run was stopped: short against a query's time,
// long against a system call.
constexpr auto kPollInterval = std::chrono::milliseconds(5);

// What the child needs, prepared before the fork: after it, only async-signal-safe calls.
struct ChildSetup {
  const char* command = nullptr;
  const char* work_dir = nullptr;  // null: the runner's
  std::vector<char*> environment;  // the runner's, with the query's tag
  int log_fd = -1;
};

[[noreturn]] void exec_child(const ChildSetup& setup) {
  setpgid(0, 0);
  dup2(setup.log_fd, STDOUT_FILENO);
  dup2(setup.log_fd, STDERR_FILENO);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  if (setup.work_dir != nullptr && chdir(setup.work_dir) != 0) {
    constexpr char kMessage[] = "skinref: cannot enter the query's working folder\n";
    [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    _exit(126);
  }
  char* const argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), const_cast<char*>(setup.command), nullptr};
  execve("/bin/sh", argv, setup.environment.data());
  _exit(127);
}

// Waits for `child` until it exits, its time is up or the run is stopped; then its group is killed.
ProcessOutcome wait_for_query(pid_t child, double timeout_seconds, std::chrono::steady_clock::time_point start) {
  ProcessOutcome outcome;
  const auto limit = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(timeout_seconds));
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error("waitpid failed: " + std::string(std::strerror(errno)));
    const int stop = stop_signal();
    if (stop != 0 || std::chrono::steady_clock::now() >= limit) {
      kill(-child, SIGKILL);
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      outcome.end = stop != 0 ? ProcessEnd::Stopped : ProcessEnd::TimedOut;
      outcome.code = stop;
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The query's own process ended; anything it left running in its group is stopped too.
  kill(-child, SIGKILL);
  if (outcome.end != ProcessEnd::Exited) return outcome;
  if (WIFSIGNALED(status)) {
    outcome.end = ProcessEnd::Signaled;
    outcome.code = WTERMSIG(status);
  } else {
    outcome.code = WEXITSTATUS(status);
  }
  return outcome;
}

}  // namespace

ProcessOutcome run_engine_command(const std::string& command, const std::string& log_path, double timeout_seconds,
                                  const std::string& work_dir) {
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) throw std::runtime_error(log_path + ": cannot create the query's log: " + std::strerror(errno));
  const QueryTag tag = new_query_tag();
  ChildSetup setup;
  setup.command = command.c_str();
  setup.work_dir = work_dir.empty() ? nullptr : work_dir.c_str();
  setup.log_fd = log_fd;
  for (char** entry = environ; *entry != nullptr; ++entry)
    if (std::strncmp(*entry, "SKINREF_QUERY=", 14) != 0) setup.environment.push_back(*entry);
  setup.environment.push_back(const_cast<char*>(tag.environment.c_str()));
  setup.environment.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  LiveQueries& live = LiveQueries::instance();
  std::unique_lock<std::mutex> lock = live.lock();  // a scan must not see the child before it is registered
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    lock.unlock();
    close(log_fd);
    throw std::runtime_error("cannot start an engine query: fork failed: " + std::string(std::strerror(error)));
  }
  if (child == 0) exec_child(setup);
  live.add(child);
  lock.unlock();
  close(log_fd);
  setpgid(child, child);  // also here: the child may not have run yet when a kill must reach its group
  ProcessOutcome outcome = wait_for_query(child, timeout_seconds, start);
  lock.lock();
  live.remove(child);
  lock.unlock();
  outcome.strays = kill_strays(tag, child);
  return outcome;
}

std::string describe_outcome(const ProcessOutcome& outcome, double timeout_seconds) {
  switch (outcome.end) {
    case ProcessEnd::Exited:
      // A shell reports a child that a signal killed as 128 + the signal's number.
      if (outcome.code > 128 && outcome.code < 128 + 32)
        return "exit " + std::to_string(outcome.code) + " (the shell's code for signal " +
               std::to_string(outcome.code - 128) + ", " + strsignal(outcome.code - 128) + ")";
      return "exit " + std::to_string(outcome.code);
    case ProcessEnd::Signaled:
      return "killed by signal " + std::to_string(outcome.code) + " (" + strsignal(outcome.code) + ")";
    case ProcessEnd::TimedOut: {
      std::string seconds = std::to_string(timeout_seconds);
      seconds.erase(seconds.find_last_not_of('0') + 1);
      if (!seconds.empty() && seconds.back() == '.') seconds.pop_back();
      return "timed out after " + seconds + " s";
    }
    case ProcessEnd::Stopped:
      return std::string("stopped by SIG") + sigabbrev_np(outcome.code) + " to the runner";
  }
  return "?";
}

std::string describe_strays(size_t strays) {
  if (strays == 0) return "";
  return "; " + std::to_string(strays) + (strays == 1 ? " process that" : " processes that") +
         " left the query's process group " + (strays == 1 ? "was" : "were") + " killed at its end";
}

}  // namespace skinref::engine_process
