// TVMScript printer for expressions and values: Python precedence with the
// fewest parentheses, constants as TVM prints them, the raw T.<Node>(...)
// form whenever the infix sugar would not rebuild the node exactly,
// intrinsic calls, vector indices, and non-expression values (iteration
// variables, ranges, regions, buffer declarations).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "script/printer/script_printer.h"
#include "tir/op.h"
#include "tir/stmt.h"

namespace tessera {
namespace {

using namespace tir;  // NOLINT
using script::printer::AsTVMScript;

const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);
const DataType kBool = DataType::Bool();

std::string P(const ObjectRef& n) { return AsTVMScript(n); }

TEST(PrinterExpr, PrecedenceAndAssociativity) {
  Var a("a"), b("b"), c("c"), d("d");
  EXPECT_EQ(P(Mul(Add(a, b), c)), "(a + b) * c");
  EXPECT_EQ(P(Add(Mul(a, b), c)), "a * b + c");
  EXPECT_EQ(P(Sub(a, Sub(b, c))), "a - (b - c)");
  EXPECT_EQ(P(Sub(Sub(a, b), c)), "a - b - c");
  EXPECT_EQ(P(Sub(a, Add(b, c))), "a - (b + c)");
  EXPECT_EQ(P(Add(a, Add(b, c))), "a + (b + c)");
  EXPECT_EQ(P(Mul(a, Mul(b, c))), "a * (b * c)");
  EXPECT_EQ(P(FloorDiv(Mul(a, b), c)), "a * b // c");
  EXPECT_EQ(P(FloorDiv(a, Mul(b, c))), "a // (b * c)");
  EXPECT_EQ(P(FloorMod(Add(a, b), c)), "(a + b) % c");
  EXPECT_EQ(P(Add(FloorMod(a, b), FloorDiv(c, d))), "a % b + c // d");
  EXPECT_EQ(P(LT(a, Add(b, c))), "a < b + c");
  EXPECT_EQ(P(EQ(LT(a, b), LT(c, d))), "(a < b) == (c < d)");  // comparisons chain in Python
  PrimExpr p = LT(a, b), q = GE(c, d), r = NE(a, d);
  EXPECT_EQ(P(And(p, q)), "a < b and c >= d");
  EXPECT_EQ(P(And(Or(p, q), r)), "(a < b or c >= d) and a != d");
  EXPECT_EQ(P(Or(p, And(q, r))), "a < b or c >= d and a != d");
  EXPECT_EQ(P(And(p, And(q, r))), "a < b and (c >= d and a != d)");
  EXPECT_EQ(P(Not(And(p, q))), "not (a < b and c >= d)");
  EXPECT_EQ(P(Not(p)), "not a < b");
  EXPECT_EQ(P(Or(Not(p), q)), "not a < b or c >= d");
  EXPECT_EQ(P(Mul(Add(a, b), Sub(c, d))), "(a + b) * (c - d)");
  EXPECT_EQ(P(Mul(a, IntImm(kI32, -1))), "a * -1");
  EXPECT_EQ(P(Sub(a, IntImm(kI32, -1))), "a - -1");
  EXPECT_EQ(P(Max(Add(a, b), c)), "T.max(a + b, c)");
}

TEST(PrinterExpr, Constants) {
  EXPECT_EQ(P(IntImm(kI32, 128)), "128");
  EXPECT_EQ(P(IntImm(kI32, -3)), "-3");
  EXPECT_EQ(P(IntImm(DataType::Int(64), 5)), "T.int64(5)");
  EXPECT_EQ(P(IntImm(DataType::UInt(8), 255)), "T.uint8(255)");
  EXPECT_EQ(P(IntImm(kBool, 1)), "T.bool(True)");
  EXPECT_EQ(P(IntImm(kBool, 0)), "T.bool(False)");
  EXPECT_EQ(P(FloatImm(kF32, 0)), "T.float32(0)");
  EXPECT_EQ(P(FloatImm(kF32, 1.5)), "T.float32(1.5)");
  EXPECT_EQ(P(FloatImm(kF32, -2.25)), "T.float32(-2.25)");
  EXPECT_EQ(P(FloatImm(DataType::Float(64), 0.1)), "T.float64(0.1)");
  EXPECT_EQ(P(FloatImm(DataType::Float(16), 1e-05)), "T.float16(1e-05)");
  EXPECT_EQ(P(FloatImm(kF32, 1e20)), "T.float32(1e+20)");
  EXPECT_EQ(P(FloatImm(kF32, std::numeric_limits<double>::infinity())), "T.float32(\"inf\")");
  EXPECT_EQ(P(FloatImm(kF32, -std::numeric_limits<double>::infinity())), "T.float32(\"-inf\")");
  EXPECT_EQ(P(FloatImm(kF32, std::nan(""))), "T.float32(\"nan\")");
  EXPECT_EQ(P(StringImm("a\"b\n")), "\"a\\\"b\\n\"");
}

TEST(PrinterExpr, RawNodeFormWhenTheSugarWouldRebuildSomethingElse) {
  Var x("x"), y("y"), l("l", DataType::Int(64));
  Var f("f", kF32), g("g", kF32);
  EXPECT_EQ(P(Add(x, y)), "x + y");
  EXPECT_EQ(P(Add(IntImm(kI32, 1), IntImm(kI32, 2))), "T.Add(1, 2)");  // would fold to 3
  EXPECT_EQ(P(Add(x, IntImm(kI32, 0))), "T.Add(x, 0)");                 // would simplify to x
  EXPECT_EQ(P(Mul(x, IntImm(kI32, 1))), "T.Mul(x, 1)");
  EXPECT_EQ(P(Add(Cast(DataType::Int(64), x), l)), "T.Cast(\"int64\", x) + l");
  EXPECT_EQ(P(Div(x, y)), "T.truncdiv(x, y)");
  EXPECT_EQ(P(Div(x, IntImm(kI32, 1))), "T.Div(x, 1)");
  EXPECT_EQ(P(Div(f, g)), "f / g");
  EXPECT_EQ(P(Div(FloatImm(kF32, 1), FloatImm(kF32, 2))), "T.Div(T.float32(1), T.float32(2))");
  EXPECT_EQ(P(Mod(x, y)), "T.truncmod(x, y)");
  EXPECT_EQ(P(FloorDiv(x, y)), "x // y");
  EXPECT_EQ(P(FloorMod(x, y)), "x % y");
  EXPECT_EQ(P(FloorDiv(x, IntImm(kI32, 0))), "T.FloorDiv(x, 0)");  // the builder rejects division by zero
  EXPECT_EQ(P(Min(x, y)), "T.min(x, y)");
  EXPECT_EQ(P(Max(IntImm(kI32, 1), IntImm(kI32, 2))), "T.Max(1, 2)");
  EXPECT_EQ(P(LT(IntImm(kI32, 1), IntImm(kI32, 2))), "T.LT(1, 2)");
  EXPECT_EQ(P(And(IntImm(kBool, 1), LT(x, y))), "T.And(T.bool(True), x < y)");
  EXPECT_EQ(P(Not(IntImm(kBool, 0))), "T.Not(T.bool(False))");
  EXPECT_EQ(P(Cast(kF32, IntImm(kI32, 3))), "T.Cast(\"float32\", 3)");
}

TEST(PrinterExpr, CallsSelectLetAndVectors) {
  Var x("x"), v("v");
  Var f("f", kF32);
  Buffer A = decl_buffer({64}, kF32, "A");
  EXPECT_EQ(P(UnaryMath("exp", f)), "T.exp(f)");
  EXPECT_EQ(P(if_then_else(x < 3, f, FloatImm(kF32, 0))), "T.if_then_else(x < 3, f, T.float32(0))");
  EXPECT_EQ(P(CallIntrin(kF32, "tir.call_extern", {StringImm("expf"), f})), "T.call_extern(\"float32\", \"expf\", f)");
  EXPECT_EQ(P(CallIntrin(kI32, "tir.reinterpret", {f})), "T.reinterpret(\"int32\", f)");
  EXPECT_EQ(P(Call(kF32, GlobalVar("helper"), {f})), "helper(f)");
  EXPECT_EQ(P(Select(x > 0, f, FloatImm(kF32, 1))), "T.Select(x > 0, f, T.float32(1))");
  EXPECT_EQ(P(Let(v, IntImm(kI32, 2), Add(v, x))), "T.Let(v + x, where={v: 2})");
  EXPECT_EQ(P(Ramp(x, IntImm(kI32, 1), 4)), "T.Ramp(x, 1, 4)");
  EXPECT_EQ(P(Broadcast(f, 4)), "T.Broadcast(f, 4)");
  EXPECT_EQ(P(BufferLoad(A, {Ramp(x, IntImm(kI32, 1), 4)})), "A[x:x + 4]");
  EXPECT_EQ(P(BufferLoad(A, {Ramp(x * 8, IntImm(kI32, 2), 4)})), "A[x * 8:x * 8 + 8:2]");
  Buffer S = decl_buffer({}, kF32, "S");
  EXPECT_EQ(P(BufferLoad(S, {})), "S[()]");
}

TEST(PrinterExpr, SameNameDifferentVariables) {
  Var x("x"), x2("x"), e("");
  EXPECT_EQ(P(Add(Add(x, x2), x)), "x + x_1 + x");
  EXPECT_EQ(P(Mul(e, IntImm(kI32, 2))), "v * 2");
}

TEST(PrinterValues, IterVarRangeRegionAndBufferDeclarations) {
  Var v("v");
  EXPECT_EQ(P(IterVar(Range::FromMinExtent(IntImm(kI32, 0), IntImm(kI32, 8)), v, kCommReduce)),
            "T.iter_var(v, T.Range(0, 8), \"CommReduce\", \"\")");
  EXPECT_EQ(P(Range::FromMinExtent(IntImm(kI32, 2), IntImm(kI32, 3))), "T.Range(2, 5)");
  Buffer A = decl_buffer({16, 16}, kF32, "A");
  EXPECT_EQ(P(BufferRegion(A, {Range::FromMinExtent(v, IntImm(kI32, 1)), Range::FromMinExtent(IntImm(kI32, 0), IntImm(kI32, 16))})),
            "A[v, 0:16]");
  EXPECT_EQ(P(A), "A = T.Buffer((16, 16))");
  Var n("n"), off("off");
  Buffer B(Var("B", DataType::Handle()), DataType::Int(8), {n, IntImm(kI32, 4)}, {IntImm(kI32, 4), IntImm(kI32, 1)}, off,
           "B", "shared.dyn", 16, 4);
  EXPECT_EQ(P(B), "n = T.int32()\noff = T.int32()\nB = T.Buffer((n, 4), \"int8\", strides=(4, 1), elem_offset=off, "
                  "scope=\"shared.dyn\", align=16, offset_factor=4)");
  // Two buffers over the same memory: the second names the first's data.
  Buffer C(A->data, kF32, {IntImm(kI32, 256)}, {}, PrimExpr(), "C");
  EXPECT_EQ(P(BufferStore(C, BufferLoad(A, {IntImm(kI32, 0), IntImm(kI32, 1)}), {IntImm(kI32, 0)})),
            "C = T.Buffer((256,))\nA = T.Buffer((16, 16), data=C.data)\nC[0] = A[0, 1]");
}

}  // namespace
}  // namespace tessera
