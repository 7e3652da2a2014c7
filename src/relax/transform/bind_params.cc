// BindParams (see bind_params.h): resolves each key to a parameter, checks
// dtype and shape, unifies symbolic dims, then rewrites the function with a
// mutator replacing the bound vars by Constants and the fixed dims by values.
#include "relax/transform/bind_params.h"

#include <sstream>
#include <unordered_map>

#include "relax/expr_functor.h"
#include "relax/transform/function_pass.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace relax {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << (shape.size() == 1 ? ",)" : ")");
  return os.str();
}

class ParamBinder : public ExprMutator {
 public:
  ParamBinder(std::unordered_map<const Object*, RelaxExpr> vars, std::unordered_map<const Object*, PrimExpr> syms)
      : vars_(std::move(vars)), syms_(std::move(syms)) {}

  using ExprMutator::VisitExpr_;
  RelaxExpr VisitExpr_(const VarNode* op) override {
    auto it = vars_.find(op);
    if (it != vars_.end()) return it->second;
    return ExprMutator::VisitExpr_(op);
  }
  RelaxExpr VisitExpr_(const DataflowVarNode* op) override { return VisitExpr_(static_cast<const VarNode*>(op)); }
  PrimExpr VisitPrimExpr(const PrimExpr& e) override { return tir::Substitute(e, Lookup()); }
  StructInfo VisitExprDepStructInfoField(const StructInfo& s) override { return Subst(s); }
  Var VisitVarDef_(const VarNode* v) override { return Retype(GetRef<Var>(v)); }
  Var VisitVarDef_(const DataflowVarNode* v) override { return Retype(GetRef<Var>(v)); }

  StructInfo Subst(const StructInfo& s) const { return SubstituteStructInfo(s, Lookup()); }

 private:
  std::function<std::optional<PrimExpr>(const tir::Var&)> Lookup() const {
    return [this](const tir::Var& v) -> std::optional<PrimExpr> {
      auto it = syms_.find(v.get());
      if (it == syms_.end()) return std::nullopt;
      return it->second;
    };
  }
  Var Retype(const Var& v) {
    if (!v->struct_info_.defined()) return v;
    StructInfo s = Downcast<StructInfo>(v->struct_info_);
    StructInfo ns = Subst(s);
    if (ns.same_as(s)) return v;
    return WithStructInfo(v, ns);
  }
  std::unordered_map<const Object*, RelaxExpr> vars_;
  std::unordered_map<const Object*, PrimExpr> syms_;
};

std::string FuncName(const Function& f) {
  if (auto s = f->attrs.Get("global_symbol")) {
    if (auto str = s->try_cast<std::string>()) return *str;
  }
  return "<anonymous>";
}

}  // namespace

