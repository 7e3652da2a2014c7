// Printed text with spans: for each statement, block, loop, expression,
// buffer and function printed, the [begin, end) range and line:col of its
// text. Printers wrap a node's text in invisible marks (SpanMarks);
// PrintedDoc::Resolve strips them into ranges. Script layer (printer core).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/object.h"

namespace tessera {
namespace script {
namespace printer {

// A [begin, end) range of characters of a printed text, with its 1-based
// line and column (end_col exclusive).
struct TextSpan {
  size_t begin = 0;
  size_t end = 0;
  int line = 0;
  int col = 0;
  int end_line = 0;
  int end_col = 0;
};

// Wraps text in marks naming the node it prints. Disabled (the default), it
// leaves text unchanged, so printing without spans costs nothing.
class SpanMarks {
 public:
  explicit SpanMarks(bool enabled = false) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }
  // The mark that opens the text of `node` ("" when disabled).
  std::string Open(const ObjectRef& node);
  // The mark that closes the innermost open mark.
  std::string Close() const { return enabled_ ? std::string(1, kClose) : std::string(); }
  // `Open(node) + text + Close()`.
  std::string Wrap(const ObjectRef& node, const std::string& text);
  // The node a mark id stands for.
  const ObjectRef& node(size_t id) const { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }

  static constexpr char kOpen = '\x01';
  static constexpr char kOpenEnd = '\x02';
  static constexpr char kClose = '\x03';

 private:
  bool enabled_;
  std::vector<ObjectRef> nodes_;
};

// Printed text and the spans of the nodes printed in it. A node may have
// several spans (a variable at its definition and each use), in text order.
class PrintedDoc {
 public:
  PrintedDoc() = default;
  // Strips the marks of `marked` (made with `marks`) and records the spans.
  static PrintedDoc Resolve(const std::string& marked, const SpanMarks& marks);
  // Text without marks.
  const std::string& text() const { return text_; }
  // The spans of `node` in text order (empty when it was not printed).
  const std::vector<TextSpan>& SpansOf(const Object* node) const;
  // Every node with a span, with its spans.
  const std::unordered_map<const Object*, std::vector<TextSpan>>& spans() const { return spans_; }
  // Removes trailing newlines and spaces (clamping the spans).
  void StripTrailingWhitespace();
  // 1-based line and column of character offset `offset`.
  void LineCol(size_t offset, int* line, int* col) const;

 private:
  void AddSpan(const Object* node, size_t begin, size_t end);
  std::string text_;
  std::vector<size_t> line_starts_;
  std::unordered_map<const Object*, std::vector<TextSpan>> spans_;
  std::vector<ObjectRef> keep_alive_;  // nodes built while printing stay valid keys
};

}  // namespace printer
}  // namespace script
}  // namespace tessera
