// DefaultCPUSchedule (see default_cpu_schedule.h): one tir.Schedule per
// function, driving the primitives block by block; every step is tried on
// its own and a step a primitive refuses is skipped (the primitive leaves the
// schedule as it was), so any block still computes what it computed before.
#include "tir/transform/default_cpu_schedule.h"

#include "tir/analysis/is_scheduled.h"

#include "tir/transform/default_schedule_matmul.h"
#include "tir/transform/default_schedule_rows.h"

#include <thread>
#include <unordered_set>

#include "arith/analyzer.h"
#include "ir/op.h"
#include "runtime/registry.h"
#include "target/target_kind.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/default_schedule_apply.h"
#include "tir/transform/default_schedule_conv.h"
#include "tir/transform/default_schedule_chunks.h"
#include "tir/transform/default_schedule_conv1x1.h"
#include "tir/transform/default_schedule_pad.h"
#include "tir/transform/default_schedule_pool.h"
#include "tir/transform/default_schedule_winograd.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {
namespace {

// Fused outer loops are made at least this long (when the nest allows), so
// the parallel loop has iterations enough for every core.
constexpr int64_t kParallelGrain = 64;
// The inner spatial tile of a reduction: rows sharing each vector of the
// reduced operand, unrolled inside the reduction loops (the first of these
// dividing the row loop; 8 accumulators hide the FMA latency).
constexpr int64_t kRegisterRows[] = {8, 4};

int64_t ExtentOr(const PrimExpr& e, int64_t fallback) {
  const int64_t* c = AsConstInt(e);
  return c != nullptr ? *c : fallback;
}

bool CallsOp(const Stmt& body, const std::function<bool(const std::string&)>& pred) {
  bool found = false;
  PostOrderVisit(body, [&](const ObjectRef& n) {
    if (const auto* call = n.as<CallNode>()) {
      if (const auto* op = call->op.as<OpNode>(); op != nullptr && pred(op->name)) found = true;
    }
  });
  return found;
}

bool HasIfThenElse(const Stmt& body) {
  return CallsOp(body, [](const std::string& name) { return name == "tir.if_then_else"; });
}

// A call of a math function (exp, erf, tanh, log, ...): worth computing once.
bool HasMathCall(const Stmt& body) {
  return CallsOp(body, [](const std::string& name) {
    return name != "tir.if_then_else" && name != "tir.likely" && name.rfind("tir.", 0) == 0;
  });
}

// How far the region's last dimension moves when `v` steps by one, when no
// other dimension depends on `v` and the step is a constant (else nullopt).
std::optional<int64_t> StepAlong(const BufferRegion& region, const Var& v, arith::Analyzer* ana) {
  const Array<Range>& r = region->region;
  if (r.empty()) return std::nullopt;
  for (size_t i = 0; i + 1 < r.size(); ++i) {
    if (UsesVar(r[i]->min, v.get()) || UsesVar(r[i]->extent, v.get())) return std::nullopt;
  }
  const Range& last = r[r.size() - 1];
  if (UsesVar(last->extent, v.get())) return std::nullopt;
  PrimExpr next = Substitute(last->min, [&](const Var& x) -> std::optional<PrimExpr> {
    if (x.same_as(v)) return add(x, IntImm(x.dtype(), 1));
    return std::nullopt;
  });
  return ConstIntValue(ana->Simplify(sub(next, last->min)));
}

bool UsesVarIn(const BufferRegion& region, const Var& v) {
  for (const Range& r : region->region) {
    if (UsesVar(r->min, v.get()) || UsesVar(r->extent, v.get())) return true;
  }
  return false;
}

// A block's loop nest as the schedule sees it: one loop per iteration
// variable, each bound to exactly one loop variable (the TOPI shape).
struct Nest {
  Array<LoopRV> loops;
  std::vector<int> kinds;      // per loop: kDataPar or kCommReduce
  std::vector<Var> iter_vars;  // per loop: the block variable bound to it
  std::vector<PrimExpr> extents;
};

std::optional<Nest> NestOf(const Schedule& sch, const BlockRV& block) {
  Nest nest;
  nest.loops = sch.GetLoops(block);
  BlockLocation loc = sch.LocateBlock(block, "get");
  const BlockRealizeNode* realize = loc.realize;
  if (nest.loops.empty() || realize->iter_values.size() != loc.loops.size()) return std::nullopt;
  // The nest must hold this block alone (other blocks would share its loops).
  if (ChildBlocks(GetRef<Stmt>(loc.loops.front())).size() != 1) return std::nullopt;
  for (const ForNode* loop : loc.loops) {
    if (loop->kind != ForKind::kSerial || ExtentOr(loop->min, -1) != 0) return std::nullopt;
    int found = -1;
    for (size_t i = 0; i < realize->iter_values.size(); ++i) {
      const auto* v = realize->iter_values[i].as<VarNode>();
      if (v != nullptr && v == loop->loop_var.get()) found = static_cast<int>(i);
    }
    if (found < 0) return std::nullopt;
    const IterVar& iv = realize->block->iter_vars[static_cast<size_t>(found)];
    if (iv->iter_type != kDataPar && iv->iter_type != kCommReduce) return std::nullopt;
    nest.kinds.push_back(iv->iter_type);
    nest.iter_vars.push_back(iv->var);
    nest.extents.push_back(loop->extent);
  }
  return nest;
}

class Scheduler {
 public:
  Scheduler(PrimFunc func, const DefaultCPUScheduleOptions& opt)
      : sch_(IRModule::FromExpr(func), 1), opt_(opt) {
    const PrimFunc& f = sch_.FuncOf(sch_->func_name);
    for (const Var& p : f->params) {
      if (auto b = f->buffer_map.Get(p)) params_.insert((*b)->data.get());
    }
  }

