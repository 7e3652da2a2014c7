// Block read/write region inference against hand-written expected regions:
// point accesses, inner loops relaxed (constant, symbolic and nested bounds),
// reductions, allocations left out, match_buffer views mapped to their
// source, nested blocks, opaque accesses; and completion of parsed functions.
#include <gtest/gtest.h>

#include "ir/structural_equal.h"
#include "runtime/registry.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

Buffer MakeBuffer(const std::string& name, Array<PrimExpr> shape, DataType dtype = DataType::Float(32)) {
  return Buffer(Var(name, DataType::Handle()), dtype, shape, {}, PrimExpr(), name);
}
PrimExpr True() { return IntImm(DataType::Bool(), 1); }
IterVar Spatial(const Var& v, int64_t extent) { return IterVar(Range::FromMinExtent(0, PrimExpr(extent)), v, kDataPar); }
IterVar Reduce(const Var& v, int64_t extent) { return IterVar(Range::FromMinExtent(0, PrimExpr(extent)), v, kCommReduce); }
Range R(PrimExpr min, PrimExpr extent) { return Range::FromMinExtent(min, extent); }
Block MakeBlock(Array<IterVar> ivs, Stmt body, std::optional<Stmt> init = std::nullopt, Array<Buffer> alloc = {},
                Array<MatchBufferRegion> match = {}, const std::string& name = "blk") {
  return Block(ivs, {}, {}, name, body, init, alloc, match);
}

// Structural comparison with the message naming the first difference.
void ExpectRegions(const Array<BufferRegion>& got, const Array<BufferRegion>& expected, const char* what) {
  auto m = GetFirstStructuralMismatch(got, expected);
  EXPECT_FALSE(m.has_value()) << what << ": differs at " << m->path << " (" << m->reason << ")\n  got:      "
                              << m->lhs << "\n  expected: " << m->rhs;
}

TEST(BlockAccessRegion, PointAccesses) {
  Buffer A = MakeBuffer("A", {128}), B = MakeBuffer("B", {128}), C = MakeBuffer("C", {128});
  Var vi("vi");
  Block block = MakeBlock({Spatial(vi, 128)}, BufferStore(C, BufferLoad(A, {vi}) + BufferLoad(B, {vi}), {vi}));
  auto [reads, writes] = InferBlockAccessRegions(block);
  ExpectRegions(reads, {BufferRegion::FromPoint(A, {vi}), BufferRegion::FromPoint(B, {vi})}, "reads");
  ExpectRegions(writes, {BufferRegion::FromPoint(C, {vi})}, "writes");
}

TEST(BlockAccessRegion, ReductionOutputIsNotRead) {
  // Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj] with an init: reads A, B only.
  Buffer A = MakeBuffer("A", {128, 128}), B = MakeBuffer("B", {128, 128}), Y = MakeBuffer("Y", {128, 128});
  Var vi("vi"), vj("vj"), vk("vk");
  Stmt update = BufferStore(Y, BufferLoad(Y, {vi, vj}) + BufferLoad(A, {vi, vk}) * BufferLoad(B, {vk, vj}), {vi, vj});
  Stmt init = BufferStore(Y, PrimExpr(0.0), {vi, vj});
  Block with_init = MakeBlock({Spatial(vi, 128), Spatial(vj, 128), Reduce(vk, 128)}, update, init);
  auto [reads, writes] = InferBlockAccessRegions(with_init);
  ExpectRegions(reads, {BufferRegion::FromPoint(A, {vi, vk}), BufferRegion::FromPoint(B, {vk, vj})}, "reads");
  ExpectRegions(writes, {BufferRegion::FromPoint(Y, {vi, vj})}, "writes");
  // Without an init (the update block after decompose_reduction) Y is read too.
  Block without_init = MakeBlock({Spatial(vi, 128), Spatial(vj, 128), Reduce(vk, 128)}, update);
  auto [reads2, writes2] = InferBlockAccessRegions(without_init);
  ExpectRegions(reads2,
                {BufferRegion::FromPoint(Y, {vi, vj}), BufferRegion::FromPoint(A, {vi, vk}),
                 BufferRegion::FromPoint(B, {vk, vj})},
                "reads without init");
  ExpectRegions(writes2, {BufferRegion::FromPoint(Y, {vi, vj})}, "writes without init");
}

