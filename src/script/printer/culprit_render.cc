// Error rendering through spans (see RenderWithCulprit in script_printer.h):
// prints the IR with spans and puts carets under the exact text of each
// culprit node, with the shared caret renderer (caret_render.h). Used by
// ScheduleError (through the global "script.RenderWithCulprit") and by
// assert_structural_equal. Script layer (printer core).
#include "runtime/registry.h"
#include "script/printer/caret_render.h"
#include "script/printer/script_printer.h"
#include "tir/stmt.h"

namespace tessera {
namespace script {
namespace printer {

namespace {

// The span to underline for `culprit`: a loop's variable where its header
// defines it (telling apart the loops of one T.grid line), otherwise the
// node's first span (a block's starts at `with T.block(...)`).
const TextSpan* CulpritSpan(const PrintedDoc& doc, const ObjectRef& culprit) {
  if (const auto* loop = culprit.as<tir::ForNode>()) {
    const std::vector<TextSpan>& var = doc.SpansOf(loop->loop_var.get());
    if (!var.empty()) return &var.front();  // the definition comes first in text order
  }
  if (const auto* realize = culprit.as<tir::BlockRealizeNode>()) {
    const std::vector<TextSpan>& spans = doc.SpansOf(realize);
    if (spans.empty()) return CulpritSpan(doc, realize->block);
  }
  const std::vector<TextSpan>& spans = doc.SpansOf(culprit.get());
  return spans.empty() ? nullptr : &spans.front();
}

}  // namespace

std::string RenderWithCulprit(const ObjectRef& node, const std::vector<ObjectRef>& culprits,
                              const std::string& label, const PrinterConfig& cfg, int context_lines) {
  PrintedDoc doc = AsTVMScriptWithSpans(node, cfg);
  std::vector<CaretMark> marks;
  std::string missing;
  for (const ObjectRef& c : culprits) {
    if (!c.defined()) continue;
    if (const TextSpan* span = CulpritSpan(doc, c)) {
      marks.push_back(CaretMark{span->begin, span->end, label});
    } else {
      missing += "\n(the culprit " + c->GetTypeKey() + " is not in the printed text)";
    }
  }
  CaretRenderOptions options;
  options.context_lines = marks.empty() ? -1 : context_lines;
  return RenderCarets(doc.text(), marks, options) + missing;
}

TESSERA_REGISTER_GLOBAL("script.RenderWithCulprit").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 3 || args.size() == 4, TypeError)
      << "script.RenderWithCulprit expects (node, culprits, label, context_lines=-1) but got " << args.size()
      << " arguments";
  int context_lines = args.size() == 4 ? args[3].cast<int>() : -1;
  TESSERA_CHECK_OR_THROW(context_lines >= -1, ValueError)
      << "script.RenderWithCulprit: context_lines must be -1 (every line) or >= 0, got " << context_lines;
  TESSERA_CHECK_OR_THROW(args[0].is_object(), TypeError)
      << "script.RenderWithCulprit: expected an IR node but got " << args[0].type_name();
  std::vector<ObjectRef> culprits;
  if (const auto* arr = args[1].as<ArrayObj>()) {
    for (const Any& c : arr->data) {
      TESSERA_CHECK_OR_THROW(c.is_object(), TypeError)
          << "script.RenderWithCulprit: culprits must be IR nodes, got a " << c.type_name();
      culprits.push_back(c.raw_object());
    }
  } else if (args[1].is_object()) {
    culprits.push_back(args[1].raw_object());
  } else if (!args[1].is_none()) {
    TESSERA_THROW(TypeError) << "script.RenderWithCulprit: culprits must be a node or a list of nodes, got a "
                             << args[1].type_name();
  }
  return String(
      RenderWithCulprit(args[0].raw_object(), culprits, args[2].cast<std::string>(), PrinterConfig(), context_lines));
});

}  // namespace printer
}  // namespace script
}  // namespace tessera
