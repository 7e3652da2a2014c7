// Settings of a TVMScript printout (indentation, module prefixes, the name
// of a lone function, nodes to underline), read from the optional dictionary that
// script.AsTVMScript takes. Script layer (printer).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/map.h"

namespace tessera {
namespace script {
namespace printer {

struct PrinterConfig {
  int indent_spaces = 4;
  std::string tir_prefix = "T";
  std::string ir_prefix = "I";
  // Name printed for a PrimFunc outside a module (default: its
  // "global_symbol" attribute, else "main").
  std::optional<std::string> name;
  // Print the "# from tvm.script import ..." lines before a module/function.
  bool print_header = true;
  // Nodes to underline with carets (TVM's `obj_to_underline`).
  std::vector<ObjectRef> obj_to_underline;
  // Print the metadata (Relax tensor constants) as a
  // `metadata = tvm.ir.load_json("""...""")` line that parses back, instead
  // of "# Metadata omitted. ..." (TVM's show_meta).
  bool show_meta = false;

  // Reads the keys above; TVM's other printer options are accepted and
  // ignored; any other key raises ValueError naming the supported ones.
  static PrinterConfig FromMap(const Map<String, Any>& settings);
};

}  // namespace printer
}  // namespace script
}  // namespace tessera
