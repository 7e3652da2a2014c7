// The parallel-loop thread pool (see thread_pool.h).
#include "runtime/thread_pool.h"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_PAUSE() _mm_pause()
#else
#define TESSERA_PAUSE() std::this_thread::yield()
#endif

namespace tessera {
namespace runtime {
namespace {

// How long an idle worker polls for the next loop before sleeping
// (TESSERA_SPIN_US overrides; 0: sleep at once).
int64_t SpinMicros() {
  static const int64_t us = [] {
    const char* v = std::getenv("TESSERA_SPIN_US");
    return v != nullptr ? std::max<int64_t>(0, std::atoll(v)) : int64_t(20);
  }();
  return us;
}

int CpusAvailable() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int ThreadsFromEnv() {
  for (const char* name : {"TESSERA_NUM_THREADS", "TVM_NUM_THREADS"}) {
    if (const char* v = std::getenv(name)) {
      int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return 0;
}

std::atomic<int> default_threads{0};
std::atomic<bool> long_poll{[] {
  const char* v = std::getenv("TESSERA_POOL_LONG_POLL");
  return v == nullptr || std::atoi(v) != 0;
}()};
// The longest a thread polls for the other side of a loop that is still
// running (a worker for the next loop, the caller for a worker's last chunk).
constexpr int64_t kLongPollMicros = 2000;
// A gap this long between two clock reads of one poll means the poller was
// descheduled: the machine is busy, so polling stays short for a while.
constexpr int64_t kPreemptedMicros = 200;
constexpr int kBackoffPolls = 32;  // polls (the caller's and the workers')

ParallelPoolStats stats;
thread_local int thread_cap = 0;
thread_local bool in_parallel = false;

// Whether thread t of a parallel loop first runs the t-th contiguous range of
// its iterations (TESSERA_PARALLEL_AFFINITY=0 turns it off: every thread takes
// chunks in order from one shared counter).
std::atomic<bool>& AffinityFlag() {
  static std::atomic<bool> on{[] {
    const char* v = std::getenv("TESSERA_PARALLEL_AFFINITY");
    return v == nullptr || std::atoi(v) != 0;
  }()};
  return on;
}

// The unclaimed iterations [front, back) of one range, both in one word so the
// owner (from the front) and thieves (from the back) claim by one CAS.
struct alignas(64) Range {
  std::atomic<uint64_t> span{0};

  static uint64_t Pack(int32_t front, int32_t back) {
    return (uint64_t(uint32_t(back)) << 32) | uint32_t(front);
  }
  void Reset(int32_t front, int32_t back) { span.store(Pack(front, back), std::memory_order_relaxed); }
  bool TakeFront(int32_t chunk, int32_t* begin, int32_t* end) {
    uint64_t cur = span.load(std::memory_order_relaxed);
    for (;;) {
      int32_t front = int32_t(uint32_t(cur)), back = int32_t(cur >> 32);
      if (front >= back) return false;
      int32_t next = std::min(back, front + chunk);
      if (span.compare_exchange_weak(cur, Pack(next, back), std::memory_order_relaxed)) {
        *begin = front;
        *end = next;
        return true;
      }
    }
  }
  bool TakeBack(int32_t chunk, int32_t* begin, int32_t* end) {
    uint64_t cur = span.load(std::memory_order_relaxed);
    for (;;) {
      int32_t front = int32_t(uint32_t(cur)), back = int32_t(cur >> 32);
      if (front >= back) return false;
      int32_t next = std::max(front, back - chunk);
      if (span.compare_exchange_weak(cur, Pack(front, next), std::memory_order_relaxed)) {
        *begin = next;
        *end = back;
        return true;
      }
    }
  }
};

// Whether this thread was switched out involuntarily (another process took
// its core) since its last call: the machine is busy.
bool PreemptedSinceLastCall() {
  thread_local long last = -1;
  struct rusage use;
  if (getrusage(RUSAGE_THREAD, &use) != 0) return false;
  const bool preempted = last >= 0 && use.ru_nivcsw != last;
  last = use.ru_nivcsw;
  return preempted;
}

// Polls `ready` with pauses; gives up `short_us` after `idle` first holds
// (re-armed while it does not), after kLongPollMicros in all, or when the
// poller sees it was descheduled (then `backoff` keeps later polls short, as
// it does when the thread was switched out involuntarily since its last poll).
// Returns whether `ready` became true.
template <typename Ready, typename Idle>
bool Poll(Ready ready, Idle idle, int64_t short_us, std::atomic<int>* backoff) {
  using clock = std::chrono::steady_clock;
  if (long_poll.load(std::memory_order_relaxed) && PreemptedSinceLastCall()) {
    backoff->store(kBackoffPolls, std::memory_order_relaxed);
    stats.preempted_polls.fetch_add(1, std::memory_order_relaxed);
  }
  const bool allow_long = long_poll.load(std::memory_order_relaxed) && backoff->load(std::memory_order_relaxed) <= 0;
  if (!allow_long && backoff->load(std::memory_order_relaxed) > 0) backoff->fetch_sub(1, std::memory_order_relaxed);
  if (allow_long) stats.long_polls.fetch_add(1, std::memory_order_relaxed);
  const auto start = clock::now();
  auto idle_since = start, last = start;
  bool was_idle = !allow_long || idle();
  for (int k = 0; !ready(); ++k) {
    TESSERA_PAUSE();
    if ((k & 63) != 0) continue;
    const auto now = clock::now();
    if (allow_long && now - last >= std::chrono::microseconds(kPreemptedMicros)) {
      backoff->store(kBackoffPolls, std::memory_order_relaxed);
      stats.preempted_polls.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    last = now;
    if (!was_idle && idle()) {
      was_idle = true;
      idle_since = now;
    }
    if ((was_idle && now - idle_since >= std::chrono::microseconds(short_us)) ||
        now - start >= std::chrono::microseconds(kLongPollMicros)) {
      if (allow_long) stats.long_polls_slept.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  }
  return true;
}

class Pool {
 public:
  int32_t Run(ParallelTask task, void* data, int32_t n, int threads) {
    std::unique_lock<std::mutex> running(run_mu_, std::try_to_lock);
    if (!running.owns_lock()) return Serial(task, data, 0, n);  // another thread's loop is running
    EnsureWorkers(threads - 1);
    {
      std::lock_guard<std::mutex> lock(mu_);
      task_ = task;
      data_ = data;
      // Chunks of about a quarter of a thread's share: late threads find work left.
      chunk_ = std::max<int32_t>(1, n / (threads * 4));
      // With affinity thread t owns the t-th of `threads` equal contiguous ranges
      // (the same iterations in every loop of the same length: a consumer reads
      // the channel planes its producer wrote on the same core); else one range
      // shared by all.
      ranges_ = ParallelAffinity() ? threads : 1;
      for (int r = 0; r < ranges_; ++r) {
        ranges_at_[r].Reset(static_cast<int32_t>(int64_t(n) * r / ranges_),
                            static_cast<int32_t>(int64_t(n) * (r + 1) / ranges_));
      }
      status_.store(0, std::memory_order_relaxed);
      participants_ = threads - 1;
      open_ = true;
      running_.store(true, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    Work(task, data, 0, ranges_, chunk_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = false;  // workers that have not joined yet stay out: active_ only falls from here
    }
    // The workers still on their last chunk usually finish within microseconds:
    // poll for them as long as idle workers spin before sleeping on done_ (a
    // sleep and its wake-up cost tens of microseconds per loop on a VM).
    // With long polls on, the caller polls while a worker still runs a chunk
    // (up to kLongPollMicros): the worker is busy, not descheduled.
    stats.launches.fetch_add(1, std::memory_order_relaxed);
    bool done = Poll([&] { return active_.load(std::memory_order_acquire) == 0; }, [] { return false; }, SpinMicros(),
                     &backoff_);
    if (!done) stats.caller_sleeps.fetch_add(1, std::memory_order_relaxed);
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return active_.load(std::memory_order_relaxed) == 0; });
    running_.store(false, std::memory_order_release);
    return status_.load(std::memory_order_relaxed);
  }

 private:
  static int32_t Serial(ParallelTask task, void* data, int32_t begin, int32_t end) {
    for (int32_t i = begin; i < end; ++i) {
      if (int32_t rc = task(i, data); rc != 0) return rc;
    }
    return 0;
  }

  // Runs the chunks of its own range (slot % ranges) from the front, then
  // takes chunks of the other ranges from their back (a late owner still finds
  // the front of its range): returns when every range is empty.
  void Work(ParallelTask task, void* data, int slot, int ranges, int32_t chunk) {
    bool saved = in_parallel;
    in_parallel = true;
    int32_t begin = 0, end = 0;
    for (int k = 0; k < ranges; ++k) {
      Range& range = ranges_at_[(slot + k) % ranges];
      while (k == 0 ? range.TakeFront(chunk, &begin, &end) : range.TakeBack(chunk, &begin, &end)) {
        if (int32_t rc = Serial(task, data, begin, end); rc != 0) {
          int32_t zero = 0;
          status_.compare_exchange_strong(zero, rc);
        }
      }
    }
    in_parallel = saved;
  }

  void EnsureWorkers(int count) {
    if (static_cast<int>(ranges_at_.size()) < count + 1) {
      // no worker is inside Work here (run_mu_ is held and the last loop ended)
      ranges_at_ = std::vector<Range>(count + 1);
    }
    while (static_cast<int>(workers_) < count) {
      int id = static_cast<int>(workers_++);
      std::thread([this, id] { WorkerLoop(id); }).detach();
    }
  }

  void WorkerLoop(int id) {
    uint64_t seen = generation_.load(std::memory_order_acquire);
    bool joined = false;  // whether it ran the last loop (a worker left out of it does not poll long)
    for (;;) {
      // Polls for the next loop while the caller still runs this one (its
      // last chunk; the next kernel follows within microseconds), then
      // SpinMicros more; with long polls off only the latter.
      bool next = Poll([&] { return generation_.load(std::memory_order_acquire) != seen; },
                       [&] { return !joined || !running_.load(std::memory_order_acquire); }, SpinMicros(), &backoff_);
      if (!next) stats.worker_sleeps.fetch_add(1, std::memory_order_relaxed);
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      seen = generation_.load(std::memory_order_relaxed);
      joined = open_ && id < participants_;
      if (!joined) continue;
      ++active_;
      ParallelTask task = task_;
      void* data = data_;
      int ranges = ranges_;
      int32_t chunk = chunk_;
      lock.unlock();
      Work(task, data, id + 1, ranges, chunk);
      lock.lock();
      if (--active_ == 0) done_.notify_all();
    }
  }

  std::mutex run_mu_;  // one loop at a time
  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int32_t> status_{0};
  ParallelTask task_ = nullptr;
  void* data_ = nullptr;
  int32_t chunk_ = 1;
  int ranges_ = 1;
  std::vector<Range> ranges_at_ = std::vector<Range>(1);
  std::atomic<int> active_{0};  // workers inside Work (changed under mu_, polled without it)
  std::atomic<bool> running_{false};  // a loop is running (from its start until its caller returns)
  std::atomic<int> backoff_{0};       // loops left with short polls only (a poller was descheduled)
  int participants_ = 0;
  bool open_ = false;
  size_t workers_ = 0;
};

Pool& GlobalPool() {
  static Pool* pool = new Pool();  // never destroyed: its detached workers outlive static destructors
  return *pool;
}

}  // namespace

bool ParallelLongPoll() { return long_poll.load(std::memory_order_relaxed); }
bool SetParallelLongPoll(bool on) { return long_poll.exchange(on, std::memory_order_relaxed); }

ParallelPoolStats& PoolStats() { return stats; }

bool ParallelAffinity() { return AffinityFlag().load(std::memory_order_relaxed); }
bool SetParallelAffinity(bool on) { return AffinityFlag().exchange(on, std::memory_order_relaxed); }

int DefaultNumThreads() {
  int n = default_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  n = ThreadsFromEnv();
  if (n <= 0) n = CpusAvailable();
  default_threads.store(n, std::memory_order_relaxed);
  return n;
}

void SetDefaultNumThreads(int n) { default_threads.store(std::max(1, n), std::memory_order_relaxed); }

ThreadCapScope::ThreadCapScope(int max_threads) : saved_(thread_cap) {
  if (max_threads > 0) thread_cap = max_threads;
}
ThreadCapScope::~ThreadCapScope() { thread_cap = saved_; }
int CurrentThreadCap() { return thread_cap; }

int32_t ParallelFor(ParallelTask task, void* data, int32_t num_tasks, int max_threads) {
  if (num_tasks <= 0) return 0;
  int threads = max_threads > 0 ? max_threads : DefaultNumThreads();
  if (max_threads <= 0 && thread_cap > 0) threads = thread_cap;  // the kernel's -num-cores
  threads = std::min<int>(threads, num_tasks);
  if (threads <= 1 || in_parallel) {
    for (int32_t i = 0; i < num_tasks; ++i) {
      if (int32_t rc = task(i, data); rc != 0) return rc;
    }
    return 0;
  }
  return GlobalPool().Run(task, data, num_tasks, threads);
}

}  // namespace runtime
}  // namespace tessera
