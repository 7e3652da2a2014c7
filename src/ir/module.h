// IRModule: the unit of compilation, a set of named functions (PrimFuncs
// and Relax functions) plus module attributes. IR layer. Functions keep
// insertion order; GetGlobalVars() returns them sorted by name, as TVM does.
// Like TVM's, an IRModule is updated in place (Add/Update/Remove); passes
// that must not disturb their input copy it first (ShallowCopy).
#pragma once

#include "ir/expr.h"

namespace tessera {

class IRModuleNode : public Object {
 public:
  Map<GlobalVar, BaseFunc> functions;
  Attrs attrs;

  std::optional<GlobalVar> FindGlobalVar(const std::string& name) const;
  // Raises ValueError naming `name` when absent.
  GlobalVar GetGlobalVar(const std::string& name) const;
  std::vector<GlobalVar> GetGlobalVars() const;  // sorted by name
  BaseFunc Lookup(const GlobalVar& gv) const;     // raises ValueError when absent
  BaseFunc Lookup(const std::string& name) const;
  // Adds `func` under `gv`; raises ValueError if the name is taken and !update.
  void Add(const GlobalVar& gv, const BaseFunc& func, bool update = false);
  void Update(const GlobalVar& gv, const BaseFunc& func);
  void Remove(const GlobalVar& gv);

  TESSERA_DECLARE_FINAL_OBJECT_INFO(IRModuleNode, Object, "ir.IRModule");
};

class IRModule : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(IRModule, ObjectRef, IRModuleNode);
  TESSERA_DEFINE_OBJECT_REF_COW_METHOD(IRModuleNode);
  explicit IRModule(Map<GlobalVar, BaseFunc> functions, Attrs attrs = Attrs());
  static IRModule Empty() { return IRModule(Map<GlobalVar, BaseFunc>()); }
  // A module holding `func` under its "global_symbol" attribute, or "main".
  static IRModule FromExpr(const BaseFunc& func);
  // A new module object sharing the function nodes.
  IRModule ShallowCopy() const;
  IRModuleNode* mutable_node() const { return const_cast<IRModuleNode*>(get()); }
};

}  // namespace tessera
