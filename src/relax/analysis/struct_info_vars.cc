// The symbolic variables of a struct info, as TVM's relax.analysis exposes
// them: tir_vars_in_struct_info (every tir.Var used), definable_tir_vars_in_struct_info
// (those a match could define: a dimension or a PrimStructInfo value that is a
// bare var), and erase_to_well_defined(sinfo, shape_var_map) (keeps what is
// defined by the map's vars, then substitutes them). Relax analysis layer.
#include <unordered_set>

#include "relax/expr.h"
#include "relax/struct_info.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace relax {

namespace {

void AddIfVar(const PrimExpr& e, Array<tir::Var>* out, std::unordered_set<const Object*>* seen) {
  if (const auto* v = e.as<tir::VarNode>(); v && seen->insert(v).second) out->push_back(GetRef<tir::Var>(v));
}

void CollectDefinable(const StructInfo& s, Array<tir::Var>* out, std::unordered_set<const Object*>* seen) {
  if (!s.defined()) return;
  if (const auto* p = s.as<PrimStructInfoNode>()) {
    if (p->value.defined()) AddIfVar(p->value, out, seen);
  } else if (const auto* sh = s.as<ShapeStructInfoNode>()) {
    if (sh->values) {
      for (const PrimExpr& v : *sh->values) AddIfVar(v, out, seen);
    }
  } else if (const auto* t = s.as<TensorStructInfoNode>()) {
    if (t->shape) {
      if (const auto* se = t->shape->as<ShapeExprNode>()) {
        for (const PrimExpr& v : se->values) AddIfVar(v, out, seen);
      }
    }
  } else if (const auto* tu = s.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : tu->fields) CollectDefinable(f, out, seen);
  } else if (const auto* f = s.as<FuncStructInfoNode>()) {
    if (f->params) {
      for (const StructInfo& p : *f->params) CollectDefinable(p, out, seen);
    }
    CollectDefinable(f->ret, out, seen);
  }
}

}  // namespace

TESSERA_REGISTER_GLOBAL("relax.analysis.tir_vars_in_struct_info").set_body_typed([](StructInfo s) {
  std::vector<tir::Var> vars = TIRVarsInStructInfo(s);
  return Array<tir::Var>(vars.begin(), vars.end());
});

TESSERA_REGISTER_GLOBAL("relax.analysis.definable_tir_vars_in_struct_info").set_body_typed([](StructInfo s) {
  Array<tir::Var> out;
  std::unordered_set<const Object*> seen;
  CollectDefinable(s, &out, &seen);
  return out;
});

TESSERA_REGISTER_GLOBAL("relax.analysis.erase_to_well_defined")
    .set_body_typed([](StructInfo s, std::optional<Map<tir::Var, PrimExpr>> shape_var_map) {
      Map<tir::Var, PrimExpr> vmap = shape_var_map.value_or(Map<tir::Var, PrimExpr>());
      StructInfo kept = EraseToWellDefined(s, [&](const tir::Var& v) { return vmap.count(v) > 0; });
      return SubstituteStructInfo(kept, [&](const tir::Var& v) -> std::optional<PrimExpr> { return vmap.Get(v); });
    });

}  // namespace relax
}  // namespace tessera
