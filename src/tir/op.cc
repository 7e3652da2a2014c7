// Expression builders with type promotion and constant folding, and the
// registration of TIR intrinsic ops (see op.h).
#include "tir/op.h"

#include <cstdint>
#include <cmath>
#include <cstdio>
#include <limits>

#include "arith/expr_string.h"
#include "arith/int_operator.h"
#include "runtime/registry.h"

namespace tessera {
namespace tir {
namespace {

const FloatImmNode* AsFloat(const PrimExpr& e) { return e.as<FloatImmNode>(); }

bool IsZero(const PrimExpr& e) {
  if (const int64_t* v = AsConstInt(e)) return *v == 0;
  if (const auto* f = AsFloat(e)) return f->value == 0.0;
  return false;
}
bool IsOne(const PrimExpr& e) {
  if (const int64_t* v = AsConstInt(e)) return *v == 1;
  if (const auto* f = AsFloat(e)) return f->value == 1.0;
  return false;
}

// Wraps an integer result into the value range of `t` (two's complement),
// as the machine would.
int64_t WrapInt(DataType t, int64_t v) {
  if (t.is_bool()) return v != 0;
  if (t.bits() >= 64) return v;
  uint64_t mask = (uint64_t{1} << t.bits()) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (t.bits() - 1)) & 1) return static_cast<int64_t>(u | ~mask);
  return static_cast<int64_t>(u);
}


// A float constant cast to an integer type: truncated toward zero as C and
// TVM do; a NaN, an infinity or a value outside the type's range has no
// result (the conversion is undefined on the machine), so it is refused.
int64_t FloatToIntConst(DataType t, double f) {
  double x = std::trunc(f);
  int bits = t.bits() >= 64 ? 64 : t.bits();
  double lo = t.is_uint() ? 0.0 : -std::ldexp(1.0, bits - 1);
  double hi = t.is_uint() && bits < 64 ? std::ldexp(1.0, bits) : std::ldexp(1.0, bits - 1);  // exclusive
  if (!std::isfinite(x) || x < lo || x >= hi) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", f);
    TESSERA_THROW(ValueError) << "cannot convert the float constant " << text << " to " << t
                              << (std::isfinite(x) ? ": out of its range" : ": not a finite number");
  }
  return static_cast<int64_t>(x);
}

// A constant zero divisor, or INT64_MIN divided by a constant -1 (whose
// quotient does not fit; folding it would trap), is refused while the
// expression is built, naming it.
void CheckNonZeroDivisor(const PrimExpr& a, const PrimExpr& b, const char* op) {
  if (const int64_t* v = AsConstInt(b)) {
    TESSERA_CHECK_OR_THROW(*v != 0, ValueError) << op << "(" << arith::ExprToString(a) << ", " << *v << "): division by zero";
    const int64_t* x = AsConstInt(a);
    TESSERA_CHECK_OR_THROW(!(x && *v == -1 && *x == std::numeric_limits<int64_t>::min()), ValueError)
        << op << "(" << *x << ", -1): the quotient overflows " << a.dtype();
  }
}

template <typename FInt, typename FFloat>
std::optional<PrimExpr> FoldArith(const PrimExpr& a, const PrimExpr& b, FInt fi, FFloat ff) {
  const int64_t* ia = AsConstInt(a);
  const int64_t* ib = AsConstInt(b);
  if (ia && ib) return PrimExpr(IntImm(a.dtype(), WrapInt(a.dtype(), fi(*ia, *ib))));
  const FloatImmNode* fa = AsFloat(a);
  const FloatImmNode* fb = AsFloat(b);
  if (fa && fb) return PrimExpr(FloatImm(a.dtype(), ff(fa->value, fb->value)));
  return std::nullopt;
}

template <typename F>
std::optional<PrimExpr> FoldCompare(const PrimExpr& a, const PrimExpr& b, F f) {
  if (!a.dtype().is_scalar()) return std::nullopt;
  const int64_t* ia = AsConstInt(a);
  const int64_t* ib = AsConstInt(b);
  if (ia && ib) return PrimExpr(IntImm(DataType::Bool(), f(double(*ia), double(*ib)) ? 1 : 0));
  const FloatImmNode* fa = AsFloat(a);
  const FloatImmNode* fb = AsFloat(b);
  if (fa && fb) return PrimExpr(IntImm(DataType::Bool(), f(fa->value, fb->value) ? 1 : 0));
  return std::nullopt;
}

