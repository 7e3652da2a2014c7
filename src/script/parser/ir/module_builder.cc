// Builds files and @I.ir_module classes (see module_builder.h): declares
// every function before building any, binds `cls` and the class name, and
// hands each decorated def to the dialect registered for its decorator.
#include "script/parser/ir/module_builder.h"

#include "ir/serialization.h"

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace tessera {
namespace script {

using ast::ExprKind;
using ast::StmtKind;

TESSERA_REGISTER_OBJECT_TYPE(ModuleRefObj);

namespace {

// The dialect building functions decorated with `dec`. A decorator whose
// namespace has no registered dialect (R.function before Relax lands) is
// NotImplementedError; anything else unknown is a ParseError.
Dialect* DialectOfDecorator(Evaluator& ev, const Decorator& dec) {
  if (Dialect* d = DialectRegistry::Global().FindByDecorator(dec.path)) return d;
  std::string root = NamespaceRoot(dec.path);
  if (root == "R" && DialectRegistry::Global().Find(root) == nullptr) {
    TESSERA_THROW(NotImplementedError) << ev.source().Render(
        dec.pos, "Relax functions (@" + dec.path + ") are not supported by the TVMScript parser yet");
  }
  ev.Error(dec.pos, "unsupported decorator '" + dec.path + "'; expected a function decorator such as @T.prim_func");
}

// Keyword arguments of @I.ir_module(...): check_well_formed= only.
void CheckModuleDecorator(Evaluator& ev, const Decorator& dec) {
  for (size_t i = 0; i < dec.call.kwargs.size(); ++i) {
    if (dec.call.kwargs[i].first == "check_well_formed") {
      ev.ToBool(dec.call.kwargs[i].second, dec.call.kwarg_pos[i], "check_well_formed");
    } else {
      ev.Error(dec.kwarg_name_pos[i], "unexpected decorator argument '" + dec.call.kwargs[i].first + "'");
    }
  }
}

// `global_var="name"` on a function decorator of an ir_module names the
// function's GlobalVar when it is not the def's name (the printer writes it
// for names that cannot be a Python def, such as keywords: `def from_1`).
// The argument is taken out of `dec` before the dialect sees it.
std::optional<std::string> TakeGlobalVarName(Evaluator& ev, Decorator* dec) {
  std::optional<std::string> name;
  for (size_t i = 0; i < dec->call.kwargs.size(); ++i) {
    if (dec->call.kwargs[i].first != "global_var") continue;
    name = ev.ToStr(dec->call.kwargs[i].second, dec->call.kwarg_pos[i], "the GlobalVar name");
    if (name->empty()) ev.Error(dec->call.kwarg_pos[i], "the GlobalVar name must not be empty");
    dec->call.kwargs.erase(dec->call.kwargs.begin() + static_cast<std::ptrdiff_t>(i));
    dec->call.kwarg_pos.erase(dec->call.kwarg_pos.begin() + static_cast<std::ptrdiff_t>(i));
    dec->kwarg_name_pos.erase(dec->kwarg_name_pos.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  return name;
}

// Handles `I.module_attrs({...})` in a class body; false for another statement.
bool ModuleAttrs(Evaluator& ev, const ast::Stmt& s, Map<String, Any>* attrs) {
  if (s.kind != StmtKind::kExpr || s.value->kind != ExprKind::kCall) return false;
  const ast::Expr& e = *s.value;
  Any callee = ev.Eval(*e.a);
  const auto* ns = callee.as<NamespaceObj>();
  if (ns == nullptr) return false;
  if (ns->path == "I.module_global_infos") {
    ev.Error(e.a->pos, "I.module_global_infos is not supported by Tessera yet (no GlobalInfo objects)");
  }
  if (ns->path != "I.module_attrs" || e.items.size() != 1 || !e.kwargs.empty()) return false;
  Any m = ev.Eval(*e.items[0]);
  const auto* map = m.as<MapObj>();
  if (map == nullptr) ev.Error(e.items[0]->pos, "I.module_attrs expects a dict");
  for (const auto& kv : map->data) {
    attrs->Set(ev.ToStr(kv.first, e.items[0]->pos, "an attribute name"), ev.ToAttrValue(kv.second, e.items[0]->pos));
  }
  return true;
}

// `metadata = tvm.ir.load_json("""...""")` before the module (what the
// printer writes with show_meta=True): binds `metadata` to the loaded
// objects, which the functions reach as metadata["relax.expr.Constant"][i].
// False for another statement.
bool LoadMetadata(Evaluator& ev, const ast::Stmt& s) {
  if (s.kind != StmtKind::kAssign || s.targets.size() != 1 || s.targets[0]->kind != ExprKind::kName ||
      s.targets[0]->str != "metadata" || s.value->kind != ExprKind::kCall) {
    return false;
  }
  const ast::Expr& call = *s.value;
  Any callee = ev.Eval(*call.a);
  const auto* ns = callee.as<NamespaceObj>();
  if (ns == nullptr || ns->path != "tvm.ir.load_json") return false;
  if (call.items.size() != 1 || !call.kwargs.empty()) ev.Error(call.pos, "tvm.ir.load_json takes one JSON string");
  std::string json = ev.ToStr(ev.Eval(*call.items[0]), call.items[0]->pos, "the metadata JSON");
  Any loaded = ev.Guard(call.items[0]->pos, [&] { return LoadJSON(json); });
  if (!loaded.as<MapObj>()) ev.Error(call.items[0]->pos, "the metadata must be a dictionary of object lists");
  ev.Bind("metadata", loaded);
  return true;
}

}  // namespace

ModuleState& ModuleState::Of(Evaluator& ev) {
  static const int key = 0;  // a distinct address for this state
  return ev.State<ModuleState>(&key, [] { return std::make_unique<ModuleState>(); });
}

IRModule BuildIRModule(Evaluator& ev, const ast::Stmt& cls, const Decorator& dec) {
  CheckModuleDecorator(ev, dec);
  struct Declared {
    const ast::Stmt* def;
    Decorator dec;
    Dialect* dialect;
    GlobalVar gv;
  };
  std::vector<Declared> funcs;
  Map<String, Any> attrs;
  auto module_ref = make_object<ModuleRefObj>();
  module_ref->name = cls.name;
  ModuleState& state = ModuleState::Of(ev);
  std::unordered_set<std::string> global_names;

  // 1. Declare every function (and read module attributes) before building any.
  for (const ast::StmtPtr& s : cls.body) {
    switch (s->kind) {
      case StmtKind::kPass: continue;
      case StmtKind::kExpr:
        if (s->value->kind == ExprKind::kStr) continue;
        if (ModuleAttrs(ev, *s, &attrs)) continue;
        ev.Error(s->pos, "unsupported statement in an ir_module class; expected decorated functions");
      case StmtKind::kFunctionDef: {
        if (s->decorators.size() != 1) {
          ev.Error(s->pos, "function '" + s->name +
                               "' in an ir_module needs exactly one decorator, @T.prim_func or @R.function");
        }
        Decorator fdec = ev.EvalDecorator(*s->decorators[0]);
        Dialect* dialect = DialectOfDecorator(ev, fdec);
        if (module_ref->functions.count(s->name)) {
          ev.Error(s->pos, "function '" + s->name + "' is defined twice in the module");
        }
        Pos name_pos = fdec.call.node ? fdec.call.node->pos : s->pos;
        std::optional<std::string> gv_name = TakeGlobalVarName(ev, &fdec);
        std::string global_name = gv_name.value_or(s->name);
        if (!global_names.insert(global_name).second) {
          ev.Error(gv_name ? name_pos : s->pos, "two functions of the module are named '" + global_name + "'");
        }
        if (gv_name) fdec.global_name = *gv_name;
        GlobalVar gv(global_name);
        module_ref->functions.emplace(s->name, gv);
        FunctionSignature sig = ev.Guard(s->pos, [&] { return dialect->DeclareFunction(ev, *s, fdec); });
        state.signatures[gv.get()] = sig;
        funcs.push_back({s.get(), std::move(fdec), dialect, gv});
        continue;
      }
      default: ev.Error(s->pos, "unsupported statement in an ir_module class; expected decorated functions");
    }
  }

  // 2. Build them with `cls` and the class name bound to the module.
  Evaluator::ScopeGuard scope(&ev);
  Any ref(AsRef(module_ref));
  ev.Bind("cls", ref);
  ev.Bind(cls.name, ref);
  Map<GlobalVar, BaseFunc> functions;
  for (const Declared& f : funcs) {
    ObjectRef built = ev.Guard(f.def->pos, [&] { return f.dialect->BuildFunction(ev, *f.def, f.dec); });
    const auto* base = built.as<BaseFuncNode>();
    if (base == nullptr) ev.Error(f.def->pos, "function '" + f.def->name + "' did not build to a function");
    functions.Set(f.gv, GetRef<BaseFunc>(base));
  }
  return IRModule(functions, attrs);
}

ObjectRef BuildScript(Evaluator& ev, const ast::Module& module) {
  const ast::Stmt* def = nullptr;
  for (const ast::StmtPtr& s : module.body) {
    switch (s->kind) {
      case StmtKind::kImport:
      case StmtKind::kPass: continue;
      case StmtKind::kExpr:
        if (s->value->kind == ExprKind::kStr) continue;
        ev.Error(s->pos, "expected a @T.prim_func function or an @I.ir_module class");
      case StmtKind::kAssign:
        if (def == nullptr && LoadMetadata(ev, *s)) continue;
        ev.Error(s->pos, "expected a @T.prim_func function or an @I.ir_module class");
      case StmtKind::kFunctionDef:
      case StmtKind::kClassDef:
        if (def != nullptr) ev.Error(s->pos, "expected a single @T.prim_func function or @I.ir_module class");
        def = s.get();
        continue;
      default: ev.Error(s->pos, "expected a @T.prim_func function or an @I.ir_module class");
    }
  }
  if (def == nullptr) {
    Pos end;
    end.line = ev.source().num_lines();
    end.col = 1;
    ev.Error(end, "no @T.prim_func function or @I.ir_module class found");
  }
  if (def->decorators.size() > 1) ev.Error(def->decorators[1]->pos, "only one decorator is supported");
  Decorator dec;
  if (!def->decorators.empty()) {
    dec = ev.EvalDecorator(*def->decorators[0]);
  } else {
    dec.path = def->kind == StmtKind::kClassDef ? "I.ir_module" : "T.prim_func";
    dec.pos = def->pos;
  }
  if (def->kind == StmtKind::kClassDef) {
    if (dec.path != "I.ir_module") ev.Error(dec.pos, "a class must be decorated with @I.ir_module");
    return BuildIRModule(ev, *def, dec);
  }
  Dialect* dialect = DialectRegistry::Global().FindByDecorator(dec.path);
  if (dialect == nullptr && NamespaceRoot(dec.path) == "R") DialectOfDecorator(ev, dec);
  if (dialect == nullptr) ev.Error(dec.pos, "a function must be decorated with @T.prim_func");
  return dialect->BuildFunction(ev, *def, dec);
}

}  // namespace script
}  // namespace tessera
