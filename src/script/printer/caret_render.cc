// Caret rendering of spans in a text (see caret_render.h).
#include "script/printer/caret_render.h"

#include <algorithm>

namespace tessera {
namespace script {

std::string RenderCarets(std::string_view text, const std::vector<CaretMark>& marks,
                         const CaretRenderOptions& options) {
  // Split into lines; a mark belongs to the line its begin falls on (a mark
  // at a line's end, its newline or the end of the text, stays on that line).
  struct Line {
    size_t start;
    std::string text;
    std::vector<const CaretMark*> marks;
  };
  std::vector<Line> lines;
  for (size_t start = 0;;) {
    size_t nl = text.find('\n', start);
    size_t stop = nl == std::string_view::npos ? text.size() : nl;
    Line line{start, std::string(text.substr(start, stop - start)), {}};
    if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
    if (options.tabs_as_spaces) std::replace(line.text.begin(), line.text.end(), '\t', ' ');
    for (const CaretMark& m : marks) {
      if (m.begin >= start && m.begin <= stop) line.marks.push_back(&m);
    }
    lines.push_back(std::move(line));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  // Which lines to show: all, or those within context_lines of a marked one.
  std::vector<bool> shown(lines.size(), options.context_lines < 0);
  if (options.context_lines >= 0) {
    auto context = static_cast<size_t>(options.context_lines);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].marks.empty()) continue;
      size_t lo = i >= context ? i - context : 0;
      size_t hi = std::min(lines.size() - 1, i + context);
      for (size_t k = lo; k <= hi; ++k) shown[k] = true;
    }
  }
  std::string out;
  bool first = true;
  auto emit = [&](const std::string& line) {
    if (!first) out.push_back('\n');
    first = false;
    out += options.line_prefix + line;
  };
  bool skipped = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!shown[i]) {
      skipped = true;
      continue;
    }
    // Elided lines show as "..." between context windows (not for a lone marked line).
    if (skipped && options.context_lines > 0) emit("...");
    skipped = false;
    const Line& line = lines[i];
    emit(line.text);
    for (const CaretMark* m : line.marks) {
      size_t col = m->begin - line.start;
      size_t end = std::min(m->end, line.start + line.text.size());
      size_t width = end > m->begin ? end - m->begin : 1;
      std::string caret = std::string(col, ' ') + std::string(width, '^');
      if (!m->label.empty()) caret += " " + m->label;
      emit(caret);
    }
  }
  if (skipped && options.context_lines > 0) emit("...");
  return out;
}

}  // namespace script
}  // namespace tessera
