// DefaultGPUSchedule's fallback (see default_gpu_schedule.h): every block not
// under a thread-bound loop gets one thread per output element; a block with
// no spatial loop (a reduction to one value, a scalar store) runs in a single
// thread (unit loops bound to blockIdx.x / threadIdx.x). Then no block may be
// left unbound: the code generator needs every statement inside a kernel.
#include "tir/transform/default_gpu_schedule.h"

#include "tir/schedule/analysis.h"

namespace tessera {
namespace tir {
namespace {

bool Bound(const Schedule& sch, const BlockRV& block) {
  for (const LoopRV& l : sch.GetLoops(block)) {
    if (IsThreadBound(sch, l)) return true;
  }
  return false;
}

void BindSingleThread(Schedule* sch_ptr, const BlockRV& block) {
  Schedule& sch = *sch_ptr;
  ApplyOrRestore(sch_ptr, [&] {
    // Unit loops above the block's outermost loop (or the block itself).
    Array<LoopRV> loops = sch.GetLoops(block);
    LoopRV thread = loops.empty() ? sch.AddUnitLoop(block) : sch.AddUnitLoop(loops[0]);
    LoopRV grid = sch.AddUnitLoop(thread);
    sch.Bind(grid, "blockIdx.x");
    sch.Bind(thread, "threadIdx.x");
    return true;
  });
}

const BlockNode* RootBlock(const Schedule& sch) {
  const auto* realize = sch.FuncOf(sch->func_name)->body.as<BlockRealizeNode>();
  return realize ? realize->block.get() : nullptr;
}

}  // namespace

void BindRemainingBlocks(Schedule* sch_ptr, const DefaultGPUScheduleOptions& opt, const std::string& func_name) {
  Schedule& sch = *sch_ptr;
  auto names = [&] {
    std::vector<std::string> out;
    for (const BlockLocation& loc : CollectBlocks(sch.FuncOf(sch->func_name))) out.push_back(loc.block->name_hint);
    return out;
  };
  for (const std::string& name : names()) {
    BlockRV block = sch.GetBlock(name, std::nullopt);
    if (Bound(sch, block)) continue;
    // A block nested in another block (an opaque block's child) is bound with its parent.
    std::optional<BlockLocation> loc = FindBlock(sch.FuncOf(sch->func_name), name);
    if (!loc || loc->scope != RootBlock(sch)) continue;
    if (!ScheduleGPUThreadPerOutput(&sch, block, opt)) BindSingleThread(&sch, block);
  }
  for (const BlockLocation& loc : CollectBlocks(sch.FuncOf(sch->func_name))) {
    bool bound = false;
    for (const ForNode* l : loc.loops) bound = bound || l->kind == ForKind::kThreadBinding;
    if (loc.scope != RootBlock(sch)) continue;
    TESSERA_CHECK_OR_THROW(bound, ValueError)
        << "DefaultGPUSchedule: block '" << loc.block->name_hint << "' of function " << func_name
        << " could not be bound to GPU threads (blockIdx/threadIdx); schedule it by hand (sch.bind)";
  }
}

}  // namespace tir
}  // namespace tessera