  PrimFunc Run() {
    RunSteps();
    return Func();
  }

  // The schedule (with its trace) after Run.
  const Schedule& sch() const { return sch_; }

 private:
  void RunSteps() {
    Inline();
    if (opt_.row_kernels && ScheduleRowKernel(&sch_, opt_)) return;
    std::vector<std::string> names;
    for (const BlockLocation& loc : CollectBlocks(Func())) names.push_back(loc.block->name_hint);
    for (const std::string& name : names) {
      BlockRV block;
      if (!TryStep([&] { block = sch_.GetBlock(name, std::nullopt); })) continue;
      std::optional<Nest> nest;
      if (!TryStep([&] { nest = NestOf(sch_, block); }) || !nest) continue;
      bool has_reduce = false, has_spatial = false;
      for (int k : nest->kinds) (k == kCommReduce ? has_reduce : has_spatial) = true;
      if (!has_spatial) continue;  // a full reduction to one value stays serial
      if (ScheduleWinograd(&sch_, block, opt_) || ScheduleConv2d1x1(&sch_, block, opt_) ||
          ScheduleConv2dPacked(&sch_, block, opt_) ||
          SchedulePool2d(&sch_, block, opt_) || SchedulePaddingPlanes(&sch_, block, opt_)) {
        continue;  // default_schedule_{conv1x1,conv,pool,pad}.cc
      }
      if (has_reduce) {
        if (opt_.packed_matmul && ScheduleMatmulPacked(&sch_, block, opt_)) continue;
        ScheduleReduction(block, *nest);
      } else {
        ScheduleSpatial(block, *nest);
      }
    }
  }

  PrimFunc Func() const { return sch_.FuncOf(sch_->func_name); }

  int Lanes(const Buffer& buf) const {
    int bits = buf->dtype.bits() * buf->dtype.lanes();
    if (bits <= 0 || buf->dtype.lanes() != 1) return 1;
    return std::max(1, std::min(64, opt_.vector_bits / bits));
  }

  bool IsParam(const Buffer& b) const { return params_.count(b->data.get()) > 0; }

  // AutoInline's CPU rule: a spatial block with one write to an intermediate
  // buffer and no if_then_else (which would land in the consumer's inner
  // loop) is inlined into its consumers, consumers first; unlike AutoInline,
  // not a block calling a math function when it has several consumers.
  void Inline() {
    std::vector<std::string> names;
    for (const BlockLocation& loc : CollectBlocks(Func())) names.push_back(loc.block->name_hint);
    for (auto it = names.rbegin(); it != names.rend(); ++it) {
      std::optional<BlockLocation> loc;  // none when several blocks share the name
      if (!TryStep([&] { loc = FindBlock(Func(), *it); }) || !loc) continue;
      const BlockNode* b = loc->block;
      bool spatial = !b->iter_vars.empty() && !b->init;
      for (const IterVar& iv : b->iter_vars) spatial = spatial && iv->iter_type == kDataPar;
      if (!spatial || b->writes.size() != 1 || IsParam(b->writes[0]->buffer) || !b->body.as<BufferStoreNode>() ||
          HasIfThenElse(b->body) || KeepWinogradStage(b->name_hint)) {
        continue;
      }
      TryStep([&] {
        BlockRV rv = sch_.GetBlock(*it, std::nullopt);
        // A costly stage read by several consumers (softmax's exp) is kept:
        // inlined, each consumer would compute it again.
        if (HasMathCall(b->body) && sch_.GetConsumers(rv).size() > 1) return;
        sch_.ComputeInline(rv);
      });
    }
  }