void CheckDefined(const PrimExpr& a, const char* op) {
  TESSERA_CHECK_OR_THROW(a.defined(), ValueError) << op << ": operand is undefined (None)";
}

}  // namespace

void BinaryOpMatchTypes(PrimExpr& a, PrimExpr& b, const char* op) {
  CheckDefined(a, op);
  CheckDefined(b, op);
  DataType ta = a.dtype(), tb = b.dtype();
  if (ta == tb) return;
  if (ta.lanes() == 1 && tb.lanes() > 1) {
    a = Broadcast(a, tb.lanes());
    ta = a.dtype();
  } else if (tb.lanes() == 1 && ta.lanes() > 1) {
    b = Broadcast(b, ta.lanes());
    tb = b.dtype();
  }
  if (ta.lanes() != tb.lanes()) {
    TESSERA_THROW(TypeError) << op << ": cannot combine vectors of " << ta.lanes() << " and " << tb.lanes() << " lanes";
  }
  if (ta == tb) return;
  auto is_fp = [](DataType t) { return t.is_float() || t.is_bfloat16(); };
  if (!is_fp(ta) && is_fp(tb)) {
    a = cast(tb, a);
  } else if (is_fp(ta) && !is_fp(tb)) {
    b = cast(ta, b);
  } else if (is_fp(ta) && is_fp(tb)) {
    if (ta.bits() < tb.bits()) a = cast(tb, a); else b = cast(ta, b);
  } else if ((ta.is_int() && tb.is_int()) || ((ta.is_uint() || ta.is_bool()) && (tb.is_uint() || tb.is_bool()))) {
    if (ta.bits() < tb.bits()) a = cast(tb, a); else b = cast(ta, b);
  } else if (ta.is_int() || tb.is_int()) {
    DataType t = DataType::Int(std::max(ta.bits(), tb.bits()), ta.lanes());
    a = cast(t, a);
    b = cast(t, b);
  } else {
    TESSERA_THROW(TypeError) << op << ": cannot combine operands of dtypes " << ta << " and " << tb;
  }
}

PrimExpr cast(DataType t, PrimExpr value, Span span) {
  CheckDefined(value, "cast");
  if (value.dtype() == t) return value;
  if (t.lanes() > 1 && value.dtype().lanes() == 1) {
    return Broadcast(cast(t.element_of(), value, span), t.lanes(), span);
  }
  if (t.is_scalar()) {
    if (const int64_t* v = AsConstInt(value)) {
      if (t.is_int() || t.is_uint()) return IntImm(t, WrapInt(t, *v), span);
      if (t.is_bool()) return IntImm(t, *v != 0, span);
      if (t.is_float() || t.is_bfloat16()) return FloatImm(t, static_cast<double>(*v), span);
    }
    if (const auto* f = AsFloat(value)) {
      if (t.is_float() || t.is_bfloat16()) return FloatImm(t, f->value, span);
      if (t.is_int() || t.is_uint()) return IntImm(t, FloatToIntConst(t, f->value), span);
      if (t.is_bool()) return IntImm(t, f->value != 0.0, span);
    }
  }
  return Cast(t, value, span);
}

PrimExpr add(PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, "add");
  if (auto r = FoldArith(a, b, [](int64_t x, int64_t y) { return x + y; }, [](double x, double y) { return x + y; })) return *r;
  if (IsZero(a) && a.dtype().is_scalar()) return b;
  if (IsZero(b) && b.dtype().is_scalar()) return a;
  return Add(a, b, span);
}

PrimExpr sub(PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, "sub");
  if (auto r = FoldArith(a, b, [](int64_t x, int64_t y) { return x - y; }, [](double x, double y) { return x - y; })) return *r;
  if (IsZero(b) && b.dtype().is_scalar()) return a;
  return Sub(a, b, span);
}

