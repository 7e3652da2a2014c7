// Entry points of the TVMScript printer (see script_printer.h): which
// printer a node goes to (module layout, lone function, TIR fragment), the
// printer settings, repr, and the global functions.
#include "script/printer/script_printer.h"

#include <sstream>
#include <unordered_set>

#include "ir/serialization.h"
#include "runtime/stack_guard.h"
#include "runtime/registry.h"
#include "script/printer/ir_module_printer.h"
#include "script/printer/python_literal.h"
#include "script/printer/tir_printer.h"

namespace tessera {
namespace script {
namespace printer {

void CheckPrintedNesting(int indent) {
  if (indent > kMaxPrintedNesting) {
    TESSERA_THROW(ValueError) << "statements nested more than " << kMaxPrintedNesting
                              << " levels deep: the TVMScript printer prints nests up to " << kMaxPrintedNesting
                              << " levels (the text grows with the square of the depth)";
  }
}

namespace {

// The text of `node` with span marks (when ctx->marks is enabled).
std::string PrintMarked(const ObjectRef& node, PrinterContext* ctx) {
  TESSERA_CHECK_OR_THROW(node.defined(), TypeError) << "cannot print None as TVMScript";
  if (const auto* mod = node.as<IRModuleNode>()) return PrintModule(GetRef<IRModule>(mod), ctx);
  if (const auto* func = node.as<BaseFuncNode>()) {
    if (FindFunctionPrinter(func->GetTypeKey())) return PrintLoneFunction(GetRef<BaseFunc>(func), ctx);
  }
  if (std::optional<std::string> text = PrintRegisteredFragment(node, ctx)) return *text;
  if (const auto* func = node.as<BaseFuncNode>()) return PrintLoneFunction(GetRef<BaseFunc>(func), ctx);
  TIRPrinter printer(ctx);
  if (const auto* stmt = node.as<tir::StmtNode>()) return printer.PrintStmtFragment(GetRef<tir::Stmt>(stmt));
  if (const auto* expr = node.as<PrimExprNode>()) return printer.PrintExprFragment(GetRef<PrimExpr>(expr));
  if (node.as<tir::BufferNode>() || node.as<tir::BufferRegionNode>() || node.as<tir::MatchBufferRegionNode>() ||
      node.as<tir::IterVarNode>() || node.as<RangeNode>() || node.as<GlobalVarNode>() || node.as<OpNode>() ||
      node.as<ArrayObj>() || node.as<MapObj>() || node.as<StringObj>()) {
    return printer.PrintValueFragment(Any(node));
  }
  TESSERA_THROW(TypeError) << "no TVMScript form for a " << node->GetTypeKey();
}

void StripTrailingWhitespaceOf(std::string* s) {
  while (!s->empty() && (s->back() == '\n' || s->back() == ' ')) s->pop_back();
}

// `text` (printed with span marks) with the metadata the printers referred
// to: a `metadata = tvm.ir.load_json("""...""")` line first (show_meta), or
// TVM's closing comment saying it was left out.
std::string WithMetadata(std::string text, PrinterContext* ctx) {
  if (ctx->metadata.empty()) return text;
  if (!ctx->cfg.show_meta) {
    StripTrailingWhitespaceOf(&text);
    return text + "\n\n# Metadata omitted. Use show_meta=True in script() method to show it.\n";
  }
  Map<String, Any> table;
  for (const auto& kv : ctx->metadata) {
    Array<Any> items;
    for (const ObjectRef& obj : kv.second) items.push_back(Any(obj));
    table.Set(String(kv.first), Any(items));
  }
  std::string json = SaveJSON(Any(table));
  std::string escaped;  // inside a Python """ string: backslashes doubled, quotes kept
  for (size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '\\') {
      escaped += "\\\\";
    } else if (json[i] == '"' && (i + 1 == json.size() || json[i + 1] == '"')) {
      escaped += "\\\"";  // never two quotes in a row, nor one before the closing quotes
    } else {
      escaped += json[i];
    }
  }
  return "metadata = tvm.ir.load_json(\"\"\"" + escaped + "\"\"\")\n" + text;
}

void StripTrailingWhitespace(std::string* s) {
  while (!s->empty() && (s->back() == '\n' || s->back() == ' ')) s->pop_back();
}

}  // namespace

PrinterConfig PrinterConfig::FromMap(const Map<String, Any>& settings) {
  // TVM's printer options that Tessera accepts and does not act on.
  static const std::unordered_set<std::string> kIgnored = {
      "module_alias",      "buffer_dtype",     "int_dtype",        "float_dtype",
      "verbose_expr",       "print_line_numbers", "num_context_lines", "syntax_sugar",    "show_object_address",
      "path_to_underline",  "path_to_annotate",  "obj_to_annotate", "show_all_struct_info",
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
    } else if (key == "show_meta") {
      cfg.show_meta = v.cast<bool>();
    } else if (key == "print_header") {
      cfg.print_header = v.cast<bool>();
    } else if (key == "obj_to_underline") {
      if (v.is_none()) continue;
      const auto* arr = v.as<ArrayObj>();
      TESSERA_CHECK_OR_THROW(arr != nullptr, TypeError) << "obj_to_underline must be a list of IR nodes, got a "
                                                        << v.type_name();
      for (const Any& obj : arr->data) {
        TESSERA_CHECK_OR_THROW(obj.is_object(), TypeError)
            << "obj_to_underline must be a list of IR nodes, got an element of type " << obj.type_name();
        cfg.obj_to_underline.push_back(obj.raw_object());
      }
    } else if (!kIgnored.count(key)) {
      TESSERA_THROW(ValueError) << "unknown TVMScript printer option " << PyStringLiteral(key)
                                << "; supported: indent_spaces, tir_prefix, ir_prefix, name, print_header, show_meta, obj_to_underline";
    }
  }
  return cfg;
}

std::string AsTVMScript(const ObjectRef& node, const PrinterConfig& cfg) {
  if (!cfg.obj_to_underline.empty()) {
    PrinterConfig plain = cfg;
    plain.obj_to_underline.clear();
    return RenderWithCulprit(node, cfg.obj_to_underline, "", plain);
  }
  PrinterContext ctx(cfg, /*record_spans=*/false);
  std::string out = WithMetadata(PrintMarked(node, &ctx), &ctx);
  StripTrailingWhitespace(&out);
  return out;
}

PrintedDoc AsTVMScriptWithSpans(const ObjectRef& node, const PrinterConfig& cfg) {
  PrinterContext ctx(cfg, /*record_spans=*/true);
  PrintedDoc doc = PrintedDoc::Resolve(WithMetadata(PrintMarked(node, &ctx), &ctx), ctx.marks);
  doc.StripTrailingWhitespace();
  return doc;
}

std::string AsRepr(const ObjectRef& node) {
  if (!node.defined()) return "None";
  try {
    if (node.as<GlobalVarNode>()) return "I.GlobalVar(" + PyStringLiteral(node.as<GlobalVarNode>()->name_hint) + ")";
    if (node.as<IRModuleNode>() || node.as<BaseFuncNode>() || node.as<tir::StmtNode>() || node.as<PrimExprNode>() ||
        node.as<tir::BufferNode>() || node.as<tir::BufferRegionNode>() || node.as<tir::MatchBufferRegionNode>() ||
        node.as<tir::IterVarNode>() || node.as<RangeNode>() || node.as<OpNode>()) {
      return RetryOnLargeStack([&] { return AsTVMScript(node); });
    }
    if (node->GetTypeKey().rfind("relax.", 0) == 0) {  // Relax expressions and struct info
      return RetryOnLargeStack([&] { return AsTVMScript(node); });
    }
  } catch (const RecursionError&) {
    std::ostringstream os;  // repr must not raise: say why there is no script form
    os << "<" << node->GetTypeKey() << " object at " << static_cast<const void*>(node.get())
       << ": nested too deeply to print>";
    return os.str();
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
  ObjectRef node = args[0].raw_object();
  return String(RetryOnLargeStack([&] { return AsTVMScript(node, cfg); }));
});

TESSERA_REGISTER_GLOBAL("node.AsRepr").set_body_typed([](ObjectRef node) { return AsRepr(node); });

}  // namespace printer
}  // namespace script
}  // namespace tessera
