// ThreadSync (see thread_sync.h). A bottom-up planner: each statement is
// summarised by the accesses to the scope that happen before its first barrier
// (exposed) and after its last (tail); a sequence places a barrier before a
// child whose exposed accesses conflict with the tail accesses of the children
// since the last barrier; a loop adds one at the end of its body when the tail
// of an iteration conflicts with the exposed accesses of the next.
#include "tir/transform/thread_sync.h"

#include <set>
#include <unordered_map>

#include "codegen/cuda/launch_extents.h"
#include "ir/op.h"
#include "ir/structural_equal.h"
#include "runtime/registry.h"
#include "tir/analysis/buffer_scopes.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {
namespace {

struct Access {
  const VarNode* data;
  Array<PrimExpr> index;  // empty: unknown (the whole buffer)
  bool write;
  bool per_thread = false;  // the index depends on the thread (else every thread touches the same element)
};

struct Summary {
  std::vector<Access> exposed;  // before the first barrier on every path
  std::vector<Access> tail;     // after the last barrier
  bool synced = false;          // a barrier on every path
};

bool Conflict(const Access& a, const Access& b) {
  // Read after write and write after read; two writes need no order (as TVM: a race, not a missing barrier).
  if (a.data != b.data || a.write == b.write) return false;
  // The same element in both, chosen by the thread: each thread sees its own access (no other thread's). An index
  // that is the same for every thread (S[0] written by thread 0, read by all) is shared: a conflict.
  if (!a.index.empty() && a.index.size() == b.index.size() && a.per_thread && b.per_thread) {
    bool same = true;
    for (size_t i = 0; i < a.index.size() && same; ++i) same = StructuralEqual(a.index[i], b.index[i]);
    if (same) return false;
  }
  return true;
}

bool AnyConflict(const std::vector<Access>& a, const std::vector<Access>& b) {
  for (const Access& x : a) {
    for (const Access& y : b) {
      if (Conflict(x, y)) return true;
    }
  }
  return false;
}

void Append(std::vector<Access>* to, const std::vector<Access>& from) { to->insert(to->end(), from.begin(), from.end()); }

// Whether `e` may differ between the threads of a block: it uses a thread index (or a variable bound to one) or
// reads memory (whose contents may differ per thread).
bool ThreadDependent(const PrimExpr& e, const std::set<const VarNode*>& thread_vars) {
  bool found = false;
  PostOrderVisit(e, [&](const ObjectRef& n) {
    if (const auto* v = n.as<VarNode>(); v && thread_vars.count(v)) found = true;
    if (n.as<BufferLoadNode>()) found = true;
  });
  return found;
}

class Planner {
 public:
  Planner(const Stmt& body, std::string scope)
      : scope_(std::move(scope)), scopes_(BufferScopes(body)), launch_(codegen::KernelLaunchExtents(body)) {}

  Stmt Sync() const {
    return Evaluate(Call(DataType::Int(32), Op::Get("tir.tvm_storage_sync"), {StringImm(scope_)}));
  }

