// Fan-outs of long tasks that take their own items from a shared counter (golden cases, engine queries): one
// function runs on several threads at once. Unlike worker_pool.h's pool, meant for short passes, these threads
// live for one call, so that the pool stays free for the parallel passes the tasks themselves make.
//
// Contract:
// - run_concurrently(workers, work) calls work() on max(workers, 1) threads at once, the calling thread among
//   them (workers - 1 started), and returns when every call has returned, so everything they wrote is visible
//   to the caller. `work` must not throw. Failing to start a thread: std::system_error, after the threads
//   already started have returned.
#pragma once

#include <cstddef>
#include <functional>

namespace skinref {

void run_concurrently(size_t workers, const std::function<void()>& work);

}  // namespace skinref
