// PrimFuncPass (see prim_func_pass.h) and its Python constructor
// tir.transform.CreatePrimFuncPass.
#include "tir/transform/prim_func_pass.h"

#include "runtime/registry.h"

namespace tessera {
namespace tir {
namespace transform {

IRModule PrimFuncPassNode::Run(IRModule mod, const PassContext& ctx) const {
  IRModule out = mod.ShallowCopy();
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    BaseFunc f = mod->Lookup(gv);
    const auto* prim = f.as<PrimFuncNode>();
    if (prim == nullptr) continue;
    PrimFunc result = pass_func(GetRef<PrimFunc>(prim), out, ctx);
    if (!result.defined()) {
      out.mutable_node()->Remove(gv);
    } else if (!result.same_as(f)) {
      out.mutable_node()->Update(gv, result);
    }
  }
  return out;
}

Pass CreatePrimFuncPass(std::function<PrimFunc(PrimFunc, IRModule, PassContext)> pass_func, int opt_level,
                        std::string name, Array<String> required, bool traceable) {
  TESSERA_CHECK_OR_THROW(pass_func != nullptr, ValueError) << "prim_func pass " << name << " has no function";
  auto n = make_object<PrimFuncPassNode>();
  n->info = PassInfo(opt_level, std::move(name), std::move(required), traceable);
  n->pass_func = std::move(pass_func);
  return Pass(std::move(n));
}

TESSERA_REGISTER_OBJECT_TYPE(PrimFuncPassNode);

TESSERA_REGISTER_GLOBAL("tir.transform.CreatePrimFuncPass").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 2, TypeError) << "CreatePrimFuncPass(pass_func, pass_info)";
  // An untyped body: None must be refused here (cast<T>() maps it to a null reference).
  TESSERA_CHECK_OR_THROW(!args[0].is_none() && !args[1].is_none(), TypeError)
      << "CreatePrimFuncPass: pass_func and pass_info must not be None";
  PackedFunc f = args[0].cast<PackedFunc>();
  PassInfo info = args[1].cast<PassInfo>();
  std::string name = info->name;
  auto n = make_object<PrimFuncPassNode>();
  n->info = info;
  n->pass_func = [f, name](PrimFunc func, IRModule mod, PassContext ctx) -> PrimFunc {
    Any r = f(func, mod, ctx);
    if (r.is_none()) return PrimFunc();
    auto out = r.try_cast<PrimFunc>();
    TESSERA_CHECK_OR_THROW(out.has_value(), TypeError)
        << "prim_func pass " << name << " must return a PrimFunc or None, got " << r.type_name();
    return *out;
  };
  return Pass(std::move(n));
});

}  // namespace transform
}  // namespace tir
}  // namespace tessera
