// Source text of a TVMScript program and the ParseError diagnostics that
// point into it: "file:line:col: error: message", the offending source line
// and a caret run under the culprit. Bottom of the script parser (used by
// the tokenizer, the Python-subset parser and the IR builders). Lines are
// reported in the coordinates of the ORIGINAL file (line_offset added).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessera {
namespace script {

// A position in the source: 1-based line and column; the end column
// (exclusive, 1-based) is on `line` when end_line == line.
struct Pos {
  int line = 0;
  int col = 0;
  int end_line = 0;
  int end_col = 0;
};

class SourceFile {
 public:
  // `line_offset` is added to every reported line (the decorator passes the
  // line of the source's first line in its file, minus one).
  SourceFile(std::string text, std::string filename, int line_offset = 0);

  const std::string& text() const { return text_; }
  const std::string& filename() const { return filename_; }
  int line_offset() const { return line_offset_; }
  int num_lines() const { return static_cast<int>(line_starts_.size()); }
  // The text of 1-based line `line` without its newline ("" when out of range).
  std::string_view Line(int line) const;

  // Renders a diagnostic for `pos`.
  std::string Render(const Pos& pos, const std::string& message) const;
  // Throws a ParseError (kind "ParseError") rendered at `pos`.
  [[noreturn]] void Error(const Pos& pos, const std::string& message) const;

 private:
  std::string text_;
  std::string filename_;
  int line_offset_;
  std::vector<size_t> line_starts_;
};

}  // namespace script
}  // namespace tessera
