// Pass, PassContext, Sequential and the pass registry (see transform.h).
#include "ir/transform.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace transform {

// ---- PassInfo / PassInstrument ------------------------------------------------------------

PassInfo::PassInfo(int opt_level, std::string name, Array<String> required, bool traceable) {
  TESSERA_CHECK_OR_THROW(!name.empty(), ValueError) << "PassInfo: a pass needs a non-empty name";
  auto n = make_object<PassInfoNode>();
  n->opt_level = opt_level;
  n->name = String(std::move(name));
  n->required = std::move(required);
  n->traceable = traceable;
  data_ = std::move(n);
}

PassInstrument::PassInstrument(std::string name, PackedFunc enter_pass_ctx, PackedFunc exit_pass_ctx,
                               PackedFunc should_run, PackedFunc run_before_pass, PackedFunc run_after_pass) {
  auto n = make_object<PassInstrumentNode>();
  n->name = String(std::move(name));
  n->enter_pass_ctx = std::move(enter_pass_ctx);
  n->exit_pass_ctx = std::move(exit_pass_ctx);
  n->should_run = std::move(should_run);
  n->run_before_pass = std::move(run_before_pass);
  n->run_after_pass = std::move(run_after_pass);
  data_ = std::move(n);
}

// ---- config options -----------------------------------------------------------------------------

namespace {

struct ConfigRegistry {
  std::mutex mutex;
  std::map<std::string, ConfigOptionInfo> options;
  static ConfigRegistry* Global() {
    static auto* r = new ConfigRegistry();
    return r;
  }
};

bool Contains(const Array<String>& names, const String& name) {
  for (const String& n : names)
    if (n == name) return true;
  return false;
}

}  // namespace

void PassContext::RegisterConfigOption(const std::string& key, ConfigOptionInfo info) {
  ConfigRegistry* r = ConfigRegistry::Global();
  std::lock_guard<std::mutex> lock(r->mutex);
  auto it = r->options.find(key);
  if (it != r->options.end()) {
    TESSERA_CHECK_OR_THROW(it->second.type_name == info.type_name, ValueError)
        << "PassContext config option '" << key << "' is already registered with type " << it->second.type_name
        << ", not " << info.type_name;
    return;
  }
  r->options.emplace(key, std::move(info));
}

std::vector<std::pair<std::string, std::string>> PassContext::ListConfigs() {
  ConfigRegistry* r = ConfigRegistry::Global();
  std::lock_guard<std::mutex> lock(r->mutex);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, info] : r->options) out.emplace_back(key, info.type_name);
  return out;
}

namespace {

Map<String, Any> LegalizeConfig(const Map<String, Any>& config) {
  ConfigRegistry* r = ConfigRegistry::Global();
  Map<String, Any> out;
  for (const auto& kv : config.raw()) {
    auto key = kv.first.try_cast<std::string>();
    TESSERA_CHECK_OR_THROW(key.has_value(), TypeError)
        << "PassContext config keys are option names (str), got " << kv.first.type_name();
    ConfigOptionInfo info;
    {
      std::lock_guard<std::mutex> lock(r->mutex);
      auto it = r->options.find(*key);
      if (it == r->options.end()) {
        std::ostringstream known;
        for (const auto& [k, i] : r->options) known << "\n  " << k << " (" << i.type_name << ")";
        TESSERA_THROW(AttributeError) << "Invalid PassContext config option '" << *key
                                      << "'; registered options are:" << known.str();
      }
      info = it->second;
    }
    out.Set(*key, info.legalize(*key, kv.second));
  }
  return out;
}

}  // namespace

// ---- PassContext ---------------------------------------------------------------------------------

bool PassContextNode::PassEnabled(const PassInfo& info) const {
  if (Contains(disabled_pass, info->name)) return false;
  if (Contains(required_pass, info->name)) return true;
  return opt_level >= info->opt_level;
}

PassContext PassContext::Create() { return PassContext(make_object<PassContextNode>()); }

PassContext PassContext::Create(int opt_level, Array<String> required_pass, Array<String> disabled_pass,
                                Map<String, Any> config, Array<PassInstrument> instruments) {
  auto n = make_object<PassContextNode>();
  n->opt_level = opt_level;
  n->required_pass = std::move(required_pass);
  n->disabled_pass = std::move(disabled_pass);
  n->config = LegalizeConfig(config);
  for (const PassInstrument& pi : instruments) {
    TESSERA_CHECK_OR_THROW(pi.defined(), TypeError) << "PassContext: instruments must be PassInstrument objects, got None";
  }
  n->instruments = std::move(instruments);
  return PassContext(std::move(n));
}

