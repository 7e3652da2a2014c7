// The Relax well-formedness checker (see well_formed.h): one walk per
// function with scoped sets of visible vars and symbolic dims.
#include "relax/analysis/well_formed.h"

#include <sstream>
#include <unordered_set>

#include "relax/expr_functor.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace relax {
namespace {

class WellFormedChecker : public ExprVisitor {
 public:
  WellFormedChecker(std::optional<IRModule> mod, bool check_struct_info)
      : mod_(std::move(mod)), check_struct_info_(check_struct_info) {}

  void CheckFunction(const std::string& name, const Function& func) {
    func_name_ = name;
    binding_name_.clear();
    VisitExpr(func);
  }

  std::vector<std::string> errors;

  using ExprVisitor::VisitExpr;
  void VisitExpr(const RelaxExpr& e) override {
    if (check_struct_info_ && !e->struct_info_.defined() && !e.as<OpNode>() && !e.as<GlobalVarNode>()) {
      Error(ExprKindName(e) + " has no struct info (the IR was not normalized)");
    }
    ExprVisitor::VisitExpr(e);
  }

  void VisitExpr_(const FunctionNode* op) override {
    bool outer_pure = pure_;
    bool outer_dataflow = in_dataflow_;
    std::string outer_binding = binding_name_;
    auto force = op->attrs.Get("relax.force_pure");
    pure_ = op->is_pure && !(force && force->cast<bool>());
    in_dataflow_ = false;
    PushScope();
    for (const Var& p : op->params) {
      binding_name_ = "parameter '" + p->name_hint + "'";
      if (p.as<DataflowVarNode>()) Error("a DataflowVar cannot be a function parameter");
      if (!p->struct_info_.defined()) {
        Error("the parameter has no struct info");
      } else {
        // Parameters define the symbolic dims their annotations mention first.
        for (const tir::Var& v : TIRVarsInStructInfo(Downcast<StructInfo>(p->struct_info_))) DefineSym(v);
      }
      DefineVar(p);
    }
    binding_name_ = outer_binding;
    if (!op->body.as<SeqExprNode>()) Error("the function body is not a SeqExpr (not normalized)");
    VisitExpr(op->body);
    if (op->ret_struct_info.defined()) {
      std::string saved = binding_name_;
      binding_name_ = "return annotation";
      CheckSymInStructInfo(op->ret_struct_info);
      binding_name_ = saved;
    }
    PopScope();
    pure_ = outer_pure;
    in_dataflow_ = outer_dataflow;
  }

  void VisitExpr_(const SeqExprNode* op) override {
    for (const BindingBlock& b : op->blocks) VisitBindingBlock(b);
    std::string saved = binding_name_;
    binding_name_ = "result";
    VisitExpr(op->body);
    binding_name_ = saved;
  }

  void VisitExpr_(const IfNode* op) override {
    if (in_dataflow_) Error("If is not allowed inside a dataflow block");
    CheckLeaf(op->cond, "the If condition");
    VisitExpr(op->cond);
    for (const RelaxExpr& branch : {op->true_branch, op->false_branch}) {
      if (!branch.as<SeqExprNode>()) Error("an If branch is not a SeqExpr (not normalized)");
      PushScope();
      VisitExpr(branch);
      PopScope();
    }
  }

  void VisitExpr_(const CallNode* op) override {
    if (!op->op.as<OpNode>()) CheckLeaf(op->op, "the callee");
    for (size_t i = 0; i < op->args.size(); ++i) CheckLeaf(op->args[i], "argument " + std::to_string(i));
    if (const auto* callee = op->op.as<GlobalVarNode>()) CheckGlobalVar(callee);
    // Purity: impure ops and impure callees.
    bool impure = false;
    std::string what;
    if (const auto* o = op->op.as<OpNode>()) {
      static const OpAttrMap<bool> fpurity = Op::GetAttrMap<bool>("FPurity");
      Op opref = GetRef<Op>(o);
      if (fpurity.count(opref) && !fpurity[opref]) {
        impure = true;
        what = "operator '" + o->name + "'";
      }
    } else if (const auto* fs = op->op->struct_info_.as<FuncStructInfoNode>()) {
      if (!fs->purity) {
        impure = true;
        what = "impure function '" + CalleeText(op->op) + "'";
      }
    }
    if (impure && in_dataflow_) Error("impure call of " + what + " inside a dataflow block");
    else if (impure && pure_) Error("impure call of " + what + " in a pure function (mark it impure or set relax.force_pure)");
    for (const StructInfo& s : op->sinfo_args) CheckSymInStructInfo(s);
    ExprVisitor::VisitExpr_(op);
  }

