// The one renderer of "source text with carets under a span" used by every
// diagnostic of the script layer: ParseError (the source line and a caret
// run under the culprit), ScheduleError and assert_structural_equal (the
// printed IR with the culprit node underlined through its printed span).
// Script layer (printer core); depends on nothing but the standard library.
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
  std::string line_prefix;        // put before every printed line (e.g. "    ")
  bool only_marked_lines = false;  // print only the lines that carry a mark
  bool tabs_as_spaces = true;      // so that carets line up under tabs
};

// The text's lines (all, or only the marked ones) each followed by a caret
// line per mark starting on it; lines joined by '\n', no trailing newline.
std::string RenderCarets(std::string_view text, const std::vector<CaretMark>& marks,
                         const CaretRenderOptions& options = CaretRenderOptions());

}  // namespace script
}  // namespace tessera
