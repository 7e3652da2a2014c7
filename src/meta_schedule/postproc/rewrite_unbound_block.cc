// RewriteUnboundBlock (TVM's postproc of that name): binds every top-level
// block of a candidate that no thread binding covers (a block no schedule
// rule bound, e.g. one the sampling left behind) to blockIdx.x x threadIdx.x
// through the same helper as AutoBind (thread_bind.h), with as many threads
// as the target allows (at most the fused extent) and at most
// max_threadblocks blocks. GPU targets. Meta-schedule layer.
#include "meta_schedule/postproc/postproc.h"
#include "meta_schedule/thread_bind.h"
#include "runtime/registry.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

class RewriteUnboundBlockNode : public PostprocNode {
 public:
  int64_t max_threadblocks = 256;
  int64_t max_threads_per_block = -1;  // from the target

  void InitializeWithTarget(const Target& target) final {
    max_threads_per_block = GPUThreadLimits::FromTarget(target).max_threads_per_block;
  }

  bool Apply(const Schedule& sch) const final {
    TESSERA_CHECK_OR_THROW(max_threads_per_block > 0, ValueError)
        << "RewriteUnboundBlock: not initialized with a target (the thread limit is unknown); call its "
           "_initialize_with_tune_context first";
    std::vector<std::pair<std::string, std::string>> blocks;  // (function, block)
    for (const auto& [gv, base] : sch->mod->functions.items()) {
      if (!base.as<PrimFuncNode>()) continue;
      std::string func = gv->name_hint;
      for (const BlockLocation& loc : sch.IndexOf(func)->blocks()) blocks.emplace_back(func, loc.block->name_hint);
    }
    auto constant = [](int64_t n) { return Any(IntImm(DataType::Int(32), n)); };
    try {
      for (const auto& [func, name] : blocks) {
        BlockRV block = sch.GetBlock(name, func);
        if (BindBlockIdxAboveThreads(sch, block) || !IsUnboundTopLevelBlock(sch, block)) continue;
        if (!BindBlockThreadIdx(sch, block, max_threadblocks, max_threads_per_block, constant)) return false;
      }
    } catch (const Error& e) {
      if (e.kind() != "ScheduleError") throw;
      return false;
    }
    return true;
  }

  Postproc Clone() const final { return Postproc(make_object<RewriteUnboundBlockNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(RewriteUnboundBlockNode, PostprocNode, "meta_schedule.RewriteUnboundBlock");
};

TESSERA_REGISTER_NODE(RewriteUnboundBlockNode).field("max_threadblocks", &RewriteUnboundBlockNode::max_threadblocks);

TESSERA_REGISTER_GLOBAL("meta_schedule.PostprocRewriteUnboundBlock").set_body_typed([](int64_t max_threadblocks) {
  TESSERA_CHECK_OR_THROW(max_threadblocks >= 1, ValueError)
      << "RewriteUnboundBlock: max_threadblocks must be positive, got " << max_threadblocks;
  auto n = make_object<RewriteUnboundBlockNode>();
  n->max_threadblocks = max_threadblocks;
  return Postproc(n);
});

}  // namespace meta_schedule
}  // namespace tessera
