// Tensor expressions from C++: te::CreatePrimFunc of a matmul + relu program
// compared with the hand-written TVMScript function (structural equality),
// and the errors of create_prim_func / ComputeOp naming their culprit.
#include <gtest/gtest.h>

#include "ir/structural_equal.h"
#include "script/parser/parser.h"
#include "te/create_prim_func.h"
#include "tir/op.h"

namespace tessera {
namespace te {
namespace {

using tir::kCommReduce;
using tir::kDataPar;

IterVar Axis(const std::string& name, int64_t extent, int kind) {
  return IterVar(Range::FromMinExtent(0, PrimExpr(extent)), Var(name), kind);
}

CommReducer SumReducer() {
  Var x("x", DataType::Float(32)), y("y", DataType::Float(32));
  return CommReducer({x}, {y}, {tir::add(x, y)}, {FloatImm(DataType::Float(32), 0)});
}

Tensor Output(const Operation& op, Array<PrimExpr> shape, DataType dtype) { return Tensor(shape, dtype, op, 0); }

const char* kExpected = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 4), "float32"), relu: T.Buffer((16, 4), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    matmul = T.alloc_buffer((16, 4))
    for i, j, k in T.grid(16, 4, 8):
        with T.block("matmul"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            with T.init():
                matmul[v_i, v_j] = T.float32(0)
            matmul[v_i, v_j] = matmul[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
    for i0, i1 in T.grid(16, 4):
        with T.block("relu"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            relu[v_i0, v_i1] = T.max(matmul[v_i0, v_i1], T.float32(0))
)";

TEST(TE, MatmulReluMatchesScript) {
  DataType f32 = DataType::Float(32);
  Tensor A = placeholder({16, 8}, f32, "A"), B = placeholder({8, 4}, f32, "B");
  IterVar i = Axis("i", 16, kDataPar), j = Axis("j", 4, kDataPar), k = Axis("k", 8, kCommReduce);
  PrimExpr sum = Reduce(SumReducer(), {tir::mul(ProducerLoad(A, {i->var, k->var}), ProducerLoad(B, {k->var, j->var}))}, {k},
                        PrimExpr(), 0, {});
  Tensor C = Output(ComputeOp("matmul", "", {}, {i, j}, {sum}), {16, 4}, f32);
  IterVar i0 = Axis("i0", 16, kDataPar), i1 = Axis("i1", 4, kDataPar);
  Tensor D = Output(ComputeOp("relu", "", {}, {i0, i1}, {tir::max(ProducerLoad(C, {i0->var, i1->var}),
                                                                   FloatImm(f32, 0))}),
                    {16, 4}, f32);
  tir::PrimFunc got = CreatePrimFunc({A, B, D});
  ObjectRef expected = script::ParseTVMScript(kExpected, "expected.py");
  auto m = GetFirstStructuralMismatch(got, expected);
  EXPECT_FALSE(m.has_value()) << m->path << ": " << m->reason;
  ASSERT_EQ(InputTensors(D->op).size(), 1u);
  EXPECT_TRUE(InputTensors(D->op)[0]->op.same_as(C->op));
}

TEST(TE, ErrorsNameTheCulprit) {
  DataType f32 = DataType::Float(32);
  Tensor A = placeholder({4}, f32, "A");
  IterVar i = Axis("i", 4, kDataPar), k = Axis("k", 4, kCommReduce);
  // reduce axis outside a reduction
  Tensor B = Output(ComputeOp("B", "", {}, {i}, {ProducerLoad(A, {k->var})}), {4}, f32);
  try {
    CreatePrimFunc({A, B});
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("compute B uses variable k"), std::string::npos) << e.what();
  }
  // placeholder not listed
  EXPECT_THROW(CreatePrimFunc({B}), ValueError);
  // a reduction nested in a larger expression
  PrimExpr sum = Reduce(SumReducer(), {ProducerLoad(A, {k->var})}, {k}, PrimExpr(), 0, {});
  EXPECT_THROW(ComputeOp("C", "", {}, {i}, {tir::add(sum, FloatImm(f32, 1))}), ValueError);
  // index count
  EXPECT_THROW(ProducerLoad(A, {i->var, i->var}), IndexError);
  // data-parallel axis in a reduction
  EXPECT_THROW(Reduce(SumReducer(), {ProducerLoad(A, {i->var})}, {i}, PrimExpr(), 0, {}), ValueError);
  // negative dimension
  EXPECT_THROW(placeholder({-1}, f32, "N"), ValueError);
}

}  // namespace
}  // namespace te
}  // namespace tessera
