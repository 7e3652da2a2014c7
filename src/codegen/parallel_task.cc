// Closure contents of outlined parallel loops (see parallel_task.h).
#include "codegen/parallel_task.h"

#include <algorithm>

#include "tir/analysis/undefined_vars.h"
#include "tir/functor.h"

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

std::vector<const VarNode*> ParallelTaskCaptures(const ForNode* op, bool bound_check,
                                                 const std::function<bool(const VarNode*)>& is_defined) {
  std::vector<const VarNode*> captured;
  for (const Var& v : UndefinedVars(op->body, {op->min})) {
    if (v.get() != op->loop_var.get()) captured.push_back(v.get());
  }
  if (!bound_check) return captured;
  // Bound checks compare indices with buffer sizes: capture the symbolic
  // sizes (`n` of a buffer of n * 12 elements) the body does not name.
  PostOrderVisit(op->body, [&](const ObjectRef& node) {
    Buffer buffer;
    if (const auto* load = node.as<BufferLoadNode>()) buffer = load->buffer;
    if (const auto* store = node.as<BufferStoreNode>()) buffer = store->buffer;
    if (!buffer.defined()) return;
    for (const PrimExpr& dim : buffer->shape) {
      for (const Var& v : UndefinedVars(Evaluate(PrimExpr(0)), {dim})) {
        if (is_defined(v.get()) && std::find(captured.begin(), captured.end(), v.get()) == captured.end()) {
          captured.push_back(v.get());
        }
      }
    }
  });
  return captured;
}

}  // namespace codegen
}  // namespace tessera
