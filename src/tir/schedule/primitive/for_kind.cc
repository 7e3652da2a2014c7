// parallel / vectorize / unroll / bind, and annotations on loops and blocks
// (see primitives.h), followed by their schedule instruction kinds,
// Schedule methods (resolve the handles, commit, record) and
// tir.schedule.* FFI entries.
#include "arith/analyzer.h"
#include "arith/iter_map.h"
#include "tir/op.h"
#include "tir/schedule/primitive/primitives.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
namespace {

// The first block under `loop` whose reduction iteration variable is bound
// to an expression using the loop variable, or nullptr.
const BlockNode* ReductionBoundTo(const ForNode* loop) {
  const BlockNode* found = nullptr;
  PostOrderVisitBlockRealizes(loop->body, [&](const BlockRealizeNode* br) {
    if (found != nullptr) return;
    for (size_t i = 0; i < br->iter_values.size(); ++i) {
      if (br->block->iter_vars[i]->iter_type == kCommReduce && UsesVar(br->iter_values[i], loop->loop_var.get())) {
        found = br->block.get();
        return;
      }
    }
  });
  return found;
}

// TVM's preconditions of parallel/vectorize over `loop`: every block
// directly under it is (1) not opaque (it has iteration variables), (2) a
// complete or reduction block, so no write is indexed by a reduction
// variable (the iterations then write disjoint data), and (3) bound
// quasi-affinely to the loops. Throws a ScheduleError naming the block.
void CheckParallelizable(const PrimFunc& func, const ForNode* loop, const std::string& primitive) {
  const std::string name = "loop " + loop->loop_var->name_hint;
  Map<Var, Range> dom;
  if (auto loc = FindLoop(func, loop->loop_var.get())) {
    for (const ForNode* a : loc->ancestors) dom.Set(a->loop_var, Range::FromMinExtent(a->min, a->extent));
  }
  std::function<void(const Stmt&, Map<Var, Range>)> visit = [&](const Stmt& stmt, Map<Var, Range> d) {
    if (const auto* f = stmt.as<ForNode>()) {
      d.Set(f->loop_var, Range::FromMinExtent(f->min, f->extent));
      visit(f->body, d);
    } else if (const auto* seq = stmt.as<SeqStmtNode>()) {
      for (const Stmt& x : seq->seq) visit(x, d);
    } else if (const auto* br = stmt.as<BlockRealizeNode>()) {
      const BlockNode* b = br->block.get();
      const std::string bname = "block \"" + b->name_hint + "\"";
      if (b->iter_vars.empty()) {
        ThrowScheduleError(primitive, "cannot " + primitive + " " + name + ": " + bname +
                                          " under it is opaque (it has no iteration variables, so the "
                                          "independence of its iterations cannot be shown)",
                           func, {b});
      }
      for (const IterVar& iv : b->iter_vars) {
        if (iv->iter_type != kCommReduce) continue;
        for (const BufferRegion& w : b->writes) {
          for (const Range& r : w->region) {
            if (UsesVar(r->min, iv->var.get()) || UsesVar(r->extent, iv->var.get())) {
              ThrowScheduleError(primitive, "cannot " + primitive + " " + name + ": " + bname +
                                                " is neither a complete nor a reduction block: its write to " +
                                                w->buffer->name + " is indexed by the reduction variable " +
                                                iv->var->name_hint + " (no compact data flow)",
                                 func, {b});
            }
          }
        }
      }
      arith::Analyzer ana;
      auto detected = arith::DetectIterMap(br->iter_values, d, br->predicate,
                                           arith::IterMapLevel::kNoCheck, &ana);
      if (!br->iter_values.empty() && detected->indices.empty()) {
        ThrowScheduleError(primitive, "cannot " + primitive + " " + name + ": the bindings of " + bname +
                                          " are not quasi-affine in the loops",
                           func, {b});
      }
    } else if (const auto* let = stmt.as<LetStmtNode>()) {
      visit(let->body, d);
    } else if (const auto* ite = stmt.as<IfThenElseNode>()) {
      visit(ite->then_case, d);
      if (ite->else_case) visit(*ite->else_case, d);
    }
  };
  dom.Set(loop->loop_var, Range::FromMinExtent(loop->min, loop->extent));
  visit(loop->body, dom);
}

bool IsThreadTag(const std::string& tag) {
  static const char* kTags[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y",
                                "blockIdx.z",  "vthread",     "vthread.x",   "vthread.y",  "vthread.z"};
  for (const char* t : kTags)
    if (tag == t) return true;
  return false;
}

}  // namespace

