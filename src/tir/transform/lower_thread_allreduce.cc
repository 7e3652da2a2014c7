// LowerThreadAllreduce (see lower_thread_allreduce.h).
//
// Threads of the block are numbered r (the reduction lane: the reduce thread
// axes, x fastest) and g (the group: the other threadIdx axes); N lanes, G
// groups. When the reduce axes are the first threadIdx axes (lanes of a group
// are consecutive threads) and N is a multiple of 32 or a power of two below
// 32, the reduction is by warp shuffles: within each warp, then (N > 32) the
// warps' partials go through shared memory and every warp reduces them again.
// One group of any other N (a partial last warp) is reduced by masked
// shuffles (PartialWarps). Otherwise (several groups straddling warps, or
// reduce axes that are not the first ones) a shared-memory tree: log2(N)
// halving steps, barrier after each.
#include "tir/transform/lower_thread_allreduce.h"

#include <set>
#include <vector>

#include "codegen/cuda/launch_extents.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform/prim_func_pass.h"
#include "tir/transform/thread_allreduce_reducer.h"

namespace tessera {
namespace tir {
namespace {

constexpr int64_t kWarp = 32;

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

bool IsPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// `prefix` followed by `j` (the value's position).
std::string Named(const char* prefix, size_t j) {
  std::string name(prefix);
  name += std::to_string(j);
  return name;
}

int64_t Pow2Ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

Stmt Sync() { return Evaluate(Call(DataType::Int(32), Op::Get("tir.tvm_storage_sync"), {StringImm("shared")})); }

const char* const kThreadTags[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};

class AllreduceLowerer : public StmtExprMutator {
 public:
  AllreduceLowerer(std::string func_name, codegen::LaunchExtents launch)
      : func_(std::move(func_name)), launch_(std::move(launch)) {}
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    bool thread = op->kind == ForKind::kThreadBinding && op->thread_binding;
    if (thread) loops_.push_back(op);
    bool varying = UsesThread(op->min) || UsesThread(op->extent);
    if (varying) ++divergent_;
    Stmt s = StmtExprMutator::VisitStmt_(op);
    if (varying) --divergent_;
    if (thread) loops_.pop_back();
    return s;
  }

  Stmt VisitStmt_(const IfThenElseNode* op) override {
    bool varying = UsesThread(op->condition);
    if (varying) ++divergent_;
    Stmt s = StmtExprMutator::VisitStmt_(op);
    if (varying) --divergent_;
    return s;
  }

  Stmt VisitStmt_(const AttrStmtNode* op) override {
    const auto* eval = op->body.as<EvaluateNode>();
    const auto* call = eval ? eval->value.as<CallNode>() : nullptr;
    if (op->attr_key != "reduce_scope" || call == nullptr || !call->op.same_as(Op::Get("tir.tvm_thread_allreduce"))) {
      return StmtExprMutator::VisitStmt_(op);
    }
    auto reducer = op->node.try_cast<CommReducer>();
    if (!reducer) Refuse("the reduce_scope attr does not hold a CommReducer");
    return Lower(*reducer, call);
  }

 private:
  [[noreturn]] void Refuse(const std::string& why) const {
    TESSERA_THROW(NotImplementedError) << "cannot lower the cross-thread reduction (tvm_thread_allreduce) in function "
                                       << func_ << ": " << why;
  }

  // Whether `e` may differ between the threads of the block: it uses a threadIdx loop variable or reads memory.
  bool UsesThread(const PrimExpr& e) const {
    bool found = false;
    PostOrderVisit(e, [&](const ObjectRef& n) {
      if (n.as<BufferLoadNode>()) found = true;
      if (const auto* v = n.as<VarNode>()) {
        for (const ForNode* loop : loops_) {
          if (loop->loop_var.get() == v && (*loop->thread_binding)->thread_tag.rfind("threadIdx.", 0) == 0) found = true;
        }
      }
    });
    return found;
  }