PrimExpr mul(PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, "mul");
  if (auto r = FoldArith(a, b, [](int64_t x, int64_t y) { return x * y; }, [](double x, double y) { return x * y; })) return *r;
  if (a.dtype().is_scalar()) {
    if (IsOne(a)) return b;
    if (IsOne(b)) return a;
    if (IsZero(a) && AsConstInt(a)) return a;
    if (IsZero(b) && AsConstInt(b)) return b;
  }
  return Mul(a, b, span);
}

PrimExpr neg(PrimExpr a, Span span) {
  CheckDefined(a, "neg");
  if (const int64_t* v = AsConstInt(a)) return IntImm(a.dtype(), WrapInt(a.dtype(), -*v), span);
  if (const auto* f = AsFloat(a)) return FloatImm(a.dtype(), -f->value, span);
  return sub(MakeConst(a.dtype().element_of(), 0), a, span);
}

PrimExpr abs(PrimExpr a, Span span) {
  CheckDefined(a, "abs");
  DataType t = a.dtype();
  if (t.is_float() || t.is_bfloat16()) return CallIntrin(t, "tir.fabs", {a}, span);
  if (t.is_uint() || t.is_bool()) return a;
  if (const int64_t* v = AsConstInt(a)) return *v < 0 ? neg(a, span) : a;
  return Select(greater_equal(a, MakeConst(t.element_of(), 0)), a, neg(a), span);
}

std::vector<PrimExpr> SplitConjuncts(const PrimExpr& pred) {
  std::vector<PrimExpr> out;
  std::vector<PrimExpr> stack{pred};
  while (!stack.empty()) {
    PrimExpr e = stack.back();
    stack.pop_back();
    if (const auto* a = e.as<AndNode>()) {
      stack.push_back(a->b);  // a is visited first
      stack.push_back(a->a);
    } else {
      out.push_back(e);
    }
  }
  return out;
}

PrimExpr truncdiv(PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, "truncdiv");
  CheckNonZeroDivisor(a, b, "truncdiv");
  if (auto r = FoldArith(a, b, [](int64_t x, int64_t y) { return x / y; }, [](double x, double y) { return x / y; })) return *r;
  if (IsOne(b) && b.dtype().is_scalar()) return a;
  return Div(a, b, span);
}

PrimExpr div(PrimExpr a, PrimExpr b, Span span) { return truncdiv(std::move(a), std::move(b), std::move(span)); }

PrimExpr truncmod(PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, "truncmod");
  CheckNonZeroDivisor(a, b, "truncmod");
  if (auto r = FoldArith(a, b, [](int64_t x, int64_t y) { return x % y; }, [](double x, double y) { return std::fmod(x, y); })) return *r;
  if (IsOne(b) && AsConstInt(b)) return IntImm(a.dtype(), 0, span);
  return Mod(a, b, span);
}

PrimExpr floordiv(PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, "floordiv");
  CheckNonZeroDivisor(a, b, "floordiv");
  if (auto r = FoldArith(a, b, arith::FloorDivInt, [](double x, double y) { return std::floor(x / y); })) return *r;
  if (IsOne(b) && b.dtype().is_scalar()) return a;
  return FloorDiv(a, b, span);
}

PrimExpr floormod(PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, "floormod");
  CheckNonZeroDivisor(a, b, "floormod");
  if (auto r = FoldArith(a, b, arith::FloorModInt, [](double x, double y) { return x - std::floor(x / y) * y; })) return *r;
  if (IsOne(b) && AsConstInt(b)) return IntImm(a.dtype(), 0, span);
  return FloorMod(a, b, span);
}

PrimExpr min(PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, "min");
  if (auto r = FoldArith(a, b, [](int64_t x, int64_t y) { return std::min(x, y); }, [](double x, double y) { return std::min(x, y); })) return *r;
  return Min(a, b, span);
}

PrimExpr max(PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, "max");
  if (auto r = FoldArith(a, b, [](int64_t x, int64_t y) { return std::max(x, y); }, [](double x, double y) { return std::max(x, y); })) return *r;
  return Max(a, b, span);
}

