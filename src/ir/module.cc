// IRModule operations (see module.h).
#include "ir/module.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {

IRModule::IRModule(Map<GlobalVar, BaseFunc> functions, Attrs attrs) {
  auto n = make_object<IRModuleNode>();
  n->functions = std::move(functions);
  n->attrs = std::move(attrs);
  data_ = std::move(n);
}

IRModule IRModule::FromExpr(const BaseFunc& func) {
  std::string name = "main";
  if (auto sym = func.GetAttr("global_symbol")) {
    if (auto s = sym->try_cast<std::string>()) name = *s;
  }
  IRModule mod = Empty();
  mod.mutable_node()->Add(GlobalVar(name), func);
  return mod;
}

IRModule IRModule::ShallowCopy() const { return IRModule(get()->functions, get()->attrs); }

std::optional<GlobalVar> IRModuleNode::FindGlobalVar(const std::string& name) const {
  for (const auto& kv : functions.raw()) {
    GlobalVar gv = kv.first.cast<GlobalVar>();
    if (gv->name_hint == name) return gv;
  }
  return std::nullopt;
}

GlobalVar IRModuleNode::GetGlobalVar(const std::string& name) const {
  if (auto gv = FindGlobalVar(name)) return *gv;
  std::string known;
  for (const GlobalVar& gv : GetGlobalVars()) known += (known.empty() ? "" : ", ") + gv->name_hint;
  TESSERA_THROW(ValueError) << "Cannot find global var \"" << name << "\" in the module (it has: "
                            << (known.empty() ? "nothing" : known) << ")";
}

std::vector<GlobalVar> IRModuleNode::GetGlobalVars() const {
  std::vector<GlobalVar> out;
  for (const auto& kv : functions.raw()) out.push_back(kv.first.cast<GlobalVar>());
  std::stable_sort(out.begin(), out.end(),
                   [](const GlobalVar& a, const GlobalVar& b) { return a->name_hint < b->name_hint; });
  return out;
}

BaseFunc IRModuleNode::Lookup(const GlobalVar& gv) const {
  if (auto f = functions.Get(gv)) return *f;
  TESSERA_THROW(ValueError) << "function " << gv->name_hint << " is not in the module";
}

BaseFunc IRModuleNode::Lookup(const std::string& name) const { return Lookup(GetGlobalVar(name)); }

void IRModuleNode::Add(const GlobalVar& gv, const BaseFunc& func, bool update) {
  TESSERA_CHECK_OR_THROW(func.defined(), ValueError) << "cannot add an undefined function as " << gv->name_hint;
  if (auto existing = FindGlobalVar(gv->name_hint)) {
    if (!existing->same_as(gv)) {
      TESSERA_CHECK_OR_THROW(update, ValueError)
          << "a function named " << gv->name_hint << " is already in the module";
      functions.erase(*existing);
    }
  }
  functions.Set(gv, func);
  // A Relax function's GlobalVar carries its signature (struct info), as in TVM.
  if (func->struct_info_.defined()) gv->struct_info_ = func->struct_info_;
}

void IRModuleNode::Update(const GlobalVar& gv, const BaseFunc& func) { Add(gv, func, true); }

void IRModuleNode::Remove(const GlobalVar& gv) { functions.erase(gv); }

TESSERA_REGISTER_OBJECT_TYPE(IRModuleNode);
// Structural equality matches modules by function name (structural_equal.cc);
// these fields serve reflection and JSON.
TESSERA_REGISTER_NODE(IRModuleNode)
    .field("functions", &IRModuleNode::functions)
    .field("attrs", &IRModuleNode::attrs);