  int64_t LaunchExtent(const std::string& tag) const {
    std::optional<PrimExpr> e = codegen::LaunchExtentOf(launch_, tag);
    if (!e) return 1;
    const auto* imm = e->as<IntImmNode>();
    if (imm == nullptr) Refuse("the launch extent of " + tag + " is not a constant");
    return imm->value;
  }

  // The loop bound to `tag` around the allreduce (nullptr when none).
  const ForNode* LoopOf(const std::string& tag) const {
    for (const ForNode* loop : loops_) {
      if ((*loop->thread_binding)->thread_tag == tag) return loop;
    }
    return nullptr;
  }

  // Linear index over `tags` (x fastest) and their product.
  std::pair<PrimExpr, int64_t> Linear(const std::vector<std::string>& tags) const {
    PrimExpr idx = I32(0);
    int64_t stride = 1;
    for (const std::string& tag : tags) {
      const ForNode* loop = LoopOf(tag);
      PrimExpr v = cast(DataType::Int(32), loop->loop_var - loop->min);
      idx = stride == 1 ? v : idx + v * I32(stride);
      stride *= LaunchExtent(tag);
    }
    return {idx, stride};
  }

  Stmt Lower(const CommReducer& reducer, const CallNode* call) {
    if (divergent_ > 0) Refuse("it sits in a branch or loop that depends on the thread index");
    const auto* size_imm = call->args[0].as<IntImmNode>();
    if (size_imm == nullptr) Refuse("the value count is not a constant");
    const size_t n = static_cast<size_t>(size_imm->value);
    if (call->args.size() < 2 * n + 2 || reducer->lhs.size() != n) Refuse("malformed tvm_thread_allreduce arguments");
    Array<PrimExpr> values;
    for (size_t j = 0; j < n; ++j) values.push_back(call->args[1 + j]);
    PrimExpr cond = call->args[n + 1];
    std::vector<Buffer> results;
    for (size_t j = 0; j < n; ++j) {
      const auto* data = call->args[n + 2 + j].as<VarNode>();
      if (data == nullptr) Refuse("a result is not a buffer variable");
      DataType t = values[j].dtype();
      results.push_back(Buffer(GetRef<Var>(data), t, {I32(1)}, {}, I32(0), data->name_hint, "local"));
    }
    // The reduce axes and the group axes, each threadIdx axis of the launch in one of them.
    std::set<std::string> reduce_tags;
    for (size_t i = 2 * n + 2; i < call->args.size(); ++i) {
      const auto* v = call->args[i].as<VarNode>();
      const ForNode* loop = nullptr;
      for (const ForNode* l : loops_) {
        if (l->loop_var.get() == v) loop = l;
      }
      if (loop == nullptr) Refuse("a reduction variable is not a thread-bound loop around it");
      reduce_tags.insert((*loop->thread_binding)->thread_tag);
    }
    std::vector<std::string> reduce_axes, group_axes;
    bool contiguous = true;
    for (const char* tag : kThreadTags) {
      if (!codegen::LaunchExtentOf(launch_, tag)) continue;
      const ForNode* loop = LoopOf(tag);
      if (loop == nullptr) Refuse(std::string("it is not inside the kernel's ") + tag + " loop");
      const auto* ext = loop->extent.as<IntImmNode>();
      if (ext == nullptr || ext->value != LaunchExtent(tag)) {
        Refuse(std::string("its ") + tag + " loop is narrower than the launch's " + tag +
               " (threads outside it would not take part)");
      }
      if (reduce_tags.count(tag)) {
        if (!group_axes.empty()) contiguous = false;
        reduce_axes.push_back(tag);
      } else {
        group_axes.push_back(tag);
      }
    }
    auto [r, lanes] = Linear(reduce_axes);
    auto [g, groups] = Linear(group_axes);

    std::vector<Stmt> seq;
    auto store_all = [&](const std::vector<Buffer>& bufs, const std::vector<PrimExpr>& idx,
                         const std::vector<PrimExpr>& vals) {
      for (size_t j = 0; j < n; ++j) seq.push_back(BufferStore(bufs[j], vals[j], {idx[j]}));
    };
    std::vector<PrimExpr> zero(n, I32(0)), masked;
    for (size_t j = 0; j < n; ++j) masked.push_back(if_then_else(cond, values[j], reducer->identity_element[j]));
    std::vector<Buffer> stages;
    if (lanes == 1) {
      store_all(results, zero, masked);
    } else if (contiguous && ((lanes % kWarp == 0 && lanes <= kWarp * kWarp) || (lanes < kWarp && IsPow2(lanes)))) {
      const int64_t width = std::min(lanes, kWarp);
      const bool whole_warps = (lanes * groups) % kWarp == 0;
      PrimExpr mask = whole_warps ? PrimExpr(IntImm(DataType::UInt(32), 0xffffffffLL))
                                  : Call(DataType::UInt(32), Op::Get("tir.tvm_warp_activemask"), {});
      store_all(results, zero, masked);
      auto shuffle_steps = [&](int64_t from, int64_t w, const PrimExpr& m) {
        for (int64_t off = from; off >= 1; off /= 2) seq.push_back(ShuffleStep(reducer, results, m, off, w));
      };
      shuffle_steps(width / 2, width, mask);
      int64_t bcast_width = width;
      if (lanes > kWarp) {
        const int64_t warps = lanes / kWarp;
        PrimExpr lane = truncmod(r, I32(kWarp)), warp = truncdiv(r, I32(kWarp));  // r >= 0
        std::vector<Stmt> put;
        for (size_t j = 0; j < n; ++j) {
          Buffer stage = decl_buffer({I32(groups * warps)}, values[j].dtype(), Named("red_buf", j), "shared");
          stages.push_back(stage);
          put.push_back(BufferStore(stage, BufferLoad(results[j], {I32(0)}), {g * I32(warps) + warp}));
        }
        seq.push_back(IfThenElse(equal(lane, I32(0)), SeqStmt::Flatten(put)));
        seq.push_back(Sync());
        for (size_t j = 0; j < n; ++j) {
          seq.push_back(BufferStore(results[j],
                                    if_then_else(less(lane, I32(warps)), BufferLoad(stages[j], {g * I32(warps) + lane}),
                                                 reducer->identity_element[j]),
                                    {I32(0)}));
        }
        shuffle_steps(Pow2Ceil(warps) / 2, kWarp, mask);
        bcast_width = kWarp;
      }
      for (size_t j = 0; j < n; ++j) {
        PrimExpr v = BufferLoad(results[j], {I32(0)});
        PrimExpr b = Call(v.dtype(), Op::Get("tir.tvm_warp_shuffle"), {mask, v, I32(0), I32(bcast_width), I32(kWarp)});
        seq.push_back(BufferStore(results[j], b, {I32(0)}));
      }
    } else if (contiguous && groups == 1) {
      store_all(results, zero, masked);
      PartialWarps(reducer, results, r, lanes, &stages, &seq);
    } else {
      // The shared-memory tree.
      PrimExpr base = g * I32(lanes);
      for (size_t j = 0; j < n; ++j) {
        Buffer stage = decl_buffer({I32(groups * lanes)}, values[j].dtype(), Named("red_buf", j), "shared");
        stages.push_back(stage);
        seq.push_back(BufferStore(stage, masked[j], {base + r}));
      }
      seq.push_back(Sync());
      for (int64_t s = Pow2Ceil(lanes) / 2; s >= 1; s /= 2) {
        PrimExpr guard = less(r, I32(s));
        if (2 * s > lanes) guard = logical_and(guard, less(r + I32(s), I32(lanes)));
        Array<PrimExpr> a, b;
        for (const Buffer& st : stages) {
          a.push_back(BufferLoad(st, {base + r}));
          b.push_back(BufferLoad(st, {base + r + I32(s)}));
        }
        seq.push_back(IfThenElse(guard, CombineInto(reducer, stages, base + r, a, b)));
        seq.push_back(Sync());
      }
      for (size_t j = 0; j < n; ++j) seq.push_back(BufferStore(results[j], BufferLoad(stages[j], {base}), {I32(0)}));
    }
    Stmt body = SeqStmt::Flatten(seq);
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      body = Allocate((*it)->data, (*it)->dtype, (*it)->shape, IntImm(DataType::Bool(), 1), DeclBuffer(*it, body));
    }
    return body;
  }

