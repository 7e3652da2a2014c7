// Linear-form decomposition (see linear_form.h).
#include "arith/linear_form.h"

#include <cstdint>

#include "arith/expr_deep_equal.h"
#include "tir/op.h"

namespace tessera {
namespace arith {

bool LinearForm::AddTerm(const PrimExpr& atom, int64_t coeff) {
  if (coeff == 0) return true;
  for (auto it = terms.begin(); it != terms.end(); ++it) {
    if (it->first.same_as(atom) || ExprDeepEqual(it->first, atom)) {
      if (__builtin_add_overflow(it->second, coeff, &it->second)) return false;
      if (it->second == 0) terms.erase(it);
      return true;
    }
  }
  terms.emplace_back(atom, coeff);
  return true;
}

bool LinearForm::AddScaled(const LinearForm& other, int64_t scale) {
  int64_t c;
  if (__builtin_mul_overflow(other.constant, scale, &c) || __builtin_add_overflow(constant, c, &constant)) return false;
  for (const auto& [atom, coeff] : other.terms) {
    int64_t k;
    if (__builtin_mul_overflow(coeff, scale, &k) || !AddTerm(atom, k)) return false;
  }
  return true;
}

PrimExpr LinearForm::ToExpr(DataType t) const {
  DataType et = t.element_of();
  PrimExpr out;
  for (const auto& [atom, coeff] : terms) {
    if (!out.defined()) {
      out = coeff == 1 ? atom : tir::mul(atom, IntImm(et, coeff));
    } else if (coeff == 1) {
      out = tir::add(out, atom);
    } else if (coeff == -1) {
      out = tir::sub(out, atom);
    } else {
      out = tir::add(out, tir::mul(atom, IntImm(et, coeff)));
    }
  }
  if (!out.defined()) return IntImm(et, constant);
  if (constant > 0) return tir::add(out, IntImm(et, constant));
  if (constant < 0 && constant != INT64_MIN) return tir::sub(out, IntImm(et, -constant));
  if (constant < 0) return tir::add(out, IntImm(et, constant));
  return out;
}

namespace {

bool Decompose(const PrimExpr& e, int64_t scale, LinearForm* f, int depth) {
  if (const int64_t* v = AsConstInt(e)) {
    int64_t p;
    return !__builtin_mul_overflow(*v, scale, &p) && !__builtin_add_overflow(f->constant, p, &f->constant);
  }
  if (depth < 256) {
    if (const auto* n = e.as<tir::AddNode>()) {
      return Decompose(n->a, scale, f, depth + 1) && Decompose(n->b, scale, f, depth + 1);
    }
    if (const auto* n = e.as<tir::SubNode>()) {
      if (scale == INT64_MIN) return false;
      return Decompose(n->a, scale, f, depth + 1) && Decompose(n->b, -scale, f, depth + 1);
    }
    if (const auto* n = e.as<tir::MulNode>()) {
      const int64_t* c = AsConstInt(n->b);
      const PrimExpr* other = &n->a;
      if (c == nullptr) {
        c = AsConstInt(n->a);
        other = &n->b;
      }
      if (c != nullptr) {
        int64_t s;
        return !__builtin_mul_overflow(scale, *c, &s) && Decompose(*other, s, f, depth + 1);
      }
    }
  }
  return f->AddTerm(e, scale);
}

bool IsIntegerScalar(const PrimExpr& e) {
  return e.defined() && e.dtype().is_scalar() && (e.dtype().is_int() || e.dtype().is_uint());
}

}  // namespace

std::optional<LinearForm> ToLinearForm(const PrimExpr& e) {
  if (!IsIntegerScalar(e)) return std::nullopt;
  LinearForm f;
  if (!Decompose(e, 1, &f, 0)) return std::nullopt;
  return f;
}

std::optional<LinearForm> LinearDifference(const PrimExpr& a, const PrimExpr& b) {
  if (!IsIntegerScalar(a) || !IsIntegerScalar(b)) return std::nullopt;
  LinearForm f;
  if (!Decompose(a, 1, &f, 0) || !Decompose(b, -1, &f, 0)) return std::nullopt;
  return f;
}

std::optional<int64_t> ConstantDifference(const PrimExpr& a, const PrimExpr& b) {
  std::optional<LinearForm> d = LinearDifference(a, b);
  if (!d || !d->IsConstant()) return std::nullopt;
  return d->constant;
}

}  // namespace arith
}  // namespace tessera