  void VisitExpr_(const TupleNode* op) override {
    for (size_t i = 0; i < op->fields.size(); ++i) CheckLeaf(op->fields[i], "tuple field " + std::to_string(i));
    ExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const TupleGetItemNode* op) override {
    CheckLeaf(op->tuple, "the tuple of a TupleGetItem");
    ExprVisitor::VisitExpr_(op);
  }

  void VisitExpr_(const VarNode* op) override {
    if (!IsVisible(op)) {
      if (defined_ever_.count(op)) {
        Error("var '" + op->name_hint + "' is used outside the scope that defines it");
      } else {
        Error("var '" + op->name_hint + "' is used before it is defined (or never defined)");
      }
    }
  }
  void VisitExpr_(const DataflowVarNode* op) override {
    if (!IsVisible(op)) {
      if (defined_ever_.count(op)) {
        Error("dataflow var '" + op->name_hint + "' is used outside its dataflow block");
      } else {
        Error("dataflow var '" + op->name_hint + "' is used before it is defined (or never defined)");
      }
    }
  }
  void VisitExpr_(const GlobalVarNode* op) override { CheckGlobalVar(op); }

  void VisitPrimExpr(const PrimExpr& e) override {
    tir::PostOrderVisit(e, [&](const ObjectRef& n) {
      if (const auto* v = n.as<tir::VarNode>()) {
        if (!IsSymDefined(v) && reported_syms_.insert(v).second) {
          Error("symbolic var '" + v->name_hint + "' is used before it is defined");
        }
      }
    });
  }

  void VisitBindingBlock_(const BindingBlockNode* block) override {
    for (const Binding& b : block->bindings) VisitBinding(b);
  }
  void VisitBindingBlock_(const DataflowBlockNode* block) override {
    bool saved = in_dataflow_;
    in_dataflow_ = true;
    dataflow_vars_.emplace_back();
    for (const Binding& b : block->bindings) VisitBinding(b);
    // Dataflow vars end with their block.
    for (const Object* v : dataflow_vars_.back()) {
      for (auto& scope : scopes_) scope.vars.erase(v);
    }
    dataflow_vars_.pop_back();
    in_dataflow_ = saved;
  }

  void VisitBinding_(const VarBindingNode* binding) override {
    binding_name_ = "binding '" + binding->var->name_hint + "'";
    reported_syms_.clear();
    VisitExpr(binding->value);
    CheckVarStructInfo(binding->var);
    DefineVar(binding->var);
  }

  void VisitBinding_(const MatchCastNode* binding) override {
    binding_name_ = "match_cast '" + binding->var->name_hint + "'";
    reported_syms_.clear();
    CheckLeaf(binding->value, "the matched value");
    VisitExpr(binding->value);
    // New symbolic dims are defined by the match.
    for (const tir::Var& v : TIRVarsInStructInfo(binding->struct_info)) DefineSym(v);
    CheckVarStructInfo(binding->var);
    DefineVar(binding->var);
  }

 private:
  struct Scope {
    std::unordered_set<const Object*> vars;
    std::unordered_set<const Object*> syms;
  };

  void Error(const std::string& msg) {
    std::ostringstream os;
    os << "function '" << func_name_ << "'";
    if (!binding_name_.empty()) os << ", " << binding_name_;
    os << ": " << msg;
    errors.push_back(os.str());
  }

  static std::string CalleeText(const RelaxExpr& e) {
    if (const auto* g = e.as<GlobalVarNode>()) return g->name_hint;
    if (const auto* v = e.as<VarNode>()) return v->name_hint;
    return ExprKindName(e);
  }

  void CheckLeaf(const RelaxExpr& e, const std::string& what) {
    if (!IsLeafOrTuple(e)) Error(what + " is a nested " + ExprKindName(e) + " (not in A-normal form)");
  }

