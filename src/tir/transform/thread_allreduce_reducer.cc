// MatchReductionUpdate (see thread_allreduce_reducer.h).
#include "tir/transform/thread_allreduce_reducer.h"

#include <cmath>
#include <limits>

#include "ir/structural_equal.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {

namespace {

// kNanMax / kNanMin: max / min where a NaN operand wins (topi argmax / argmin's value stage).
enum class Kind { kAdd, kMul, kMax, kMin, kNanMax, kNanMin };

PrimExpr Apply(Kind kind, const PrimExpr& a, const PrimExpr& b) {
  switch (kind) {
    case Kind::kAdd: return add(a, b);
    case Kind::kMul: return mul(a, b);
    case Kind::kMax: return max(a, b);
    case Kind::kMin: return min(a, b);
    case Kind::kNanMax:
    case Kind::kNanMin: {
      PrimExpr m = kind == Kind::kNanMax ? max(a, b) : min(a, b);
      return Select(UnaryMath("isnan", a), a, Select(UnaryMath("isnan", b), b, m));
    }
  }
  return a;
}

// The identity: 0, 1, -inf / the lowest value, +inf / the highest value.
PrimExpr Identity(Kind kind, DataType t) {
  switch (kind) {
    case Kind::kAdd: return cast(t, IntImm(DataType::Int(32), 0));
    case Kind::kMul: return cast(t, IntImm(DataType::Int(32), 1));
    case Kind::kMax:
    case Kind::kNanMax:
      return t.is_float() ? PrimExpr(FloatImm(t, -std::numeric_limits<double>::infinity())) : min_value(t);
    case Kind::kMin:
    case Kind::kNanMin:
      return t.is_float() ? PrimExpr(FloatImm(t, std::numeric_limits<double>::infinity())) : max_value(t);
  }
  return PrimExpr();
}

}  // namespace

PrimExpr ReductionUpdate::Combine(const PrimExpr& a, const PrimExpr& b) const {
  return ApplyReducer(reducer, {a}, {b}, 0);
}

bool ReductionUpdate::InitIsIdentity() const { return StructuralEqual(init, identity); }

PrimExpr ApplyReducer(const CommReducer& reducer, const Array<PrimExpr>& a, const Array<PrimExpr>& b, size_t i) {
  Map<Var, PrimExpr> vmap;
  for (size_t j = 0; j < reducer->lhs.size(); ++j) {
    vmap.Set(reducer->lhs[j], a[j]);
    vmap.Set(reducer->rhs[j], b[j]);
  }
  return Substitute(reducer->result[i], vmap);
}

std::optional<ReductionUpdate> MatchReductionUpdate(const Stmt& init, const Stmt& body) {
  const auto* init_store = init.as<BufferStoreNode>();
  const auto* store = body.as<BufferStoreNode>();
  if (init_store == nullptr || store == nullptr || !init_store->buffer.same_as(store->buffer)) return std::nullopt;
  if (!StructuralEqual(init_store->indices, store->indices)) return std::nullopt;
  auto is_self = [&](const PrimExpr& e) {
    const auto* load = e.as<BufferLoadNode>();
    return load && load->buffer.same_as(store->buffer) && StructuralEqual(load->indices, store->indices);
  };
  Kind kind;
  PrimExpr value;
  const auto* bin = store->value.as<BinaryOpNode>();
  const auto* sel = store->value.as<SelectNode>();
  const auto* inner = sel ? sel->false_value.as<SelectNode>() : nullptr;
  if (inner != nullptr && store->buffer->dtype.is_float()) {
    PrimExpr self = BufferLoad(store->buffer, store->indices);
    value = inner->true_value;
    if (StructuralEqual(Apply(Kind::kNanMax, self, value), store->value)) {
      kind = Kind::kNanMax;
    } else if (StructuralEqual(Apply(Kind::kNanMin, self, value), store->value)) {
      kind = Kind::kNanMin;
    } else {
      return std::nullopt;
    }
  } else if (bin == nullptr) {
    return std::nullopt;
  } else if (store->value.as<AddNode>()) {
    kind = Kind::kAdd;
  } else if (store->value.as<MulNode>()) {
    kind = Kind::kMul;
  } else if (store->value.as<MaxNode>()) {
    kind = Kind::kMax;
  } else if (store->value.as<MinNode>()) {
    kind = Kind::kMin;
  } else {
    return std::nullopt;
  }
  if (bin == nullptr) {
    // matched above
  } else if (is_self(bin->a)) {
    value = bin->b;
  } else if (is_self(bin->b)) {
    value = bin->a;
  } else {
    return std::nullopt;
  }
  bool self_in_value = false;
  PostOrderVisit(value, [&](const ObjectRef& n) {
    if (const auto* load = n.as<BufferLoadNode>(); load && load->buffer.same_as(store->buffer)) self_in_value = true;
  });
  if (self_in_value) return std::nullopt;
  DataType t = store->buffer->dtype;
  if (value.dtype() != t) return std::nullopt;
  Var x("x", t), y("y", t);
  ReductionUpdate u;
  u.buffer = store->buffer;
  u.indices = store->indices;
  u.value = value;
  u.init = init_store->value;
  u.identity = Identity(kind, t);
  u.reducer = CommReducer({x}, {y}, {Apply(kind, x, y)}, {u.identity});
  return u;
}

}  // namespace tir
}  // namespace tessera
