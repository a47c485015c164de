// Processes an engine query left behind outside its process group: a child that called setsid() or setpgid()
// and runs on after the query ended. Killing the query's group does not reach them, so each query's processes
// carry a tag in their environment (SKINREF_QUERY=RUNNER_PID-N, inherited by every descendant that does not
// clear its environment), and the runner is a child subreaper (PR_SET_CHILD_SUBREAPER): a descendant whose
// parent dies becomes the runner's child, not init's, so that it can be found and its exit reaped even when
// it cleared its environment.
//
// Contract:
// - become_subreaper(): makes this process a child subreaper; false where the kernel refuses (then tagged
//   strays are still killed, and init reaps them).
// - QueryTag: a fresh tag for one query, "SKINREF_QUERY=PID-N", and the environment entry to give it.
// - LiveQueries: the pids of the query processes this runner started and has not yet waited for. A query
//   registers its process under the same lock as the fork (lock() before fork, add() after), so that a scan
//   never takes a query being started for a stray.
// - kill_strays(tag, group): kills (SIGKILL) every process whose environment holds `tag`, and every child of
//   this process that is not a live query and holds no tag (an orphan handed to the subreaper whose environment
//   was cleared; one with another query's tag is left to that query), scanning /proc
//   until a scan finds none left (a process forking while it is killed is found by the next scan); reaps those
//   that were this process's children. Returns how many living processes it killed outside the query's own
//   process `group` (which the caller has killed as a whole). Never throws.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <mutex>
#include <set>
#include <string>

namespace skinref::engine_process {

bool become_subreaper();

struct QueryTag {
  std::string value;        // "PID-N"
  std::string environment;  // "SKINREF_QUERY=PID-N"
};
QueryTag new_query_tag();

class LiveQueries {
 public:
  static LiveQueries& instance();
  std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(mutex_); }
  // With the lock held:
  void add(pid_t pid) { pids_.insert(pid); }
  void remove(pid_t pid) { pids_.erase(pid); }
  bool contains(pid_t pid) const { return pids_.count(pid) != 0; }

 private:
  std::mutex mutex_;
  std::set<pid_t> pids_;
};

size_t kill_strays(const QueryTag& tag, pid_t group);

}  // namespace skinref::engine_process
