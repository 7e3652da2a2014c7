// Recursive-descent parser from tokens to the generic Python-subset AST
// (python_ast.h). Second stage of the script parser; the evaluator
// (core/evaluator.h) walks its output. Syntax errors are ParseErrors saying
// what was expected, at the offending token.
#pragma once

#include "script/parser/python_ast.h"

namespace tessera {
namespace script {

// Parses a whole source file (raises ParseError on malformed input).
ast::Module ParsePython(const SourceFile& source);

}  // namespace script
}  // namespace tessera
