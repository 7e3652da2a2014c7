// The symbolic variables of a struct info, as TVM's relax.analysis exposes
// them: tir_vars_in_struct_info (every tir.Var used), definable_tir_vars_in_struct_info
// (those a match could define: a dimension or a PrimStructInfo value that is a
// bare var), and erase_to_well_defined(sinfo, shape_var_map) (keeps what is
// defined by the map's vars, then substitutes them). Relax analysis layer.
#include <unordered_set>

#include "arith/analyzer.h"
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

// `s` with each dimension and value simplified (after a substitution: n + 1 with n = 2 is 3).
StructInfo Simplify(const StructInfo& s, arith::Analyzer* an) {
  auto simp = [&](const Array<PrimExpr>& v) {
    Array<PrimExpr> out;
    for (const PrimExpr& e : v) out.push_back(an->Simplify(e));
    return out;
  };
  if (!s.defined()) return s;
  if (const auto* p = s.as<PrimStructInfoNode>()) {
    return p->value.defined() ? StructInfo(PrimStructInfo::FromValue(an->Simplify(p->value), p->span)) : s;
  }
  if (const auto* sh = s.as<ShapeStructInfoNode>()) {
    return sh->values ? StructInfo(ShapeStructInfo(simp(*sh->values), sh->span)) : s;
  }
  if (const auto* t = s.as<TensorStructInfoNode>()) {
    const auto* se = t->shape ? t->shape->as<ShapeExprNode>() : nullptr;
    return se ? StructInfo(TensorStructInfo(ShapeExpr(simp(se->values)), t->dtype, t->span)) : s;
  }
  if (const auto* tu = s.as<TupleStructInfoNode>()) {
    Array<StructInfo> fields;
    for (const StructInfo& f : tu->fields) fields.push_back(Simplify(f, an));
    return TupleStructInfo(fields, tu->span);
  }
  if (const auto* f = s.as<FuncStructInfoNode>()) {
    if (!f->params) return FuncStructInfo::OpaqueFunc(Simplify(f->ret, an), f->purity, f->span);
    Array<StructInfo> params;
    for (const StructInfo& p : *f->params) params.push_back(Simplify(p, an));
    return FuncStructInfo(params, Simplify(f->ret, an), f->purity, f->span);
  }
  return s;
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
      if (vmap.empty()) return kept;
      arith::Analyzer analyzer;
      return Simplify(
          SubstituteStructInfo(kept, [&](const tir::Var& v) -> std::optional<PrimExpr> { return vmap.Get(v); }),
          &analyzer);
    });

}  // namespace relax
}  // namespace tessera
