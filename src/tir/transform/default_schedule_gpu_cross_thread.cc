// DefaultGPUSchedule's cross-thread reduction rules (see default_schedule_gpu_cross_thread.h).
#include "tir/transform/default_schedule_gpu_cross_thread.h"

#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/transform/thread_allreduce_reducer.h"

namespace tessera {
namespace tir {
namespace {

// A multiple of 32 (whole warps: the shuffle lowering), at most the thread limit, about the row length.
int64_t ThreadsFor(int64_t length, const DefaultGPUScheduleOptions& opt) {
  int64_t threads = 32;
  while (threads < length && threads * 2 <= opt.max_threads) threads *= 2;
  return threads;
}

// `loop` becomes [threadIdx.x: threads][serial: the rest] (a non-dividing split guarded by a predicate).
void SpreadOverThreads(Schedule* sch, const LoopRV& loop, int64_t threads) {
  Array<LoopRV> parts = sch->Split(loop, Array<Any>({Any(), Any(threads)}), true);
  sch->Reorder({parts[1], parts[0]});
  sch->Bind(parts[1], "threadIdx.x");
}

// Whether LowerCrossThreadReduction takes the block's reduction (true for a spatial block).
bool LowerableReduction(const Schedule& sch, const BlockRV& rv) {
  Block b = sch.Get(rv).cast<Block>();
  return !b->init || MatchReductionUpdate(*b->init, b->body).has_value();
}

bool Writes(const Block& b, const Var& data) {
  for (const BufferRegion& w : b->writes) {
    if (w->buffer->data.same_as(data)) return true;
  }
  return false;
}

}  // namespace

bool ScheduleGPURowsCrossThread(Schedule* sch_ptr, const std::vector<std::string>& stages,
                                const DefaultGPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  Array<LoopRV> loops = sch.GetLoops(sch.GetBlock(stages.back(), std::nullopt));
  const int64_t* length = AsConstInt(sch.Get(loops.back()).cast<For>()->extent);
  if (length == nullptr || *length < kCrossThreadMinRow || loops.size() < 2) return false;
  for (const std::string& s : stages) {
    if (!LowerableReduction(sch, sch.GetBlock(s, std::nullopt))) return false;
  }
  return ApplyOrRestore(sch_ptr, [&] {
    size_t rows = loops.size() - 1;
    for (size_t i = stages.size() - 1; i-- > 0;) {
      sch.ComputeAt(sch.GetBlock(stages[i], std::nullopt), loops[rows - 1], false, -1);
    }
    Array<LoopRV> row_loops = LoopSlice(loops, 0, rows);
    sch.Bind(rows > 1 ? sch.Fuse(row_loops, true) : row_loops[0], "blockIdx.x");
    const int64_t threads = ThreadsFor(*length, opt);
    for (size_t i = 0; i < stages.size(); ++i) {
      BlockRV b = sch.GetBlock(stages[i], std::nullopt);
      SpreadOverThreads(&sch, sch.GetLoops(b).back(), threads);
      if (i + 1 < stages.size()) sch.SetScope(b, 0, "shared");  // read by every thread of the row
    }
    return true;
  });
}

bool ScheduleGPUCrossThreadReduction(Schedule* sch_ptr, const BlockRV& block, const DefaultGPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  if (!LowerableReduction(sch, block)) return false;
  Block b = sch.Get(block).cast<Block>();
  std::optional<BlockLocation> loc = FindBlock(sch.FuncOf(sch->func_name), b->name_hint);
  if (!loc || b->writes.size() != 1) return false;
  // Loops: spatial ones, then reduction ones (each used by one kind of iteration variable).
  Array<LoopRV> spatial, reduce;
  int64_t reduce_length = 1, outputs = 1;  // outputs: -1 when not constant
  for (const LoopRV& l : sch.GetLoops(block)) {
    For loop = sch.Get(l).cast<For>();
    bool s = false, r = false;
    for (size_t i = 0; i < loc->realize->iter_values.size(); ++i) {
      if (!UsesVar(loc->realize->iter_values[i], loop->loop_var.get())) continue;
      (b->iter_vars[i]->iter_type == kDataPar ? s : r) = true;
    }
    if (s == r) return false;  // unused, or both
    if (s && !reduce.empty()) return false;
    const int64_t* ext = AsConstInt(loop->extent);
    if (ext == nullptr) {
      if (r) return false;
      outputs = -1;
    } else if (r) {
      reduce_length *= *ext;
    } else if (outputs >= 0) {
      outputs *= *ext;
    }
    (s ? spatial : reduce).push_back(l);
  }
  if (spatial.empty() || reduce.empty() || reduce_length < kCrossThreadMinRow) return false;
  if (outputs < 0 || outputs > kCrossThreadMaxOutputs) return false;
  // A sole elementwise consumer of an intermediate result (mean's division) goes in the same thread block (left
  // to the driver, it would be fused into the reduction's thread loop, which the lowering refuses).
  Array<BlockRV> consumers = sch.GetConsumers(block);
  bool epilogue = consumers.size() == 1 && !sch.Get(consumers[0]).cast<Block>()->init;
  const PrimFunc& f = sch.FuncOf(sch->func_name);
  for (const Var& p : f->params) {
    if (auto buf = f->buffer_map.Get(p); buf && Writes(b, (*buf)->data)) epilogue = false;
  }
  return ApplyOrRestore(sch_ptr, [&] {
    LoopRV row = spatial.size() > 1 ? sch.Fuse(spatial, true) : spatial[0];
    sch.Bind(row, "blockIdx.x");
    const int64_t threads = ThreadsFor(reduce_length, opt);
    SpreadOverThreads(&sch, reduce.size() > 1 ? sch.Fuse(reduce, true) : reduce[0], threads);
    if (epilogue) {
      sch.SetScope(block, 0, "shared");
      sch.ReverseComputeAt(consumers[0], row, true, -1);
      Array<LoopRV> rest = LoopSlice(sch.GetLoops(consumers[0]), 1, SIZE_MAX);
      if (!rest.empty()) SpreadOverThreads(&sch, rest.size() > 1 ? sch.Fuse(rest, true) : rest[0], threads);
    }
    return true;
  });
}

}  // namespace tir
}  // namespace tessera
