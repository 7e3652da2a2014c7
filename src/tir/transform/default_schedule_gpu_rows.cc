// DefaultGPUSchedule's row rule (see default_gpu_schedule.h): softmax,
// log_softmax, layer_norm, a row reduction and its elementwise consumer.
// Long rows: a thread block per row (default_schedule_gpu_cross_thread.h). Else one thread per row:
//   [rows: fused, split by the thread count, blockIdx.x / threadIdx.x]
//     [stage 1 over the row] [stage 2] ... [last block over the row]
// with each stage's per-row result (a max, a sum) in "local".
#include "tir/transform/default_gpu_schedule.h"

#include "tir/op.h"
#include "tir/transform/default_schedule_gpu_cross_thread.h"
#include "tir/transform/default_schedule_rows.h"

namespace tessera {
namespace tir {

bool ScheduleGPURows(Schedule* sch_ptr, const DefaultGPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  std::optional<std::vector<std::string>> stages = RowKernelStages(sch.FuncOf(sch->func_name));
  if (!stages) return false;
  if (ScheduleGPURowsCrossThread(sch_ptr, *stages, opt)) return true;
  return ApplyOrRestore(sch_ptr, [&] {
    BlockRV out = sch.GetBlock(stages->back(), std::nullopt);
    Array<LoopRV> loops = sch.GetLoops(out);
    size_t rows = loops.size() - 1;
    for (size_t i = stages->size() - 1; i-- > 0;) {
      sch.ComputeAt(sch.GetBlock((*stages)[i], std::nullopt), loops[rows - 1], false, -1);
    }
    Array<LoopRV> row_loops = LoopSlice(loops, 0, rows);
    BindOneThreadPerIteration(&sch, rows > 1 ? sch.Fuse(row_loops, true) : row_loops[0], opt);
    for (size_t i = 0; i + 1 < stages->size(); ++i) sch.SetScope(sch.GetBlock((*stages)[i], std::nullopt), 0, "local");
    return true;
  });
}

}  // namespace tir
}  // namespace tessera
