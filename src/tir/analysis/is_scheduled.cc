// IsScheduled (see is_scheduled.h).
#include "tir/analysis/is_scheduled.h"

#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace tir {

namespace {

bool TruthyAttr(const PrimFunc& func, const char* name) {
  auto a = func.GetAttr(name);
  if (!a) return false;
  return a->try_cast<bool>().value_or(false) || a->try_cast<int64_t>().value_or(0) != 0;
}

}  // namespace

bool IsScheduled(const PrimFunc& func) {
  if (TruthyAttr(func, "tir.is_scheduled") || TruthyAttr(func, "tir.is_host_func")) return true;
  bool scheduled = false;
  PostOrderVisit(func->body, [&](const ObjectRef& n) {
    if (const auto* loop = n.as<ForNode>(); loop != nullptr && loop->kind != ForKind::kSerial) scheduled = true;
  });
  return scheduled;
}

TESSERA_REGISTER_GLOBAL("tir.analysis.is_scheduled").set_body_typed([](PrimFunc f) { return IsScheduled(f); });

}  // namespace tir
}  // namespace tessera