  // Whether the loop of `var` can be the vector loop: the write is
  // contiguous along it and (for a reduction, whose reads repeat for every
  // reduction step) every read that uses `var` moves by a small constant
  // step in its last dimension (contiguous, or stride 2-4 for strided windows).
  bool Contiguous(const BlockRV& block, const Var& var, bool check_reads) {
    Block b = sch_.Get(block).cast<Block>();
    if (b->writes.size() != 1) return false;
    arith::Analyzer ana;
    if (StepAlong(b->writes[0], var, &ana) != std::optional<int64_t>(1)) return false;
    if (check_reads) {
      for (const BufferRegion& r : b->reads) {
        if (!UsesVarIn(r, var)) continue;
        auto step = StepAlong(r, var, &ana);
        if (!step || *step < 1 || *step > 4) return false;
      }
    }
    return true;
  }

  static int64_t Work(const Nest& nest) {
    int64_t work = 1;
    for (const PrimExpr& e : nest.extents) {
      int64_t c = ExtentOr(e, 1);  // a symbolic extent counts as 1: small ops stay serial
      if (c > 0 && work <= (int64_t(1) << 40) / c) work *= c;
    }
    return work;
  }

  // Splits `loop` so its inner part has `lanes` iterations (when longer);
  // returns {outer or nullopt, inner}.
  std::pair<std::optional<LoopRV>, LoopRV> SplitForVector(const LoopRV& loop, const PrimExpr& extent, int lanes) {
    const int64_t* c = AsConstInt(extent);
    if (c != nullptr && *c <= lanes) return {std::nullopt, loop};
    Array<LoopRV> parts;
    if (!TryStep([&] { parts = sch_.Split(loop, Array<Any>({Any(), Any(int64_t(lanes))}), true); })) {
      return {std::nullopt, loop};
    }
    return {parts[0], parts[1]};
  }

  // Fuses the leading loops of `outer` (at least kParallelGrain iterations
  // when they have them) and parallelizes the fused loop.
  void Parallelize(const std::vector<LoopRV>& outer, const std::vector<PrimExpr>& extents, int64_t work) {
    if (opt_.num_cores <= 1 || work < opt_.min_parallel_work || outer.empty()) return;
    size_t n = 0;
    int64_t prod = 1;
    while (n < outer.size() && prod < kParallelGrain) {
      prod *= std::max<int64_t>(1, ExtentOr(extents[n], 1));
      ++n;
    }
    if (prod < 2) return;
    LoopRV fused = outer[0];
    if (n > 1 && !TryStep([&] { fused = sch_.Fuse(Array<LoopRV>(outer.begin(), outer.begin() + n), true); })) {
      fused = outer[0];
    }
    TryStep([&] { sch_.Parallel(fused); });
  }

  // Parallelizes the nest's leading spatial loops (those before any reduction loop).
  void ParallelizeLeadingSpatial(const Nest& nest) {
    std::vector<LoopRV> outer;
    std::vector<PrimExpr> extents;
    for (size_t i = 0; i < nest.kinds.size() && nest.kinds[i] == kDataPar; ++i) {
      outer.push_back(nest.loops[i]);
      extents.push_back(nest.extents[i]);
    }
    Parallelize(outer, extents, Work(nest));
  }

