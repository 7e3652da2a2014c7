// The Relax well-formedness checker (see well_formed.h): one walk per
// function with scoped sets of visible vars and symbolic dims; a call_tir's
// tensors are checked against its PrimFunc's buffers.
#include "relax/analysis/well_formed.h"

#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "relax/expr_functor.h"
#include "runtime/registry.h"
#include "tir/buffer.h"
#include "tir/function.h"
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
    bool forced = force && force->cast<bool>();
    // As TVM: relax.force_pure is set only together with purity (it says the
    // function is pure though it calls impure code).
    if (forced && !op->is_pure) Error("attribute relax.force_pure is set on a function not marked pure");
    pure_ = op->is_pure && !forced;
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
    CheckCallTIRSignature(op);
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

  // A call_tir's argument and output tensors against the PrimFunc's buffers:
  // the number of tensors, each one's ndim and dtype, and its dims where both
  // are constants once the buffer's symbolic dims are bound by the tensors
  // (e.g. an output of [M * N] checked after the inputs bind M and N).
  void CheckCallTIRSignature(const CallNode* op) {
    static const Op& call_tir = Op::Get("relax.call_tir");
    if (!mod_ || !op->op.same_as(call_tir) || op->args.size() < 2 || op->sinfo_args.size() != 1) return;
    const auto* gv = op->args[0].as<GlobalVarNode>();
    if (gv == nullptr || !(*mod_)->FindGlobalVar(gv->name_hint)) return;
    const auto* prim = (*mod_)->Lookup(GetRef<GlobalVar>(gv)).as<tir::PrimFuncNode>();
    if (prim == nullptr) return;
    std::vector<std::pair<const TensorStructInfoNode*, std::string>> tensors;
    auto add = [&](const StructInfo& s, const std::string& what) -> bool {
      const auto* t = s.as<TensorStructInfoNode>();
      if (t) tensors.emplace_back(t, what);
      return t != nullptr;
    };
    auto in = MatchStructInfo(op->args[1]);
    if (!in) return;
    if (const auto* tup = in->as<TupleStructInfoNode>()) {
      for (size_t i = 0; i < tup->fields.size(); ++i) {
        if (!add(tup->fields[i], "argument " + std::to_string(i))) return;
      }
    } else if (!add(*in, "argument 0")) {
      return;
    }
    const StructInfo& out = op->sinfo_args[0];
    if (const auto* tup = out.as<TupleStructInfoNode>()) {
      for (size_t i = 0; i < tup->fields.size(); ++i) {
        if (!add(tup->fields[i], "output " + std::to_string(i))) return;
      }
    } else if (!add(out, "output")) {
      return;
    }
    std::string who = "call_tir of PrimFunc '" + gv->name_hint + "'";
    if (tensors.size() > prim->params.size()) {
      Error(who + " passes " + std::to_string(tensors.size()) + " tensors to " + std::to_string(prim->params.size()) +
            " parameters");
      return;
    }
    std::unordered_map<const Object*, int64_t> bound;
    std::vector<std::pair<size_t, size_t>> deferred;  // (tensor, dim) whose buffer dim is an expression
    std::vector<const tir::BufferNode*> buffers;
    for (size_t i = 0; i < tensors.size(); ++i) {
      auto b = prim->buffer_map.Get(prim->params[i]);
      if (!b) return;  // a handle parameter used otherwise: nothing to check
      buffers.push_back(b->get());
    }
    for (size_t i = 0; i < tensors.size(); ++i) {
      const auto* t = tensors[i].first;
      const tir::BufferNode* buf = buffers[i];
      std::string what = who + ": " + tensors[i].second + " " + StructInfoText(GetRef<StructInfo>(t)) +
                         " does not match buffer '" + buf->name + "'";
      if (!t->IsUnknownNdim() && t->ndim != static_cast<int>(buf->shape.size())) {
        Error(what + " of " + std::to_string(buf->shape.size()) + " dimensions");
        continue;
      }
      if (!t->IsUnknownDtype() && t->dtype != buf->dtype) {
        std::ostringstream os;
        os << what << " of dtype " << buf->dtype;
        Error(os.str());
        continue;
      }
      auto dims = t->GetShape();
      if (!dims) continue;
      for (size_t d = 0; d < dims->size(); ++d) {
        const PrimExpr given_dim = (*dims)[d];
        const int64_t* given = AsConstInt(given_dim);
        const PrimExpr expected = buf->shape[d];
        if (const auto* v = expected.as<tir::VarNode>()) {
          if (!given) continue;
          auto it = bound.find(v);
          if (it == bound.end()) {
            bound.emplace(v, *given);
          } else if (it->second != *given) {
            Error(what + ": dimension " + std::to_string(d) + " is " + std::to_string(*given) + ", but '" +
                  v->name_hint + "' was bound to " + std::to_string(it->second));
          }
        } else {
          deferred.emplace_back(i, d);
        }
      }
    }
    arith::Analyzer ana;
    for (const auto& [i, d] : deferred) {
      const PrimExpr given_dim = (*tensors[i].first->GetShape())[d];
      const int64_t* given = AsConstInt(given_dim);
      if (!given) continue;
      PrimExpr expected = ana.Simplify(tir::Substitute(buffers[i]->shape[d], [&](const tir::Var& v) -> std::optional<PrimExpr> {
        auto it = bound.find(v.get());
        if (it == bound.end()) return std::nullopt;
        return IntImm(v.dtype(), it->second);
      }));
      const int64_t* want = AsConstInt(expected);
      if (want && *want != *given) {
        Error(who + ": " + tensors[i].second + " " + StructInfoText(GetRef<StructInfo>(tensors[i].first)) +
              " does not match buffer '" + buffers[i]->name + "': dimension " + std::to_string(d) + " is " +
              std::to_string(*given) + ", the buffer's " + std::to_string(*want));
      }
    }
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
    std::vector<std::string> errors;
    for (const GlobalVar& gv : m->GetGlobalVars()) {
      auto f = m->Lookup(gv).as<FunctionNode>();
      if (!f) continue;
      checker.CheckFunction(gv->name_hint, GetRef<Function>(f));
      // A public function's global_symbol is its name in the module.
      if (auto sym = f->attrs.Get("global_symbol")) {
        if (auto name = sym->try_cast<std::string>(); name && *name != gv->name_hint) {
          errors.push_back("function '" + gv->name_hint + "': its global_symbol '" + *name +
                           "' differs from its name in the module");
        }
      }
    }
    checker.errors.insert(checker.errors.end(), errors.begin(), errors.end());
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