Function BindParams(const Function& func, const Map<ObjectRef, NDArray>& params) {
  TESSERA_CHECK_OR_THROW(func.defined(), TypeError) << "BindParams: function is None";
  std::string fname = FuncName(func);
  std::unordered_map<const Object*, RelaxExpr> vars;
  std::unordered_map<const Object*, PrimExpr> syms;
  for (const auto& kv : params.items()) {
    // Resolve the key to one parameter.
    Var param;
    if (const auto* name = kv.first.as<StringObj>()) {
      int count = 0;
      std::string names;
      for (const Var& p : func->params) {
        names += (names.empty() ? "" : ", ") + p->name_hint;
        if (p->name_hint == name->data) {
          param = p;
          ++count;
        }
      }
      TESSERA_CHECK_OR_THROW(count > 0, ValueError)
          << "BindParams: function '" << fname << "' has no parameter named '" << name->data << "' (parameters: "
          << names << ")";
      TESSERA_CHECK_OR_THROW(count == 1, ValueError)
          << "BindParams: function '" << fname << "' has " << count << " parameters named '" << name->data
          << "'; bind it by Var instead";
    } else if (const auto* v = kv.first.as<VarNode>()) {
      for (const Var& p : func->params) {
        if (p.get() == v) param = p;
      }
      TESSERA_CHECK_OR_THROW(param.defined(), ValueError)
          << "BindParams: var '" << v->name_hint << "' is not a parameter of function '" << fname << "'";
    } else {
      TESSERA_THROW(TypeError) << "BindParams: keys must be parameter names or relax Vars, got "
                               << (kv.first.defined() ? kv.first->GetTypeKey() : std::string("None"));
    }
    TESSERA_CHECK_OR_THROW(!vars.count(param.get()), ValueError)
        << "BindParams: parameter '" << param->name_hint << "' is bound twice (by name and by Var)";
    NDArray arr = kv.second;
    TESSERA_CHECK_OR_THROW(arr.defined(), TypeError)
        << "BindParams: the value for parameter '" << param->name_hint << "' is None";
    // Check the array against the parameter's annotation.
    StructInfo ps = GetStructInfo(param);
    const auto* t = ps.as<TensorStructInfoNode>();
    TESSERA_CHECK_OR_THROW(t != nullptr || ps.as<ObjectStructInfoNode>(), TypeError)
        << "BindParams: parameter '" << param->name_hint << "' of function '" << fname << "' is "
        << StructInfoText(ps) << ", not a tensor: it cannot be bound to an array";
    if (t != nullptr) {
      TESSERA_CHECK_OR_THROW(t->IsUnknownDtype() || t->dtype == arr.dtype(), TypeError)
          << "BindParams: parameter '" << param->name_hint << "' expects dtype " << t->dtype << ", got "
          << arr.dtype();
      const std::vector<int64_t>& shape = arr.Shape();
      TESSERA_CHECK_OR_THROW(t->IsUnknownNdim() || t->ndim == static_cast<int>(shape.size()), ValueError)
          << "BindParams: parameter '" << param->name_hint << "' expects " << t->ndim << " dims "
          << StructInfoText(ps) << ", got shape " << ShapeText(shape);
      if (auto dims = t->GetShape()) {
        for (size_t i = 0; i < dims->size(); ++i) {
          PrimExpr d = tir::Substitute((*dims)[i], [&](const tir::Var& v) -> std::optional<PrimExpr> {
            auto it = syms.find(v.get());
            if (it == syms.end()) return std::nullopt;
            return it->second;
          });
          if (const auto* sv = d.as<tir::VarNode>()) {
            syms[sv] = IntImm(sv->dtype, shape[i]);
            continue;
          }
          const int64_t* c = AsConstInt(d);
          TESSERA_CHECK_OR_THROW(c == nullptr || *c == shape[i], ValueError)
              << "BindParams: parameter '" << param->name_hint << "' expects shape " << StructInfoText(ps)
              << ", got " << ShapeText(shape) << " (dim " << i << ")";
        }
      }
    }
    vars[param.get()] = Constant(arr);
  }
  if (vars.empty()) return func;
  Array<Var> remaining;
  for (const Var& p : func->params) {
    if (!vars.count(p.get())) remaining.push_back(p);
  }
  ParamBinder binder(std::move(vars), std::move(syms));
  std::optional<StructInfo> ret;
  if (func->ret_struct_info.defined()) ret = binder.Subst(func->ret_struct_info);
  Function pruned(remaining, func->body, ret, func->is_pure, func->attrs, func->span);
  return Downcast<Function>(binder.VisitExpr(pruned));
}

namespace transform {

tessera::transform::Pass BindParams(std::string func_name, Map<ObjectRef, NDArray> params) {
  return tessera::transform::CreateModulePass(
      [func_name, params](IRModule mod, PassContext) {
        auto gv = mod->FindGlobalVar(func_name);
        TESSERA_CHECK_OR_THROW(gv.has_value(), ValueError)
            << "BindParams: the module has no function named '" << func_name << "'";
        const auto* f = mod->Lookup(*gv).as<FunctionNode>();
        TESSERA_CHECK_OR_THROW(f != nullptr, TypeError)
            << "BindParams: '" << func_name << "' is not a relax function";
        Function bound = relax::BindParams(GetRef<Function>(f), params);
        IRModule out = mod.ShallowCopy();
        if (!bound.same_as(GetRef<Function>(f))) out.mutable_node()->Update(*gv, bound);
        return out;
      },
      0, "BindParams");
}

}  // namespace transform

TESSERA_REGISTER_GLOBAL("relax.transform.BindParams").set_body_typed([](std::string func_name, Map<ObjectRef, NDArray> params) {
  return transform::BindParams(func_name, params);
});
TESSERA_REGISTER_GLOBAL("relax.FunctionBindParams").set_body_typed([](Function f, Map<ObjectRef, NDArray> params) {
  return BindParams(f, params);
});

}  // namespace relax
}  // namespace tessera