  // Elementwise / injective: [fused outer loops: parallel] ... [inner: vectorized].
  void ScheduleSpatial(const BlockRV& block, const Nest& nest) {
    Block b = sch_.Get(block).cast<Block>();
    size_t last = nest.loops.size() - 1;
    int lanes = b->writes.size() == 1 ? Lanes(b->writes[0]->buffer) : 1;
    std::vector<LoopRV> outer(nest.loops.begin(), nest.loops.end());
    std::vector<PrimExpr> extents = nest.extents;
    std::optional<LoopRV> vec;
    int64_t inner = ExtentOr(nest.extents[last], lanes);
    if (lanes > 1 && inner >= 4 && Contiguous(block, nest.iter_vars[last], false)) {
      auto [o, i] = SplitForVector(nest.loops[last], nest.extents[last], lanes);
      outer.pop_back();
      extents.pop_back();
      if (o) {
        outer.push_back(*o);
        const int64_t* c = AsConstInt(nest.extents[last]);
        extents.push_back(c ? PrimExpr((*c + lanes - 1) / lanes) : PrimExpr(int64_t(1)));
      }
      vec = i;
    }
    Parallelize(outer, extents, Work(nest));
    if (vec) TryStep([&] { sch_.Vectorize(*vec); });
  }

  // Reductions (matmul, conv2d, pooling, row reductions): with a contiguous
  // innermost spatial loop, the nest becomes
  //   [outer spatial: fused, parallel] [rows/R] [cols/lanes]
  //     [reduction loops] [R rows: unrolled] [lanes: vectorized]
  //     [write-back of the R x lanes accumulators: vectorized]
  // (R from kRegisterRows)
  // with the init decomposed above the reduction loops (vectorized too).
  // Otherwise the outer spatial loops are parallelized and the rest stays.
  void ScheduleReduction(const BlockRV& block, const Nest& nest) {
    std::vector<size_t> s, r;
    for (size_t i = 0; i < nest.kinds.size(); ++i) (nest.kinds[i] == kDataPar ? s : r).push_back(i);
    Block b = sch_.Get(block).cast<Block>();
    int lanes = b->writes.size() == 1 ? Lanes(b->writes[0]->buffer) : 1;
    size_t sl = s.back();
    int64_t inner = ExtentOr(nest.extents[sl], lanes);
    bool vectorize = lanes > 1 && inner >= 4 && Contiguous(block, nest.iter_vars[sl], true);
    if (!vectorize && VectorizeReductionLoop(block, nest, s, r, lanes)) return;
    if (!vectorize) {
      ParallelizeLeadingSpatial(nest);
      return;
    }
    Schedule backup = sch_.Copy();
    bool ok = true;
    auto [col_o, col_i] = SplitForVector(nest.loops[sl], nest.extents[sl], lanes);
    std::optional<LoopRV> row_o, row_i;
    std::vector<LoopRV> outer;
    std::vector<PrimExpr> extents;
    for (size_t k = 0; k + 1 < s.size(); ++k) {
      size_t i = s[k];
      const int64_t* c = AsConstInt(nest.extents[i]);
      int64_t rows = 0;
      for (int64_t cand : kRegisterRows) {
        if (rows == 0 && c != nullptr && *c % cand == 0 && *c > cand) rows = cand;
      }
      if (k + 2 == s.size() && rows > 0) {
        Array<LoopRV> parts;
        if (TryStep([&] { parts = sch_.Split(nest.loops[i], Array<Any>({Any(), Any(rows)}), true); })) {
          row_o = parts[0];
          row_i = parts[1];
          outer.push_back(parts[0]);
          extents.push_back(PrimExpr(*c / rows));
          continue;
        }
      }
      outer.push_back(nest.loops[i]);
      extents.push_back(nest.extents[i]);
    }
    if (col_o) {
      outer.push_back(*col_o);
      const int64_t* c = AsConstInt(nest.extents[sl]);
      extents.push_back(c ? PrimExpr((*c + lanes - 1) / lanes) : PrimExpr(int64_t(1)));
    }
    Array<LoopRV> order(outer.begin(), outer.end());
    for (size_t i : r) order.push_back(nest.loops[i]);
    if (row_i) order.push_back(*row_i);
    order.push_back(col_i);
    ok = TryStep([&] { sch_.Reorder(order); });
    // The tile's accumulators go to a "local" buffer written back after the
    // reduction loops: allocated per tile, it is private to the iteration
    // and the code generator keeps it in registers (the output itself could
    // alias the operands as far as LLVM knows, so it would be loaded and
    // stored at every reduction step).
    std::optional<BlockRV> write_back;
    if (ok && !outer.empty()) {
      if (!ApplyOrRestore(&sch_, [&] {
            write_back = sch_.CacheWrite(block, 0, "local");
            sch_.ReverseComputeAt(*write_back, outer.back(), true, -1);
          })) {
        write_back.reset();
      }
    }
    if (ok) Parallelize(outer, extents, Work(nest));
    BlockRV init;
    ok = ok && TryStep([&] { init = sch_.DecomposeReduction(block, nest.loops[r.front()]); });
    ok = ok && TryStep([&] { sch_.Vectorize(col_i); });
    if (!ok) {
      // The tiled nest without its vector loop is no better than the
      // original: go back to it and only parallelize.
      sch_ = backup;
      ParallelizeLeadingSpatial(nest);
      return;
    }
    if (row_i) TryStep([&] { sch_.Unroll(*row_i); });
    if (write_back) {
      TryStep([&] {
        Array<LoopRV> wb_loops = sch_.GetLoops(*write_back);
        sch_.Vectorize(wb_loops[wb_loops.size() - 1]);
      });
    }
    TryStep([&] {
      Array<LoopRV> init_loops = sch_.GetLoops(init);
      LoopRV innermost = init_loops[init_loops.size() - 1];
      if (sch_.Get(innermost).cast<For>()->kind == ForKind::kSerial) sch_.Vectorize(innermost);
    });
  }