TESSERA_REGISTER_GLOBAL("ir.IRModule").set_body_typed([](Map<GlobalVar, BaseFunc> funcs, std::optional<Attrs> attrs) {
  // Keys may arrive as strings (IRModule({"main": f})): turn them into GlobalVars.
  IRModule mod = IRModule::Empty();
  for (const auto& kv : funcs.raw()) {
    GlobalVar gv = kv.first.as<StringObj>() ? GlobalVar(kv.first.cast<std::string>()) : kv.first.cast<GlobalVar>();
    mod.mutable_node()->Add(gv, kv.second.cast<BaseFunc>());
  }
  if (attrs) mod.mutable_node()->attrs = *attrs;
  return mod;
});
namespace {
// The ir.Module_* entries below take turns per module: Python threads that
// share one IRModule and add, remove or look up functions through its methods
// do not interleave inside its function map. A fixed table of locks, chosen
// by the module's address, avoids a mutex in every IRModuleNode.
std::recursive_mutex& ModuleLock(const Object* m) {
  static std::array<std::recursive_mutex, 64> locks;
  return locks[(reinterpret_cast<uintptr_t>(m) >> 4) % locks.size()];
}
struct LockedModuleEntry {
  std::string name;
  static LockedModuleEntry& Create(std::string name) { return *new LockedModuleEntry{std::move(name)}; }
  template <typename F>
  LockedModuleEntry& set_body_typed(F f) {
    PackedFunc inner = PackedFunc::FromTyped(std::move(f), name);
    Registry::Set(name, PackedFunc(
                            [inner](PackedArgs args) -> Any {
                              const IRModuleNode* m = args.size() > 0 ? args[0].as<IRModuleNode>() : nullptr;
                              if (m == nullptr) return inner.CallPacked(args);
                              std::lock_guard<std::recursive_mutex> guard(ModuleLock(m));
                              return inner.CallPacked(args);
                            },
                            name));
    return *this;
  }
};
}  // namespace
#define TESSERA_REGISTER_MODULE_API(Name)                                                   \
  [[maybe_unused]] static LockedModuleEntry& TESSERA_REGISTRY_CONCAT(_tessera_module_entry_, \
                                                                     __COUNTER__) = LockedModuleEntry::Create(Name)
TESSERA_REGISTER_MODULE_API("ir.Module_FromExpr").set_body_typed([](BaseFunc f) { return IRModule::FromExpr(f); });
TESSERA_REGISTER_MODULE_API("ir.Module_GetGlobalVar").set_body_typed([](IRModule m, std::string name) {
  return m->GetGlobalVar(name);
});
TESSERA_REGISTER_MODULE_API("ir.Module_GetGlobalVars").set_body_typed([](IRModule m) {
  auto v = m->GetGlobalVars();
  return Array<GlobalVar>(v);
});
TESSERA_REGISTER_MODULE_API("ir.Module_ContainGlobalVar").set_body_typed([](IRModule m, std::string name) {
  return m->FindGlobalVar(name).has_value();
});
TESSERA_REGISTER_MODULE_API("ir.Module_Lookup").set_body_typed([](IRModule m, GlobalVar gv) { return m->Lookup(gv); });
TESSERA_REGISTER_MODULE_API("ir.Module_LookupStr").set_body_typed([](IRModule m, std::string name) { return m->Lookup(name); });
TESSERA_REGISTER_MODULE_API("ir.Module_Add").set_body_typed([](IRModule m, GlobalVar gv, BaseFunc f, bool update) {
  m.mutable_node()->Add(gv, f, update);
  return m;
});
TESSERA_REGISTER_MODULE_API("ir.Module_Remove").set_body_typed([](IRModule m, GlobalVar gv) {
  m.mutable_node()->Remove(gv);
  return m;
});
// The function map, read under the module's lock (IRModule.functions).
TESSERA_REGISTER_MODULE_API("ir.Module_Functions").set_body_typed([](IRModule m) { return m->functions; });
TESSERA_REGISTER_MODULE_API("ir.Module_ShallowCopy").set_body_typed([](IRModule m) { return m.ShallowCopy(); });
TESSERA_REGISTER_MODULE_API("ir.Module_WithAttr").set_body_typed([](IRModule m, std::string key, Any value) {
  IRModule copy = m.ShallowCopy();
  copy.mutable_node()->attrs.Set(key, value);
  return copy;
});

}  // namespace tessera
