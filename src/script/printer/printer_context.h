// PrinterContext: the state all dialect printers share while printing one
// node (so Relax and the TIR inside agree): settings, the name table (a frame
// per function, block, loop or branch), span marks (text_doc.h) and the
// names the module printer gave its functions. Script layer (printer core).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "script/printer/name_table.h"
#include "script/printer/printer_config.h"
#include "script/printer/text_doc.h"

namespace tessera {
namespace script {
namespace printer {

// Indentation makes the text quadratic in the nesting depth of statements
// (and the parser reads at most 100 levels): both dialects refuse absurd
// nests (ValueError naming the limit) instead of exhausting memory.
inline constexpr int kMaxPrintedNesting = 4096;
void CheckPrintedNesting(int indent);

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
  // Integer constants of dtype int64 print bare (`n + 1`, Relax shapes)
  // instead of T.int64(1): set while a Relax printer prints PrimExprs.
  bool int64_bare = false;
  // Set by a printer that wrote `T.` into a function of another dialect
  // (a Relax function's `n = T.int64()`): the header then imports tir.
  bool tir_prefix_used = false;
  // Objects printed as metadata["<type key>"][i] (Relax tensor constants),
  // by type key in first-use order; the entry point prints them (show_meta)
  // or says they are omitted.
  std::map<std::string, std::vector<ObjectRef>> metadata;
  // The index of `obj` in metadata[obj's type key], added on first use.
  size_t MetadataIndex(const ObjectRef& obj) {
    std::vector<ObjectRef>& list = metadata[obj->GetTypeKey()];
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].same_as(obj)) return i;
    }
    list.push_back(obj);
    return list.size() - 1;
  }
};

}  // namespace printer
}  // namespace script
}  // namespace tessera