TEST(BlockAccessRegion, InnerLoopsAreRelaxed) {
  Buffer A = MakeBuffer("A", {512}), B = MakeBuffer("B", {128});
  Var vi("vi"), k("k");
  // for k in range(4): B[vi] = B[vi] + A[vi * 4 + k]
  PrimExpr base = mul(vi, 4);
  Stmt body = For(k, 0, 4, ForKind::kSerial,
                  BufferStore(B, BufferLoad(B, {vi}) + BufferLoad(A, {add(base, k)}), {vi}));
  auto [reads, writes] = InferBlockAccessRegions(MakeBlock({Spatial(vi, 128)}, body));
  ExpectRegions(reads, {BufferRegion::FromPoint(B, {vi}), BufferRegion(A, {R(base, 4)})}, "reads");
  ExpectRegions(writes, {BufferRegion::FromPoint(B, {vi})}, "writes");
}

TEST(BlockAccessRegion, SymbolicAndNestedLoopBounds) {
  Var n("n");
  Buffer A = MakeBuffer("A", {n, 64}), B = MakeBuffer("B", {64});
  Var vi("vi"), k("k"), l("l");
  // for k in range(n): for l in range(vi, vi + 3): B[vi] = B[vi] + A[k, l]
  Stmt body = For(k, 0, n, ForKind::kSerial,
                  For(l, vi, 3, ForKind::kSerial, BufferStore(B, BufferLoad(B, {vi}) + BufferLoad(A, {k, l}), {vi})));
  auto [reads, writes] = InferBlockAccessRegions(MakeBlock({Spatial(vi, 62)}, body));
  ExpectRegions(reads, {BufferRegion::FromPoint(B, {vi}), BufferRegion(A, {R(0, n), R(vi, 3)})}, "reads");
  // An inner loop whose start depends on an outer inner loop: for l in range(k, k + 2)
  // with k in [0, 4): l spans [0, 5).
  Buffer C = MakeBuffer("C", {16}), D = MakeBuffer("D", {16});
  Var vj("vj");
  Stmt nested = For(k, 0, 4, ForKind::kSerial, For(l, k, 2, ForKind::kSerial, BufferStore(D, BufferLoad(C, {l}), {vj})));
  auto [reads2, writes2] = InferBlockAccessRegions(MakeBlock({Spatial(vj, 16)}, nested));
  ExpectRegions(reads2, {BufferRegion(C, {R(0, 5)})}, "nested reads");
  ExpectRegions(writes2, {BufferRegion::FromPoint(D, {vj})}, "nested writes");
}

TEST(BlockAccessRegion, UnionOfSeveralAccessesAndDivisions) {
  Buffer A = MakeBuffer("A", {130}), B = MakeBuffer("B", {128}), C = MakeBuffer("C", {64});
  Var vi("vi"), k("k");
  // B[vi] = A[vi] + A[vi + 2]  -> A[vi : vi + 3]
  Stmt s1 = BufferStore(B, BufferLoad(A, {vi}) + BufferLoad(A, {add(vi, 2)}), {vi});
  auto [reads, writes] = InferBlockAccessRegions(MakeBlock({Spatial(vi, 128)}, s1));
  ExpectRegions(reads, {BufferRegion(A, {R(vi, 3)})}, "union");
  // for k in range(8): C[floordiv(vi * 8 + k, 2)] = B[floormod(k, 4)]
  //   -> writes C[vi * 4 : vi * 4 + 4], reads B[0 : 4]
  Var vj("vj");
  Stmt s2 = For(k, 0, 8, ForKind::kSerial,
                BufferStore(C, BufferLoad(B, {floormod(k, 4)}), {floordiv(add(mul(vj, 8), k), 2)}));
  auto [reads2, writes2] = InferBlockAccessRegions(MakeBlock({Spatial(vj, 16)}, s2));
  ExpectRegions(reads2, {BufferRegion(B, {R(0, 4)})}, "floormod");
  ExpectRegions(writes2, {BufferRegion(C, {R(mul(vj, 4), 4)})}, "floordiv");
}

