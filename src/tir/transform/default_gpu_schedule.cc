// DefaultGPUSchedule (see default_gpu_schedule.h): the driver. One tir.Schedule
// per function: tile convolutions, inline elementwise producers, try the row rule on the whole
// function, then per block in program order: an epilogue moves into its
// producer's threads, a reduction tries the matmul rule, anything else gets one
// thread per output; the fallback binds what is left. Each step a primitive
// refuses is skipped (the schedule stays as it was).
#include "tir/transform/default_gpu_schedule.h"

#include <algorithm>
#include <unordered_set>

#include "runtime/registry.h"
#include "target/target_kind.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/analysis/is_scheduled.h"
#include "tir/transform/default_cpu_schedule.h"
#include "tir/transform/default_schedule_gpu_cross_thread.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {
namespace {

class GPUScheduler {
 public:
  GPUScheduler(PrimFunc func, const DefaultGPUScheduleOptions& opt) : sch_(IRModule::FromExpr(func), 1), opt_(opt) {
    const PrimFunc& f = sch_.FuncOf(sch_->func_name);
    for (const Var& p : f->params) {
      if (auto b = f->buffer_map.Get(p)) params_.insert((*b)->data.get());
    }
  }

  PrimFunc Run() {
    for (const std::string& name : BlockNames()) {
      BlockRV block;
      if (TryStep([&] { block = sch_.GetBlock(name, std::nullopt); })) ScheduleGPUConv(&sch_, block, opt_);
    }
    InlineProducers();
    if (!ScheduleGPURows(&sch_, opt_)) {
      for (const std::string& name : BlockNames()) ScheduleBlock(name);
    }
    BindRemainingBlocks(&sch_, opt_, sch_->func_name);
    return sch_.FuncOf(sch_->func_name);
  }

 private:
  std::vector<std::string> BlockNames() const {
    std::vector<std::string> names;
    for (const BlockLocation& loc : CollectBlocks(sch_.FuncOf(sch_->func_name))) names.push_back(loc.block->name_hint);
    return names;
  }

  // Spatial blocks writing an intermediate buffer are inlined into their
  // consumers, consumers first (on a GPU recomputing exp is cheaper than a
  // round trip through memory).
  void InlineProducers() {
    std::vector<std::string> names = BlockNames();
    for (auto it = names.rbegin(); it != names.rend(); ++it) {
      std::optional<BlockLocation> loc;
      if (!TryStep([&] { loc = FindBlock(sch_.FuncOf(sch_->func_name), *it); }) || !loc) continue;
      const BlockNode* b = loc->block;
      bool spatial = !b->iter_vars.empty() && !b->init && b->writes.size() == 1 && b->body.as<BufferStoreNode>();
      for (const IterVar& iv : b->iter_vars) spatial = spatial && iv->iter_type == kDataPar;
      if (!spatial || params_.count(b->writes[0]->buffer->data.get())) continue;
      if (b->writes[0]->buffer->scope != "global") continue;  // a stage a rule placed (a conv's shared window)
      TryStep([&] { sch_.ComputeInline(sch_.GetBlock(*it, std::nullopt)); });
    }
  }

  std::optional<LoopRV> InnermostThreadLoop(const BlockRV& block) const {
    Array<LoopRV> loops = sch_.GetLoops(block);
    for (size_t i = loops.size(); i-- > 0;) {
      if (IsThreadBound(sch_, loops[i])) return loops[i];
    }
    return std::nullopt;
  }

  // An elementwise consumer of a bound block's intermediate output is computed
  // in the producer's innermost thread loop (each thread finishes its own
  // outputs), the intermediate then private to the thread ("local").
  bool FuseEpilogue(const BlockRV& block) {
    Array<BlockRV> producers = sch_.GetProducers(block);
    for (const BlockRV& producer : producers) {
      Block p = sch_.Get(producer).cast<Block>();
      if (p->writes.size() != 1 || params_.count(p->writes[0]->buffer->data.get())) continue;
      std::optional<LoopRV> loop = InnermostThreadLoop(producer);
      if (!loop || sch_.GetConsumers(producer).size() != 1) continue;
      if (ApplyOrRestore(&sch_, [&] {
            // (local first: a global buffer's region would span every thread)
            sch_.SetScope(producer, 0, "local");
            sch_.ReverseComputeAt(block, *loop, true, -1);
            return true;
          })) {
        return true;
      }
    }
    return false;
  }

