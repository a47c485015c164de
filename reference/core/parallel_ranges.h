// Internal to the multi-threaded passes (the reference's skinning kernels, the CPU backend, the rasterizer): the split of [0, n) into contiguous
// ranges run on threads. Contract: there are count = min(threads, max(1, n / min_per_thread)) ranges
// [t * chunk, (t + 1) * chunk) clamped to n, with chunk = ceil(n / count) (n = 0: the one range [0, 0)); they are
// disjoint, in order and cover [0, n). run(begin, end) is called once per range, the first on the calling
// thread and the others concurrently on the process's worker threads (worker_pool.h), all finished before
// returning. Each range is processed alone:
// `run` writes only what belongs to its range and does not throw, so results do not depend on the thread count.
// Requires threads >= 1 and min_per_thread >= 1.
#pragma once

#include "core/worker_pool.h"

#include <algorithm>
#include <cstddef>

namespace skinref::detail {

template <class F>
void for_each_range(size_t n, int threads, size_t min_per_thread, F&& run) {
  const size_t count = std::min<size_t>(size_t(threads), std::max<size_t>(1, n / min_per_thread));
  const size_t chunk = (n + count - 1) / count;
  auto run_range = [&](size_t t) {
    const size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    run(begin, end);
  };
  using RunRange = decltype(run_range);
  run_on_workers(count, [](void* context, size_t t) { (*static_cast<RunRange*>(context))(t); }, &run_range);
}

}  // namespace skinref::detail