namespace {

struct ContextStack {
  std::vector<PassContext> stack;
  PassContext default_context = PassContext::Create();
};

ContextStack& ThreadContextStack() {
  thread_local ContextStack s;
  return s;
}

}  // namespace

PassContext PassContext::Current() {
  ContextStack& s = ThreadContextStack();
  return s.stack.empty() ? s.default_context : s.stack.back();
}

void PassContext::EnterWithScope() const {
  ContextStack& s = ThreadContextStack();
  s.stack.push_back(*this);
  // If an instrument's enter hook fails, the ones already entered are exited
  // and the context is popped, so the stack stays balanced.
  const auto& insts = get()->instruments;
  for (size_t i = 0; i < insts.size(); ++i) {
    try {
      if (insts[i]->enter_pass_ctx.defined()) insts[i]->enter_pass_ctx();
    } catch (...) {
      for (size_t j = 0; j < i; ++j) {
        try {
          if (insts[j]->exit_pass_ctx.defined()) insts[j]->exit_pass_ctx();
        } catch (...) {
        }
      }
      s.stack.pop_back();
      throw;
    }
  }
}

void PassContext::ExitWithScope() const {
  ContextStack& s = ThreadContextStack();
  TESSERA_CHECK_OR_THROW(!s.stack.empty() && s.stack.back().same_as(*this), ValueError)
      << "PassContext exited out of order: it is not the innermost entered context";
  s.stack.pop_back();
  for (const PassInstrument& pi : get()->instruments) {
    if (pi->exit_pass_ctx.defined()) pi->exit_pass_ctx();
  }
}

bool PassContext::InstrumentBeforePass(const IRModule& mod, const PassInfo& info) const {
  const auto& insts = get()->instruments;
  for (const PassInstrument& pi : insts) {
    if (!pi->should_run.defined()) continue;
    Any r = pi->should_run(mod, info);
    auto b = r.try_cast<bool>();
    TESSERA_CHECK_OR_THROW(b.has_value(), TypeError)
        << "instrument " << pi->name << ": should_run must return a bool, got " << r.type_name();
    if (!*b) return false;
  }
  for (const PassInstrument& pi : insts) {
    if (pi->run_before_pass.defined()) pi->run_before_pass(mod, info);
  }
  return true;
}

void PassContext::InstrumentAfterPass(const IRModule& mod, const PassInfo& info) const {
  for (const PassInstrument& pi : get()->instruments) {
    if (pi->run_after_pass.defined()) pi->run_after_pass(mod, info);
  }
}

// ---- Pass ------------------------------------------------------------------------------------------

IRModule Pass::operator()(IRModule mod) const { return (*this)(std::move(mod), PassContext::Current()); }

IRModule Pass::operator()(IRModule mod, const PassContext& ctx) const {
  TESSERA_CHECK_OR_THROW(defined(), ValueError) << "cannot run an undefined pass";
  TESSERA_CHECK_OR_THROW(mod.defined(), ValueError)
      << "pass " << get()->Info()->name << " was given no module (None)";
  PassInfo info = get()->Info();
  if (!ctx.InstrumentBeforePass(mod, info)) return mod;
  IRModule out = get()->Run(std::move(mod), ctx);
  TESSERA_CHECK_OR_THROW(out.defined(), TypeError) << "pass " << info->name << " returned no module (None)";
  ctx.InstrumentAfterPass(out, info);
  return out;
}

IRModule ModulePassNode::Run(IRModule mod, const PassContext& ctx) const { return pass_func(std::move(mod), ctx); }

Pass CreateModulePass(std::function<IRModule(IRModule, PassContext)> pass_func, int opt_level, std::string name,
                      Array<String> required, bool traceable) {
  TESSERA_CHECK_OR_THROW(pass_func != nullptr, ValueError) << "module pass " << name << " has no function";
  auto n = make_object<ModulePassNode>();
  n->info = PassInfo(opt_level, std::move(name), std::move(required), traceable);
  n->pass_func = std::move(pass_func);
  return Pass(std::move(n));
}

