// Pass infrastructure (IR layer), shared by every dialect: a Pass is a named
// IRModule -> IRModule transformation with a PassInfo (name, opt level,
// required passes); a Sequential runs passes in order; a PassContext (opt
// level, required/disabled passes, a typed config map, instruments) scopes
// how they run. Dialects add their own Pass kinds (tir::transform's
// PrimFuncPass; Relax's function pass later) by deriving from PassNode and
// register pass constructors by name with TESSERA_REGISTER_PASS.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/module.h"
#include "runtime/packed_func.h"
#include "runtime/string.h"

namespace tessera {
namespace transform {

// ---- PassInfo ----------------------------------------------------------------

class PassInfoNode : public Object {
 public:
  int opt_level = 0;
  String name;
  // Names of passes that run before this one whenever a Sequential runs it.
  Array<String> required;
  bool traceable = false;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PassInfoNode, Object, "transform.PassInfo");
};

class PassInfo : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PassInfo, ObjectRef, PassInfoNode);
  // Raises ValueError for an empty name.
  PassInfo(int opt_level, std::string name, Array<String> required = {}, bool traceable = false);
};

// ---- PassInstrument ------------------------------------------------------------

class PassContext;

// Hooks called around pass contexts and passes. Any hook may be undefined.
// Order (as TVM): entering a context calls every instrument's enter_pass_ctx;
// before a pass runs, every should_run is asked (any false skips the pass and
// its run_before/after hooks), then every run_before_pass; after it, every
// run_after_pass; leaving the context calls every exit_pass_ctx.
class PassInstrumentNode : public Object {
 public:
  String name;
  PackedFunc enter_pass_ctx;   // ()
  PackedFunc exit_pass_ctx;    // ()
  PackedFunc should_run;       // (IRModule, PassInfo) -> bool
  PackedFunc run_before_pass;  // (IRModule, PassInfo)
  PackedFunc run_after_pass;   // (IRModule, PassInfo)
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PassInstrumentNode, Object, "instrument.PassInstrument");
};

class PassInstrument : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PassInstrument, ObjectRef, PassInstrumentNode);
  PassInstrument(std::string name, PackedFunc enter_pass_ctx, PackedFunc exit_pass_ctx, PackedFunc should_run,
                 PackedFunc run_before_pass, PackedFunc run_after_pass);
};

// ---- PassContext ------------------------------------------------------------------

class PassContextNode : public Object {
 public:
  int opt_level = 2;
  Array<String> required_pass;
  Array<String> disabled_pass;
  Map<String, Any> config;  // keys and value types validated against the registered options
  Array<PassInstrument> instruments;

  // Whether a Sequential runs a pass with `info` under this context: disabled
  // passes never, required passes always, others when opt_level allows.
  bool PassEnabled(const PassInfo& info) const;

  // The typed value of config option `key`, or `default_value` when unset.
  template <typename T>
  T GetConfig(const std::string& key, T default_value) const {
    if (auto v = config.Get(key)) return v->template cast<T>();
    return default_value;
  }

  TESSERA_DECLARE_FINAL_OBJECT_INFO(PassContextNode, Object, "transform.PassContext");
};

// The type-checker of one registered config option: returns the value in
// its canonical form or throws TypeError naming the key.
struct ConfigOptionInfo {
  std::string type_name;
  std::function<Any(const std::string& key, const Any& value)> legalize;
};