TEST(BlockAccessRegion, VectorIndices) {
  // A[ramp(vi * 4, 1, 4)] reads A[vi * 4 : vi * 4 + 4]; a negative stride reaches down.
  Buffer A = MakeBuffer("A", {64});
  Var vi("vi");
  Stmt body = SeqStmt({Evaluate(BufferLoad(A, {Ramp(mul(vi, 4), 1, 4)})),
                       Evaluate(BufferLoad(A, {Ramp(add(mul(vi, 4), 3), -1, 2)}))});
  auto [reads, writes] = InferBlockAccessRegions(MakeBlock({Spatial(vi, 16)}, body));
  ExpectRegions(reads, {BufferRegion(A, {R(mul(vi, 4), 4)})}, "ramp");
  EXPECT_TRUE(writes.empty());
}

TEST(BlockAccessRegion, UnboundedIndexCoversTheDimension) {
  // An index read from memory (A[I[k]]) has no bound: the whole dimension.
  Buffer A = MakeBuffer("A", {64}), B = MakeBuffer("B", {8}), I = MakeBuffer("I", {8}, DataType::Int(32));
  Var vi("vi"), k("k");
  Stmt body = For(k, 0, 8, ForKind::kSerial, BufferStore(B, BufferLoad(A, {BufferLoad(I, {k})}), {vi}));
  auto [reads, writes] = InferBlockAccessRegions(MakeBlock({Spatial(vi, 8)}, body));
  ExpectRegions(reads, {BufferRegion::FullRegion(A), BufferRegion(I, {R(0, 8)})}, "A[I[k]]");
  // A product of two relaxed variables is bounded by the integer-set
  // analysis: k * k for k in [0, 8) spans [0, 49].
  Stmt square = For(k, 0, 8, ForKind::kSerial, BufferStore(B, BufferLoad(A, {mul(k, k)}), {vi}));
  auto [reads2, writes2] = InferBlockAccessRegions(MakeBlock({Spatial(vi, 8)}, square));
  ExpectRegions(reads2, {BufferRegion(A, {R(0, 50)})}, "k * k");
}

TEST(BlockAccessRegion, AllocatedBuffersAreLeftOut) {
  Buffer A = MakeBuffer("A", {16}), B = MakeBuffer("B", {16}), T = MakeBuffer("T", {16});
  Var vi("vi");
  Stmt body = SeqStmt({BufferStore(T, BufferLoad(A, {vi}), {vi}), BufferStore(B, BufferLoad(T, {vi}), {vi})});
  auto [reads, writes] = InferBlockAccessRegions(MakeBlock({Spatial(vi, 16)}, body, std::nullopt, {T}));
  ExpectRegions(reads, {BufferRegion::FromPoint(A, {vi})}, "reads");
  ExpectRegions(writes, {BufferRegion::FromPoint(B, {vi})}, "writes");
  // DeclBuffer inside the body is local as well.
  Stmt decl = DeclBuffer(T, body);
  auto [reads2, writes2] = InferBlockAccessRegions(MakeBlock({Spatial(vi, 16)}, decl));
  ExpectRegions(reads2, {BufferRegion::FromPoint(A, {vi})}, "decl reads");
  ExpectRegions(writes2, {BufferRegion::FromPoint(B, {vi})}, "decl writes");
}