  // One group of `lanes` threads that are not whole warps (33..1023 not a multiple of 32, or an odd
  // count below 32): the last warp is partial. Masked shuffles within each warp (the mask names exactly
  // the warp's threads; a step whose source lane is past the warp's last thread keeps its value); with
  // several warps, lane 0 of each puts its partial in shared memory, every warp reduces the partials
  // again (a partial last warp may lack lanes, so thread 0's result goes through shared memory too).
  void PartialWarps(const CommReducer& reducer, const std::vector<Buffer>& results, const PrimExpr& r, int64_t lanes,
                    std::vector<Buffer>* stages, std::vector<Stmt>* seq) const {
    const size_t n = results.size();
    const int64_t warps = (lanes + kWarp - 1) / kWarp, last = lanes - (warps - 1) * kWarp;
    PrimExpr lane = warps == 1 ? r : truncmod(r, I32(kWarp)), warp = truncdiv(r, I32(kWarp));  // r >= 0
    auto mask_of = [](int64_t active) {
      return IntImm(DataType::UInt(32), active >= kWarp ? 0xffffffffLL : (int64_t{1} << active) - 1);
    };
    PrimExpr full = mask_of(kWarp), mask = mask_of(last), active = I32(last);
    if (warps > 1) {
      PrimExpr in_last = equal(warp, I32(warps - 1));
      mask = if_then_else(in_last, mask_of(last), full);
      active = if_then_else(in_last, I32(last), I32(kWarp));
    }
    auto guarded_steps = [&](int64_t count, const PrimExpr& m, const PrimExpr& live) {
      for (int64_t off = Pow2Ceil(count) / 2; off >= 1; off /= 2) {
        Array<PrimExpr> a, b;
        for (const Buffer& res : results) {
          PrimExpr v = BufferLoad(res, {I32(0)});
          a.push_back(v);
          b.push_back(Call(v.dtype(), Op::Get("tir.tvm_warp_shuffle_down"), {m, v, I32(off), I32(kWarp), I32(kWarp)}));
        }
        // (every thread of the mask shuffles; the combine only where the source lane holds a value)
        Array<PrimExpr> got;
        for (size_t j = 0; j < n; ++j) got.push_back(Var(Named("shfl", j), b[j].dtype()));
        Stmt combine = IfThenElse(less(lane + I32(off), live), CombineInto(reducer, results, I32(0), a, got));
        for (size_t j = n; j-- > 0;) combine = LetStmt(Downcast<Var>(got[j]), b[j], combine);
        seq->push_back(combine);
      }
    };
    guarded_steps(std::min(lanes, kWarp), mask, active);
    if (warps == 1) {
      for (size_t j = 0; j < n; ++j) {
        PrimExpr v = BufferLoad(results[j], {I32(0)});
        PrimExpr b = Call(v.dtype(), Op::Get("tir.tvm_warp_shuffle"), {mask, v, I32(0), I32(kWarp), I32(kWarp)});
        seq->push_back(BufferStore(results[j], b, {I32(0)}));
      }
      return;
    }
    std::vector<Stmt> put, total;
    std::vector<Buffer> partials, totals;  // (two buffers: no barrier between reading one and writing the other)
    for (size_t j = 0; j < n; ++j) {
      partials.push_back(decl_buffer({I32(warps)}, results[j]->dtype, Named("red_buf", j), "shared"));
      totals.push_back(decl_buffer({I32(1)}, results[j]->dtype, Named("red_total", j), "shared"));
      put.push_back(BufferStore(partials[j], BufferLoad(results[j], {I32(0)}), {warp}));
      total.push_back(BufferStore(totals[j], BufferLoad(results[j], {I32(0)}), {I32(0)}));
    }
    stages->insert(stages->end(), partials.begin(), partials.end());
    stages->insert(stages->end(), totals.begin(), totals.end());
    seq->push_back(IfThenElse(equal(lane, I32(0)), SeqStmt::Flatten(put)));
    seq->push_back(Sync());
    for (size_t j = 0; j < n; ++j) {
      seq->push_back(BufferStore(results[j],
                                 if_then_else(less(lane, I32(warps)), BufferLoad(partials[j], {lane}),
                                              reducer->identity_element[j]),
                                 {I32(0)}));
    }
    // (warp 0 is whole: its lanes past `warps` hold the identity, so no guard is needed there)
    guarded_steps(warps, mask, active);
    seq->push_back(IfThenElse(equal(r, I32(0)), SeqStmt::Flatten(total)));
    seq->push_back(Sync());
    for (size_t j = 0; j < n; ++j) {
      seq->push_back(BufferStore(results[j], BufferLoad(totals[j], {I32(0)}), {I32(0)}));
    }
  }