class PassContext : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PassContext, ObjectRef, PassContextNode);
  TESSERA_DEFINE_OBJECT_REF_COW_METHOD(PassContextNode);

  // A context with the defaults (opt_level 2, nothing required or disabled).
  static PassContext Create();
  // Validated construction: unknown config keys raise AttributeError, values
  // of the wrong type TypeError, both naming the key.
  static PassContext Create(int opt_level, Array<String> required_pass, Array<String> disabled_pass,
                            Map<String, Any> config, Array<PassInstrument> instruments);

  // The innermost entered context of this thread (a per-thread default one
  // when none is entered).
  static PassContext Current();
  // Push/pop on this thread's context stack; Enter calls the instruments'
  // enter_pass_ctx, Exit their exit_pass_ctx. Exit of a context that is not
  // the innermost one raises ValueError.
  void EnterWithScope() const;
  void ExitWithScope() const;

  // Instrument hooks around one pass; InstrumentBeforePass returns false
  // when some instrument's should_run says the pass must be skipped.
  bool InstrumentBeforePass(const IRModule& mod, const PassInfo& info) const;
  void InstrumentAfterPass(const IRModule& mod, const PassInfo& info) const;

  // Registers config option `key` holding values of type T (bool, int64_t,
  // double, std::string or an ObjectRef type). Registering a key twice with
  // another type raises ValueError.
  template <typename T>
  static void RegisterConfigOption(const std::string& key);
  static void RegisterConfigOption(const std::string& key, ConfigOptionInfo info);
  // key -> type name of every registered option.
  static std::vector<std::pair<std::string, std::string>> ListConfigs();
};

// RAII scope: enters `ctx` on construction, exits on destruction.
class PassContextScope {
 public:
  explicit PassContextScope(PassContext ctx) : ctx_(std::move(ctx)) { ctx_.EnterWithScope(); }
  ~PassContextScope() noexcept(false) { ctx_.ExitWithScope(); }
  PassContextScope(const PassContextScope&) = delete;
  PassContextScope& operator=(const PassContextScope&) = delete;

 private:
  PassContext ctx_;
};

namespace detail {
template <typename T>
ConfigOptionInfo MakeConfigOptionInfo() {
  ConfigOptionInfo info;
  if constexpr (std::is_same_v<T, bool>) {
    info.type_name = "bool";
    info.legalize = [](const std::string& key, const Any& v) -> Any {
      if (v.kind() == Any::Kind::kBool) return v;
      if (v.kind() == Any::Kind::kInt && (v.raw_int() == 0 || v.raw_int() == 1)) return Any(v.raw_int() != 0);
      TESSERA_THROW(TypeError) << "PassContext config '" << key << "' expects a bool, got " << v.type_name()
                               << " (" << v.repr() << ")";
    };
  } else if constexpr (std::is_integral_v<T>) {
    info.type_name = "int";
    info.legalize = [](const std::string& key, const Any& v) -> Any {
      if (v.kind() == Any::Kind::kInt) return v;
      TESSERA_THROW(TypeError) << "PassContext config '" << key << "' expects an int, got " << v.type_name()
                               << " (" << v.repr() << ")";
    };
  } else if constexpr (std::is_floating_point_v<T>) {
    info.type_name = "float";
    info.legalize = [](const std::string& key, const Any& v) -> Any {
      if (v.kind() == Any::Kind::kFloat) return v;
      if (v.kind() == Any::Kind::kInt) return Any(static_cast<double>(v.raw_int()));
      TESSERA_THROW(TypeError) << "PassContext config '" << key << "' expects a float, got " << v.type_name()
                               << " (" << v.repr() << ")";
    };
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, String>) {
    info.type_name = "str";
    info.legalize = [](const std::string& key, const Any& v) -> Any {
      if (v.as<StringObj>() != nullptr) return v;
      TESSERA_THROW(TypeError) << "PassContext config '" << key << "' expects a str, got " << v.type_name()
                               << " (" << v.repr() << ")";
    };
  } else {
    static_assert(std::is_base_of_v<ObjectRef, T>, "config options hold bool, int, float, str or IR objects");
    info.type_name = T::ContainerType::_type_key;
    info.legalize = [](const std::string& key, const Any& v) -> Any {
      if (!v.is_none() && AnyConverter<T>::Check(v)) return v;
      TESSERA_THROW(TypeError) << "PassContext config '" << key << "' expects a " << T::ContainerType::_type_key
                               << ", got " << v.type_name();
    };
  }
  return info;
}
}  // namespace detail

