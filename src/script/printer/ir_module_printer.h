// Module and function layout of a printout, independent of the dialects:
// the import header, `@I.ir_module class Module:` with I.module_attrs and
// each function through the function printer registered for its kind, the
// names of the functions (legal, unique identifiers; a keyword is renamed),
// and a lone function under its global_symbol. Script layer (printer core).
#pragma once

#include <string>

#include "ir/module.h"
#include "script/printer/printer_context.h"

namespace tessera {
namespace script {
namespace printer {

// Both return text with the span marks of ctx->marks (no trailing-space strip).
std::string PrintModule(const IRModule& mod, PrinterContext* ctx);
// Raises TypeError when no printer is registered for the function's kind.
std::string PrintLoneFunction(const BaseFunc& func, PrinterContext* ctx);

}  // namespace printer
}  // namespace script
}  // namespace tessera