#define TESSERA_TIR_COMPARE(fname, Node, expr)                                      \
  PrimExpr fname(PrimExpr a, PrimExpr b, Span span) {                               \
    BinaryOpMatchTypes(a, b, #fname);                                               \
    if (auto r = FoldCompare(a, b, [](double x, double y) { return expr; })) return *r; \
    return Node(a, b, span);                                                        \
  }
TESSERA_TIR_COMPARE(equal, EQ, x == y)
TESSERA_TIR_COMPARE(not_equal, NE, x != y)
TESSERA_TIR_COMPARE(less, LT, x < y)
TESSERA_TIR_COMPARE(less_equal, LE, x <= y)
TESSERA_TIR_COMPARE(greater, GT, x > y)
TESSERA_TIR_COMPARE(greater_equal, GE, x >= y)
#undef TESSERA_TIR_COMPARE

namespace {
PrimExpr AsBool(PrimExpr e, const char* op) {
  CheckDefined(e, op);
  if (e.dtype().is_bool()) return e;
  if (const int64_t* v = AsConstInt(e)) return IntImm(DataType::Bool(e.dtype().lanes()), *v != 0);
  TESSERA_THROW(TypeError) << op << " needs bool operands, got " << e.dtype();
}
}  // namespace

PrimExpr logical_and(PrimExpr a, PrimExpr b, Span span) {
  a = AsBool(a, "logical_and");
  b = AsBool(b, "logical_and");
  if (const int64_t* v = AsConstInt(a)) return *v ? b : a;
  if (const int64_t* v = AsConstInt(b)) return *v ? a : b;
  return And(a, b, span);
}

PrimExpr logical_or(PrimExpr a, PrimExpr b, Span span) {
  a = AsBool(a, "logical_or");
  b = AsBool(b, "logical_or");
  if (const int64_t* v = AsConstInt(a)) return *v ? a : b;
  if (const int64_t* v = AsConstInt(b)) return *v ? b : a;
  return Or(a, b, span);
}

PrimExpr logical_not(PrimExpr a, Span span) {
  a = AsBool(a, "logical_not");
  if (const int64_t* v = AsConstInt(a)) return IntImm(DataType::Bool(), *v ? 0 : 1, span);
  return Not(a, span);
}

PrimExpr CallIntrin(DataType dtype, const std::string& op_name, Array<PrimExpr> args, Span span) {
  Op op = Op::Get(op_name);
  if (op->num_inputs >= 0) {
    TESSERA_CHECK_OR_THROW(static_cast<int>(args.size()) == op->num_inputs, TypeError)
        << op_name << " expects " << op->num_inputs << " arguments but got " << args.size();
  }
  return Call(dtype, op, args, span);
}

namespace {
PrimExpr IntegerBitOp(const char* name, PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, name);
  TESSERA_CHECK_OR_THROW(a.dtype().is_int() || a.dtype().is_uint() || a.dtype().is_bool(), TypeError)
      << name << " needs integer operands, got " << a.dtype();
  return CallIntrin(a.dtype(), std::string("tir.") + name, {a, b}, span);
}
}  // namespace

PrimExpr bitwise_and(PrimExpr a, PrimExpr b, Span span) { return IntegerBitOp("bitwise_and", a, b, span); }
PrimExpr bitwise_or(PrimExpr a, PrimExpr b, Span span) { return IntegerBitOp("bitwise_or", a, b, span); }
PrimExpr bitwise_xor(PrimExpr a, PrimExpr b, Span span) { return IntegerBitOp("bitwise_xor", a, b, span); }
PrimExpr left_shift(PrimExpr a, PrimExpr b, Span span) { return IntegerBitOp("shift_left", a, b, span); }
PrimExpr right_shift(PrimExpr a, PrimExpr b, Span span) { return IntegerBitOp("shift_right", a, b, span); }
PrimExpr bitwise_not(PrimExpr a, Span span) {
  CheckDefined(a, "bitwise_not");
  TESSERA_CHECK_OR_THROW(a.dtype().is_int() || a.dtype().is_uint(), TypeError)
      << "bitwise_not needs an integer operand, got " << a.dtype();
  return CallIntrin(a.dtype(), "tir.bitwise_not", {a}, span);
}

