// Free-variable collection (see undefined_vars.h).
#include "tir/analysis/undefined_vars.h"

#include <set>

#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace tir {
namespace {

class UndefinedVarCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;
  void VisitExpr_(const VarNode* op) override { Use(op); }
  void VisitExpr_(const SizeVarNode* op) override { Use(op); }
  void VisitExpr_(const LetNode* op) override {
    defined_.insert(op->var.get());
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitBufferUse(const Buffer& b) override { Use(b->data.get()); }
  void VisitStmt_(const ForNode* op) override {
    defined_.insert(op->loop_var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const LetStmtNode* op) override {
    defined_.insert(op->var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AttrStmtNode* op) override {
    // T.launch_thread: the thread variable is defined by the launch (as a thread-bound loop's variable is).
    if (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread") {
      if (const auto* iv = op->node.as<IterVarNode>()) defined_.insert(iv->var.get());
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AllocateNode* op) override {
    defined_.insert(op->buffer_var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  std::vector<const VarNode*> Free() const {
    std::vector<const VarNode*> out;
    for (const VarNode* v : order_)
      if (!defined_.count(v)) out.push_back(v);
    return out;
  }

 private:
  void Use(const VarNode* v) {
    if (seen_.insert(v).second) order_.push_back(v);
  }
  std::set<const VarNode*> seen_, defined_;
  std::vector<const VarNode*> order_;
};

}  // namespace

std::vector<Var> UndefinedVars(const Stmt& stmt, const std::vector<PrimExpr>& exprs) {
  UndefinedVarCollector collector;
  for (const PrimExpr& e : exprs) collector.VisitExpr(e);
  collector.VisitStmt(stmt);
  std::vector<Var> out;
  for (const VarNode* v : collector.Free()) out.push_back(GetRef<Var>(v));
  return out;
}

TESSERA_REGISTER_GLOBAL("tir.analysis.UndefinedVars").set_body_typed([](Stmt stmt) {
  std::vector<Var> vars = UndefinedVars(stmt);
  return Array<Var>(vars.begin(), vars.end());
});

}  // namespace tir
}  // namespace tessera