  // Plans `s` (returned rewritten) and summarises it. `can_sync`: a barrier may be placed here (false inside a
  // branch on the thread index).
  Stmt Plan(const Stmt& s, Summary* out, bool can_sync) {
    if (const auto* seq = s.as<SeqStmtNode>()) return PlanSeq(seq, out, can_sync);
    if (const auto* loop = s.as<ForNode>()) return PlanFor(loop, out, can_sync);
    if (const auto* ite = s.as<IfThenElseNode>()) return PlanIf(ite, out, can_sync);
    if (const auto* w = s.as<WhileNode>()) {
      Summary inner;
      accesses_ = {};
      Collect(w->condition);
      std::vector<Access> cond = accesses_;
      // A condition differing between threads makes the body divergent: no barrier inside.
      Stmt body = PlanLoopBody(w->body, &inner, can_sync && !ThreadDependent(w->condition, thread_vars_), cond);
      Summary cs;
      cs.exposed = cond;
      cs.tail = cond;
      *out = LoopSummary(cs, inner);
      out->synced = false;  // it may run no iteration
      if (body.same_as(w->body)) return s;
      return While(w->condition, body, w->span);
    }
    if (const auto* let = s.as<LetStmtNode>()) {
      if (ThreadDependent(let->value, thread_vars_)) thread_vars_.insert(let->var.get());
      Stmt body = Plan(let->body, out, can_sync);
      Prepend(let->value, out);
      return body.same_as(let->body) ? s : LetStmt(let->var, let->value, body, let->span);
    }
    if (const auto* attr = s.as<AttrStmtNode>()) {
      Stmt body = Plan(attr->body, out, can_sync);
      return body.same_as(attr->body) ? s : AttrStmt(attr->node, attr->attr_key, attr->value, body, attr->span);
    }
    if (const auto* alloc = s.as<AllocateNode>()) {
      Stmt body = Plan(alloc->body, out, can_sync);
      return body.same_as(alloc->body) ? s
                                       : Allocate(alloc->buffer_var, alloc->dtype, alloc->extents, alloc->condition,
                                                  body, alloc->annotations, alloc->span);
    }
    if (const auto* decl = s.as<DeclBufferNode>()) {
      Stmt body = Plan(decl->body, out, can_sync);
      return body.same_as(decl->body) ? s : DeclBuffer(decl->buffer, body, decl->span);
    }
    // A leaf: a store, an evaluated call (possibly a barrier already there).
    *out = Summary();
    if (const auto* ev = s.as<EvaluateNode>()) {
      if (IsSync(ev->value)) {
        out->synced = true;
        return s;
      }
    }
    accesses_ = {};
    if (const auto* store = s.as<BufferStoreNode>()) {
      Collect(store->value);
      for (const PrimExpr& i : store->indices) Collect(i);
      if (InScope(store->buffer->data.get())) {
        accesses_.push_back({store->buffer->data.get(), store->indices, true, PerThread(store->indices)});
      }
    } else {
      CollectStmt(s);
    }
    out->exposed = accesses_;
    out->tail = accesses_;
    return s;
  }

 private:
  bool IsSync(const PrimExpr& e) const {
    const auto* call = e.as<CallNode>();
    if (call == nullptr || !call->op.same_as(Op::Get("tir.tvm_storage_sync")) || call->args.empty()) return false;
    const auto* sc = call->args[0].as<StringImmNode>();
    return sc && sc->value == scope_;
  }

  bool InScope(const VarNode* data) const { return ScopeOf(scopes_, data) == scope_; }

  bool PerThread(const Array<PrimExpr>& index) const {
    if (scope_ == "local") return true;  // each thread has its own copy
    for (const PrimExpr& i : index) {
      if (ThreadDependent(i, thread_vars_)) return true;
    }
    return false;
  }

  // Accesses of an expression: loads (with their index), and any other use of a buffer pointer (call arguments:
  // access_ptr, ptx intrinsics) as an unknown read and write.
  void Collect(const PrimExpr& e) {
    std::set<const VarNode*> indexed;
    PostOrderVisit(e, [&](const ObjectRef& n) {
      if (const auto* load = n.as<BufferLoadNode>()) {
        if (InScope(load->buffer->data.get())) {
          accesses_.push_back({load->buffer->data.get(), load->indices, false, PerThread(load->indices)});
        }
      } else if (const auto* call = n.as<CallNode>()) {
        for (const PrimExpr& a : call->args) {
          if (call->op.same_as(Op::Get("tir.tvm_access_ptr"))) break;  // below, by its rw_mask
          if (const auto* v = a.as<VarNode>(); v && InScope(v)) {
            accesses_.push_back({v, {}, false});
            accesses_.push_back({v, {}, true});
          }
        }
        if (call->op.same_as(Op::Get("tir.tvm_access_ptr")) && call->args.size() > 1) {
          if (const auto* v = call->args[1].as<VarNode>(); v && InScope(v)) {
            // rw_mask (1 read, 2 write), as TVM's access_ptr("r") / ("w"); unknown: both
            const auto* mask = call->args.size() > 4 ? call->args[4].as<IntImmNode>() : nullptr;
            int64_t rw = mask ? mask->value : 3;
            if (rw & 1) accesses_.push_back({v, {}, false});
            if (rw & 2) accesses_.push_back({v, {}, true});
          }
        }
      }
    });
  }
  void CollectStmt(const Stmt& s) {
    PostOrderVisit(s, [&](const ObjectRef& n) {
      if (const auto* ev = n.as<EvaluateNode>()) Collect(ev->value);
    });
  }