  // buffers[j][index] = combine(a, b)[j] for every j, all read before any is written.
  static Stmt CombineInto(const CommReducer& reducer, const std::vector<Buffer>& buffers, const PrimExpr& index,
                          const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
    Array<PrimExpr> av, bv;
    std::vector<std::pair<Var, PrimExpr>> lets;
    for (size_t j = 0; j < buffers.size(); ++j) {
      Var x(Named("a", j), a[j].dtype()), y(Named("b", j), b[j].dtype());
      lets.emplace_back(x, a[j]);
      lets.emplace_back(y, b[j]);
      av.push_back(x);
      bv.push_back(y);
    }
    std::vector<Stmt> stores;
    for (size_t j = 0; j < buffers.size(); ++j) stores.push_back(BufferStore(buffers[j], ApplyReducer(reducer, av, bv, j), {index}));
    Stmt body = SeqStmt::Flatten(stores);
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = LetStmt(it->first, it->second, body);
    return body;
  }

  // results[j][0] = combine(results[0], shfl_down(results, off))[j].
  static Stmt ShuffleStep(const CommReducer& reducer, const std::vector<Buffer>& results, const PrimExpr& mask,
                          int64_t off, int64_t width) {
    Array<PrimExpr> a, b;
    for (const Buffer& res : results) {
      PrimExpr v = BufferLoad(res, {I32(0)});
      a.push_back(v);
      b.push_back(Call(v.dtype(), Op::Get("tir.tvm_warp_shuffle_down"), {mask, v, I32(off), I32(width), I32(kWarp)}));
    }
    return CombineInto(reducer, results, I32(0), a, b);
  }

  std::string func_;
  codegen::LaunchExtents launch_;
  std::vector<const ForNode*> loops_;
  int divergent_ = 0;
};

bool HasAllreduce(const Stmt& body) {
  bool found = false;
  PostOrderVisit(body, [&](const ObjectRef& n) {
    if (const auto* c = n.as<CallNode>(); c && c->op.same_as(Op::Get("tir.tvm_thread_allreduce"))) found = true;
  });
  return found;
}

}  // namespace

PrimFunc LowerThreadAllreduce(PrimFunc func) {
  if (!HasAllreduce(func->body)) return func;
  std::string name;
  if (auto sym = func.GetAttr("global_symbol")) name = sym->try_cast<std::string>().value_or("");
  Stmt body = AllreduceLowerer(name, codegen::KernelLaunchExtents(func->body, name)).VisitStmt(func->body);
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

tessera::transform::Pass LowerThreadAllreduce() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::LowerThreadAllreduce(f); }, 0,
                            "LowerThreadAllreduce");
}
TESSERA_REGISTER_PASS("tir.transform.LowerThreadAllreduce", LowerThreadAllreduce);

}  // namespace transform

}  // namespace tir
}  // namespace tessera
