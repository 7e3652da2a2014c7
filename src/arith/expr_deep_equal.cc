// Structural equality, hashing and ordering of TIR expressions (see
// expr_deep_equal.h). Variables, buffers and callees compare by identity.
#include "arith/expr_deep_equal.h"

#include <functional>

#include "tir/buffer.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace arith {
namespace {

using namespace tir;

size_t HashCombine(size_t seed, size_t v) { return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)); }

int CmpInt(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

int CmpDType(DataType a, DataType b) {
  if (int c = CmpInt(a.code(), b.code())) return c;
  if (int c = CmpInt(a.bits(), b.bits())) return c;
  return CmpInt(a.lanes(), b.lanes());
}

// Orders objects compared by identity: variables by name first so that the
// order is reproducible, then by address.
int CmpIdentity(const Object* a, const Object* b) {
  if (a == b) return 0;
  const auto* va = dynamic_cast<const VarNode*>(a);
  const auto* vb = dynamic_cast<const VarNode*>(b);
  if (va && vb && va->name_hint != vb->name_hint) return va->name_hint < vb->name_hint ? -1 : 1;
  return std::less<const Object*>()(a, b) ? -1 : 1;
}

int Compare(const PrimExpr& a, const PrimExpr& b);

int CompareArrays(const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
  if (int c = CmpInt(a.size(), b.size())) return c;
  for (size_t i = 0; i < a.size(); ++i)
    if (int c = Compare(a[i], b[i])) return c;
  return 0;
}

int Compare(const PrimExpr& a, const PrimExpr& b) {
  CheckStack("expression");
  if (a.same_as(b)) return 0;
  if (!a.defined() || !b.defined()) return a.defined() ? 1 : -1;
  // Order by kind first (constants before variables before compound nodes).
  if (int c = CmpInt(a->type_index(), b->type_index())) return c;
  if (int c = CmpDType(a.dtype(), b.dtype())) return c;
  if (const auto* x = a.as<IntImmNode>()) return CmpInt(x->value, b.as<IntImmNode>()->value);
  if (const auto* x = a.as<FloatImmNode>()) {
    double y = b.as<FloatImmNode>()->value;
    return x->value < y ? -1 : (x->value > y ? 1 : 0);
  }
  if (const auto* x = a.as<StringImmNode>()) return x->value.compare(b.as<StringImmNode>()->value);
  if (a.as<VarNode>()) return CmpIdentity(a.get(), b.get());
  if (const auto* x = a.as<BinaryOpNode>()) {
    const auto* y = b.as<BinaryOpNode>();
    if (int c = Compare(x->a, y->a)) return c;
    return Compare(x->b, y->b);
  }
  if (const auto* x = a.as<CastNode>()) return Compare(x->value, b.as<CastNode>()->value);
  if (const auto* x = a.as<NotNode>()) return Compare(x->a, b.as<NotNode>()->a);
  if (const auto* x = a.as<SelectNode>()) {
    const auto* y = b.as<SelectNode>();
    if (int c = Compare(x->condition, y->condition)) return c;
    if (int c = Compare(x->true_value, y->true_value)) return c;
    return Compare(x->false_value, y->false_value);
  }
  if (const auto* x = a.as<LetNode>()) {
    const auto* y = b.as<LetNode>();
    if (int c = CmpIdentity(x->var.get(), y->var.get())) return c;
    if (int c = Compare(x->value, y->value)) return c;
    return Compare(x->body, y->body);
  }
  if (const auto* x = a.as<RampNode>()) {
    const auto* y = b.as<RampNode>();
    if (int c = Compare(x->base, y->base)) return c;
    if (int c = Compare(x->stride, y->stride)) return c;
    return CmpInt(x->lanes, y->lanes);
  }
  if (const auto* x = a.as<BroadcastNode>()) {
    const auto* y = b.as<BroadcastNode>();
    if (int c = Compare(x->value, y->value)) return c;
    return CmpInt(x->lanes, y->lanes);
  }
  if (const auto* x = a.as<CallNode>()) {
    const auto* y = b.as<CallNode>();
    if (int c = CmpIdentity(x->op.get(), y->op.get())) return c;
    return CompareArrays(x->args, y->args);
  }
  if (const auto* x = a.as<BufferLoadNode>()) {
    const auto* y = b.as<BufferLoadNode>();
    if (int c = CmpIdentity(x->buffer.get(), y->buffer.get())) return c;
    return CompareArrays(x->indices, y->indices);
  }
  return CmpIdentity(a.get(), b.get());
}

size_t Hash(const PrimExpr& e) {
  CheckStack("expression");
  if (!e.defined()) return 0;
  size_t h = std::hash<uint32_t>()(e->type_index());
  h = HashCombine(h, std::hash<int64_t>()(e.dtype().code() * 1000003 + e.dtype().bits() * 131 + e.dtype().lanes()));
  if (const auto* x = e.as<IntImmNode>()) return HashCombine(h, std::hash<int64_t>()(x->value));
  if (const auto* x = e.as<FloatImmNode>()) return HashCombine(h, std::hash<double>()(x->value));
  if (const auto* x = e.as<StringImmNode>()) return HashCombine(h, std::hash<std::string>()(x->value));
  if (e.as<VarNode>()) return HashCombine(h, std::hash<const void*>()(e.get()));
  if (const auto* x = e.as<BinaryOpNode>()) return HashCombine(HashCombine(h, Hash(x->a)), Hash(x->b));
  if (const auto* x = e.as<CastNode>()) return HashCombine(h, Hash(x->value));
  if (const auto* x = e.as<NotNode>()) return HashCombine(h, Hash(x->a));
  if (const auto* x = e.as<SelectNode>())
    return HashCombine(HashCombine(HashCombine(h, Hash(x->condition)), Hash(x->true_value)), Hash(x->false_value));
  if (const auto* x = e.as<LetNode>())
    return HashCombine(HashCombine(HashCombine(h, std::hash<const void*>()(x->var.get())), Hash(x->value)),
                       Hash(x->body));
  if (const auto* x = e.as<RampNode>())
    return HashCombine(HashCombine(HashCombine(h, Hash(x->base)), Hash(x->stride)), x->lanes);
  if (const auto* x = e.as<BroadcastNode>()) return HashCombine(HashCombine(h, Hash(x->value)), x->lanes);
  if (const auto* x = e.as<CallNode>()) {
    h = HashCombine(h, std::hash<const void*>()(x->op.get()));
    for (const PrimExpr& arg : x->args) h = HashCombine(h, Hash(arg));
    return h;
  }
  if (const auto* x = e.as<BufferLoadNode>()) {
    h = HashCombine(h, std::hash<const void*>()(x->buffer.get()));
    for (const PrimExpr& idx : x->indices) h = HashCombine(h, Hash(idx));
    return h;
  }
  return HashCombine(h, std::hash<const void*>()(e.get()));
}

}  // namespace

bool ExprDeepEqual(const PrimExpr& a, const PrimExpr& b) { return Compare(a, b) == 0; }
size_t ExprDeepHash(const PrimExpr& e) { return Hash(e); }
int ExprCompare(const PrimExpr& a, const PrimExpr& b) { return Compare(a, b); }

}  // namespace arith
}  // namespace tessera
