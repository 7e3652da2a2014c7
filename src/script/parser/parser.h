// Public entry of the TVMScript parser: source text in, a PrimFunc (for a
// `@T.prim_func` function) or an IRModule (for an `@I.ir_module` class)
// out. Layout and how to add a dialect: README.md in this folder. Used by the Python decorators (tessera.script) through the global
// function "script.ParseTIR", by from_source, and by C++ tools and tests.
#pragma once

#include <optional>
#include <string>

#include "runtime/packed_func.h"

namespace tessera {
namespace script {

// `resolver`, when given, is called with a free name and returns its value
// (raising KeyError when the name is undefined). `line_offset` is added to
// reported line numbers (the source's first line is line 1 + line_offset).
// Raises ParseError (kind "ParseError") on malformed or unsupported input.
ObjectRef ParseTVMScript(const std::string& source, const std::string& filename = "<string>", int line_offset = 0,
                         std::optional<PackedFunc> resolver = std::nullopt);

}  // namespace script
}  // namespace tessera
