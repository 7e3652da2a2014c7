// The one renderer of "text with carets under spans" behind every script
// diagnostic: ParseError (source line + carets), ScheduleError and
// assert_structural_equal (printed IR with the culprit's span underlined).
// Script layer (printer core); standard library only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessera {
namespace script {

// A [begin, end) character range of the text to underline, and the label
// printed after the carets ("" for none). A range reaching past its first
// line is underlined on that first line only (to its end); an empty range
// gets one caret.
struct CaretMark {
  size_t begin = 0;
  size_t end = 0;
  std::string label;
};

struct CaretRenderOptions {
  std::string line_prefix;    // put before every printed line (e.g. "    ")
  // -1: every line; N >= 0: only the lines within N of a marked line, with
  // "..." where lines are left out (when N > 0).
  int context_lines = -1;
  bool tabs_as_spaces = true;  // so that carets line up under tabs
};

// The text's lines (all, or those near a mark) each followed by a caret
// line per mark starting on it; lines joined by '\n', no trailing newline.
std::string RenderCarets(std::string_view text, const std::vector<CaretMark>& marks,
                         const CaretRenderOptions& options = CaretRenderOptions());

}  // namespace script
}  // namespace tessera