template <typename T>
void PassContext::RegisterConfigOption(const std::string& key) {
  RegisterConfigOption(key, detail::MakeConfigOptionInfo<T>());
}

// ---- Pass ------------------------------------------------------------------------

class PassNode : public Object {
 public:
  virtual PassInfo Info() const = 0;
  // Runs the transformation itself (no instruments: Pass::operator() adds them).
  virtual IRModule Run(IRModule mod, const PassContext& ctx) const = 0;
  TESSERA_DECLARE_OBJECT_INFO(PassNode, Object, "transform.Pass");
};

class Pass : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Pass, ObjectRef, PassNode);
  // Runs the pass under PassContext::Current() / `ctx`, calling the
  // context's instruments around it. Does not consult PassEnabled: calling a
  // pass directly always runs it (as TVM); Sequential filters.
  IRModule operator()(IRModule mod) const;
  IRModule operator()(IRModule mod, const PassContext& ctx) const;
};

// A pass applying a function to the whole module.
class ModulePassNode : public PassNode {
 public:
  PassInfo info;
  std::function<IRModule(IRModule, PassContext)> pass_func;
  PassInfo Info() const override { return info; }
  IRModule Run(IRModule mod, const PassContext& ctx) const override;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ModulePassNode, PassNode, "transform.ModulePass");
};

// Runs `passes` in order under the context: a pass the context does not
// enable is skipped; before each enabled pass, the passes its PassInfo
// requires run (looked up by name in the pass registry).
class SequentialNode : public PassNode {
 public:
  PassInfo info;
  Array<Pass> passes;
  PassInfo Info() const override { return info; }
  IRModule Run(IRModule mod, const PassContext& ctx) const override;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(SequentialNode, PassNode, "transform.Sequential");
};

class Sequential : public Pass {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Sequential, Pass, SequentialNode);
  explicit Sequential(Array<Pass> passes, std::string name = "sequential", int opt_level = 0,
                      Array<String> required = {});
};

Pass CreateModulePass(std::function<IRModule(IRModule, PassContext)> pass_func, int opt_level, std::string name,
                      Array<String> required = {}, bool traceable = false);

// ---- Pass registry ---------------------------------------------------------------
// Pass constructors by qualified name ("tir.transform.LowerInitBlock"); each
// is also a global function of that name returning the Pass, which is how
// Python's tvm.tir.transform.LowerInitBlock() gets it.

void RegisterPass(const std::string& qualified_name, std::function<Pass()> constructor);
// By qualified name, or by short name ("LowerInitBlock") when exactly one
// registered pass has it; raises ValueError otherwise.
Pass GetPass(const std::string& name);
std::vector<std::string> ListPassNames();

struct PassRegistrar {
  PassRegistrar(const std::string& qualified_name, std::function<Pass()> constructor) {
    RegisterPass(qualified_name, std::move(constructor));
  }
};

}  // namespace transform
}  // namespace tessera

#define TESSERA_PASS_CONCAT_(a, b) a##b
#define TESSERA_PASS_CONCAT(a, b) TESSERA_PASS_CONCAT_(a, b)
// TESSERA_REGISTER_PASS("tir.transform.LowerInitBlock", LowerInitBlock);
#define TESSERA_REGISTER_PASS(QualifiedName, Constructor)                                         \
  [[maybe_unused]] static ::tessera::transform::PassRegistrar TESSERA_PASS_CONCAT(_tessera_pass_, \
                                                                                   __COUNTER__)(QualifiedName, Constructor)

// TESSERA_REGISTER_PASS_CONFIG_OPTION("tir.disable_vectorize", bool);
#define TESSERA_REGISTER_PASS_CONFIG_OPTION(Key, ValueType)                                        \
  [[maybe_unused]] static const int TESSERA_PASS_CONCAT(_tessera_pass_config_, __COUNTER__) =     \
      (::tessera::transform::PassContext::RegisterConfigOption<ValueType>(Key), 0)
