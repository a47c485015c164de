#include "conformance/engine_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace skinref::conformance {
namespace {

// How often the runner looks whether a query has ended: short against a query's time, long against a
// system call.
constexpr auto kPollInterval = std::chrono::milliseconds(5);

[[noreturn]] void exec_child(const char* command, int log_fd) {
  setpgid(0, 0);
  dup2(log_fd, STDOUT_FILENO);
  dup2(log_fd, STDERR_FILENO);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  execl("/bin/sh", "sh", "-c", command, static_cast<char*>(nullptr));
  _exit(127);
}

}  // namespace

ProcessOutcome run_engine_command(const std::string& command, const std::string& log_path, double timeout_seconds) {
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) throw std::runtime_error(log_path + ": cannot create the query's log: " + std::strerror(errno));
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child < 0) {
    close(log_fd);
    throw std::runtime_error("cannot start an engine query: fork failed: " + std::string(std::strerror(errno)));
  }
  if (child == 0) exec_child(command.c_str(), log_fd);
  close(log_fd);
  setpgid(child, child);  // also here: the child may not have run yet when a kill must reach its group
  ProcessOutcome outcome;
  const auto limit = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(timeout_seconds));
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error("waitpid failed: " + std::string(std::strerror(errno)));
    if (std::chrono::steady_clock::now() >= limit) {
      kill(-child, SIGKILL);
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      outcome.end = ProcessEnd::TimedOut;
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (outcome.end == ProcessEnd::TimedOut) return outcome;
  // The query's own process ended; anything it left running in its group is stopped too.
  kill(-child, SIGKILL);
  if (WIFSIGNALED(status)) {
    outcome.end = ProcessEnd::Signaled;
    outcome.code = WTERMSIG(status);
  } else {
    outcome.code = WEXITSTATUS(status);
  }
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
  }
  return "?";
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace skinref::conformance