  // Reductions along a contiguous innermost reduction loop (row sums and
  // maxima, dense's x @ W.T): the loop is split by the vector width and the
  // inner part factored out (rfactor) into a per-row vector of partial
  // results, reduced once per row at the end:
  //   [outer spatial: fused, parallel]
  //     [rf init: vectorized] [reduction / lanes] [lanes: vectorized, rf update]
  //     [write-back: the lanes reduced into the output]
  bool VectorizeReductionLoop(const BlockRV& block, const Nest& nest, const std::vector<size_t>& s,
                              const std::vector<size_t>& r, int lanes) {
    size_t rl = nest.loops.size() - 1;
    const int64_t* extent = AsConstInt(nest.extents[rl]);
    if (lanes <= 1 || nest.kinds[rl] != kCommReduce || extent == nullptr || *extent < 2 * lanes ||
        *extent % lanes != 0 || s.back() > r.front()) {
      return false;
    }
    Block b = sch_.Get(block).cast<Block>();
    const Var& rv = nest.iter_vars[rl];
    arith::Analyzer ana;
    for (const BufferRegion& w : b->writes) {
      if (UsesVarIn(w, rv)) return false;
    }
    for (const BufferRegion& read : b->reads) {
      if (UsesVarIn(read, rv) && StepAlong(read, rv, &ana) != std::optional<int64_t>(1)) return false;
    }
    return ApplyOrRestore(&sch_, [&] {
      Array<LoopRV> parts = sch_.Split(nest.loops[rl], Array<Any>({Any(), Any(int64_t(lanes))}), true);
      int out_ndim = static_cast<int>(b->writes[0]->buffer->shape.size());
      BlockRV rf = sch_.RFactor(parts[1], out_ndim);
      Array<LoopRV> loops = sch_.GetLoops(rf);
      sch_.Vectorize(loops[loops.size() - 1]);
      BlockRV init = sch_.DecomposeReduction(rf, loops[s.size()]);
      Array<LoopRV> init_loops = sch_.GetLoops(init);
      sch_.Vectorize(init_loops[init_loops.size() - 1]);
      sch_.ReverseComputeAt(block, loops[s.size() - 1], true, -1);
      std::vector<LoopRV> outer;
      std::vector<PrimExpr> extents;
      for (size_t i = 0; i < s.size(); ++i) {
        outer.push_back(loops[i]);
        extents.push_back(nest.extents[s[i]]);
      }
      Parallelize(outer, extents, Work(nest));
    });
  }

  Schedule sch_;
  DefaultCPUScheduleOptions opt_;
  std::unordered_set<const Object*> params_;
};

}  // namespace

bool IsCPUTarget(const Target& target) {
  for (const std::string& k : target->keys) {
    if (k == "cpu") return true;
  }
  return false;
}

DefaultCPUScheduleOptions DefaultCPUScheduleOptionsFor(const Target& target) {
  DefaultCPUScheduleOptions opt;
  opt.vector_bits = TargetVectorBits(target);
  opt.num_cores = TargetNumCores(target);
  return opt;
}

