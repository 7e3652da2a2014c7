// The module level of the TVMScript parser (parser/ir): builds a whole file
// (one decorated function or one @I.ir_module class) and the IRModule of a
// class. Every function of a class is declared first (a GlobalVar and the
// signature its dialect reads), `cls` and the class name are bound to the
// module, then each function is built by the dialect owning its decorator
// (@T.prim_func -> parser/tir), so functions may call each other in any
// order (cls.f(...), Module.f(...)).
#pragma once

#include <string>
#include <unordered_map>

#include "ir/module.h"
#include "script/parser/core/evaluator.h"

namespace tessera {
namespace script {

// `cls` / the class name inside an @I.ir_module class: its functions by name.
class ModuleRefObj : public Object {
 public:
  std::string name;  // the class name
  std::unordered_map<std::string, GlobalVar> functions;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ModuleRefObj, Object, "script.ModuleRef");
};

// Per-evaluator state of the module level: the declared signature of each
// function of the module being built, by GlobalVar.
class ModuleState : public DialectState {
 public:
  static ModuleState& Of(Evaluator& ev);
  std::unordered_map<const Object*, FunctionSignature> signatures;
};

// A whole file: one decorated function or one @I.ir_module class (imports,
// docstrings and `pass` allowed around it).
ObjectRef BuildScript(Evaluator& ev, const ast::Module& module);
// An @I.ir_module class.
IRModule BuildIRModule(Evaluator& ev, const ast::Stmt& cls, const Decorator& dec);

}  // namespace script
}  // namespace tessera
