// Python-subset tokenizer (see tokenizer.h).
#include "script/parser/tokenizer.h"

#include <cstdint>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace tessera {
namespace script {
namespace {

class Tokenizer {
 public:
  explicit Tokenizer(const SourceFile& src) : src_(src), s_(src.text()) {}

  std::vector<Token> Run() {
    // As in Python, a NUL byte anywhere (even in a comment) makes the source invalid.
    size_t nul = s_.find('\0');
    if (nul != std::string::npos) {
      Pos p;
      size_t line_begin = s_.rfind('\n', nul == 0 ? 0 : nul - 1);
      line_begin = (line_begin == std::string::npos || nul == 0) ? 0 : line_begin + 1;
      p.line = p.end_line = 1 + static_cast<int>(std::count(s_.begin(), s_.begin() + line_begin, '\n'));
      p.col = static_cast<int>(nul - line_begin) + 1;
      p.end_col = p.col + 1;
      src_.Error(p, "the source contains a NUL character (U+0000), which Python source cannot contain");
    }
    bool base_set = false;
    while (true) {
      // ---- start of a logical line: measure indentation (outside brackets).
      size_t line_begin = i_;
      int indent = 0;
      while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\f')) {
        indent = s_[i_] == '\t' ? (indent / 8 + 1) * 8 : indent + 1;
        ++i_;
      }
      if (i_ >= s_.size()) break;
      if (s_[i_] == '#' || s_[i_] == '\n' || s_[i_] == '\r') {  // blank or comment-only line
        SkipToLineEnd();
        continue;
      }
      if (!base_set) {
        indents_.push_back(indent);
        base_set = true;
      } else if (indent > indents_.back()) {
        indents_.push_back(indent);
        Push(TokenKind::kIndent, "", PosAt(i_), PosAt(i_));
      } else if (indent < indents_.back()) {
        while (indents_.size() > 1 && indent < indents_.back()) {
          indents_.pop_back();
          Push(TokenKind::kDedent, "", PosAt(i_), PosAt(i_));
        }
        if (indent != indents_.back()) {
          Pos p = PosAt(line_begin);
          p.end_col = p.col + static_cast<int>(i_ - line_begin);
          src_.Error(p, "unindent does not match any outer indentation level");
        }
      }
      LexLogicalLine();
    }
    Pos end = PosAt(s_.size());
    while (indents_.size() > 1) {
      indents_.pop_back();
      Push(TokenKind::kDedent, "", end, end);
    }
    Push(TokenKind::kEnd, "", end, end);
    return std::move(tokens_);
  }

 private:
  const SourceFile& src_;
  const std::string& s_;
  size_t i_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  std::vector<int> indents_;
  std::vector<Token> tokens_;
  std::vector<std::pair<char, Pos>> brackets_;

  Pos PosAt(size_t offset) const {
    Pos p;
    p.line = p.end_line = line_;
    p.col = static_cast<int>(offset - line_start_) + 1;
    p.end_col = p.col + 1;
    return p;
  }
  void NewLine(size_t after) {
    ++line_;
    line_start_ = after;
  }
  void Push(TokenKind kind, std::string text, Pos begin, Pos end) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.pos = begin;
    t.pos.end_line = end.line;
    t.pos.end_col = end.col;
    tokens_.push_back(std::move(t));
  }
  void SkipToLineEnd() {
    while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    if (i_ < s_.size()) {
      ++i_;
      NewLine(i_);
    }
  }
  [[noreturn]] void Fail(size_t offset, const std::string& msg) { src_.Error(PosAt(offset), msg); }

