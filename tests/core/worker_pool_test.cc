// The worker pool behind for_each_range (reference/core/worker_pool.h): every index runs exactly once and the
// call returns only after all have; indices past 0 run off the calling thread; the pool grows and shrinks in
// use between calls; a call from inside a task and calls from two threads at once finish (each with all its
// indices) instead of waiting on each other.
#include "core/fan_out.h"
#include "core/parallel_ranges.h"
#include "core/worker_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace skinref::detail {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

struct Record {
  std::vector<std::atomic<int>> runs;
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> off_caller{0};
  explicit Record(size_t count) : runs(count) {}
};

void record(void* context, size_t index) {
  Record& r = *static_cast<Record*>(context);
  r.runs[index].fetch_add(1);
  const std::thread::id self = std::this_thread::get_id();
  if (index == 0) {
    EXPECT_EQ(self, r.caller);
  }
  if (self != r.caller) r.off_caller.fetch_add(1);
  std::lock_guard<std::mutex> lock(r.mutex);
  r.threads.insert(self);
}

TEST(WorkerPool, EveryIndexOnceForGrowingAndShrinkingCounts) {
  for (size_t count : {2u, 6u, 3u, 1u, 8u, 2u, 0u, 5u})
    for (int repeat = 0; repeat < 50; ++repeat) {
      Record r(count);
      run_on_workers(count, record, &r);
      for (size_t i = 0; i < count; ++i) ASSERT_EQ(r.runs[i].load(), 1) << "index " << i << " of " << count;
      ASSERT_EQ(r.off_caller.load(), int(count > 0 ? count - 1 : 0));
      ASSERT_EQ(r.threads.size(), count == 0 ? 0u : count);  // distinct threads: they run concurrently
    }
}

TEST(WorkerPool, CallFromInsideATaskAndFromTwoThreadsFinish) {
  std::atomic<int> inner_runs{0};
  struct Outer {
    std::atomic<int>* inner_runs;
  } outer{&inner_runs};
  // Each of 3 outer tasks starts a call of 4 (the pool is busy: they get threads of their own).
  run_on_workers(
      3,
      [](void* context, size_t) {
        auto* inner = static_cast<Outer*>(context)->inner_runs;
        run_on_workers(4, [](void* c, size_t) { static_cast<std::atomic<int>*>(c)->fetch_add(1); }, inner);
      },
      &outer);
  EXPECT_EQ(inner_runs.load(), 12);

  // Two threads at once, each many calls: one gets the pool, the other threads of its own, in any order.
  std::atomic<int> total{0};
  auto many_calls = [&total] {
    for (int k = 0; k < 200; ++k)
      run_on_workers(3, [](void* c, size_t) { static_cast<std::atomic<int>*>(c)->fetch_add(1); }, &total);
  };
  std::thread other(many_calls);
  many_calls();
  other.join();
  EXPECT_EQ(total.load(), 2 * 200 * 3);
}

TEST(WorkerPool, ForEachRangeCoversEveryElementOnce) {
  // for_each_range's split (parallel_ranges.h) over the pool: each element written by exactly one range.
  for (int threads : {1, 2, 3, 7})
    for (size_t n : {0u, 1u, 10u, 1000u, 4099u}) {
      std::vector<int> hits(n, 0);
      for_each_range(n, threads, 8, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) ++hits[i];
      });
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i], 1) << "n " << n << " threads " << threads << " at " << i;
    }
}

}  // namespace
}  // namespace skinref::detail

// core/fan_out.h: the work runs on as many threads at once as asked (the caller's among them), every call has
// returned when run_concurrently does, and 0 workers is taken as 1. The threads meet at a count they can only
// reach together, so the test would hang, not pass, if they ran one after another.
TEST(FanOut, RunsTheWorkOnThatManyThreadsAtOnce) {
  for (size_t workers : {size_t(0), size_t(1), size_t(3), size_t(6)}) {
    const size_t expected = std::max<size_t>(workers, 1);
    std::atomic<size_t> arrived{0}, returned{0};
    std::mutex mutex;
    std::set<std::thread::id> ids;
    skinref::run_concurrently(workers, [&]() {
      {
        const std::lock_guard<std::mutex> lock(mutex);
        ids.insert(std::this_thread::get_id());
      }
      ++arrived;
      while (arrived.load() < expected) std::this_thread::yield();
      ++returned;
    });
    EXPECT_EQ(returned.load(), expected) << workers;
    EXPECT_EQ(ids.size(), expected) << workers;
    EXPECT_EQ(ids.count(std::this_thread::get_id()), 1u) << workers;
  }
}
