// Source lines and ParseError rendering (see source.h).
#include "script/parser/source.h"

#include <algorithm>
#include <sstream>

#include "runtime/error.h"
#include "script/printer/caret_render.h"

namespace tessera {
namespace script {

SourceFile::SourceFile(std::string text, std::string filename, int line_offset)
    : text_(std::move(text)), filename_(std::move(filename)), line_offset_(line_offset) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::string_view SourceFile::Line(int line) const {
  if (line < 1 || line > num_lines()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = line < num_lines() ? line_starts_[line] : text_.size();
  while (end > begin && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return std::string_view(text_).substr(begin, end - begin);
}

std::string SourceFile::Render(const Pos& pos, const std::string& message) const {
  std::ostringstream os;
  int line = std::max(pos.line, 1);
  os << (filename_.empty() ? "<string>" : filename_) << ":" << line + line_offset_ << ":" << std::max(pos.col, 1)
     << ": error: " << message;
  std::string_view text = Line(line);
  if (!text.empty() || pos.line >= 1) {
    // Tabs are shown as single spaces so that the caret lines up.
    std::string shown(text);
    std::replace(shown.begin(), shown.end(), '\t', ' ');
    // Other control characters (a NUL would cut the message) are shown as '?'.
    for (char& ch : shown) {
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
    }
    int col = std::max(pos.col, 1);
    int end = (pos.end_line == pos.line && pos.end_col > col) ? pos.end_col : col + 1;
    int width = static_cast<int>(shown.size());
    if (col > width + 1) col = width + 1;
    if (end > width + 1) end = std::max(col + 1, width + 1);
    // The one caret renderer of the script layer (shared with the printer's diagnostics).
    CaretRenderOptions options;
    options.line_prefix = "    ";
    os << "\n" << RenderCarets(shown, {CaretMark{static_cast<size_t>(col - 1), static_cast<size_t>(end - 1), ""}}, options);
  }
  return os.str();
}

void SourceFile::Error(const Pos& pos, const std::string& message) const {
  ThrowErrorOfKind("ParseError", Render(pos, message));
}

}  // namespace script
}  // namespace tessera
