// PrinterContext: the state all dialect printers share while printing one
// node (so Relax and the TIR inside agree): settings, the name table (a frame
// per function, block, loop or branch), span marks (text_doc.h) and the
// names the module printer gave its functions. Script layer (printer core).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "script/printer/name_table.h"
#include "script/printer/printer_config.h"
#include "script/printer/text_doc.h"

namespace tessera {
namespace script {
namespace printer {

class PrinterContext {
 public:
  PrinterContext(const PrinterConfig& config, bool record_spans) : cfg(config), marks(record_spans) {
    names.Reserve(cfg.tir_prefix);
    names.Reserve(cfg.ir_prefix);
    names.Reserve("range");
    names.Reserve("cls");
  }
  PrinterContext(const PrinterContext&) = delete;
  PrinterContext& operator=(const PrinterContext&) = delete;

  // The name printed for a function of the module being printed (its
  // GlobalVar), or nullptr outside a module / for an unknown GlobalVar.
  const std::string* FunctionName(const Object* global_var) const {
    auto it = function_names.find(global_var);
    return it == function_names.end() ? nullptr : &it->second;
  }

  const PrinterConfig& cfg;
  NameTable names;
  SpanMarks marks;
  bool in_module = false;  // GlobalVar calls print as `cls.f(...)`
  std::unordered_map<const Object*, std::string> function_names;
  // While a module function whose printed def name differs from its
  // GlobalVar's (a keyword such as "from" prints as `def from_1`) is printed:
  // the GlobalVar's name, written as the decorator's global_var= argument.
  std::optional<std::string> global_var_name;
};

}  // namespace printer
}  // namespace script
}  // namespace tessera