Sequential::Sequential(Array<Pass> passes, std::string name, int opt_level, Array<String> required) {
  for (size_t i = 0; i < passes.size(); ++i) {
    TESSERA_CHECK_OR_THROW(passes[i].defined(), TypeError) << "Sequential " << name << ": pass #" << i << " is None";
  }
  auto n = make_object<SequentialNode>();
  n->info = PassInfo(opt_level, std::move(name), std::move(required));
  n->passes = std::move(passes);
  data_ = std::move(n);
}

IRModule SequentialNode::Run(IRModule mod, const PassContext& ctx) const {
  for (const Pass& pass : passes) {
    PassInfo pi = pass->Info();
    if (!ctx->PassEnabled(pi)) continue;
    for (const String& req : pi->required) mod = GetPass(req)(std::move(mod), ctx);
    mod = pass(std::move(mod), ctx);
  }
  return mod;
}

// ---- registry -------------------------------------------------------------------------------------

namespace {

struct PassRegistry {
  std::mutex mutex;
  std::map<std::string, std::function<Pass()>> constructors;
  static PassRegistry* Global() {
    static auto* r = new PassRegistry();
    return r;
  }
};

}  // namespace

void RegisterPass(const std::string& qualified_name, std::function<Pass()> constructor) {
  PassRegistry* r = PassRegistry::Global();
  {
    std::lock_guard<std::mutex> lock(r->mutex);
    TESSERA_CHECK_OR_THROW(!r->constructors.count(qualified_name), ValueError)
        << "pass " << qualified_name << " is registered twice";
    r->constructors.emplace(qualified_name, constructor);
  }
  Registry::Set(qualified_name, PackedFunc([constructor](PackedArgs args) -> Any {
                  TESSERA_CHECK_OR_THROW(args.size() == 0, TypeError) << "pass constructors take no arguments";
                  return constructor();
                }, qualified_name));
}

Pass GetPass(const std::string& name) {
  PassRegistry* r = PassRegistry::Global();
  std::function<Pass()> ctor;
  {
    std::lock_guard<std::mutex> lock(r->mutex);
    auto it = r->constructors.find(name);
    if (it != r->constructors.end()) {
      ctor = it->second;
    } else {
      std::vector<std::string> matches;
      for (const auto& [qualified, c] : r->constructors) {
        if (qualified.size() > name.size() && qualified.compare(qualified.size() - name.size(), name.size(), name) == 0 &&
            qualified[qualified.size() - name.size() - 1] == '.') {
          matches.push_back(qualified);
          ctor = c;
        }
      }
      if (matches.size() > 1) {
        std::string all;
        for (const auto& m : matches) all += (all.empty() ? "" : ", ") + m;
        TESSERA_THROW(ValueError) << "pass name '" << name << "' is ambiguous (" << all << "); use the qualified name";
      }
      TESSERA_CHECK_OR_THROW(!matches.empty(), ValueError) << "no pass named '" << name << "' is registered";
    }
  }
  return ctor();
}

std::vector<std::string> ListPassNames() {
  PassRegistry* r = PassRegistry::Global();
  std::lock_guard<std::mutex> lock(r->mutex);
  std::vector<std::string> out;
  for (const auto& kv : r->constructors) out.push_back(kv.first);
  return out;
}

// ---- reflection and FFI -------------------------------------------------------------------------------

TESSERA_REGISTER_OBJECT_TYPE(PassInfoNode);
TESSERA_REGISTER_OBJECT_TYPE(PassInstrumentNode);
TESSERA_REGISTER_OBJECT_TYPE(PassContextNode);
TESSERA_REGISTER_OBJECT_TYPE(PassNode);
TESSERA_REGISTER_OBJECT_TYPE(ModulePassNode);
TESSERA_REGISTER_OBJECT_TYPE(SequentialNode);

TESSERA_REGISTER_NODE(PassInfoNode)
    .field("opt_level", &PassInfoNode::opt_level)
    .field("name", &PassInfoNode::name)
    .field("required", &PassInfoNode::required)
    .field("traceable", &PassInfoNode::traceable);
