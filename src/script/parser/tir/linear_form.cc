// Linear-form comparison of slice bounds (see linear_form.h). Part of the TIR
// dialect of the script parser (parser/tir).
#include "script/parser/tir/linear_form.h"

#include <utility>
#include <vector>

#include "tir/buffer.h"
#include "tir/op.h"

namespace tessera {
namespace script {

using namespace tir;

bool ExprDeepEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a->type_index() != b->type_index() || a.dtype() != b.dtype()) return false;
  if (a.as<VarNode>()) return false;  // variables are equal only by identity
  if (const auto* x = a.as<IntImmNode>()) return x->value == b.as<IntImmNode>()->value;
  if (const auto* x = a.as<FloatImmNode>()) return x->value == b.as<FloatImmNode>()->value;
  if (const auto* x = a.as<StringImmNode>()) return x->value == b.as<StringImmNode>()->value;
  if (const auto* x = a.as<BinaryOpNode>()) {
    const auto* y = b.as<BinaryOpNode>();
    return ExprDeepEqual(x->a, y->a) && ExprDeepEqual(x->b, y->b);
  }
  if (const auto* x = a.as<CastNode>()) return ExprDeepEqual(x->value, b.as<CastNode>()->value);
  if (const auto* x = a.as<NotNode>()) return ExprDeepEqual(x->a, b.as<NotNode>()->a);
  if (const auto* x = a.as<SelectNode>()) {
    const auto* y = b.as<SelectNode>();
    return ExprDeepEqual(x->condition, y->condition) && ExprDeepEqual(x->true_value, y->true_value) &&
           ExprDeepEqual(x->false_value, y->false_value);
  }
  auto args_equal = [](const Array<PrimExpr>& p, const Array<PrimExpr>& q) {
    if (p.size() != q.size()) return false;
    for (size_t i = 0; i < p.size(); ++i)
      if (!ExprDeepEqual(p[i], q[i])) return false;
    return true;
  };
  if (const auto* x = a.as<CallNode>()) {
    const auto* y = b.as<CallNode>();
    return x->op.same_as(y->op) && args_equal(x->args, y->args);
  }
  if (const auto* x = a.as<BufferLoadNode>()) {
    const auto* y = b.as<BufferLoadNode>();
    return x->buffer.same_as(y->buffer) && args_equal(x->indices, y->indices);
  }
  if (const auto* x = a.as<RampNode>()) {
    const auto* y = b.as<RampNode>();
    return x->lanes == y->lanes && ExprDeepEqual(x->base, y->base) && ExprDeepEqual(x->stride, y->stride);
  }
  if (const auto* x = a.as<BroadcastNode>()) {
    const auto* y = b.as<BroadcastNode>();
    return x->lanes == y->lanes && ExprDeepEqual(x->value, y->value);
  }
  return false;
}

namespace {

struct LinearForm {
  int64_t constant = 0;
  std::vector<std::pair<PrimExpr, int64_t>> terms;
  bool ok = true;

  void AddTerm(const PrimExpr& e, int64_t coeff) {
    for (auto& t : terms) {
      if (ExprDeepEqual(t.first, e)) {
        if (__builtin_add_overflow(t.second, coeff, &t.second)) ok = false;
        return;
      }
    }
    terms.emplace_back(e, coeff);
  }

  void Add(const PrimExpr& e, int64_t scale, int depth) {
    if (!ok) return;
    if (depth > 64) {
      AddTerm(e, scale);
      return;
    }
    if (const int64_t* v = AsConstInt(e)) {
      int64_t p;
      if (__builtin_mul_overflow(*v, scale, &p) || __builtin_add_overflow(constant, p, &constant)) ok = false;
      return;
    }
    if (const auto* n = e.as<AddNode>()) {
      Add(n->a, scale, depth + 1);
      Add(n->b, scale, depth + 1);
      return;
    }
    if (const auto* n = e.as<SubNode>()) {
      if (scale == INT64_MIN) {
        ok = false;
        return;
      }
      Add(n->a, scale, depth + 1);
      Add(n->b, -scale, depth + 1);
      return;
    }
    if (const auto* n = e.as<MulNode>()) {
      const int64_t* c = AsConstInt(n->b);
      const PrimExpr* other = &n->a;
      if (c == nullptr) {
        c = AsConstInt(n->a);
        other = &n->b;
      }
      if (c != nullptr) {
        int64_t s;
        if (__builtin_mul_overflow(scale, *c, &s)) {
          ok = false;
          return;
        }
        Add(*other, s, depth + 1);
        return;
      }
    }
    AddTerm(e, scale);
  }
};

}  // namespace

PrimExpr SimplifiedDifference(const PrimExpr& hi, const PrimExpr& lo) {
  PrimExpr plain = sub(hi, lo);
  if (AsConstInt(plain) != nullptr || !plain.dtype().is_scalar() || !(plain.dtype().is_int() || plain.dtype().is_uint())) {
    return plain;
  }
  LinearForm form;
  form.Add(hi, 1, 0);
  form.Add(lo, -1, 0);
  if (!form.ok) return plain;
  for (const auto& t : form.terms) {
    if (t.second != 0) return plain;
  }
  return IntImm(plain.dtype(), form.constant);
}

}  // namespace script
}  // namespace tessera