TEST(BlockAccessRegion, MatchBufferAccessesMapToTheSource) {
  // Asub = match_buffer(A[vi, vj * 4 : vj * 4 + 4]) (1-D view of a row piece);
  // for k in range(4): B[vi, vj] += Asub[k]  -> reads A[vi, vj * 4 : vj * 4 + 4]
  Buffer A = MakeBuffer("A", {16, 64}), B = MakeBuffer("B", {16, 16}), Asub = MakeBuffer("Asub", {4});
  Var vi("vi"), vj("vj"), k("k");
  PrimExpr col = mul(vj, 4);
  MatchBufferRegion match(Asub, BufferRegion(A, {R(vi, 1), R(col, 4)}));
  Stmt body = For(k, 0, 4, ForKind::kSerial,
                  BufferStore(B, BufferLoad(B, {vi, vj}) + BufferLoad(Asub, {k}), {vi, vj}));
  Block block = MakeBlock({Spatial(vi, 16), Spatial(vj, 16)}, body, std::nullopt, {}, {match});
  auto [reads, writes] = InferBlockAccessRegions(block);
  ExpectRegions(reads, {BufferRegion::FromPoint(B, {vi, vj}), BufferRegion(A, {R(vi, 1), R(col, 4)})}, "reads");
  ExpectRegions(writes, {BufferRegion::FromPoint(B, {vi, vj})}, "writes");
}

TEST(BlockAccessRegion, NestedBlocksContributeTheirRegions) {
  // An opaque outer block (no iteration variables) around
  //   for i in range(128): block(vi = i) reads A[vi], writes C[vi]
  Buffer A = MakeBuffer("A", {128}), C = MakeBuffer("C", {128});
  Var i("i"), vi("vi");
  Block inner({Spatial(vi, 128)}, {BufferRegion::FromPoint(A, {vi})}, {BufferRegion::FromPoint(C, {vi})}, "inner",
              BufferStore(C, BufferLoad(A, {vi}), {vi}));
  Stmt loop = For(i, 0, 128, ForKind::kSerial, BlockRealize({i}, True(), inner));
  auto [reads, writes] = InferBlockAccessRegions(MakeBlock({}, loop));
  ExpectRegions(reads, {BufferRegion(A, {R(0, 128)})}, "reads");
  ExpectRegions(writes, {BufferRegion(C, {R(0, 128)})}, "writes");
}

TEST(BlockAccessRegion, OpaqueDataAccessCoversTheWholeBuffer) {
  Buffer A = MakeBuffer("A", {32}), B = MakeBuffer("B", {32});
  Var vi("vi");
  Stmt body = SeqStmt({BufferStore(B, BufferLoad(A, {vi}), {vi}),
                       Evaluate(Call(DataType::Int(32), Op::Get("tir.call_extern"), {StringImm("touch"), A->data}))});
  auto visible = Map<Var, Buffer>{{A->data, A}, {B->data, B}};
  auto [reads, writes] = InferBlockAccessRegions(MakeBlock({Spatial(vi, 32)}, body), visible);
  ExpectRegions(reads, {BufferRegion::FullRegion(A)}, "reads");
  ExpectRegions(writes, {BufferRegion::FromPoint(B, {vi}), BufferRegion::FullRegion(A)}, "writes");
}