  // Accesses of an expression evaluated before a statement's own (a let value, a condition).
  void Prepend(const PrimExpr& e, Summary* out) {
    accesses_ = {};
    Collect(e);
    if (accesses_.empty()) return;
    std::vector<Access> exposed = accesses_;
    Append(&exposed, out->exposed);
    out->exposed = exposed;
    if (!out->synced) Append(&out->tail, accesses_);
  }

  Stmt PlanSeq(const SeqStmtNode* seq, Summary* out, bool can_sync) {
    std::vector<Stmt> stmts;
    std::vector<Access> pending;  // accesses since the last barrier
    bool changed = false;
    *out = Summary();
    for (const Stmt& child : seq->seq) {
      Summary cs;
      Stmt planned = Plan(child, &cs, can_sync);
      changed |= !planned.same_as(child);
      if (can_sync && AnyConflict(pending, cs.exposed)) {
        stmts.push_back(Sync());
        changed = true;
        pending.clear();
        out->synced = true;
      }
      if (!out->synced) Append(&out->exposed, cs.exposed);
      if (cs.synced) {
        out->synced = true;
        pending = cs.tail;
      } else {
        Append(&pending, cs.tail);
      }
      stmts.push_back(planned);
    }
    out->tail = pending;
    if (!changed) return GetRef<Stmt>(seq);
    return SeqStmt::Flatten(stmts);
  }

  // The summary of a loop running `body` (summary `b`) at least once, then again: iterations after the first see
  // the previous iteration's tail.
  static Summary LoopSummary(const Summary& head, const Summary& b) {
    Summary out;
    out.exposed = head.exposed;
    Append(&out.exposed, b.exposed);
    out.synced = b.synced;
    out.tail = b.tail;
    if (!b.synced) {
      Append(&out.exposed, b.tail);
      Append(&out.tail, head.tail);
    }
    return out;
  }

  // Plans a loop body; adds a barrier at its end when an iteration's tail races with the next one's exposed
  // accesses (`head`: the accesses of the loop condition, evaluated before each iteration).
  Stmt PlanLoopBody(const Stmt& body, Summary* out, bool can_sync, const std::vector<Access>& head) {
    Stmt planned = Plan(body, out, can_sync);
    std::vector<Access> next = head;
    Append(&next, out->exposed);
    if (can_sync && AnyConflict(out->tail, next)) {
      planned = SeqStmt::Flatten({planned, Sync()});
      out->tail.clear();
      out->synced = true;
    } else if (!out->synced) {
      Append(&out->exposed, out->tail);  // seen by the next iteration, before any barrier
    }
    return planned;
  }

