// Module layout and function naming of the printer core (see
// ir_module_printer.h).
#include "script/printer/ir_module_printer.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "runtime/error.h"
#include "script/printer/python_literal.h"
#include "script/printer/script_printer.h"
#include "script/printer/tir_printer.h"

namespace tessera {
namespace script {
namespace printer {

namespace {

std::string IrImport(const PrinterConfig& cfg) { return "# from tvm.script import ir as " + cfg.ir_prefix; }
std::string TirImport(const PrinterConfig& cfg) { return "# from tvm.script import tir as " + cfg.tir_prefix; }

// `hint` as a legal identifier that is neither a keyword, a module prefix,
// `cls`, nor in `taken` (suffix _1, _2, ...). The IR keeps its own name (the
// GlobalVar, the global_symbol attribute): only the printed def is renamed.
std::string LegalFunctionName(const std::string& hint, const PrinterConfig& cfg,
                              const std::unordered_set<std::string>& taken) {
  std::string base = SanitizeIdentifier(hint, "main");
  auto bad = [&](const std::string& n) {
    return taken.count(n) || IsPythonKeyword(n) || n == cfg.tir_prefix || n == cfg.ir_prefix || n == "cls";
  };
  std::string name = base;
  for (int i = 1; bad(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

}  // namespace

std::string PrintModule(const IRModule& mod, PrinterContext* ctx) {
  const PrinterConfig& cfg = ctx->cfg;
  std::vector<GlobalVar> gvars = mod->GetGlobalVars();
  // Header: the imports the module's functions need, ir first.
  std::vector<std::pair<int, std::string>> dialect_imports;  // (header_order, line)
  std::unordered_set<std::string> seen = {IrImport(cfg)};
  std::unordered_set<std::string> taken;
  for (const GlobalVar& gv : gvars) {
    BaseFunc f = mod->Lookup(gv);
    if (std::optional<FunctionPrinter> p = FindFunctionPrinter(f->GetTypeKey())) {
      std::string line = p->import_line(cfg);
      if (!line.empty() && seen.insert(line).second) dialect_imports.emplace_back(p->header_order, line);
    }
    std::string name = LegalFunctionName(gv->name_hint, cfg, taken);
    taken.insert(name);
    ctx->function_names[gv.get()] = name;
  }
  std::string pad(static_cast<size_t>(cfg.indent_spaces), ' ');
  std::string out = ctx->marks.Open(mod) + "@" + cfg.ir_prefix + ".ir_module\nclass Module:\n";
  bool first = true;
  if (!mod->attrs.empty()) {
    out += pad + cfg.ir_prefix + ".module_attrs(" + TIRPrinter(ctx).PrintValueFragment(Any(mod->attrs)) + ")\n";
    first = false;
  }
  ctx->in_module = true;
  for (const GlobalVar& gv : gvars) {
    if (!first) out += "\n";
    first = false;
    BaseFunc f = mod->Lookup(gv);
    const std::string& name = ctx->function_names[gv.get()];
    if (std::optional<FunctionPrinter> p = FindFunctionPrinter(f->GetTypeKey())) {
      if (name != gv->name_hint) ctx->global_var_name = gv->name_hint;
      p->print(f, name, 1, ctx, &out);
      ctx->global_var_name.reset();
    } else {
      out += pad + "# " + name + ": a " + f->GetTypeKey() + ", which has no TVMScript printer\n";
    }
  }
  ctx->in_module = false;
  if (first) out += pad + "pass\n";
  out.insert(out.size() - 1, ctx->marks.Close());
  // The header, now that the functions said which prefixes they used (a
  // Relax function's `n = T.int64()` needs the tir import).
  if (ctx->tir_prefix_used && seen.insert(TirImport(cfg)).second) dialect_imports.emplace_back(1, TirImport(cfg));
  std::stable_sort(dialect_imports.begin(), dialect_imports.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (!cfg.print_header) return out;
  std::string header = IrImport(cfg) + "\n";
  for (const auto& entry : dialect_imports) header += entry.second + "\n";
  return header + "\n" + out;
}

std::string PrintLoneFunction(const BaseFunc& func, PrinterContext* ctx) {
  const PrinterConfig& cfg = ctx->cfg;
  std::optional<FunctionPrinter> p = FindFunctionPrinter(func->GetTypeKey());
  TESSERA_CHECK_OR_THROW(p.has_value(), TypeError) << "no TVMScript printer for a " << func->GetTypeKey();
  std::string out;
  // Named by the settings, else its global_symbol (which it keeps as an
  // attribute, so a renamed keyword still round-trips), else "main".
  std::string name = "main";
  if (cfg.name.has_value()) {
    name = *cfg.name;
  } else if (std::optional<Any> sym = func.GetAttr("global_symbol")) {
    if (const auto* s = sym->as<StringObj>()) name = LegalFunctionName(s->data, cfg, {});
  }
  p->print(func, name, 0, ctx, &out);
  if (!cfg.print_header) return out;
  std::vector<std::pair<int, std::string>> imports;
  std::string import = p->import_line(cfg);
  if (!import.empty()) imports.emplace_back(p->header_order, import);
  if (ctx->tir_prefix_used && import != TirImport(cfg)) imports.emplace_back(1, TirImport(cfg));
  std::stable_sort(imports.begin(), imports.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string header;
  for (const auto& entry : imports) header += entry.second + "\n";
  return header.empty() ? out : header + "\n" + out;
}

}  // namespace printer
}  // namespace script
}  // namespace tessera
