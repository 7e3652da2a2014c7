// Python literal and identifier spelling for the TVMScript printer (see
// python_literal.h).
#include "script/printer/python_literal.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <unordered_set>

namespace tessera {
namespace script {
namespace printer {

std::string PyStringLiteral(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));  // UTF-8 bytes pass through
        }
    }
  }
  out.push_back('"');
  return out;
}

std::string ShortestDouble(double v) {
  if (v == 0.0) return std::signbit(v) ? "-0.0" : "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string PyFloatLiteral(double v) {
  if (std::isnan(v)) return "float(\"nan\")";
  if (std::isinf(v)) return v > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  std::string s = ShortestDouble(v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string SanitizeIdentifier(const std::string& hint, const std::string& fallback) {
  if (hint.empty()) return fallback;
  std::string out = hint;
  for (char& c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    bool ok = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_';
    if (!ok) c = '_';
  }
  if (out[0] >= '0' && out[0] <= '9') out.insert(out.begin(), '_');
  return out;
}

bool IsPythonKeyword(const std::string& name) {
  static const std::unordered_set<std::string> kKeywords = {
      "False",  "None",   "True",    "and",      "as",       "assert", "async", "await",
      "break",  "class",  "continue", "def",     "del",      "elif",   "else",  "except",
      "finally", "for",   "from",    "global",   "if",       "import", "in",    "is",
      "lambda", "nonlocal", "not",   "or",       "pass",     "raise",  "return", "try",
      "while",  "with",   "yield"};
  return kKeywords.count(name) != 0;
}

}  // namespace printer
}  // namespace script
}  // namespace tessera
