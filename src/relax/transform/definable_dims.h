// The symbolic variables a value of a struct info defines (TVM's
// DefinableTIRVarsInStructInfo): a variable that is a whole dimension or value
// (n of (n, 4), of R.Shape([n]), of R.Prim(value=n)) is defined by the value; one
// only inside an expression (n of (n * 2, 4)) is not. Used by the passes that
// decide which parameters define a function's symbolic dims (FuseOps,
// RemoveUnusedParameters). Relax transform layer.
#pragma once

#include <unordered_set>

#include "relax/struct_info.h"
#include "tir/expr.h"

namespace tessera {
namespace relax {

inline void CollectDefinableDims(const StructInfo& s, std::unordered_set<const Object*>* out) {
  auto add = [&](const PrimExpr& e) {
    if (e.as<tir::VarNode>() != nullptr) out->insert(e.get());
  };
  if (!s.defined()) return;
  if (const auto* p = s.as<PrimStructInfoNode>()) {
    if (p->value.defined()) add(p->value);
  } else if (const auto* sh = s.as<ShapeStructInfoNode>()) {
    if (sh->values) {
      for (const PrimExpr& e : *sh->values) add(e);
    }
  } else if (const auto* t = s.as<TensorStructInfoNode>()) {
    if (auto shape = t->GetShape()) {
      for (const PrimExpr& e : *shape) add(e);
    }
  } else if (const auto* tu = s.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : tu->fields) CollectDefinableDims(f, out);
  }
}

}  // namespace relax
}  // namespace tessera