TEST(BlockAccessRegion, AccessPointersFollowTheirMask) {
  // A tensor-intrinsic style body: an extern call on access_ptr("r") of A_sub
  // and access_ptr("w") of C_sub, match_buffer views of A and C.
  if (!Op::Exists("tir.tvm_access_ptr")) GTEST_SKIP() << "tir.tvm_access_ptr is not registered";
  Buffer A = MakeBuffer("A", {64, 64}), C = MakeBuffer("C", {16, 16});
  Buffer A_sub = MakeBuffer("A_sub", {4, 4}), C_sub = MakeBuffer("C_sub", {4, 4});
  Var vi("vi"), vj("vj");
  Array<Range> tile = {R(mul(vi, 4), 4), R(mul(vj, 4), 4)};
  Array<Range> point = {R(vi, 1), R(vj, 1)};
  auto access_ptr = [](const Buffer& b, int64_t mask) {
    return Call(DataType::Handle(), Op::Get("tir.tvm_access_ptr"),
                {IntImm(DataType::Int(32), 0), b->data, IntImm(DataType::Int(32), 0), IntImm(DataType::Int(32), 16),
                 IntImm(DataType::Int(32), mask)});
  };
  Stmt body = Evaluate(Call(DataType::Int(32), Op::Get("tir.call_extern"),
                            {StringImm("mma"), access_ptr(A_sub, 1), access_ptr(C_sub, 2)}));
  // C_sub is 4x4 over a 1x1 source piece only to keep the test small: the
  // region is mapped dimension by dimension from the source minimum.
  Block block = MakeBlock({Spatial(vi, 16), Spatial(vj, 16)}, body, std::nullopt, {},
                          {MatchBufferRegion(A_sub, BufferRegion(A, tile)), MatchBufferRegion(C_sub, BufferRegion(C, point))});
  auto [reads, writes] = InferBlockAccessRegions(block);
  ExpectRegions(reads, {BufferRegion(A, tile)}, "reads");
  ExpectRegions(writes, {BufferRegion(C, {R(vi, 4), R(vj, 4)})}, "writes");
  // With the function's buffers known, a plain buffer's access_ptr counts too.
  Stmt direct = Evaluate(Call(DataType::Int(32), Op::Get("tir.call_extern"), {StringImm("fill"), access_ptr(C, 2)}));
  auto [reads2, writes2] = InferBlockAccessRegions(MakeBlock({}, direct), Map<Var, Buffer>{{C->data, C}});
  ExpectRegions(reads2, {}, "reads");
  ExpectRegions(writes2, {BufferRegion::FullRegion(C)}, "writes");
}

TEST(BlockAccessRegion, OnlyVisibleBuffersAreReported) {
  Buffer A = MakeBuffer("A", {8}), B = MakeBuffer("B", {8});
  Var vi("vi");
  Block block = MakeBlock({Spatial(vi, 8)}, BufferStore(B, BufferLoad(A, {vi}), {vi}));
  auto [reads, writes] = InferBlockAccessRegions(block, Map<Var, Buffer>{{B->data, B}});
  ExpectRegions(reads, {}, "reads");
  ExpectRegions(writes, {BufferRegion::FromPoint(B, {vi})}, "writes");
}

// The mm_relu function as the parser leaves it (regions marked for
// inference) and as expected after completion.
PrimFunc MakeMmRelu(bool completed, int64_t marker = 1) {
  Var a("A", DataType::Handle()), b("B", DataType::Handle()), c("C", DataType::Handle());
  Buffer A = MakeBuffer("A", {128, 128}), B = MakeBuffer("B", {128, 128}), C = MakeBuffer("C", {128, 128});
  Buffer Y = MakeBuffer("Y", {128, 128});
  Map<String, Any> ann;
  if (!completed) ann.Set(kScriptInferRegions, marker);
  Var i("i"), j("j"), k("k"), vi("vi"), vj("vj"), vk("vk");
  Stmt update = BufferStore(Y, BufferLoad(Y, {vi, vj}) + BufferLoad(A, {vi, vk}) * BufferLoad(B, {vk, vj}), {vi, vj});
  Array<BufferRegion> y_reads, y_writes, c_reads, c_writes;
  Var vi2("vi"), vj2("vj"), i2("i"), j2("j");
  if (completed) {
    y_reads = {BufferRegion::FromPoint(A, {vi, vk}), BufferRegion::FromPoint(B, {vk, vj})};
    y_writes = {BufferRegion::FromPoint(Y, {vi, vj})};
    c_reads = {BufferRegion::FromPoint(Y, {vi2, vj2})};
    c_writes = {BufferRegion::FromPoint(C, {vi2, vj2})};
  }
  Block block_y({Spatial(vi, 128), Spatial(vj, 128), Reduce(vk, 128)}, y_reads, y_writes, "Y", update,
                BufferStore(Y, PrimExpr(0.0), {vi, vj}), {}, {}, ann);
  Stmt nest_y = For(i, 0, 128, ForKind::kSerial,
                    For(j, 0, 128, ForKind::kSerial, For(k, 0, 128, ForKind::kSerial, BlockRealize({i, j, k}, True(), block_y))));
  Block block_c({Spatial(vi2, 128), Spatial(vj2, 128)}, c_reads, c_writes, "C",
                BufferStore(C, max(BufferLoad(Y, {vi2, vj2}), PrimExpr(0.0)), {vi2, vj2}), std::nullopt, {}, {}, ann);
  Stmt nest_c = For(i2, 0, 128, ForKind::kSerial, For(j2, 0, 128, ForKind::kSerial, BlockRealize({i2, j2}, True(), block_c)));
  Block root({}, {}, {}, "root", SeqStmt({nest_y, nest_c}), std::nullopt, {Y}, {}, ann);
  return PrimFunc({a, b, c}, BlockRealize({}, True(), root), Map<Var, Buffer>{{a, A}, {b, B}, {c, C}});
}