PrimExpr pow(PrimExpr a, PrimExpr b, Span span) {
  BinaryOpMatchTypes(a, b, "pow");
  if (!a.dtype().is_float()) {
    a = cast(DataType::Float(32, a.dtype().lanes()), a);
    b = cast(DataType::Float(32, b.dtype().lanes()), b);
  }
  return CallIntrin(a.dtype(), "tir.pow", {a, b}, span);
}

PrimExpr if_then_else(PrimExpr cond, PrimExpr t, PrimExpr f, Span span) {
  cond = AsBool(cond, "if_then_else");
  BinaryOpMatchTypes(t, f, "if_then_else");
  if (const int64_t* v = AsConstInt(cond)) return *v ? t : f;
  return CallIntrin(t.dtype(), "tir.if_then_else", {cond, t, f}, span);
}

PrimExpr UnaryMath(const std::string& name, PrimExpr x, Span span) {
  CheckDefined(x, name.c_str());
  if (!x.dtype().is_float() && !x.dtype().is_bfloat16()) x = cast(DataType::Float(32, x.dtype().lanes()), x);
  // The predicates answer with a bool per lane, as TVM's (and the parser's T.isnan).
  bool predicate = name == "isnan" || name == "isinf" || name == "isfinite";
  return CallIntrin(predicate ? DataType::Bool(x.dtype().lanes()) : x.dtype(), "tir." + name, {x}, span);
}

PrimExpr max_value(DataType t) {
  if (t.is_int()) return IntImm(t, t.bits() == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (t.bits() - 1)) - 1);
  if (t.is_bool()) return IntImm(t, 1);
  if (t.is_uint()) return IntImm(t, t.bits() >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << t.bits()) - 1);
  if (t.is_float()) {
    if (t.bits() == 16) return FloatImm(t, 65504.0);
    if (t.bits() == 32) return FloatImm(t, std::numeric_limits<float>::max());
    return FloatImm(t, std::numeric_limits<double>::max());
  }
  if (t.is_bfloat16()) return FloatImm(t, 3.38953139e38);
  TESSERA_THROW(TypeError) << "max_value: no maximum for dtype " << t;
}

PrimExpr min_value(DataType t) {
  if (t.is_int()) return IntImm(t, t.bits() == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits() - 1)));
  if (t.is_uint() || t.is_bool()) return IntImm(t, 0);
  if (t.is_float()) {
    if (t.bits() == 16) return FloatImm(t, -65504.0);
    if (t.bits() == 32) return FloatImm(t, -std::numeric_limits<float>::max());
    return FloatImm(t, -std::numeric_limits<double>::max());
  }
  if (t.is_bfloat16()) return FloatImm(t, -3.38953139e38);
  TESSERA_THROW(TypeError) << "min_value: no minimum for dtype " << t;
}

