// FunctionPass and DataflowBlockPass (see function_pass.h), their Python
// constructors relax.transform.MakeFunctionPass / MakeDataflowBlockPass.
#include "relax/transform/function_pass.h"

#include <unordered_set>

#include "relax/block_builder.h"
#include "relax/expr_functor.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace transform {

namespace {

// Normalizes `f` (a pass result) against the module, keeping it when already normalized.
Function NormalizeResult(const Function& f, const IRModule& mod) {
  return Downcast<Function>(BlockBuilder::Create(mod)->Normalize(f));
}

}  // namespace

IRModule FunctionPassNode::Run(IRModule mod, const PassContext& ctx) const {
  IRModule out = mod.ShallowCopy();
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    const auto* fn = mod->Lookup(gv).as<FunctionNode>();
    if (fn == nullptr) continue;
    Function result = pass_func(GetRef<Function>(fn), out, ctx);
    TESSERA_CHECK_OR_THROW(result.defined(), TypeError)
        << "function pass '" << info->name << "' returned None for function '" << gv->name_hint
        << "' (a relax function pass must return a relax.Function)";
    if (!result.same_as(GetRef<Function>(fn))) {
      out.mutable_node()->Update(gv, NormalizeResult(result, out));
    }
  }
  return out;
}

namespace {

// Replaces each DataflowBlock by the pass's result.
class BlockReplacer : public ExprMutatorBase {
 public:
  BlockReplacer(const DataflowBlockPassNode* pass, IRModule mod, PassContext ctx, std::string func)
      : pass_(pass), mod_(std::move(mod)), ctx_(std::move(ctx)), func_(std::move(func)) {}

  BindingBlock VisitBindingBlock(const BindingBlock& block) override {
    const auto* df = block.as<DataflowBlockNode>();
    if (df == nullptr) return ExprMutatorBase::VisitBindingBlock(block);
    DataflowBlock in = GetRef<DataflowBlock>(df);
    DataflowBlock out = pass_->pass_func(in, mod_, ctx_);
    TESSERA_CHECK_OR_THROW(out.defined(), TypeError)
        << "dataflow block pass '" << pass_->info->name << "' returned None in function '" << func_
        << "' (it must return a relax.DataflowBlock)";
    if (out.same_as(in)) return in;
    std::vector<const Object*> before = Outputs(in), after = Outputs(out);
    TESSERA_CHECK_OR_THROW(before == after, ValueError)
        << "dataflow block pass '" << pass_->info->name << "' changed the output vars of a dataflow block in function '"
        << func_ << "' (" << Names(in) << " became " << Names(out) << "); output vars must stay the same";
    return out;
  }

 private:
  static std::vector<const Object*> Outputs(const BindingBlock& b) {
    std::vector<const Object*> out;
    for (const Binding& x : b->bindings) {
      if (!x->var.as<DataflowVarNode>()) out.push_back(x->var.get());
    }
    return out;
  }
  static std::string Names(const BindingBlock& b) {
    std::string s = "[";
    for (const Binding& x : b->bindings) {
      if (x->var.as<DataflowVarNode>()) continue;
      if (s.size() > 1) s += ", ";
      s += x->var->name_hint;
    }
    return s + "]";
  }
  const DataflowBlockPassNode* pass_;
  IRModule mod_;
  PassContext ctx_;
  std::string func_;
};

}  // namespace

IRModule DataflowBlockPassNode::Run(IRModule mod, const PassContext& ctx) const {
  IRModule out = mod.ShallowCopy();
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    const auto* fn = mod->Lookup(gv).as<FunctionNode>();
    if (fn == nullptr) continue;
    Function f = GetRef<Function>(fn);
    RelaxExpr result = BlockReplacer(this, out, ctx, gv->name_hint).VisitExpr(f);
    if (!result.same_as(f)) out.mutable_node()->Update(gv, NormalizeResult(Downcast<Function>(result), out));
  }
  return out;
}

Pass CreateFunctionPass(std::function<Function(Function, IRModule, PassContext)> pass_func, int opt_level,
                        std::string name, Array<String> required, bool traceable) {
  TESSERA_CHECK_OR_THROW(pass_func != nullptr, ValueError) << "function pass " << name << " has no function";
  auto n = make_object<FunctionPassNode>();
  n->info = PassInfo(opt_level, std::move(name), std::move(required), traceable);
  n->pass_func = std::move(pass_func);
  return Pass(std::move(n));
}

Pass CreateDataflowBlockPass(std::function<DataflowBlock(DataflowBlock, IRModule, PassContext)> pass_func,
                             int opt_level, std::string name, Array<String> required, bool traceable) {
  TESSERA_CHECK_OR_THROW(pass_func != nullptr, ValueError) << "dataflow block pass " << name << " has no function";
  auto n = make_object<DataflowBlockPassNode>();
  n->info = PassInfo(opt_level, std::move(name), std::move(required), traceable);
  n->pass_func = std::move(pass_func);
  return Pass(std::move(n));
}

Pass Normalize() {
  return CreateFunctionPass(
      [](Function f, IRModule mod, PassContext) { return Downcast<Function>(BlockBuilder::Create(mod)->Normalize(f)); },
      0, "Normalize");
}
TESSERA_REGISTER_PASS("relax.transform.Normalize", Normalize);

TESSERA_REGISTER_OBJECT_TYPE(FunctionPassNode);
TESSERA_REGISTER_OBJECT_TYPE(DataflowBlockPassNode);

namespace {

template <typename T>
std::function<T(T, IRModule, PassContext)> WrapPython(PackedFunc f, std::string name, const char* what,
                                                      const char* expected) {
  return [f, name, what, expected](T x, IRModule mod, PassContext ctx) -> T {
    Any r = f(x, mod, ctx);
    auto out = r.is_none() ? std::nullopt : r.try_cast<T>();
    TESSERA_CHECK_OR_THROW(out.has_value(), TypeError)
        << what << " '" << name << "' must return a " << expected << ", got " << r.type_name();
    return *out;
  };
}

void CheckArgs(const PackedArgs& args, const char* ctor) {
  TESSERA_CHECK_OR_THROW(args.size() == 2, TypeError) << ctor << "(pass_func, pass_info)";
  TESSERA_CHECK_OR_THROW(!args[0].is_none() && !args[1].is_none(), TypeError)
      << ctor << ": pass_func and pass_info must not be None";
}

}  // namespace

TESSERA_REGISTER_GLOBAL("relax.transform.MakeFunctionPass").set_body([](PackedArgs args) -> Any {
  CheckArgs(args, "MakeFunctionPass");
  PassInfo info = args[1].cast<PassInfo>();
  auto n = make_object<FunctionPassNode>();
  n->info = info;
  n->pass_func = WrapPython<Function>(args[0].cast<PackedFunc>(), info->name, "function pass", "relax.Function");
  return Pass(std::move(n));
});

TESSERA_REGISTER_GLOBAL("relax.transform.MakeDataflowBlockPass").set_body([](PackedArgs args) -> Any {
  CheckArgs(args, "MakeDataflowBlockPass");
  PassInfo info = args[1].cast<PassInfo>();
  auto n = make_object<DataflowBlockPassNode>();
  n->info = info;
  n->pass_func =
      WrapPython<DataflowBlock>(args[0].cast<PackedFunc>(), info->name, "dataflow block pass", "relax.DataflowBlock");
  return Pass(std::move(n));
});

}  // namespace transform
}  // namespace relax
}  // namespace tessera
