// Span marks and their resolution into a PrintedDoc (see text_doc.h).
#include "script/printer/text_doc.h"

#include <algorithm>

#include "runtime/error.h"

namespace tessera {
namespace script {
namespace printer {

std::string SpanMarks::Open(const ObjectRef& node) {
  if (!enabled_ || !node.defined()) return std::string();
  std::string mark(1, kOpen);
  mark += std::to_string(nodes_.size());
  mark.push_back(kOpenEnd);
  nodes_.push_back(node);
  return mark;
}

std::string SpanMarks::Wrap(const ObjectRef& node, const std::string& text) {
  if (!enabled_ || !node.defined()) return text;
  return Open(node) + text + Close();
}

PrintedDoc PrintedDoc::Resolve(const std::string& marked, const SpanMarks& marks) {
  PrintedDoc doc;
  doc.text_.reserve(marked.size());
  std::vector<std::pair<size_t, size_t>> open;  // (mark id, begin offset)
  std::vector<std::pair<size_t, std::pair<size_t, size_t>>> closed;
  for (size_t i = 0; i < marked.size(); ++i) {
    char c = marked[i];
    if (c == SpanMarks::kOpen) {
      size_t end = marked.find(SpanMarks::kOpenEnd, i);
      TESSERA_ICHECK(end != std::string::npos) << "unterminated span mark";
      open.emplace_back(std::stoul(marked.substr(i + 1, end - i - 1)), doc.text_.size());
      i = end;
    } else if (c == SpanMarks::kClose) {
      TESSERA_ICHECK(!open.empty()) << "span mark closed twice";
      closed.push_back({open.back().first, {open.back().second, doc.text_.size()}});
      open.pop_back();
    } else {
      doc.text_.push_back(c);
    }
  }
  TESSERA_ICHECK(open.empty()) << open.size() << " span marks left open";
  doc.line_starts_.push_back(0);
  for (size_t i = 0; i < doc.text_.size(); ++i) {
    if (doc.text_[i] == '\n') doc.line_starts_.push_back(i + 1);
  }
  // Text order: by begin, outer spans (closed later) first on ties.
  std::stable_sort(closed.begin(), closed.end(), [](const auto& a, const auto& b) {
    if (a.second.first != b.second.first) return a.second.first < b.second.first;
    return a.second.second > b.second.second;
  });
  for (const auto& c : closed) {
    const ObjectRef& node = marks.node(c.first);
    doc.keep_alive_.push_back(node);
    doc.AddSpan(node.get(), c.second.first, c.second.second);
  }
  return doc;
}

void PrintedDoc::AddSpan(const Object* node, size_t begin, size_t end) {
  TextSpan s;
  s.begin = begin;
  s.end = end;
  LineCol(begin, &s.line, &s.col);
  LineCol(end, &s.end_line, &s.end_col);
  spans_[node].push_back(s);
}

const std::vector<TextSpan>& PrintedDoc::SpansOf(const Object* node) const {
  static const std::vector<TextSpan> kNone;
  auto it = spans_.find(node);
  return it == spans_.end() ? kNone : it->second;
}

void PrintedDoc::LineCol(size_t offset, int* line, int* col) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t index = static_cast<size_t>(it - line_starts_.begin()) - 1;
  *line = static_cast<int>(index) + 1;
  *col = static_cast<int>(offset - line_starts_[index]) + 1;
}

void PrintedDoc::StripTrailingWhitespace() {
  while (!text_.empty() && (text_.back() == '\n' || text_.back() == ' ')) text_.pop_back();
  while (line_starts_.size() > 1 && line_starts_.back() > text_.size()) line_starts_.pop_back();
  for (auto& kv : spans_) {
    for (TextSpan& s : kv.second) {
      s.begin = std::min(s.begin, text_.size());
      s.end = std::min(s.end, text_.size());
      LineCol(s.begin, &s.line, &s.col);
      LineCol(s.end, &s.end_line, &s.end_col);
    }
  }
}

}  // namespace printer
}  // namespace script
}  // namespace tessera
