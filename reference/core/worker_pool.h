// Internal to parallel_ranges.h: the process's worker threads, kept between calls so that a multi-threaded
// pass (skinning a few thousand vertices per frame, say) does not pay for starting and joining threads each
// time.
//
// Contract:
// - run_on_workers(count, task, context) calls task(context, t) once for every t in [0, count): t = 0 on the
//   calling thread, the others concurrently on worker threads, and returns when every call has returned (so
//   everything the tasks wrote is visible to the caller). `task` must not throw.
// - The pool starts on first use with the workers asked for and grows to the largest count asked for since;
//   its workers wait on a condition variable between calls and are joined at exit.
// - One call uses the pool at a time. A call made while the pool is busy (from another thread, or from inside a
//   task) runs its tasks on threads of its own, started and joined by that call, so that no call ever waits
//   for itself or for another caller's work.
// - Failing to start a thread: std::system_error from the calling thread, before any task has run.
#pragma once

#include <cstddef>

namespace skinref::detail {

using WorkerTask = void (*)(void* context, size_t index);

void run_on_workers(size_t count, WorkerTask task, void* context);

}  // namespace skinref::detail
