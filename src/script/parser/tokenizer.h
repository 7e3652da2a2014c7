// Tokenizer for the Python subset of TVMScript: names, numbers, strings,
// operators, NEWLINE/INDENT/DEDENT with Python's rules (implicit line
// joining inside brackets, backslash continuation, comments). First stage
// of the script parser; errors are ParseErrors pointing at the character.
// The first line's indentation is the base level, so indented source
// (a method taken from a class) tokenizes with its original columns.
#pragma once

#include <string>
#include <vector>

#include "script/parser/source.h"

namespace tessera {
namespace script {

enum class TokenKind { kName, kInt, kFloat, kString, kOp, kNewline, kIndent, kDedent, kEnd };

struct Token {
  TokenKind kind;
  Pos pos;
  std::string text;  // name, operator, decoded string value, or number spelling
  int64_t ival = 0;
  double fval = 0;
};

std::vector<Token> Tokenize(const SourceFile& source);

}  // namespace script
}  // namespace tessera
