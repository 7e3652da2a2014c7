// TVMScript printing entry points: AsTVMScript (modules, functions,
// statements, expressions, buffers, ...) and AsRepr (what Python's repr of
// a node shows). Registered as the globals "script.AsTVMScript" and
// "node.AsRepr". Function kinds from higher layers (Relax) plug in with
// RegisterFunctionPrinter. Script layer, above tir.
#pragma once

#include <functional>
#include <string>

#include "ir/module.h"
#include "script/printer/printer_config.h"

namespace tessera {
namespace script {
namespace printer {

// The node as TVMScript text (no trailing newline). Raises TypeError for
// objects that have no script form.
std::string AsTVMScript(const ObjectRef& node, const PrinterConfig& cfg = PrinterConfig());
// A one-look rendering for repr(): the script for IR nodes, a short
// `<type object at 0x...>` form for anything else.
std::string AsRepr(const ObjectRef& node);

// Prints one function of a kind other than PrimFunc inside a module or on
// its own: appends its text (decorator and body) at indentation level
// `indent` to `out`. `import_line` is the header line it needs
// (e.g. "# from tvm.script import relax as R").
struct FunctionPrinter {
  std::string import_line;
  std::function<void(const BaseFunc& func, const std::string& name, int indent, const PrinterConfig& cfg,
                     std::string* out)>
      print;
};
// Registers the printer for functions whose node has type key `type_key`
// (replacing an earlier registration).
void RegisterFunctionPrinter(const std::string& type_key, FunctionPrinter printer);

}  // namespace printer
}  // namespace script
}  // namespace tessera
