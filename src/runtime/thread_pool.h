// The runtime's thread pool for the parallel loops of compiled kernels
// (TesseraParallelFor, kernel_abi.cc): workers spin briefly after each loop,
// and the caller briefly for the workers' last chunks, then they sleep on a
// condition variable, so a busy machine is not slowed by idle
// spinning; each thread claims chunks of its own share of the iterations first,
// then of the others' shares, so a descheduled worker delays nobody; a loop started inside another, or while
// another thread runs one, runs serially on its caller. Runtime layer.
#pragma once

#include <atomic>
#include <cstdint>

namespace tessera {
namespace runtime {

using ParallelTask = int32_t (*)(int32_t, void*);

// Runs task(i, data) for i in [0, num_tasks) on at most `max_threads` threads
// (the caller included; <= 0: the pool's default); the first nonzero return
// value is returned (0 when every task succeeded).
int32_t ParallelFor(ParallelTask task, void* data, int32_t num_tasks, int max_threads);

// Whether thread t of a parallel loop over n iterations first runs the
// iterations [t*n/T, (t+1)*n/T) (then helps the others from the back of theirs),
// so consecutive loops of the same length touch the same data on the same core;
// TESSERA_PARALLEL_AFFINITY=0 starts with it off. Set returns the old value.
bool ParallelAffinity();
bool SetParallelAffinity(bool on);

// Long polls (on by default; TESSERA_POOL_LONG_POLL=0 starts with them off):
// a worker that has finished its share polls for the next loop while the
// caller still runs this one (its last chunk), and the caller polls while a
// worker still runs one, each up to 2 ms and then TESSERA_SPIN_US (20 us)
// more, so the next kernel finds the worker awake instead of paying a
// wake-up. A poller that finds it was descheduled, or was switched out
// involuntarily since its last poll (getrusage: a busy machine), keeps the
// polls short for the next 32 polls. Off: only the 20 us polls.
bool ParallelLongPoll();
bool SetParallelLongPoll(bool on);

// Counters of the pool since the last reset (runtime.ParallelPoolStats):
// parallel loops run on more than one thread, workers that went to sleep
// (the next loop pays their wake-up), callers that slept waiting for a
// worker's last chunk, preemptions seen by pollers (each starts a back-off),
// polls that were long (not backed off) and those of them that ended asleep.
struct ParallelPoolStats {
  std::atomic<int64_t> launches{0}, worker_sleeps{0}, caller_sleeps{0}, preempted_polls{0};
  std::atomic<int64_t> long_polls{0}, long_polls_slept{0};
};
ParallelPoolStats& PoolStats();

// The default number of threads of parallel loops: TESSERA_NUM_THREADS or
// TVM_NUM_THREADS when set, else the CPUs this process may run on.
int DefaultNumThreads();
void SetDefaultNumThreads(int n);

// The cap of the kernel call running on this thread (a target's -num-cores;
// 0: none), set by the kernel wrapper around each call.
class ThreadCapScope {
 public:
  explicit ThreadCapScope(int max_threads);
  ~ThreadCapScope();
  ThreadCapScope(const ThreadCapScope&) = delete;
  ThreadCapScope& operator=(const ThreadCapScope&) = delete;

 private:
  int saved_;
};
int CurrentThreadCap();

}  // namespace runtime
}  // namespace tessera