TESSERA_REGISTER_NODE(PassInstrumentNode).field("name", &PassInstrumentNode::name);
TESSERA_REGISTER_NODE(PassContextNode)
    .field("opt_level", &PassContextNode::opt_level)
    .field("required_pass", &PassContextNode::required_pass)
    .field("disabled_pass", &PassContextNode::disabled_pass)
    .field("config", &PassContextNode::config)
    .field("instruments", &PassContextNode::instruments);
TESSERA_REGISTER_NODE(SequentialNode).field("passes", &SequentialNode::passes);

namespace {

Array<String> NameList(const Any& v, const char* what) {
  if (v.is_none()) return {};
  auto arr = v.try_cast<Array<Any>>();
  TESSERA_CHECK_OR_THROW(arr.has_value(), TypeError) << what << " must be a list of pass names, got " << v.type_name();
  std::vector<String> out;
  for (const Any& x : arr->to_vector()) {
    auto s = x.try_cast<std::string>();
    TESSERA_CHECK_OR_THROW(s.has_value(), TypeError) << what << " must hold pass names (str), got " << x.type_name();
    out.push_back(*s);
  }
  return Array<String>(out);
}

int OptLevel(const Any& v, const char* what) {
  TESSERA_CHECK_OR_THROW(v.kind() == Any::Kind::kInt, TypeError) << what << " must be an int, got " << v.type_name();
  return v.cast<int>();  // range-checked: OverflowError beyond int
}

}  // namespace

TESSERA_REGISTER_GLOBAL("transform.PassInfo").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() >= 2 && args.size() <= 4, TypeError)
      << "PassInfo(opt_level, name, required=None, traceable=False)";
  auto name = args[1].try_cast<std::string>();
  TESSERA_CHECK_OR_THROW(name.has_value(), TypeError) << "PassInfo: name must be a str, got " << args[1].type_name();
  bool traceable = args.size() > 3 && !args[3].is_none() && args[3].cast<bool>();
  return PassInfo(OptLevel(args[0], "PassInfo: opt_level"), *name,
                  args.size() > 2 ? NameList(args[2], "PassInfo: required") : Array<String>(), traceable);
});

TESSERA_REGISTER_GLOBAL("transform.PassContext").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 5, TypeError)
      << "PassContext(opt_level, required_pass, disabled_pass, instruments, config)";
  std::vector<PassInstrument> insts;
  if (!args[3].is_none()) {
    auto arr = args[3].try_cast<Array<Any>>();
    TESSERA_CHECK_OR_THROW(arr.has_value(), TypeError)
        << "PassContext: instruments must be a list of PassInstrument, got " << args[3].type_name();
    for (const Any& x : arr->to_vector()) {
      auto pi = x.try_cast<PassInstrument>();
      TESSERA_CHECK_OR_THROW(pi.has_value() && pi->defined(), TypeError)
          << "PassContext: instruments must be PassInstrument objects, got " << x.type_name();
      insts.push_back(*pi);
    }
  }
  Map<String, Any> config;
  if (!args[4].is_none()) {
    auto m = args[4].try_cast<Map<Any, Any>>();
    TESSERA_CHECK_OR_THROW(m.has_value(), TypeError) << "PassContext: config must be a dict, got " << args[4].type_name();
    config = Map<String, Any>(m->data());
  }
  return PassContext::Create(OptLevel(args[0], "PassContext: opt_level"), NameList(args[1], "PassContext: required_pass"),
                             NameList(args[2], "PassContext: disabled_pass"), config, Array<PassInstrument>(insts));
});

TESSERA_REGISTER_GLOBAL("transform.GetCurrentPassContext").set_body_typed([]() { return PassContext::Current(); });
TESSERA_REGISTER_GLOBAL("transform.EnterPassContext").set_body_typed([](PassContext ctx) { ctx.EnterWithScope(); });
TESSERA_REGISTER_GLOBAL("transform.ExitPassContext").set_body_typed([](PassContext ctx) { ctx.ExitWithScope(); });
TESSERA_REGISTER_GLOBAL("transform.OverrideInstruments").set_body_typed([](PassContext ctx, Array<PassInstrument> insts) {
  // Replacing the instruments of an entered context exits the old ones and
  // enters the new ones, as TVM's override_instruments.
  for (const PassInstrument& pi : ctx->instruments)
    if (pi->exit_pass_ctx.defined()) pi->exit_pass_ctx();
  const_cast<PassContextNode*>(ctx.get())->instruments = insts;
  for (const PassInstrument& pi : insts)
    if (pi->enter_pass_ctx.defined()) pi->enter_pass_ctx();
});
TESSERA_REGISTER_GLOBAL("transform.ListConfigs").set_body_typed([]() {
  Map<String, Any> out;
  for (const auto& [key, type] : PassContext::ListConfigs()) out.Set(key, Map<String, Any>{{"type", String(type)}});
  return out;
});
TESSERA_REGISTER_GLOBAL("transform.PassContextPassEnabled").set_body_typed([](PassContext ctx, PassInfo info) {
  return ctx->PassEnabled(info);
});

