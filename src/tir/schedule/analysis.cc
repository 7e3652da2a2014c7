// Block/loop location, statement replacement and schedule errors (see analysis.h).
#include "tir/schedule/analysis.h"

#include <sstream>

#include "runtime/registry.h"
#include "tir/schedule/schedule_index.h"

namespace tessera {
namespace tir {
namespace {

// Rebuilds only the statements on the way to `target` (statements only:
// blocks and loops never sit inside expressions); every other subtree is
// shared by pointer. Rebuilds as StmtExprMutator does (sequences flattened).
class StmtReplacer {
 public:
  StmtReplacer(const Object* target, Stmt replacement) : target_(target), replacement_(std::move(replacement)) {}

  Stmt Visit(const Stmt& s) {
    if (s.get() == target_) return replacement_;
    if (const auto* op = s.as<ForNode>()) {
      Stmt body = Visit(op->body);
      if (body.same_as(op->body)) return s;
      For f = GetRef<For>(op);
      f.CopyOnWrite()->body = body;
      return f;
    }
    if (const auto* op = s.as<SeqStmtNode>()) {
      std::vector<Stmt> out;
      bool changed = false;
      for (const Stmt& x : op->seq) {
        out.push_back(Visit(x));
        changed = changed || !out.back().same_as(x);
      }
      return changed ? SeqStmt::Flatten(out) : s;
    }
    if (const auto* op = s.as<BlockRealizeNode>()) {
      Stmt block = Visit(op->block);
      if (block.same_as(op->block)) return s;
      return BlockRealize(op->iter_values, op->predicate, Downcast<Block>(block), op->span);
    }
    if (const auto* op = s.as<BlockNode>()) {
      std::optional<Stmt> init;
      if (op->init) init = Visit(*op->init);
      Stmt body = Visit(op->body);
      if (body.same_as(op->body) && (!op->init || init->same_as(*op->init))) return s;
      Block b = GetRef<Block>(op);
      auto* n = b.CopyOnWrite();
      n->init = init;
      n->body = body;
      return b;
    }
    if (const auto* op = s.as<IfThenElseNode>()) {
      Stmt t = Visit(op->then_case);
      std::optional<Stmt> e;
      if (op->else_case) e = Visit(*op->else_case);
      if (t.same_as(op->then_case) && (!op->else_case || e->same_as(*op->else_case))) return s;
      return IfThenElse(op->condition, t, e, op->span);
    }
    if (const auto* op = s.as<LetStmtNode>()) {
      Stmt b = Visit(op->body);
      return b.same_as(op->body) ? s : LetStmt(op->var, op->value, b, op->span);
    }
    if (const auto* op = s.as<AttrStmtNode>()) {
      Stmt b = Visit(op->body);
      return b.same_as(op->body) ? s : AttrStmt(op->node, op->attr_key, op->value, b, op->span);
    }
    if (const auto* op = s.as<AllocateNode>()) {
      Stmt b = Visit(op->body);
      return b.same_as(op->body) ? s : Allocate(op->buffer_var, op->dtype, op->extents, op->condition, b, op->annotations, op->span);
    }
    if (const auto* op = s.as<DeclBufferNode>()) {
      Stmt b = Visit(op->body);
      return b.same_as(op->body) ? s : DeclBuffer(op->buffer, b, op->span);
    }
    if (const auto* op = s.as<WhileNode>()) {
      Stmt b = Visit(op->body);
      return b.same_as(op->body) ? s : While(op->condition, b, op->span);
    }
    return s;
  }

 private:
  const Object* target_;
  Stmt replacement_;
};

class VarUseFinder : public StmtExprVisitor {
 public:
  explicit VarUseFinder(const VarNode* v) : v_(v) {}
  using StmtExprVisitor::VisitExpr_;
  void VisitExpr_(const VarNode* op) override { found = found || op == v_; }
  bool found = false;

