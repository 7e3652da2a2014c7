// Module and function layout, for every dialect: import header,
// `@I.ir_module class Module:` with I.module_attrs, each function through the
// printer registered for its kind under a legal unique name (keywords
// renamed), a lone function under its global_symbol. Script layer (core).
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
