// The worker pool of worker_pool.h: one job at a time, published under a mutex with a generation number that
// wakes the workers; worker w runs task index w + 1 when the job has that many, and the caller waits until
// every index it handed out has returned.
#include "core/worker_pool.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace skinref::detail {
namespace {

// Without the pool: every index past 0 on a thread started for it.
void run_on_new_threads(size_t count, WorkerTask task, void* context) {
  std::vector<std::thread> threads;
  threads.reserve(count - 1);
  for (size_t t = 1; t < count; ++t) threads.emplace_back(task, context, t);
  task(context, 0);
  for (std::thread& thread : threads) thread.join();
}

class WorkerPool {
 public:
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

  void run(size_t count, WorkerTask task, void* context) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) {
      run_on_new_threads(count, task, context);
      return;
    }
    grow(count - 1);  // before the job is published: a failure leaves nothing running
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = task;
      context_ = context;
      count_ = count;
      remaining_ = count - 1;
      ++generation_;
    }
    wake_.notify_all();
    task(context, 0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return remaining_ == 0; });
  }

 private:
  // Called with busy_ held, so no job is running and workers_ is the caller's to change.
  void grow(size_t workers) {
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation = generation_;
    }
    while (workers_.size() < workers) {
      const size_t index = workers_.size();
      workers_.emplace_back([this, index, generation] { work(index, generation); });
    }
  }

  void work(size_t index, uint64_t seen) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index + 1 >= count_) continue;  // this job has fewer tasks than there are workers
      const WorkerTask task = task_;
      void* const context = context_;
      lock.unlock();
      task(context, index + 1);
      lock.lock();
      if (--remaining_ == 0) done_.notify_one();
    }
  }

  std::mutex busy_;  // held for a whole job
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  WorkerTask task_ = nullptr;
  void* context_ = nullptr;
  size_t count_ = 0, remaining_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
};

}  // namespace

void run_on_workers(size_t count, WorkerTask task, void* context) {
  if (count <= 1) {
    if (count == 1) task(context, 0);
    return;
  }
  static WorkerPool pool;
  pool.run(count, task, context);
}

}  // namespace skinref::detail