PrimFunc DefaultCPUSchedule(PrimFunc func, const DefaultCPUScheduleOptions& options) {
  if (IsScheduled(func)) return func;
  PrimFunc out = Scheduler(func, options).Run();
  return WithAttr(out, "tir.is_scheduled", true);
}

Schedule DefaultCPUScheduleOf(PrimFunc func, const DefaultCPUScheduleOptions& options) {
  Scheduler scheduler(func, options);
  scheduler.Run();
  return scheduler.sch();
}

namespace transform {

tessera::transform::Pass DefaultCPUSchedule(std::optional<Target> target) {
  return CreatePrimFuncPass(
      [target](PrimFunc f, IRModule, PassContext) {
        Target t = target ? *target : DefaultHostTarget();
        if (!target) {
          if (auto attr = f.GetAttr("target")) {
            if (auto bound = attr->try_cast<Target>()) t = *bound;
          }
        }
        // The kind's default schedule (target_kind.h); kinds without one keep f.
        auto rule = GetTargetKindAttr(t->kind, kTargetKindAttrDefaultSchedule);
        if (!rule) return f;
        return Registry::GetOrThrow(rule->cast<std::string>())(f, t).cast<PrimFunc>();
      },
      0, "DefaultCPUSchedule");
}
// The options for `target` with the current PassContext's switches.
static DefaultCPUScheduleOptions OptionsInContext(const Target& target) {
  DefaultCPUScheduleOptions opt = DefaultCPUScheduleOptionsFor(target);
  opt.packed_matmul = PassContext::Current()->GetConfig<bool>(kPackedMatmulOption, true);
  opt.row_kernels = PassContext::Current()->GetConfig<bool>(kRowKernelOption, true);
  opt.strided_pad_copy = PassContext::Current()->GetConfig<bool>(kStridedPadCopyOption, true);
  opt.pad_planes = PassContext::Current()->GetConfig<bool>(kPadPlanesOption, true);
  opt.conv_vector_epilogue = PassContext::Current()->GetConfig<bool>(kConvVectorEpilogueOption, true);
  opt.conv1x1_pixel_blocks = PassContext::Current()->GetConfig<bool>(kConv1x1PixelBlocksOption, true);
  opt.parallel_chunks = PassContext::Current()->GetConfig<bool>(kParallelChunksOption, true);
  return opt;
}
TESSERA_REGISTER_GLOBAL("tir.DefaultCPUScheduleFunc").set_body_typed([](PrimFunc f, Target target) {
  return tir::DefaultCPUSchedule(f, OptionsInContext(target));
});
// The same schedule as a tir.Schedule with its trace: meta_schedule's first
// candidate of a task (the untuned default it must never end slower than).
// None when `f` counts as scheduled already (DefaultCPUSchedule leaves it alone).
TESSERA_REGISTER_GLOBAL("tir.DefaultCPUScheduleOf")
    .set_body_typed([](PrimFunc f, Target target) -> std::optional<Schedule> {
      if (IsScheduled(f)) return std::nullopt;
      return tir::DefaultCPUScheduleOf(f, OptionsInContext(target));
    });
// The sampled form of that schedule (DefaultCPUScheduleOptions::sampled): its
// tile factors are sampling instructions deciding the default's factors
// (replayed with those decisions it is the same schedule): the default
// candidate the tuner mutates and one of its CPU design spaces.
TESSERA_REGISTER_GLOBAL("tir.DefaultCPUScheduleSampledOf")
    .set_body_typed([](PrimFunc f, Target target) -> std::optional<Schedule> {
      if (IsScheduled(f)) return std::nullopt;
      DefaultCPUScheduleOptions opt = OptionsInContext(target);
      opt.sampled = true;
      return tir::DefaultCPUScheduleOf(f, opt);
    });
TESSERA_REGISTER_PASS_CONFIG_OPTION(kPackedMatmulOption, bool);
TESSERA_REGISTER_PASS_CONFIG_OPTION(kRowKernelOption, bool);
TESSERA_REGISTER_PASS_CONFIG_OPTION(kStridedPadCopyOption, bool);
TESSERA_REGISTER_PASS("tir.transform.DefaultCPUSchedule", [] { return DefaultCPUSchedule(); });
TESSERA_REGISTER_GLOBAL("tir.transform.DefaultCPUScheduleFor").set_body_typed([](Target target) {
  return DefaultCPUSchedule(target);
});

}  // namespace transform

}  // namespace tir
}  // namespace tessera