  void ScheduleBlock(const std::string& name) {
    BlockRV block;
    if (!TryStep([&] { block = sch_.GetBlock(name, std::nullopt); })) return;
    if (InnermostThreadLoop(block)) return;  // already bound (an epilogue moved, a matmul's stage)
    Block b = sch_.Get(block).cast<Block>();
    bool reduce = false;
    for (const IterVar& iv : b->iter_vars) reduce = reduce || iv->iter_type == kCommReduce;
    if (!reduce && FuseEpilogue(block)) return;
    if (reduce && ScheduleGPUMatmul(&sch_, block, opt_)) return;
    if (reduce && ScheduleGPUCrossThreadReduction(&sch_, block, opt_)) return;
    ScheduleGPUThreadPerOutput(&sch_, block, opt_);
  }

  Schedule sch_;
  DefaultGPUScheduleOptions opt_;
  std::unordered_set<const Object*> params_;
};

}  // namespace

Array<LoopRV> LoopSlice(const Array<LoopRV>& loops, size_t begin, size_t end) {
  Array<LoopRV> out;
  for (size_t i = begin; i < end && i < loops.size(); ++i) out.push_back(loops[i]);
  return out;
}

void BindCooperativeFetch(Schedule* sch, const BlockRV& stage, size_t outer,
                          const std::vector<std::pair<int64_t, std::string>>& threads) {
  Array<LoopRV> fetch = sch->GetLoops(stage);
  Array<LoopRV> inner = LoopSlice(fetch, outer, fetch.size());
  TESSERA_CHECK_OR_THROW(!inner.empty(), ValueError) << "DefaultGPUSchedule: stage has no loop to spread over threads";
  LoopRV fused = inner.size() > 1 ? sch->Fuse(inner, true) : inner[0];
  Array<Any> factors({Any()});
  for (const auto& t : threads) factors.push_back(Any(t.first));
  Array<LoopRV> parts = sch->Split(fused, factors, true);
  for (size_t i = 0; i < threads.size(); ++i) sch->Bind(parts[i + 1], threads[i].second);
}

bool IsThreadBound(const Schedule& sch, const LoopRV& loop) {
  return sch.Get(loop).cast<For>()->kind == ForKind::kThreadBinding;
}

DefaultGPUScheduleOptions DefaultGPUScheduleOptionsFor(const Target& target) {
  DefaultGPUScheduleOptions opt;
  for (const char* key : {"max_num_threads", "max_threads_per_block"}) {
    if (auto v = target.GetInt(key); v && *v > 0) opt.max_threads = std::min<int64_t>(opt.max_threads, *v);
  }
  while (opt.matmul_threads_x * opt.matmul_threads_y > opt.max_threads && opt.matmul_threads_y > 1) {
    opt.matmul_threads_y /= 2;
  }
  return opt;
}

PrimFunc DefaultGPUSchedule(PrimFunc func, const DefaultGPUScheduleOptions& options) {
  if (IsScheduled(func)) return func;
  PrimFunc out = GPUScheduler(func, options).Run();
  return WithAttr(out, "tir.is_scheduled", true);
}

namespace transform {

tessera::transform::Pass DefaultGPUSchedule(std::optional<Target> target) {
  return CreatePrimFuncPass(
      [target](PrimFunc f, IRModule, PassContext) {
        std::optional<Target> t = target;
        if (!t) {
          if (auto attr = f.GetAttr("target")) t = attr->try_cast<Target>();
        }
        return tir::DefaultGPUSchedule(f, t ? DefaultGPUScheduleOptionsFor(*t) : DefaultGPUScheduleOptions());
      },
      0, "DefaultGPUSchedule");
}
TESSERA_REGISTER_GLOBAL("tir.transform.DefaultGPUSchedule").set_body_typed([](std::optional<Target> target) {
  return DefaultGPUSchedule(target);
});

}  // namespace transform

// The "cuda" kind's default schedule for untuned kernels (read by relax.build's
// DefaultCPUSchedule step through kTargetKindAttrDefaultSchedule).
TESSERA_REGISTER_GLOBAL("tir.DefaultGPUScheduleFunc").set_body_typed([](PrimFunc f, Target target) {
  return tir::DefaultGPUSchedule(f, DefaultGPUScheduleOptionsFor(target));
});
[[maybe_unused]] static TargetKindRegEntry& kCUDADefaultSchedule =
    TargetKindRegEntry::RegisterOrGet("cuda").set_attr(kTargetKindAttrDefaultSchedule, String("tir.DefaultGPUScheduleFunc"));

}  // namespace tir
}  // namespace tessera
