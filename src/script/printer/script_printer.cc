// Drives the TVMScript printers (see script_printer.h): module layout
// (header, @I.ir_module class with its functions sorted by name), lone
// functions, fragments, printer settings, and the global functions.
#include "script/printer/script_printer.h"

#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "runtime/registry.h"
#include "script/printer/python_literal.h"
#include "script/printer/tir_printer.h"

namespace tessera {
namespace script {
namespace printer {

namespace {

std::mutex& RegistryMutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<std::string, FunctionPrinter>& FunctionPrinters() {
  static std::unordered_map<std::string, FunctionPrinter> printers;
  return printers;
}
std::optional<FunctionPrinter> FindFunctionPrinter(const std::string& type_key) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = FunctionPrinters().find(type_key);
  if (it == FunctionPrinters().end()) return std::nullopt;
  return it->second;
}

std::string TirImport(const PrinterConfig& cfg) { return "# from tvm.script import tir as " + cfg.tir_prefix; }
std::string IrImport(const PrinterConfig& cfg) { return "# from tvm.script import ir as " + cfg.ir_prefix; }

void StripTrailingWhitespace(std::string* s) {
  while (!s->empty() && (s->back() == '\n' || s->back() == ' ')) s->pop_back();
}

std::string FunctionName(const BaseFunc& func, const PrinterConfig& cfg) {
  if (cfg.name.has_value()) return *cfg.name;
  if (std::optional<Any> sym = func.GetAttr("global_symbol")) {
    if (const auto* s = sym->as<StringObj>()) return SanitizeIdentifier(s->data, "main");
  }
  return "main";
}

// One function at indentation `indent`; returns false when no printer knows it.
bool PrintFunction(const BaseFunc& func, const std::string& name, int indent, bool in_module,
                   const PrinterConfig& cfg, std::string* out) {
  if (const auto* f = func.as<tir::PrimFuncNode>()) {
    TIRPrinter printer(cfg);
    printer.PrintPrimFunc(GetRef<tir::PrimFunc>(f), name, indent, in_module, out);
    return true;
  }
  if (std::optional<FunctionPrinter> p = FindFunctionPrinter(func->GetTypeKey())) {
    p->print(func, name, indent, cfg, out);
    return true;
  }
  return false;
}

std::string PrintModule(const IRModule& mod, const PrinterConfig& cfg) {
  std::vector<GlobalVar> gvars = mod->GetGlobalVars();
  // Header: the imports the module's functions need, ir first.
  std::vector<std::string> imports = {IrImport(cfg)};
  std::unordered_set<std::string> seen(imports.begin(), imports.end());
  for (const GlobalVar& gv : gvars) {
    BaseFunc f = mod->Lookup(gv);
    std::string line;
    if (f.as<tir::PrimFuncNode>()) {
      line = TirImport(cfg);
    } else if (std::optional<FunctionPrinter> p = FindFunctionPrinter(f->GetTypeKey())) {
      line = p->import_line;
    }
    if (!line.empty() && seen.insert(line).second) imports.push_back(line);
  }
  std::string out;
  if (cfg.print_header) {
    for (const std::string& line : imports) out += line + "\n";
    out += "\n";
  }
  std::string pad(static_cast<size_t>(cfg.indent_spaces), ' ');
  out += "@" + cfg.ir_prefix + ".ir_module\nclass Module:\n";
  bool first = true;
  if (!mod->attrs.empty()) {
    TIRPrinter printer(cfg);
    out += pad + cfg.ir_prefix + ".module_attrs(" + printer.PrintValueFragment(Any(mod->attrs)) + ")\n";
    first = false;
  }
  for (const GlobalVar& gv : gvars) {
    if (!first) out += "\n";
    first = false;
    BaseFunc f = mod->Lookup(gv);
    std::string name = SanitizeIdentifier(gv->name_hint, "main");
    if (!PrintFunction(f, name, 1, /*in_module=*/true, cfg, &out)) {
      out += pad + "# " + name + ": a " + f->GetTypeKey() + ", which has no TVMScript printer\n";
    }
  }
  if (first) out += pad + "pass\n";
  StripTrailingWhitespace(&out);
  return out;
}

}  // namespace

void RegisterFunctionPrinter(const std::string& type_key, FunctionPrinter printer) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  FunctionPrinters()[type_key] = std::move(printer);
}

PrinterConfig PrinterConfig::FromMap(const Map<String, Any>& settings) {
  // TVM's printer options that Tessera accepts and does not act on.
  static const std::unordered_set<std::string> kIgnored = {
      "show_meta",          "module_alias",      "buffer_dtype",     "int_dtype",        "float_dtype",
      "verbose_expr",       "print_line_numbers", "num_context_lines", "syntax_sugar",    "show_object_address",
      "path_to_underline",  "path_to_annotate",  "obj_to_underline", "obj_to_annotate", "show_all_struct_info",
      "extra_config",       "relax_prefix",      "binding_names"};
  PrinterConfig cfg;
  for (const auto& kv : settings.raw()) {
    std::string key = kv.first.cast<std::string>();
    const Any& v = kv.second;
    if (key == "indent_spaces") {
      int n = v.cast<int>();
      TESSERA_CHECK_OR_THROW(n >= 0 && n <= 16, ValueError) << "indent_spaces must be in [0, 16], got " << n;
      cfg.indent_spaces = n;
    } else if (key == "tir_prefix" || key == "ir_prefix") {
      std::string p = v.cast<std::string>();
      TESSERA_CHECK_OR_THROW(!p.empty() && SanitizeIdentifier(p, "") == p && !IsPythonKeyword(p), ValueError)
          << key << " must be a Python identifier, got " << PyStringLiteral(p);
      (key == "tir_prefix" ? cfg.tir_prefix : cfg.ir_prefix) = p;
    } else if (key == "name") {
      if (!v.is_none()) {
        std::string n = v.cast<std::string>();
        TESSERA_CHECK_OR_THROW(!n.empty() && SanitizeIdentifier(n, "") == n && !IsPythonKeyword(n), ValueError)
            << "name must be a Python identifier, got " << PyStringLiteral(n);
        cfg.name = n;
      }
    } else if (key == "print_header") {
      cfg.print_header = v.cast<bool>();
    } else if (!kIgnored.count(key)) {
      TESSERA_THROW(ValueError) << "unknown TVMScript printer option " << PyStringLiteral(key)
                                << "; supported: indent_spaces, tir_prefix, ir_prefix, name, print_header";
    }
  }
  return cfg;
}

std::string AsTVMScript(const ObjectRef& node, const PrinterConfig& cfg) {
  TESSERA_CHECK_OR_THROW(node.defined(), TypeError) << "cannot print None as TVMScript";
  if (const auto* mod = node.as<IRModuleNode>()) return PrintModule(GetRef<IRModule>(mod), cfg);
  if (const auto* func = node.as<BaseFuncNode>()) {
    BaseFunc f = GetRef<BaseFunc>(func);
    std::string out;
    if (cfg.print_header) {
      std::string import;
      if (f.as<tir::PrimFuncNode>()) {
        import = TirImport(cfg);
      } else if (std::optional<FunctionPrinter> p = FindFunctionPrinter(f->GetTypeKey())) {
        import = p->import_line;
      }
      if (!import.empty()) out += import + "\n\n";
    }
    if (!PrintFunction(f, FunctionName(f, cfg), 0, /*in_module=*/false, cfg, &out)) {
      TESSERA_THROW(TypeError) << "no TVMScript printer for a " << f->GetTypeKey();
    }
    StripTrailingWhitespace(&out);
    return out;
  }
  TIRPrinter printer(cfg);
  if (const auto* stmt = node.as<tir::StmtNode>()) return printer.PrintStmtFragment(GetRef<tir::Stmt>(stmt));
  if (const auto* expr = node.as<PrimExprNode>()) return printer.PrintExprFragment(GetRef<PrimExpr>(expr));
  if (node.as<tir::BufferNode>() || node.as<tir::BufferRegionNode>() || node.as<tir::MatchBufferRegionNode>() ||
      node.as<tir::IterVarNode>() || node.as<RangeNode>() || node.as<GlobalVarNode>() || node.as<OpNode>() ||
      node.as<ArrayObj>() || node.as<MapObj>() || node.as<StringObj>()) {
    return printer.PrintValueFragment(Any(node));
  }
  TESSERA_THROW(TypeError) << "no TVMScript form for a " << node->GetTypeKey();
}

std::string AsRepr(const ObjectRef& node) {
  if (!node.defined()) return "None";
  try {
    if (node.as<GlobalVarNode>()) return "I.GlobalVar(" + PyStringLiteral(node.as<GlobalVarNode>()->name_hint) + ")";
    if (node.as<IRModuleNode>() || node.as<BaseFuncNode>() || node.as<tir::StmtNode>() || node.as<PrimExprNode>() ||
        node.as<tir::BufferNode>() || node.as<tir::BufferRegionNode>() || node.as<tir::MatchBufferRegionNode>() ||
        node.as<tir::IterVarNode>() || node.as<RangeNode>() || node.as<OpNode>()) {
      return AsTVMScript(node);
    }
  } catch (const std::exception&) {
    // no script form (or a malformed node): repr must not raise, fall back
  }
  std::ostringstream os;
  os << "<" << node->GetTypeKey() << " object at " << static_cast<const void*>(node.get()) << ">";
  return os.str();
}

TESSERA_REGISTER_GLOBAL("script.AsTVMScript").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 1 || args.size() == 2, TypeError)
      << "script.AsTVMScript expects (node, settings=None) but got " << args.size() << " arguments";
  TESSERA_CHECK_OR_THROW(args[0].is_object(), TypeError)
      << "script.AsTVMScript: expected an IR node but got " << args[0].type_name();
  PrinterConfig cfg;
  if (args.size() == 2 && !args[1].is_none()) cfg = PrinterConfig::FromMap(args[1].cast<Map<String, Any>>());
  return String(AsTVMScript(args[0].raw_object(), cfg));
});

TESSERA_REGISTER_GLOBAL("node.AsRepr").set_body_typed([](ObjectRef node) { return AsRepr(node); });

}  // namespace printer
}  // namespace script
}  // namespace tessera
