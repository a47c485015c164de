#include "engine_process/stray_processes.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace skinref::engine_process {
namespace {

// A fork bomb refills the table as it is emptied; each scan kills what it finds, and the children of a killed
// process can no longer fork. The rounds end when a scan finds nothing, or at this many.
constexpr int kMaxScans = 200;
// Between scans: long enough for the kernel to reparent the children of what was just killed.
constexpr auto kScanPause = std::chrono::milliseconds(2);

struct ProcessEntry {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t group = 0;
  char state = '?';
};

// A /proc file's bytes, "" when it cannot be read. Plain read(2): a process that exits between the open and the
// read makes it fail with ESRCH, which an ifstream turns into an exception (libstdc++'s filebuf::underflow).
std::string read_proc_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    text.append(buffer, size_t(got));
  }
  ::close(fd);
  return text;
}

bool read_entry(pid_t pid, ProcessEntry& entry) {
  const std::string text = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = text.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos || close + 4 >= text.size()) return false;
  entry.pid = pid;
  entry.state = text[close + 2];
  char* end = nullptr;
  entry.parent = pid_t(std::strtol(text.c_str() + close + 4, &end, 10));
  entry.group = pid_t(std::strtol(end, nullptr, 10));
  return true;
}

// The SKINREF_QUERY=... entry of the process's environment, "" when it has none.
std::string tag_of(pid_t pid) {
  const std::string environment = read_proc_file("/proc/" + std::to_string(pid) + "/environ");
  for (size_t at = 0; at < environment.size();) {
    const size_t end = std::min(environment.find('\0', at), environment.size());
    if (environment.compare(at, 14, "SKINREF_QUERY=") == 0) return environment.substr(at, end - at);
    at = end + 1;
  }
  return "";
}

std::vector<pid_t> all_pids() {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && pid > 0) pids.push_back(pid_t(pid));
  }
  closedir(proc);
  return pids;
}

// One scan: kills the query's tagged processes and this process's children that are no live query (each noted
// in `killed`); reaps the children among them. Returns how many living ones it saw, killed before or now.
size_t kill_once(const QueryTag& tag, pid_t group, const LiveQueries& live, std::set<pid_t>& killed) {
  const pid_t self = getpid();
  size_t living = 0;
  for (pid_t pid : all_pids()) {
    if (pid == self) continue;
    ProcessEntry entry;
    if (!read_entry(pid, entry)) continue;
    // A child of this process that is no live query is an orphan handed to the subreaper: this query's when it
    // carries its tag or none (its environment cleared), another running query's when it carries that one's.
    const bool orphan = entry.parent == self && !live.contains(pid);
    const std::string found_tag = tag_of(pid);
    if (found_tag != tag.environment && !(orphan && found_tag.empty())) continue;
    if (entry.state != 'Z') {
      kill(pid, SIGKILL);
      if (entry.group != group) killed.insert(pid);  // the query's own group was killed as a whole
      ++living;
    }
    if (orphan) {
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  return living;
}

}  // namespace

bool become_subreaper() { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

QueryTag new_query_tag() {
  static std::atomic<unsigned long> counter{0};
  QueryTag tag;
  tag.value = std::to_string(getpid()) + "-" + std::to_string(++counter);
  tag.environment = "SKINREF_QUERY=" + tag.value;
  return tag;
}

LiveQueries& LiveQueries::instance() {
  static LiveQueries live;
  return live;
}

size_t kill_strays(const QueryTag& tag, pid_t group) {
  LiveQueries& live = LiveQueries::instance();
  std::set<pid_t> killed;
  for (int scan = 0; scan < kMaxScans; ++scan) {
    size_t living = 0;
    {
      const std::unique_lock<std::mutex> lock = live.lock();
      living = kill_once(tag, group, live, killed);
    }
    if (living == 0) break;
    std::this_thread::sleep_for(kScanPause);
  }
  return killed.size();
}

}  // namespace skinref::engine_process
