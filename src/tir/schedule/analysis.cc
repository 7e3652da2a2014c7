// Block/loop location, statement replacement and schedule errors (see analysis.h).
#include "tir/schedule/analysis.h"

#include <sstream>

#include "runtime/registry.h"

namespace tessera {
namespace tir {
namespace {

class BlockCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitStmt_;
  void VisitStmt_(const ForNode* op) override {
    loops_.push_back(op);
    StmtExprVisitor::VisitStmt_(op);
    loops_.pop_back();
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    const BlockNode* block = op->block.get();
    if (scope_ != nullptr) out.push_back(BlockLocation{op, block, loops_, scope_});
    const BlockNode* saved_scope = scope_;
    auto saved_loops = std::move(loops_);
    loops_.clear();
    scope_ = block;
    StmtExprVisitor::VisitStmt_(op);
    scope_ = saved_scope;
    loops_ = std::move(saved_loops);
  }
  std::vector<BlockLocation> out;

 private:
  std::vector<const ForNode*> loops_;
  const BlockNode* scope_ = nullptr;
};

class LoopFinder : public StmtExprVisitor {
 public:
  explicit LoopFinder(const VarNode* var) : var_(var) {}
  using StmtExprVisitor::VisitStmt_;
  void VisitStmt_(const ForNode* op) override {
    if (found) return;
    if (op->loop_var.get() == var_) {
      found = LoopLocation{op, loops_, scope_};
      return;
    }
    loops_.push_back(op);
    StmtExprVisitor::VisitStmt_(op);
    loops_.pop_back();
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    const BlockNode* saved_scope = scope_;
    auto saved = std::move(loops_);
    loops_.clear();
    scope_ = op->block.get();
    StmtExprVisitor::VisitStmt_(op);
    scope_ = saved_scope;
    loops_ = std::move(saved);
  }
  std::optional<LoopLocation> found;

 private:
  const VarNode* var_;
  std::vector<const ForNode*> loops_;
  const BlockNode* scope_ = nullptr;
};

class StmtReplacer : public StmtExprMutator {
 public:
  StmtReplacer(const Object* target, Stmt replacement) : target_(target), replacement_(std::move(replacement)) {}
  Stmt VisitStmt(const Stmt& s) override {
    if (s.get() == target_) return replacement_;
    return StmtFunctor::VisitStmt(s);
  }
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }  // statements only

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

std::vector<BlockLocation> CollectBlocks(const PrimFunc& func) {
  BlockCollector c;
  c.VisitStmt(func->body);
  return c.out;
}

std::optional<BlockLocation> FindBlock(const PrimFunc& func, const std::string& name) {
  for (const BlockLocation& loc : CollectBlocks(func))
    if (loc.block->name_hint == name) return loc;
  return std::nullopt;
}

std::optional<LoopLocation> FindLoop(const PrimFunc& func, const VarNode* loop_var) {
  LoopFinder f(loop_var);
  f.VisitStmt(func->body);
  return f.found;
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

Stmt ReplaceStmt(const Stmt& root, const Object* target, const Stmt& replacement) {
  return StmtReplacer(target, replacement).VisitStmt(root);
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