// ---- intrinsic ops ------------------------------------------------------------
#define TESSERA_TIR_UNARY_MATH(name) \
  TESSERA_REGISTER_OP("tir." #name).set_num_inputs(1).set_attr("TCallEffectKind", 0).describe("elementwise " #name);
TESSERA_TIR_UNARY_MATH(exp)
TESSERA_TIR_UNARY_MATH(exp2)
TESSERA_TIR_UNARY_MATH(exp10)
TESSERA_TIR_UNARY_MATH(log)
TESSERA_TIR_UNARY_MATH(log2)
TESSERA_TIR_UNARY_MATH(log10)
TESSERA_TIR_UNARY_MATH(log1p)
TESSERA_TIR_UNARY_MATH(sqrt)
TESSERA_TIR_UNARY_MATH(rsqrt)
TESSERA_TIR_UNARY_MATH(tanh)
TESSERA_TIR_UNARY_MATH(sigmoid)
TESSERA_TIR_UNARY_MATH(fabs)
TESSERA_TIR_UNARY_MATH(erf)
TESSERA_TIR_UNARY_MATH(floor)
TESSERA_TIR_UNARY_MATH(ceil)
TESSERA_TIR_UNARY_MATH(round)
TESSERA_TIR_UNARY_MATH(nearbyint)
TESSERA_TIR_UNARY_MATH(trunc)
TESSERA_TIR_UNARY_MATH(sin)
TESSERA_TIR_UNARY_MATH(cos)
TESSERA_TIR_UNARY_MATH(tan)
TESSERA_TIR_UNARY_MATH(asin)
TESSERA_TIR_UNARY_MATH(acos)
TESSERA_TIR_UNARY_MATH(atan)
TESSERA_TIR_UNARY_MATH(sinh)
TESSERA_TIR_UNARY_MATH(cosh)
TESSERA_TIR_UNARY_MATH(isnan)
TESSERA_TIR_UNARY_MATH(isinf)
TESSERA_TIR_UNARY_MATH(isfinite)
#undef TESSERA_TIR_UNARY_MATH
TESSERA_REGISTER_OP("tir.pow").set_num_inputs(2).describe("a ** b");
TESSERA_REGISTER_OP("tir.fmod").set_num_inputs(2).describe("floating remainder");
TESSERA_REGISTER_OP("tir.atan2").set_num_inputs(2).describe("atan2(a, b)");
TESSERA_REGISTER_OP("tir.if_then_else").set_num_inputs(3).describe("cond ? a : b, evaluating one branch");
TESSERA_REGISTER_OP("tir.likely").set_num_inputs(1).describe("branch hint: cond is likely true");
TESSERA_REGISTER_OP("tir.checked_value").set_num_inputs(3).set_attr("TScriptResultArg", int64_t{1})  // the value's dtype
    .describe("(cond, value, message): value where cond holds, else the kernel raises message (a \"<Kind>: \" prefix "
              "such as \"ValueError: \" picks the error class)");
TESSERA_REGISTER_OP("tir.checked_index").set_num_inputs(4)
    .describe("(index, extent, what, negative_from_end): the index, checked against [0, extent) (negative_from_end: "
              "[-extent, extent), a negative index plus extent); outside, the kernel raises IndexError");
TESSERA_REGISTER_OP("tir.bitwise_and").set_num_inputs(2);
TESSERA_REGISTER_OP("tir.bitwise_or").set_num_inputs(2);
TESSERA_REGISTER_OP("tir.bitwise_xor").set_num_inputs(2);
TESSERA_REGISTER_OP("tir.bitwise_not").set_num_inputs(1);
TESSERA_REGISTER_OP("tir.shift_left").set_num_inputs(2);
TESSERA_REGISTER_OP("tir.shift_right").set_num_inputs(2);
TESSERA_REGISTER_OP("tir.popcount").set_num_inputs(1);
TESSERA_REGISTER_OP("tir.reinterpret").set_num_inputs(1).describe("bit-cast to the call's dtype");
TESSERA_REGISTER_OP("tir.call_extern").set_num_inputs(-1).describe("call an external C function: (name, args...)");
TESSERA_REGISTER_OP("tir.call_pure_extern").set_num_inputs(-1).describe("call a pure external C function");
TESSERA_REGISTER_OP("tir.call_packed").set_num_inputs(-1).describe("call a global PackedFunc: (name, args...)");
TESSERA_REGISTER_OP("tir.ret").set_num_inputs(1);
TESSERA_REGISTER_OP("tir.tvm_thread_allreduce").set_num_inputs(-1);
TESSERA_REGISTER_OP("tir.tvm_storage_sync").set_num_inputs(1);
TESSERA_REGISTER_OP("tir.address_of").set_num_inputs(1);
TESSERA_REGISTER_OP("tir.tvm_access_ptr").set_num_inputs(5).describe("(type_annotation, data, offset, extent, rw_mask)");
TESSERA_REGISTER_OP("tir.type_annotation").set_num_inputs(0).describe("carries a dtype as an expression");

// ---- FFI: the operators Python's expression overloading calls ---------------
TESSERA_REGISTER_GLOBAL("tir._OpAdd").set_body_typed([](PrimExpr a, PrimExpr b) { return add(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpSub").set_body_typed([](PrimExpr a, PrimExpr b) { return sub(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpMul").set_body_typed([](PrimExpr a, PrimExpr b) { return mul(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpDiv").set_body_typed([](PrimExpr a, PrimExpr b) { return div(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpTruncDiv").set_body_typed([](PrimExpr a, PrimExpr b) { return truncdiv(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpTruncMod").set_body_typed([](PrimExpr a, PrimExpr b) { return truncmod(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpFloorDiv").set_body_typed([](PrimExpr a, PrimExpr b) { return floordiv(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpFloorMod").set_body_typed([](PrimExpr a, PrimExpr b) { return floormod(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpMin").set_body_typed([](PrimExpr a, PrimExpr b) { return min(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpMax").set_body_typed([](PrimExpr a, PrimExpr b) { return max(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpEQ").set_body_typed([](PrimExpr a, PrimExpr b) { return equal(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpNE").set_body_typed([](PrimExpr a, PrimExpr b) { return not_equal(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpLT").set_body_typed([](PrimExpr a, PrimExpr b) { return less(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpLE").set_body_typed([](PrimExpr a, PrimExpr b) { return less_equal(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpGT").set_body_typed([](PrimExpr a, PrimExpr b) { return greater(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpGE").set_body_typed([](PrimExpr a, PrimExpr b) { return greater_equal(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpAnd").set_body_typed([](PrimExpr a, PrimExpr b) { return logical_and(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpOr").set_body_typed([](PrimExpr a, PrimExpr b) { return logical_or(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpNot").set_body_typed([](PrimExpr a) { return logical_not(a); });
TESSERA_REGISTER_GLOBAL("tir._OpNeg").set_body_typed([](PrimExpr a) { return neg(a); });
TESSERA_REGISTER_GLOBAL("tir._OpAbs").set_body_typed([](PrimExpr a) { return abs(a); });
TESSERA_REGISTER_GLOBAL("tir._OpBitwiseAnd").set_body_typed([](PrimExpr a, PrimExpr b) { return bitwise_and(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpBitwiseOr").set_body_typed([](PrimExpr a, PrimExpr b) { return bitwise_or(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpBitwiseXor").set_body_typed([](PrimExpr a, PrimExpr b) { return bitwise_xor(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpBitwiseNot").set_body_typed([](PrimExpr a) { return bitwise_not(a); });
TESSERA_REGISTER_GLOBAL("tir._OpShiftLeft").set_body_typed([](PrimExpr a, PrimExpr b) { return left_shift(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpShiftRight").set_body_typed([](PrimExpr a, PrimExpr b) { return right_shift(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpPow").set_body_typed([](PrimExpr a, PrimExpr b) { return pow(a, b); });
TESSERA_REGISTER_GLOBAL("tir._OpIfThenElse").set_body_typed([](PrimExpr c, PrimExpr t, PrimExpr f) { return if_then_else(c, t, f); });
TESSERA_REGISTER_GLOBAL("tir._cast").set_body_typed([](DataType t, PrimExpr v) { return cast(t, v); });
TESSERA_REGISTER_GLOBAL("tir._UnaryMath").set_body_typed([](std::string name, PrimExpr x) { return UnaryMath(name, x); });
TESSERA_REGISTER_GLOBAL("tir._CallIntrin").set_body_typed([](DataType t, std::string name, Array<PrimExpr> args) {
  return CallIntrin(t, name, args);
});
TESSERA_REGISTER_GLOBAL("tir.max_value").set_body_typed([](DataType t) { return max_value(t); });
TESSERA_REGISTER_GLOBAL("tir.min_value").set_body_typed([](DataType t) { return min_value(t); });
TESSERA_REGISTER_GLOBAL("tir._const").set_body_typed([](Any value, DataType t) -> PrimExpr {
  if (value.kind() == Any::Kind::kFloat) return MakeConst(t, value.cast<double>());
  int64_t v = value.cast<int64_t>();
  if (t.is_float() || t.is_bfloat16()) return FloatImm(t, static_cast<double>(v));
  return IntImm(t, v);
});

}  // namespace tir
}  // namespace tessera
