// Caret rendering of spans in a text (see caret_render.h).
#include "script/printer/caret_render.h"

#include <algorithm>

namespace tessera {
namespace script {

std::string RenderCarets(std::string_view text, const std::vector<CaretMark>& marks,
                         const CaretRenderOptions& options) {
  std::string out;
  bool first_line = true;
  auto emit = [&](std::string_view line) {
    if (!first_line) out.push_back('\n');
    first_line = false;
    out += options.line_prefix;
    out.append(line.data(), line.size());
  };
  size_t start = 0;
  while (true) {
    size_t nl = text.find('\n', start);
    size_t stop = nl == std::string_view::npos ? text.size() : nl;
    std::string line(text.substr(start, stop - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (options.tabs_as_spaces) std::replace(line.begin(), line.end(), '\t', ' ');
    std::vector<const CaretMark*> here;
    for (const CaretMark& m : marks) {
      // A mark at a line's end (its newline, or the end of the text) is shown on that line.
      if (m.begin >= start && m.begin <= stop) here.push_back(&m);
    }
    if (!options.only_marked_lines || !here.empty()) {
      emit(line);
      for (const CaretMark* m : here) {
        size_t col = m->begin - start;
        size_t end = std::min(m->end, start + line.size());
        size_t width = end > m->begin ? end - m->begin : 1;
        std::string caret = std::string(col, ' ') + std::string(width, '^');
        if (!m->label.empty()) caret += " " + m->label;
        emit(caret);
      }
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

}  // namespace script
}  // namespace tessera
