// CallTIRRewrite: destination-passing calls become explicit allocation plus
// a call. `lv = R.call_tir(f, (x, y), out_sinfo)` (and R.call_dps_packed)
// becomes `alloc = R.builtin.alloc_tensor(shape, dtype, 0, "global")` per
// output, `_ = f(x, y, alloc)` and `lv = alloc` (a tuple of the allocations
// for several outputs); call_tir with tir_vars calls R.vm.call_tir_dyn.
// Runs after ToNonDataflow and RemovePurityChecking, before memory planning.
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "relax/transform/utils.h"

namespace tessera {
namespace relax {
namespace {

std::string CalleeName(const RelaxExpr& callee) {
  if (const auto* gv = callee.as<GlobalVarNode>()) return gv->name_hint;
  if (const auto* ext = callee.as<ExternFuncNode>()) return "\"" + ext->global_symbol + "\"";
  return callee.defined() ? callee->GetTypeKey() : "?";
}

class CallTIRRewriter : public BindingNamingMutator {
 public:
  using BindingNamingMutator::BindingNamingMutator;
  using BindingNamingMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const CallNode* op) override {
    RelaxExpr expr = ExprMutator::VisitExpr_(op);
    const auto* call = expr.as<CallNode>();
    static const Op& call_tir = Op::Get("relax.call_tir");
    static const Op& call_dps_packed = Op::Get("relax.call_dps_packed");
    if (call == nullptr || !(call->op.same_as(call_tir) || call->op.same_as(call_dps_packed))) return expr;
    const std::string what = std::string(call->op.same_as(call_tir) ? "R.call_tir(" : "R.call_dps_packed(") +
                             CalleeName(call->args.empty() ? RelaxExpr() : call->args[0]) + ") bound to '" +
                             bound_to_ + "'";
    TESSERA_CHECK_OR_THROW(call->args.size() == 2 || call->args.size() == 3, ValueError)
        << "CallTIRRewrite: " << what << " has " << call->args.size()
        << " arguments, expected (callee, args[, tir_vars])";

    // One allocation per output tensor.
    StructInfo sinfo = GetStructInfo(GetRef<Call>(op));
    std::vector<TensorStructInfo> out_sinfos;
    bool tuple_output = false;
    if (const auto* tensor = sinfo.as<TensorStructInfoNode>()) {
      out_sinfos.push_back(GetRef<TensorStructInfo>(tensor));
    } else if (const auto* tuple = sinfo.as<TupleStructInfoNode>()) {
      tuple_output = true;
      for (size_t i = 0; i < tuple->fields.size(); ++i) {
        const auto* field = tuple->fields[i].as<TensorStructInfoNode>();
        TESSERA_CHECK_OR_THROW(field != nullptr, TypeError)
            << "CallTIRRewrite: output #" << i << " of " << what << " is " << StructInfoText(tuple->fields[i])
            << ", not a tensor";
        out_sinfos.push_back(GetRef<TensorStructInfo>(field));
      }
    } else {
      TESSERA_THROW(TypeError) << "CallTIRRewrite: the output of " << what << " is " << StructInfoText(sinfo)
                               << "; expected a tensor or a tuple of tensors";
    }
    static const Op& alloc_tensor = Op::Get("relax.builtin.alloc_tensor");
    Array<RelaxExpr> outs;
    for (size_t i = 0; i < out_sinfos.size(); ++i) {
      const TensorStructInfo& out = out_sinfos[i];
      bool shaped = out->shape.has_value() &&
                    ((*out->shape)->IsInstance<ShapeExprNode>() || (*out->shape)->IsInstance<VarNode>());
      TESSERA_CHECK_OR_THROW(shaped, ValueError)
          << "CallTIRRewrite: output " << (tuple_output ? "#" + std::to_string(i) + " " : std::string())
          << "of " << what << " is " << StructInfoText(out)
          << ", whose shape is unknown; an output must declare its shape to be allocated";
      TESSERA_CHECK_OR_THROW(!out->IsUnknownDtype(), ValueError)
          << "CallTIRRewrite: output " << (tuple_output ? "#" + std::to_string(i) + " " : std::string()) << "of "
          << what << " has no dtype; an output must declare its dtype to be allocated";
      outs.push_back(builder_->Emit(
          Call(alloc_tensor, {*out->shape, DataTypeImm(out->dtype), PrimValue::Int64(0), StringImm("global")}),
          "alloc"));
    }

    RelaxExpr callee = call->args[0];
    if (const auto* in_tuple = call->args[1].as<TupleNode>()) {
      Array<RelaxExpr> args = in_tuple->fields;
      for (const RelaxExpr& o : outs) args.push_back(o);
      if (call->args.size() == 2) {
        builder_->Emit(Call(callee, args), "_");
      } else {
        static const Op& call_tir_dyn = Op::Get("relax.vm.call_tir_dyn");
        args.push_back(call->args[2]);
        builder_->Emit(Call(call_tir_dyn, {callee, Tuple(args)}), "_");
      }
    } else {
      TESSERA_CHECK_OR_THROW(call->args.size() == 2, ValueError)
          << "CallTIRRewrite: " << what << " has tir_vars but its arguments are not a tuple expression";
      Array<RelaxExpr> args{call->args[1]};
      for (const RelaxExpr& o : outs) args.push_back(o);
      builder_->Emit(Call(callee, args), "_");
    }
    if (!tuple_output) return outs[0];
    return Tuple(outs);
  }
};

}  // namespace

namespace transform {

Pass CallTIRRewrite() {
  return tessera::transform::CreateModulePass(
      [](IRModule mod, tessera::transform::PassContext) {
        CallTIRRewriter rewriter(mod);
        return UpdateRelaxFunctions(
            mod, [&](const GlobalVar&, const Function& f) { return Downcast<Function>(rewriter.VisitExpr(f)); });
      },
      0, "CallTIRRewrite");
}
TESSERA_REGISTER_PASS("relax.transform.CallTIRRewrite", CallTIRRewrite);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
