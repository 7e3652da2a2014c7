// TVMScript printing entry points: AsTVMScript, AsTVMScriptWithSpans (text
// and node spans), RenderWithCulprit (carets under given nodes, for errors),
// AsRepr; globals "script.AsTVMScript", "script.RenderWithCulprit",
// "node.AsRepr". Function kinds plug in with RegisterFunctionPrinter (PrimFunc
// in tir_function_printer.cc; Relax next). Script layer, above tir.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "script/printer/printer_config.h"
#include "script/printer/text_doc.h"

namespace tessera {
namespace script {
namespace printer {

class PrinterContext;

// The node as TVMScript text (no trailing newline). Raises TypeError for
// objects that have no script form.
std::string AsTVMScript(const ObjectRef& node, const PrinterConfig& cfg = PrinterConfig());
// The same text, with the spans of the nodes printed in it.
PrintedDoc AsTVMScriptWithSpans(const ObjectRef& node, const PrinterConfig& cfg = PrinterConfig());
// The node's script with a caret line (and `label`) under each culprit node:
// a block's `with T.block(...)` line, a loop's variable in its header, or
// the first line of any other statement/expression/buffer span. Culprits
// not found in the printout are listed after it by type. `context_lines`
// >= 0 shows only the lines that near a caret (see CaretRenderOptions).
std::string RenderWithCulprit(const ObjectRef& node, const std::vector<ObjectRef>& culprits,
                              const std::string& label, const PrinterConfig& cfg = PrinterConfig(),
                              int context_lines = -1);
// A one-look rendering for repr(): the script for IR nodes, a short
// `<type object at 0x...>` form for anything else.
std::string AsRepr(const ObjectRef& node);

// Prints one function of some kind (inside a module or on its own): appends
// its text (decorator and body) at indentation level `indent` to `out`,
// naming things through `ctx` (shared with the other dialects' printers).
// `import_line` is the header line it needs (e.g.
// "# from tvm.script import relax as R").
struct FunctionPrinter {
  std::function<std::string(const PrinterConfig& cfg)> import_line;
  std::function<void(const BaseFunc& func, const std::string& name, int indent, PrinterContext* ctx,
                     std::string* out)>
      print;
  // Where its import line goes in a module's header (TVM's order: ir, tir, relax).
  int header_order = 0;
};
// Registers the printer for functions whose node has type key `type_key`
// (replacing an earlier registration).
void RegisterFunctionPrinter(const std::string& type_key, FunctionPrinter printer);
// The printer registered for `type_key`, if any.
std::optional<FunctionPrinter> FindFunctionPrinter(const std::string& type_key);

// Prints a node that is neither a module nor a function for some dialect (a
// Relax expression, binding or struct info): nullopt for nodes it does not
// print. Registered once per dialect; tried before the TIR fragments.
using FragmentPrinter = std::function<std::optional<std::string>(const ObjectRef& node, PrinterContext* ctx)>;
void RegisterFragmentPrinter(FragmentPrinter printer);
// The text of the first registered fragment printer accepting `node`.
std::optional<std::string> PrintRegisteredFragment(const ObjectRef& node, PrinterContext* ctx);

}  // namespace printer
}  // namespace script
}  // namespace tessera
