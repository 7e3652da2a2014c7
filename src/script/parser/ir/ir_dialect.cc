// The module-level dialect "I": owns `cls` / the class name (ModuleRefObj)
// and GlobalVars. `cls.f` names a function of the module being built (a
// missing one is a ParseError naming it); calling a GlobalVar is handed to
// the dialect of the enclosing function (a TIR call inside a prim_func)
// with the callee's declared signature. I.ir_module and I.module_attrs are
// read by the module builder (module_builder.cc), never called in a body.
#include "script/parser/ir/module_builder.h"

#include <algorithm>
#include <vector>

namespace tessera {
namespace script {

namespace {

class IRDialect : public Dialect {
 public:
  std::string name() const override { return "I"; }

  bool Owns(const Any& v) const override { return v.as<ModuleRefObj>() || v.as<GlobalVarNode>(); }
  std::string TypeName(const Any& v) const override {
    if (const auto* m = v.as<ModuleRefObj>()) return "module '" + m->name + "'";
    if (const auto* gv = v.as<GlobalVarNode>()) return "function '" + gv->name_hint + "'";
    return v.type_name();
  }

  Any CallMember(Evaluator& ev, CallArgs& call) override {
    if (call.func == "I.ir_module") {
      ev.Error(call.node->pos, call.func + " is a decorator and cannot be called inside a function body");
    }
    if (call.func == "I.module_attrs" || call.func == "I.module_global_infos") {
      ev.Error(call.node->pos, call.func + "() is only allowed directly in the body of an @I.ir_module class");
    }
    return Dialect::CallMember(ev, call);
  }

  Any Attribute(Evaluator& ev, const Any& base, const ast::Expr& e) override {
    if (const auto* m = base.as<ModuleRefObj>()) {
      auto it = m->functions.find(e.str);
      if (it != m->functions.end()) return it->second;
      std::vector<std::string> names;
      for (const auto& kv : m->functions) names.push_back(kv.first);
      std::sort(names.begin(), names.end());
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      ev.Error(e.pos, "module '" + m->name + "' has no function '" + e.str + "'" +
                          (known.empty() ? std::string() : " (it defines: " + known + ")"));
    }
    if (const auto* gv = base.as<GlobalVarNode>(); gv && e.str == "name_hint") return String(gv->name_hint);
    return Dialect::Attribute(ev, base, e);
  }

  Any CallValue(Evaluator& ev, const Any& callee, CallArgs& call) override {
    const auto* gv = callee.as<GlobalVarNode>();
    if (gv == nullptr) return Dialect::CallValue(ev, callee, call);
    if (ev.frame() == nullptr) ev.Error(call.node->pos, "module functions can only be called inside a function body");
    const ModuleState& state = ModuleState::Of(ev);
    auto it = state.signatures.find(gv);
    if (it == state.signatures.end()) {
      ev.Error(call.node->a->pos, "function '" + gv->name_hint + "' is not a function of this module");
    }
    return ev.frame()->dialect()->CallFunction(ev, GetRef<GlobalVar>(gv), it->second, call);
  }
};

TESSERA_REGISTER_SCRIPT_DIALECT(IRDialect);

}  // namespace

}  // namespace script
}  // namespace tessera