PrimFunc SetLoopKind(const PrimFunc& func, const ForNode* loop, ForKind kind, const std::string& primitive,
                     const std::string& thread_tag) {
  const std::string name = "loop " + loop->loop_var->name_hint;
  if (kind == ForKind::kParallel || kind == ForKind::kVectorized ||
      (kind == ForKind::kThreadBinding && thread_tag.rfind("blockIdx", 0) == 0)) {
    if (const BlockNode* b = ReductionBoundTo(loop)) {
      std::string verb = primitive == "parallel" ? "parallelize" : primitive;
      ThrowScheduleError(primitive, "cannot " + verb + " " + name + ": it carries the reduction of block \"" +
                                        b->name_hint + "\" (a loop-carried dependence)",
                         func, {b});
    }
  }
  if (kind == ForKind::kParallel || kind == ForKind::kVectorized) CheckParallelizable(func, loop, primitive);
  For f = GetRef<For>(loop);
  auto* n = f.CopyOnWrite();
  n->kind = kind;
  if (kind == ForKind::kThreadBinding) {
    if (!IsThreadTag(thread_tag)) {
      ThrowScheduleError(primitive, "unknown thread axis \"" + thread_tag +
                                        "\" (expected threadIdx.x/y/z, blockIdx.x/y/z or vthread)",
                         func);
    }
    n->thread_binding = IterVar(Range::FromMinExtent(loop->min, loop->extent), Var(thread_tag, loop->loop_var.dtype()),
                                kThreadIndex, thread_tag);
  } else {
    n->thread_binding = std::nullopt;
  }
  return ReplaceInFunc(func, loop, f);
}

PrimFunc AnnotateLoop(const PrimFunc& func, const ForNode* loop, const std::string& key, const Any& value, bool remove) {
  For f = GetRef<For>(loop);
  auto* n = f.CopyOnWrite();
  if (remove) {
    if (!n->annotations.count(key)) {
      ThrowScheduleError("unannotate", "loop " + loop->loop_var->name_hint + " has no annotation \"" + key + "\"", func, {loop});
    }
    n->annotations.erase(key);
  } else {
    n->annotations.Set(key, value);
  }
  return ReplaceInFunc(func, loop, f);
}

PrimFunc AnnotateBlock(const PrimFunc& func, const BlockNode* block, const std::string& key, const Any& value,
                       bool remove) {
  Block b = GetRef<Block>(block);
  auto* n = b.CopyOnWrite();
  if (remove) {
    if (!n->annotations.count(key)) {
      ThrowScheduleError("unannotate", "block \"" + block->name_hint + "\" has no annotation \"" + key + "\"", func, {block});
    }
    n->annotations.erase(key);
  } else {
    n->annotations.Set(key, value);
  }
  return ReplaceInFunc(func, block, b);
}

}  // namespace tir
}  // namespace tessera

// ---- instruction kinds -------------------------------------------------------------
namespace tessera {
namespace tir {
using namespace inst_args;

#define TESSERA_LOOP_KIND_INST(Kind, Method, python)                                              \
  TESSERA_REGISTER_INST_KIND(Kind)                                                                 \
      .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {        \
        sch.Method(in.at_any(0).cast<LoopRV>());                                                   \
        return Array<Any>();                                                                       \
      })                                                                                           \
      .set_as_python(PythonCall(python, {"loop"}, {}))
TESSERA_LOOP_KIND_INST("Parallel", Parallel, "parallel");
TESSERA_LOOP_KIND_INST("Vectorize", Vectorize, "vectorize");
TESSERA_LOOP_KIND_INST("Unroll", Unroll, "unroll");
#undef TESSERA_LOOP_KIND_INST
TESSERA_REGISTER_INST_KIND("Bind")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      sch.Bind(in.at_any(0).cast<LoopRV>(), attrs.at_any(0).cast<std::string>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("bind", {"loop"}, {"thread_axis"}));
TESSERA_REGISTER_INST_KIND("Annotate")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      sch.Annotate(in.at_any(0).cast<ObjectRef>(), attrs.at_any(0).cast<std::string>(), in.at_any(1));
      return Array<Any>();
    })
    .set_as_python(PythonCall("annotate", {"block_or_loop", "ann_val"}, {"ann_key"}));