  // Lexes tokens until the end of the logical line (emitting NEWLINE).
  void LexLogicalLine() {
    while (true) {
      if (i_ >= s_.size()) {
        if (!brackets_.empty()) {
          src_.Error(brackets_.back().second, std::string("'") + brackets_.back().first + "' was never closed");
        }
        Push(TokenKind::kNewline, "", PosAt(i_), PosAt(i_));
        return;
      }
      char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
        ++i_;
        continue;
      }
      if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
        continue;
      }
      if (c == '\\') {
        size_t j = i_ + 1;
        if (j < s_.size() && s_[j] == '\r') ++j;
        if (j < s_.size() && s_[j] == '\n') {
          i_ = j + 1;
          NewLine(i_);
          continue;
        }
        Fail(i_, "unexpected character after line continuation character");
      }
      if (c == '\n') {
        if (brackets_.empty()) {
          Push(TokenKind::kNewline, "", PosAt(i_), PosAt(i_));
          ++i_;
          NewLine(i_);
          return;
        }
        ++i_;
        NewLine(i_);
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80) {
        // String prefixes (r, b, u, f and combinations) directly before a quote.
        size_t j = i_;
        while (j < s_.size() && j - i_ < 2 && std::strchr("rRbBuUfF", s_[j]) != nullptr) ++j;
        if (j > i_ && j < s_.size() && (s_[j] == '\'' || s_[j] == '"')) {
          LexString(i_, j);
          continue;
        }
        size_t start = i_;
        while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' ||
                                  static_cast<unsigned char>(s_[i_]) >= 0x80)) {
          ++i_;
        }
        Push(TokenKind::kName, s_.substr(start, i_ - start), PosAt(start), PosAt(i_));
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1])))) {
        LexNumber();
        continue;
      }
      if (c == '\'' || c == '"') {
        LexString(i_, i_);
        continue;
      }
      LexOperator();
    }
  }

  void LexNumber() {
    size_t start = i_;
    std::string digits;
    auto take_digits = [&](auto is_digit) {
      while (i_ < s_.size() && (is_digit(s_[i_]) || s_[i_] == '_')) {
        if (s_[i_] != '_') digits.push_back(s_[i_]);
        ++i_;
      }
    };
    auto is_dec = [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; };
    Token t;
    t.pos = PosAt(start);
    if (s_[i_] == '0' && i_ + 1 < s_.size() && std::strchr("xXoObB", s_[i_ + 1]) != nullptr) {
      char base_ch = static_cast<char>(std::tolower(s_[i_ + 1]));
      int base = base_ch == 'x' ? 16 : base_ch == 'o' ? 8 : 2;
      i_ += 2;
      take_digits([&](char ch) {
        if (base == 16) return std::isxdigit(static_cast<unsigned char>(ch)) != 0;
        if (base == 8) return ch >= '0' && ch <= '7';
        return ch == '0' || ch == '1';
      });
      if (digits.empty()) Fail(start, "invalid number literal");
      errno = 0;
      unsigned long long v = std::strtoull(digits.c_str(), nullptr, base);
      if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX)) Fail(start, "integer literal is too large");
      t.kind = TokenKind::kInt;
      t.ival = static_cast<int64_t>(v);
    } else {
      take_digits(is_dec);
      bool is_float = false;
      if (i_ < s_.size() && s_[i_] == '.') {
        is_float = true;
        digits.push_back('.');
        ++i_;
        take_digits(is_dec);
      }
      if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
        size_t j = i_ + 1;
        if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
        if (j < s_.size() && is_dec(s_[j])) {
          is_float = true;
          digits.push_back('e');
          if (s_[i_ + 1] == '-') digits.push_back('-');
          i_ = j;
          take_digits(is_dec);
        }
      }
      if (i_ < s_.size() && (s_[i_] == 'j' || s_[i_] == 'J')) Fail(start, "complex numbers are not supported in TVMScript");
      if (is_float) {
        t.kind = TokenKind::kFloat;
        t.fval = std::strtod(digits.c_str(), nullptr);
      } else {
        errno = 0;
        unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
        if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX)) Fail(start, "integer literal is too large");
        t.kind = TokenKind::kInt;
        t.ival = static_cast<int64_t>(v);
      }
    }
    if (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) {
      Fail(i_, "invalid character in number literal");
    }
    t.text = s_.substr(start, i_ - start);
    Pos end = PosAt(i_);
    t.pos.end_line = end.line;
    t.pos.end_col = end.col;
    tokens_.push_back(std::move(t));
  }

  // Lexes a string literal whose prefix starts at `start` and quote at `q`.
  void LexString(size_t start, size_t q) {
    bool raw = false;
    for (size_t k = start; k < q; ++k) {
      char p = static_cast<char>(std::tolower(s_[k]));
      if (p == 'r') raw = true;
      if (p == 'f') Fail(start, "f-strings are not supported in TVMScript");
    }
    Pos begin = PosAt(start);
    char quote = s_[q];
    bool triple = q + 2 < s_.size() && s_[q + 1] == quote && s_[q + 2] == quote;
    i_ = q + (triple ? 3 : 1);
    std::string value;
    while (true) {
      if (i_ >= s_.size()) src_.Error(begin, "unterminated string literal");
      char c = s_[i_];
      if (c == quote) {
        if (!triple) {
          ++i_;
          break;
        }
        if (i_ + 2 < s_.size() && s_[i_ + 1] == quote && s_[i_ + 2] == quote) {
          i_ += 3;
          break;
        }
      }
      if (c == '\n') {
        if (!triple) src_.Error(begin, "unterminated string literal");
        value.push_back(c);
        ++i_;
        NewLine(i_);
        continue;
      }
      if (c == '\\' && i_ + 1 < s_.size()) {
        char e = s_[i_ + 1];
        if (raw) {
          value.push_back(c);
          value.push_back(e);
          i_ += 2;
          if (e == '\n') NewLine(i_);
          continue;
        }
        i_ += 2;
        switch (e) {
          case 'n': value.push_back('\n'); break;
          case 't': value.push_back('\t'); break;
          case 'r': value.push_back('\r'); break;
          case '0': value.push_back('\0'); break;
          case '\\': value.push_back('\\'); break;
          case '\'': value.push_back('\''); break;
          case '"': value.push_back('"'); break;
          case '\n': NewLine(i_); break;  // line continuation inside a string
          case 'x': {
            if (i_ + 2 <= s_.size() && std::isxdigit(static_cast<unsigned char>(s_[i_])) &&
                std::isxdigit(static_cast<unsigned char>(s_[i_ + 1]))) {
              value.push_back(static_cast<char>(std::strtol(s_.substr(i_, 2).c_str(), nullptr, 16)));
              i_ += 2;
            } else {
              Fail(i_ - 2, "invalid \\x escape in string literal");
            }
            break;
          }
          default:
            value.push_back('\\');
            value.push_back(e);
        }
        continue;
      }
      value.push_back(c);
      ++i_;
    }
    Token t;
    t.kind = TokenKind::kString;
    t.text = std::move(value);
    t.pos = begin;
    Pos end = PosAt(i_);
    t.pos.end_line = end.line;
    t.pos.end_col = end.col;
    tokens_.push_back(std::move(t));
  }

  void LexOperator() {
    static const char* kOps[] = {"**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "<<", ">>", "<=", ">=", "==",
                                 "!=",  "+=",  "-=",  "*=",  "/=",  "%=", "&=", "|=", "^=", "@=", ":=", "+",  "-",
                                 "*",   "/",   "%",   "@",   "&",   "|",  "^",  "~",  "<",  ">",  "(",  ")",  "[",
                                 "]",   "{",   "}",   ",",   ":",   ".",  ";",  "="};
    static const std::vector<std::string_view> kOpViews(std::begin(kOps), std::end(kOps));
    std::string_view rest = std::string_view(s_).substr(i_);
    for (std::string_view op_view : kOpViews) {
      if (op_view[0] != rest[0] || rest.compare(0, op_view.size(), op_view) != 0) continue;
      const char* op = op_view.data();
      size_t n = op_view.size();
      {
        Pos begin = PosAt(i_);
        char c = op[0];
        if (n == 1 && (c == '(' || c == '[' || c == '{')) {
          if (brackets_.size() >= 200) Fail(i_, "too many nested brackets");
          brackets_.push_back({c, begin});
        } else if (n == 1 && (c == ')' || c == ']' || c == '}')) {
          char open = c == ')' ? '(' : c == ']' ? '[' : '{';
          if (brackets_.empty()) Fail(i_, std::string("unmatched '") + c + "'");
          if (brackets_.back().first != open) {
            Fail(i_, std::string("closing parenthesis '") + c + "' does not match opening parenthesis '" +
                         brackets_.back().first + "'");
          }
          brackets_.pop_back();
        }
        i_ += n;
        Push(TokenKind::kOp, op, begin, PosAt(i_));
        return;
      }
    }
    unsigned char ch = static_cast<unsigned char>(s_[i_]);
    if (ch < 0x20 || ch == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof(code), "U+%04X", ch);
      Fail(i_, std::string("unexpected control character ") + code);
    }
    Fail(i_, std::string("unexpected character '") + s_[i_] + "'");
  }
};

}  // namespace

std::vector<Token> Tokenize(const SourceFile& source) { return Tokenizer(source).Run(); }

}  // namespace script
}  // namespace tessera