TEST(BlockAccessRegion, CompleteFillsMarkedBlocks) {
  PrimFunc parsed = MakeMmRelu(false);
  PrimFunc done = CompleteBlockAccessRegions(parsed);
  auto m = GetFirstStructuralMismatch(done, MakeMmRelu(true));
  EXPECT_FALSE(m.has_value()) << m->path << ": " << m->reason << "\n" << m->lhs << "\n" << m->rhs;
  // The input is not modified.
  EXPECT_FALSE(StructuralEqual(parsed, done));
  // Mask 3 (TVM's "reads and writes") gives the same.
  EXPECT_TRUE(StructuralEqual(CompleteBlockAccessRegions(MakeMmRelu(false, 3)), MakeMmRelu(true)));
  // Unmarked functions are returned as they are.
  PrimFunc plain = MakeMmRelu(true);
  EXPECT_TRUE(CompleteBlockAccessRegions(plain).same_as(plain));
}

TEST(BlockAccessRegion, CompleteHonoursTheMask) {
  // Mask 2: only the writes are inferred; the (empty) reads stay as written.
  PrimFunc done = CompleteBlockAccessRegions(MakeMmRelu(false, 2));
  const auto* root = done->body.as<BlockRealizeNode>();
  ASSERT_NE(root, nullptr);
  const auto* seq = root->block->body.as<SeqStmtNode>();
  ASSERT_NE(seq, nullptr);
  const auto* loop = seq->seq[1].as<ForNode>();
  const auto* realize = loop->body.as<ForNode>()->body.as<BlockRealizeNode>();
  EXPECT_EQ(realize->block->name_hint, "C");
  EXPECT_TRUE(realize->block->reads.empty());
  ASSERT_EQ(realize->block->writes.size(), 1u);
  EXPECT_EQ(realize->block->writes[0]->buffer->name, "C");
  EXPECT_FALSE(realize->block->annotations.count(kScriptInferRegions));
}

TEST(BlockAccessRegion, GlobalsAreRegistered) {
  Buffer A = MakeBuffer("A", {8}), B = MakeBuffer("B", {8});
  Var vi("vi");
  Block block = MakeBlock({Spatial(vi, 8)}, BufferStore(B, BufferLoad(A, {vi}), {vi}));
  Any out = Registry::GetOrThrow("tir.analysis.InferBlockAccessRegions")(block);
  auto rw = out.cast<Array<Array<BufferRegion>>>();
  ASSERT_EQ(rw.size(), 2u);
  ExpectRegions(rw[0], {BufferRegion::FromPoint(A, {vi})}, "reads");
  ExpectRegions(rw[1], {BufferRegion::FromPoint(B, {vi})}, "writes");
  PrimFunc done = Registry::GetOrThrow("tir.analysis.CompleteBlockAccessRegions")(MakeMmRelu(false)).cast<PrimFunc>();
  EXPECT_TRUE(StructuralEqual(done, MakeMmRelu(true)));
}

}  // namespace
}  // namespace tir
}  // namespace tessera