TESSERA_REGISTER_INST_KIND("Unannotate")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      sch.Unannotate(in.at_any(0).cast<ObjectRef>(), attrs.at_any(0).cast<std::string>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("unannotate", {"block_or_loop"}, {"ann_key"}));

// ---- Schedule methods ------------------------------------------------------------

#define TESSERA_SCHEDULE_LOOP_KIND(Method, Kind, Name, KindName)           \
  void Schedule::Method(const LoopRV& loop) const {                         \
    LoopLocation loc = LocateLoop(loop, Name);                              \
    const std::string func = get()->loops.at(loop.get()).func;              \
    Commit(func, SetLoopKind(FuncOf(func), loc.loop, Kind, Name));          \
    Record(KindName, {loop}, {}, {});                                       \
  }
TESSERA_SCHEDULE_LOOP_KIND(Parallel, ForKind::kParallel, "parallel", "Parallel")
TESSERA_SCHEDULE_LOOP_KIND(Vectorize, ForKind::kVectorized, "vectorize", "Vectorize")
TESSERA_SCHEDULE_LOOP_KIND(Unroll, ForKind::kUnrolled, "unroll", "Unroll")
#undef TESSERA_SCHEDULE_LOOP_KIND

void Schedule::Bind(const LoopRV& loop, const std::string& thread_axis) const {
  LoopLocation loc = LocateLoop(loop, "bind");
  const std::string func = get()->loops.at(loop.get()).func;
  Commit(func, SetLoopKind(FuncOf(func), loc.loop, ForKind::kThreadBinding, "bind", thread_axis));
  Record("Bind", {loop}, {thread_axis}, {});
}

void Schedule::Annotate(const ObjectRef& block_or_loop, const std::string& key, const Any& ann_val) const {
  // A sampled value annotates with the integer it stands for (as in TVM),
  // never with the free variable of the handle.
  Any value = ann_val;
  if (ann_val.is_object()) {
    auto it = get()->values.find(ann_val.raw_object().get());
    if (it != get()->values.end()) value = Any(it->second);
  }
  if (const auto* b = block_or_loop.as<BlockRVNode>()) {
    BlockLocation loc = LocateBlock(GetRef<BlockRV>(b), "annotate");
    const std::string func = get()->blocks.at(b).func;
    Commit(func, AnnotateBlock(FuncOf(func), loc.block, key, value, false));
  } else {
    LoopRV l = Downcast<LoopRV>(block_or_loop);
    LoopLocation loc = LocateLoop(l, "annotate");
    const std::string func = get()->loops.at(l.get()).func;
    Commit(func, AnnotateLoop(FuncOf(func), loc.loop, key, value, false));
  }
  Record("Annotate", {block_or_loop, ann_val}, {key}, {});
}

void Schedule::Unannotate(const ObjectRef& block_or_loop, const std::string& key) const {
  if (const auto* b = block_or_loop.as<BlockRVNode>()) {
    BlockLocation loc = LocateBlock(GetRef<BlockRV>(b), "unannotate");
    const std::string func = get()->blocks.at(b).func;
    Commit(func, AnnotateBlock(FuncOf(func), loc.block, key, Any(), true));
  } else {
    LoopRV l = Downcast<LoopRV>(block_or_loop);
    LoopLocation loc = LocateLoop(l, "unannotate");
    const std::string func = get()->loops.at(l.get()).func;
    Commit(func, AnnotateLoop(FuncOf(func), loc.loop, key, Any(), true));
  }
  Record("Unannotate", {block_or_loop}, {key}, {});
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Parallel").set_body_typed([](Schedule s, LoopRV l) { s.Parallel(l); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Vectorize").set_body_typed([](Schedule s, LoopRV l) { s.Vectorize(l); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Unroll").set_body_typed([](Schedule s, LoopRV l) { s.Unroll(l); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Bind").set_body_typed([](Schedule s, LoopRV l, std::string t) { s.Bind(l, t); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Annotate").set_body_typed([](Schedule s, ObjectRef x, std::string k, Any v) {
  s.Annotate(x, k, v);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Unannotate").set_body_typed([](Schedule s, ObjectRef x, std::string k) {
  s.Unannotate(x, k);
});

}  // namespace tir
}  // namespace tessera