  void CheckGlobalVar(const GlobalVarNode* gv) {
    if (mod_ && !(*mod_)->FindGlobalVar(gv->name_hint)) {
      Error("GlobalVar '" + gv->name_hint + "' is not a function of the module");
    }
  }

  void CheckVarStructInfo(const Var& var) {
    if (!var->struct_info_.defined()) {
      if (check_struct_info_) Error("var '" + var->name_hint + "' has no struct info");
      return;
    }
    CheckSymInStructInfo(Downcast<StructInfo>(var->struct_info_));
  }

  void CheckSymInStructInfo(const StructInfo& sinfo) {
    if (sinfo.as<FuncStructInfoNode>()) return;  // a signature binds its own dims
    for (const tir::Var& v : TIRVarsInStructInfo(sinfo)) {
      if (!IsSymDefined(v.get()) && reported_syms_.insert(v.get()).second) {
        Error("symbolic var '" + v->name_hint + "' in struct info " + StructInfoText(sinfo) +
              " is used before it is defined");
      }
    }
  }

  void DefineVar(const Var& var) {
    if (!defined_ever_.insert(var.get()).second) {
      Error("var '" + var->name_hint + "' is defined more than once");
    }
    if (var.as<DataflowVarNode>()) {
      if (!in_dataflow_ || dataflow_vars_.empty()) {
        Error("dataflow var '" + var->name_hint + "' is defined outside a dataflow block");
      } else {
        dataflow_vars_.back().insert(var.get());
      }
    }
    scopes_.back().vars.insert(var.get());
  }

  void DefineSym(const tir::Var& v) {
    if (!IsSymDefined(v.get())) scopes_.back().syms.insert(v.get());
  }
  bool IsSymDefined(const Object* v) const {
    for (const Scope& s : scopes_) {
      if (s.syms.count(v)) return true;
    }
    return false;
  }
  bool IsVisible(const Object* v) const {
    for (const Scope& s : scopes_) {
      if (s.vars.count(v)) return true;
    }
    return false;
  }
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }

  std::optional<IRModule> mod_;
  bool check_struct_info_;
  std::string func_name_;
  std::string binding_name_;
  bool pure_ = true;
  bool in_dataflow_ = false;
  std::vector<Scope> scopes_;
  std::vector<std::unordered_set<const Object*>> dataflow_vars_;
  std::unordered_set<const Object*> defined_ever_;
  // Symbolic vars already reported for the current binding (one message each).
  std::unordered_set<const Object*> reported_syms_;
};

}  // namespace

std::vector<std::string> WellFormedErrors(const ObjectRef& obj, bool check_struct_info) {
  TESSERA_CHECK_OR_THROW(obj.defined(), TypeError) << "well_formed: expected an IRModule or a relax Function, got None";
  if (const auto* m = obj.as<IRModuleNode>()) {
    IRModule mod = GetRef<IRModule>(m);
    WellFormedChecker checker(mod, check_struct_info);
    for (const GlobalVar& gv : m->GetGlobalVars()) {
      if (auto f = m->Lookup(gv).as<FunctionNode>()) checker.CheckFunction(gv->name_hint, GetRef<Function>(f));
    }
    return checker.errors;
  }
  if (const auto* f = obj.as<FunctionNode>()) {
    WellFormedChecker checker(std::nullopt, check_struct_info);
    std::string name = "<anonymous>";
    if (auto sym = f->attrs.Get("global_symbol")) {
      if (auto s = sym->try_cast<std::string>()) name = *s;
    }
    checker.CheckFunction(name, GetRef<Function>(f));
    return checker.errors;
  }
  TESSERA_THROW(TypeError) << "well_formed: expected an IRModule or a relax Function, got " << obj->GetTypeKey();
}

bool WellFormed(const ObjectRef& obj, bool check_struct_info) { return WellFormedErrors(obj, check_struct_info).empty(); }

TESSERA_REGISTER_GLOBAL("relax.analysis.WellFormedErrors").set_body_typed([](ObjectRef obj, bool check_struct_info) {
  Array<String> out;
  for (const std::string& e : WellFormedErrors(obj, check_struct_info)) out.push_back(String(e));
  return out;
});

}  // namespace relax
}  // namespace tessera
