// LegalizeOps: replaces each call of a high-level Relax op that has a
// legalization (op attribute "FLegalize", registered next to each op's Python
// constructor in python/tessera/relax/op/ and called here through its
// PackedFunc as fn(bb, call)) by what it returns: call_tir of a TOPI PrimFunc
// added through this pass's BlockBuilder (BlockBuilder.call_te shares
// identical PrimFuncs). A customize_legalize_map entry (op name -> function)
// replaces the op's own legalization, as TVM's. Calls of ops without one are
// left unchanged (with enable_warning, named once per op on stderr). A result
// that is itself a call of a high-level op is legalized again, as TVM. An
// ExprMutator, so nesting (If in If, ...) is bounded by the stack guard, not by
// Python's recursion limit. First pass of relax.build's default pipeline.
#include <iostream>
#include <unordered_set>

#include "ir/op.h"
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace {

class Legalizer : public ExprMutator {
 public:
  Legalizer(const IRModule& mod, Map<String, PackedFunc> custom, bool enable_warning)
      : ExprMutator(mod.ShallowCopy()),
        flegalize_(Op::GetAttrMap<PackedFunc>("FLegalize")),
        custom_(std::move(custom)),
        enable_warning_(enable_warning) {}
  using ExprMutator::VisitExpr_;

  // Legalizes every Relax function of `mod`; the result also holds the PrimFuncs added.
  IRModule Run(const IRModule& mod) {
    std::vector<std::pair<GlobalVar, BaseFunc>> funcs;
    for (const auto& [gv, func] : mod->functions.items()) funcs.emplace_back(gv, func);
    for (const auto& [gv, func] : funcs) {
      if (!func.as<FunctionNode>()) continue;
      RelaxExpr out = VisitExpr(Downcast<Function>(func));
      if (!out.same_as(func)) builder_->UpdateFunction(gv, Downcast<Function>(out));
    }
    return builder_->GetContextIRModule();
  }

  RelaxExpr VisitExpr_(const CallNode* op) override {
    RelaxExpr expr = ExprMutator::VisitExpr_(op);
    const auto* call = expr.as<CallNode>();
    const auto* callee = call != nullptr ? call->op.as<OpNode>() : nullptr;
    if (callee == nullptr) return expr;
    Op o = GetRef<Op>(callee);
    std::optional<PackedFunc> legalize = custom_.Get(callee->name);
    if (!legalize && flegalize_.count(o)) legalize = flegalize_[o];
    if (!legalize) {
      static const std::unordered_set<std::string> kLowLevel = {"relax.call_tir", "relax.call_dps_packed",
                                                                 "relax.call_pure_packed"};
      if (enable_warning_ && !kLowLevel.count(callee->name) && warned_.insert(callee->name).second) {
        std::cerr << "LegalizeOps: no legalization is registered for " << callee->name << "; its calls are left\n";
      }
      return expr;
    }
    Any result = (*legalize)(builder_, expr);
    std::optional<RelaxExpr> legal = result.try_cast<RelaxExpr>();
    TESSERA_CHECK_OR_THROW(legal.has_value() && legal->defined(), TypeError)
        << "the legalization of " << callee->name << " returned " << result.type_name()
        << ", not a Relax expression";
    if (legal->same_as(expr)) return expr;
    // A legalization may give other high-level ops (a custom op as matmul + add): legalize them
    // too, as TVM; a chain of legalizations deeper than kMaxDepth is a legalization that never ends.
    constexpr int kMaxDepth = 64;
    TESSERA_CHECK_OR_THROW(depth_ < kMaxDepth, ValueError)
        << "the legalization of " << callee->name << " gives calls to legalize again more than " << kMaxDepth
        << " times (a legalization returning a call of its own op?)";
    ++depth_;
    struct Restore {
      int* d;
      ~Restore() { --*d; }
    } restore{&depth_};
    return builder_->Normalize(VisitExpr(*legal));
  }

  // An error of a legalization names the op and the binding (e.g. a tensor of
  // unknown shape that TOPI cannot take); errors of nested bindings (If
  // branches) are named by their own binding only.
  void VisitBinding_(const VarBindingNode* binding) override {
    try {
      ExprMutator::VisitBinding_(binding);
    } catch (const Error& e) {
      const auto* call = binding->value.as<CallNode>();
      const auto* callee = call != nullptr ? call->op.as<OpNode>() : nullptr;
      static const std::unordered_set<std::string> kNamed = {"TypeError", "ValueError", "NotImplementedError"};
      if (callee == nullptr || !kNamed.count(e.kind())) throw;
      ThrowErrorOfKind(e.kind(), "LegalizeOps: cannot legalize " + callee->name + " bound to '" +
                                     binding->var->name_hint + "': " + e.what());
    }
  }

 private:
  OpAttrMap<PackedFunc> flegalize_;
  Map<String, PackedFunc> custom_;
  bool enable_warning_;
  std::unordered_set<std::string> warned_;
  int depth_ = 0;  // nested re-legalizations of a legalization's result
};

}  // namespace

namespace transform {

Pass LegalizeOps(Map<String, PackedFunc> customize_legalize_map, bool enable_warning) {
  return tessera::transform::CreateModulePass(
      [customize_legalize_map, enable_warning](IRModule mod, tessera::transform::PassContext) {
        return Legalizer(mod, customize_legalize_map, enable_warning).Run(mod);
      },
      0, "LegalizeOps");
}
TESSERA_REGISTER_PASS("relax.transform.LegalizeOps", [] { return LegalizeOps(); });
TESSERA_REGISTER_GLOBAL("relax.transform.LegalizeOpsWith")
    .set_body_typed([](Map<String, PackedFunc> customize_legalize_map, bool enable_warning) {
      return LegalizeOps(customize_legalize_map, enable_warning);
    });

}  // namespace transform
}  // namespace relax
}  // namespace tessera