TESSERA_REGISTER_GLOBAL("instrument.PassInstrument").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 6, TypeError)
      << "PassInstrument(name, enter_pass_ctx, exit_pass_ctx, should_run, run_before_pass, run_after_pass)";
  auto hook = [&](int i) { return args[i].is_none() ? PackedFunc() : args[i].cast<PackedFunc>(); };
  return PassInstrument(args[0].cast<std::string>(), hook(1), hook(2), hook(3), hook(4), hook(5));
});

TESSERA_REGISTER_GLOBAL("transform.Info").set_body_typed([](Pass pass) { return pass->Info(); });
TESSERA_REGISTER_GLOBAL("transform.RunPass").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 2, TypeError) << "RunPass(pass, mod)";
  auto pass = args[0].try_cast<Pass>();
  TESSERA_CHECK_OR_THROW(pass.has_value() && pass->defined(), TypeError) << "expected a Pass, got " << args[0].type_name();
  auto mod = args[1].try_cast<IRModule>();
  TESSERA_CHECK_OR_THROW(mod.has_value() && mod->defined(), TypeError)
      << "pass " << (*pass)->Info()->name << " expects an IRModule, got " << args[1].type_name();
  return (*pass)(*mod);
});

TESSERA_REGISTER_GLOBAL("transform.MakeModulePass").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 2, TypeError) << "MakeModulePass(pass_func, pass_info)";
  // An untyped body: None must be refused here (cast<T>() maps it to a null reference).
  TESSERA_CHECK_OR_THROW(!args[0].is_none() && !args[1].is_none(), TypeError)
      << "MakeModulePass: pass_func and pass_info must not be None";
  PackedFunc f = args[0].cast<PackedFunc>();
  PassInfo info = args[1].cast<PassInfo>();
  auto n = make_object<ModulePassNode>();
  n->info = info;
  std::string name = info->name;
  n->pass_func = [f, name](IRModule mod, PassContext ctx) -> IRModule {
    Any r = f(mod, ctx);
    auto out = r.try_cast<IRModule>();
    TESSERA_CHECK_OR_THROW(out.has_value() && out->defined(), TypeError)
        << "module pass " << name << " must return an IRModule, got " << r.type_name();
    return *out;
  };
  return Pass(std::move(n));
});

TESSERA_REGISTER_GLOBAL("transform.Sequential").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 4, TypeError) << "Sequential(passes, opt_level, name, required)";
  std::vector<Pass> passes;
  if (!args[0].is_none()) {
    auto arr = args[0].try_cast<Array<Any>>();
    TESSERA_CHECK_OR_THROW(arr.has_value(), TypeError) << "Sequential expects a list of passes, got " << args[0].type_name();
    auto items = arr->to_vector();
    for (size_t i = 0; i < items.size(); ++i) {
      auto p = items[i].try_cast<Pass>();
      TESSERA_CHECK_OR_THROW(p.has_value() && p->defined(), TypeError)
          << "Sequential: item #" << i << " is a " << items[i].type_name() << ", not a Pass";
      passes.push_back(*p);
    }
  }
  return Sequential(Array<Pass>(passes), args[2].cast<std::string>(), OptLevel(args[1], "Sequential: opt_level"),
                    NameList(args[3], "Sequential: required"));
});

TESSERA_REGISTER_GLOBAL("transform.GetPass").set_body_typed([](std::string name) { return GetPass(name); });
TESSERA_REGISTER_GLOBAL("transform.ListPassNames").set_body_typed([]() {
  std::vector<String> out;
  for (const auto& n : ListPassNames()) out.push_back(n);
  return Array<String>(out);
});

}  // namespace transform
}  // namespace tessera
