// parallel / vectorize / unroll / bind, and annotations on loops and blocks
// (see primitives.h).
#include "tir/op.h"
#include "tir/schedule/primitive/primitives.h"

namespace tessera {
namespace tir {
namespace {

// The first block under `loop` whose reduction iteration variable is bound
// to an expression using the loop variable, or nullptr.
const BlockNode* ReductionBoundTo(const ForNode* loop) {
  const BlockNode* found = nullptr;
  PostOrderVisit(loop->body, [&](const ObjectRef& n) {
    const auto* br = n.as<BlockRealizeNode>();
    if (br == nullptr || found != nullptr) return;
    for (size_t i = 0; i < br->iter_values.size(); ++i) {
      if (br->block->iter_vars[i]->iter_type == kCommReduce && UsesVar(br->iter_values[i], loop->loop_var.get())) {
        found = br->block.get();
        return;
      }
    }
  });
  return found;
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