 private:
  const VarNode* v_;
};

}  // namespace

std::vector<BlockLocation> CollectBlocks(const PrimFunc& func) { return ScheduleIndex::Of(func)->blocks(); }

std::optional<BlockLocation> FindBlock(const PrimFunc& func, const std::string& name) {
  auto index = ScheduleIndex::Of(func);
  int count = 0;
  const BlockLocation* loc = index->FindBlock(name, &count);
  // Blocks may share a name (cache_inplace makes two): a step that looks a
  // block up by name refuses rather than pick one.
  if (count > 1) {
    ThrowScheduleError("lookup", "several blocks are named \"" + name + "\" and this step identifies blocks by "
                                 "name; it cannot tell them apart",
                       func);
  }
  if (loc) return *loc;
  return std::nullopt;
}

std::optional<LoopLocation> FindLoop(const PrimFunc& func, const VarNode* loop_var) {
  auto index = ScheduleIndex::Of(func);
  if (const LoopLocation* loc = index->FindLoop(loop_var)) return *loc;
  return std::nullopt;
}

std::vector<const BlockRealizeNode*> ChildBlocks(const Stmt& stmt) {
  std::vector<const BlockRealizeNode*> out;
  std::function<void(const Stmt&)> walk = [&](const Stmt& s) {
    if (const auto* br = s.as<BlockRealizeNode>()) {
      out.push_back(br);
    } else if (const auto* f = s.as<ForNode>()) {
      walk(f->body);
    } else if (const auto* seq = s.as<SeqStmtNode>()) {
      for (Stmt x : seq->seq) walk(x);
    } else if (const auto* ite = s.as<IfThenElseNode>()) {
      walk(ite->then_case);
      if (ite->else_case) walk(*ite->else_case);
    } else if (const auto* let = s.as<LetStmtNode>()) {
      walk(let->body);
    } else if (const auto* attr = s.as<AttrStmtNode>()) {
      walk(attr->body);
    }
  };
  walk(stmt);
  return out;
}

namespace {
// Calls `f` on each statement below `s` (and `s`), children first; never
// enters expressions (statements do not nest inside them).
void PostOrderStmts(const Stmt& s, const std::function<void(const StmtNode*)>& f) {
  if (!s.defined()) return;
  if (const auto* op = s.as<ForNode>()) {
    PostOrderStmts(op->body, f);
  } else if (const auto* op = s.as<SeqStmtNode>()) {
    for (const Stmt& x : op->seq) PostOrderStmts(x, f);
  } else if (const auto* op = s.as<BlockRealizeNode>()) {
    PostOrderStmts(op->block, f);
  } else if (const auto* op = s.as<BlockNode>()) {
    if (op->init) PostOrderStmts(*op->init, f);
    PostOrderStmts(op->body, f);
  } else if (const auto* op = s.as<IfThenElseNode>()) {
    PostOrderStmts(op->then_case, f);
    if (op->else_case) PostOrderStmts(*op->else_case, f);
  } else if (const auto* op = s.as<LetStmtNode>()) {
    PostOrderStmts(op->body, f);
  } else if (const auto* op = s.as<AttrStmtNode>()) {
    PostOrderStmts(op->body, f);
  } else if (const auto* op = s.as<AllocateNode>()) {
    PostOrderStmts(op->body, f);
  } else if (const auto* op = s.as<DeclBufferNode>()) {
    PostOrderStmts(op->body, f);
  } else if (const auto* op = s.as<WhileNode>()) {
    PostOrderStmts(op->body, f);
  }
  f(static_cast<const StmtNode*>(s.get()));
}
}  // namespace

void PostOrderVisitBlockRealizes(const Stmt& root, const std::function<void(const BlockRealizeNode*)>& f) {
  PostOrderStmts(root, [&](const StmtNode* n) {
    if (n->IsInstance<BlockRealizeNode>()) f(static_cast<const BlockRealizeNode*>(n));
  });
}

bool ContainsStmt(const Stmt& root, const Object* stmt) {
  bool found = false;
  PostOrderStmts(root, [&](const StmtNode* n) { found = found || n == stmt; });
  return found;
}

Stmt ReplaceStmt(const Stmt& root, const Object* target, const Stmt& replacement) {
  return StmtReplacer(target, replacement).Visit(root);
}

PrimFunc ReplaceInFunc(const PrimFunc& func, const Object* target, const Stmt& replacement) {
  PrimFunc out = func;
  out.CopyOnWrite()->body = ReplaceStmt(func->body, target, replacement);
  return out;
}

bool UsesVar(const PrimExpr& e, const VarNode* v) {
  VarUseFinder f(v);
  f.VisitExpr(e);
  return f.found;
}

bool UsesVar(const Stmt& s, const VarNode* v) {
  VarUseFinder f(v);
  f.VisitStmt(s);
  return f.found;
}

void ThrowScheduleError(const std::string& primitive, const std::string& message, const PrimFunc& func,
                        const std::vector<const Object*>& culprits) {
  std::string msg = "ScheduleError: an error occurred in the schedule primitive '" + primitive + "'.\n" + message;
  // The printer lives in the script layer above; it is reached by name.
  if (auto render = Registry::Get("script.RenderWithCulprit")) {
    try {
      Array<ObjectRef> nodes;
      for (const Object* c : culprits) {
        if (c != nullptr) nodes.push_back(GetRef<ObjectRef>(c));
      }
      msg += "\nThe function it was applied to:\n" + (*render)(func, nodes, String("error here")).cast<std::string>();
    } catch (const Error&) {
      // Rendering is best effort: the message above already names the culprit.
    }
  }
  ThrowErrorOfKind("ScheduleError", msg);
}

void ThrowScheduleError(const std::string& primitive, const std::string& message, const PrimFunc& func) {
  ThrowScheduleError(primitive, message, func, {});
}

}  // namespace tir
}  // namespace tessera
