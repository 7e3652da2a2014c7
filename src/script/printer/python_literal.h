// Python spellings the TVMScript printer needs: quoted string literals,
// round-trippable float text, and identifiers made valid (and kept clear of
// Python keywords). Script layer, used by the printers in this directory.
#pragma once

#include <string>

namespace tessera {
namespace script {
namespace printer {

// A double-quoted Python string literal with escapes ("a\"b\n").
std::string PyStringLiteral(const std::string& s);
// Shortest text that reads back as the same double ("0", "1.5", "1e-05").
// Callers handle inf and nan (see PyFloatLiteral).
std::string ShortestDouble(double v);
// A Python float literal ("0.0", "1.5", "1e-05", "float(\"inf\")").
std::string PyFloatLiteral(double v);
// `hint` with every character outside [A-Za-z0-9_] replaced by '_', a leading
// digit prefixed with '_', and `fallback` for an empty hint.
std::string SanitizeIdentifier(const std::string& hint, const std::string& fallback);
// True for Python keywords and the builtin constants (True, False, None).
bool IsPythonKeyword(const std::string& name);

}  // namespace printer
}  // namespace script
}  // namespace tessera
