// Internal to the skinning kernels (skinning_lbs.cc, skinning_dqs.cc): the split of [0, n) into contiguous
// ranges run on threads. Contract: there are count = min(threads, max(1, n / min_per_thread)) ranges
// [t * chunk, (t + 1) * chunk) clamped to n, with chunk = ceil(n / count) (n = 0: the one range [0, 0)); they are
// disjoint, in order and cover [0, n). run(begin, end) is called once per range, the first on the calling
// thread and every other on its own std::thread, all joined before returning. Each range is processed alone:
// `run` writes only what belongs to its range and does not throw, so results do not depend on the thread count.
// Requires threads >= 1 and min_per_thread >= 1.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace skinref::detail {

template <class F>
void for_each_range(size_t n, int threads, size_t min_per_thread, F&& run) {
  const size_t count = std::min<size_t>(size_t(threads), std::max<size_t>(1, n / min_per_thread));
  const size_t chunk = (n + count - 1) / count;
  auto run_range = [&](size_t t) {
    const size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    run(begin, end);
  };
  std::vector<std::thread> workers;
  for (size_t t = 1; t < count; ++t) workers.emplace_back(run_range, t);
  run_range(0);
  for (std::thread& w : workers) w.join();
}

}  // namespace skinref::detail
