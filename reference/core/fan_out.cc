#include "core/fan_out.h"

#include <exception>
#include <thread>
#include <vector>

namespace skinref {

void run_concurrently(size_t workers, const std::function<void()>& work) {
  std::vector<std::thread> threads;
  std::exception_ptr failed_start;
  try {
    for (size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  } catch (...) {
    failed_start = std::current_exception();  // the caller still works, and joins what started
  }
  work();
  for (std::thread& thread : threads) thread.join();
  if (failed_start) std::rethrow_exception(failed_start);
}

}  // namespace skinref