  Stmt PlanFor(const ForNode* loop, Summary* out, bool can_sync) {
    if (loop->kind == ForKind::kThreadBinding) {
      std::string tag = loop->thread_binding ? (*loop->thread_binding)->thread_tag : std::string();
      bool vthread = tag.rfind("vthread", 0) == 0;
      bool guarded = false;
      if (!vthread) {
        if (tag.rfind("threadIdx", 0) == 0) thread_vars_.insert(loop->loop_var.get());  // blockIdx: uniform in a block
        std::optional<PrimExpr> launch = codegen::LaunchExtentOf(launch_, tag);
        const int64_t* e = AsConstInt(loop->extent);
        const int64_t* l = launch ? AsConstInt(*launch) : nullptr;
        guarded = launch && !(e && l ? *e >= *l : StructuralEqual(loop->extent, *launch));
      }
      if (!vthread) {
        // Parallel threads, not iterations: no loop-carried order; a guarded binding is a branch on the thread.
        Stmt body = Plan(loop->body, out, can_sync && !guarded);
        return body.same_as(loop->body) ? GetRef<Stmt>(loop) : ReplaceBody(loop, body);
      }
    }
    Summary b;
    bool uniform = !ThreadDependent(loop->min, thread_vars_) && !ThreadDependent(loop->extent, thread_vars_);
    Stmt body = PlanLoopBody(loop->body, &b, can_sync && uniform, {});
    *out = b;
    const int64_t* e = AsConstInt(loop->extent);
    if (e && *e <= 0) *out = Summary();
    if (!e || *e <= 0) out->synced = false;  // it may run no iteration: what came before passes through
    return body.same_as(loop->body) ? GetRef<Stmt>(loop) : ReplaceBody(loop, body);
  }

  static Stmt ReplaceBody(const ForNode* loop, const Stmt& body) {
    return For(loop->loop_var, loop->min, loop->extent, loop->kind, body, loop->thread_binding, loop->annotations,
               loop->span);
  }

  Stmt PlanIf(const IfThenElseNode* ite, Summary* out, bool can_sync) {
    bool on_thread = ThreadDependent(ite->condition, thread_vars_);
    bool inner = can_sync && !on_thread;
    Summary t, e;
    Stmt then_case = Plan(ite->then_case, &t, inner);
    std::optional<Stmt> else_case;
    if (ite->else_case) else_case = Plan(*ite->else_case, &e, inner);
    *out = Summary();
    out->synced = t.synced && ite->else_case && e.synced;
    out->exposed = t.exposed;
    Append(&out->exposed, e.exposed);
    out->tail = t.tail;
    Append(&out->tail, e.tail);
    // A path without a barrier passes everything through.
    if (!t.synced) Append(&out->exposed, t.tail);
    if (ite->else_case && !e.synced) Append(&out->exposed, e.tail);
    if (!out->synced) {
      if (t.synced) Append(&out->tail, t.exposed);
      if (ite->else_case && e.synced) Append(&out->tail, e.exposed);
    }
    Prepend(ite->condition, out);
    bool same = then_case.same_as(ite->then_case) && (!ite->else_case || else_case->same_as(*ite->else_case));
    return same ? GetRef<Stmt>(ite) : IfThenElse(ite->condition, then_case, else_case, ite->span);
  }

  std::string scope_;
  std::unordered_map<const VarNode*, std::string> scopes_;
  codegen::LaunchExtents launch_;
  std::set<const VarNode*> thread_vars_;
  std::vector<Access> accesses_;
};

}  // namespace

Stmt ThreadSync(const Stmt& body, const std::string& scope) {
  Planner planner(body, scope);
  Summary s;
  return planner.Plan(body, &s, true);
}

namespace transform {

tessera::transform::Pass ThreadSync(std::string storage_scope) {
  TESSERA_CHECK_OR_THROW(!storage_scope.empty() && storage_scope != "global", ValueError)
      << "ThreadSync: storage_scope must be a scope shared by threads (\"shared\", \"shared.dyn\", \"warp\"), got \""
      << storage_scope << "\"";
  return CreatePrimFuncPass(
      [storage_scope](PrimFunc f, IRModule, tessera::transform::PassContext) {
        Stmt body = tir::ThreadSync(f->body, storage_scope);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "ThreadSync");
}

}  // namespace transform

TESSERA_REGISTER_GLOBAL("tir.transform.ThreadSync").set_body_typed([](std::string storage_scope) {
  return transform::ThreadSync(storage_scope);
});

}  // namespace tir
}  // namespace tessera
