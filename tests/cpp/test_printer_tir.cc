// TVMScript printer for functions and modules: the course's printouts
// (mm_relu before/after split, reorder and reverse_compute_at; the chapter 6
// GPU modules) built with the C++ API and compared with the text TVM prints,
// written by hand here; plus T.grid folding, remap vs explicit axes,
// symbolic shapes, loop kinds, buffer scopes and the extension hook.
#include <gtest/gtest.h>

#include "ir/module.h"
#include "runtime/registry.h"
#include "script/printer/printer_context.h"
#include "script/printer/script_printer.h"
#include "script/printer/tir_printer.h"
#include "tir/function.h"
#include "tir/op.h"

namespace tessera {
namespace {

using namespace tir;  // NOLINT
using script::printer::AsTVMScript;
using script::printer::PrinterConfig;

const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);

PrimExpr True() { return IntImm(DataType::Bool(), 1); }
PrimExpr F32(double v) { return FloatImm(kF32, v); }

IterVar Axis(const Var& v, PrimExpr extent, int type = kDataPar) {
  return IterVar(Range::FromMinExtent(IntImm(kI32, 0), extent), v, type);
}
Stmt Loop(const Var& v, PrimExpr extent, Stmt body, ForKind kind = ForKind::kSerial) {
  return For(v, IntImm(kI32, 0), extent, kind, body);
}
Stmt ThreadLoop(const Var& v, PrimExpr extent, const std::string& tag, Stmt body) {
  IterVar binding(Range::FromMinExtent(IntImm(kI32, 0), extent), Var(tag), kThreadIndex, tag);
  return For(v, IntImm(kI32, 0), extent, ForKind::kThreadBinding, body, binding);
}
BufferRegion Pt(const Buffer& b, Array<PrimExpr> idx) { return BufferRegion::FromPoint(b, idx); }
PrimExpr Ld(const Buffer& b, Array<PrimExpr> idx) { return BufferLoad(b, idx); }

// A PrimFunc over buffer parameters with its body under a root block.
PrimFunc Func(const std::vector<Buffer>& params, Stmt body, Array<Buffer> allocs, const std::string& name) {
  Array<Var> vars;
  Map<Var, Buffer> bmap;
  for (const Buffer& b : params) {
    Var v(b->name, DataType::Handle());
    vars.push_back(v);
    bmap.Set(v, b);
  }
  Block root({}, {}, {}, "root", body, std::nullopt, allocs);
  Attrs attrs;
  attrs.Set("global_symbol", String(name));
  attrs.Set("tir.noalias", true);
  return PrimFunc(vars, BlockRealize({}, True(), root), bmap, attrs);
}

IRModule Module(const std::string& name, const PrimFunc& f) {
  IRModule mod = IRModule::Empty();
  mod.mutable_node()->Add(GlobalVar(name), f);
  return mod;
}

const char* kHeader = "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n";

// ---- mm_relu (course chapter 2) ------------------------------------------

struct MMRelu {
  Buffer A = decl_buffer({128, 128}, kF32, "A");
  Buffer B = decl_buffer({128, 128}, kF32, "B");
  Buffer C = decl_buffer({128, 128}, kF32, "C");
  Buffer Y = decl_buffer({128, 128}, kF32, "Y");

  // Block Y bound to (vi <- i, vj <- vj_value, vk <- k).
  Stmt BlockY(PrimExpr i, PrimExpr j, PrimExpr k) {
    Var vi("vi"), vj("vj"), vk("vk");
    Stmt init = BufferStore(Y, F32(0), {vi, vj});
    Stmt update = BufferStore(Y, Ld(Y, {vi, vj}) + Ld(A, {vi, vk}) * Ld(B, {vk, vj}), {vi, vj});
    Block b({Axis(vi, 128), Axis(vj, 128), Axis(vk, 128, kCommReduce)}, {Pt(A, {vi, vk}), Pt(B, {vk, vj})},
            {Pt(Y, {vi, vj})}, "Y", update, init);
    return BlockRealize({i, j, k}, True(), b);
  }
  Stmt BlockC(PrimExpr i, PrimExpr j) {
    Var vi("vi"), vj("vj");
    Stmt body = BufferStore(C, max(Ld(Y, {vi, vj}), F32(0)), {vi, vj});
    Block b({Axis(vi, 128), Axis(vj, 128)}, {Pt(Y, {vi, vj})}, {Pt(C, {vi, vj})}, "C", body);
    return BlockRealize({i, j}, True(), b);
  }
  IRModule Original() {
    Var i("i"), j("j"), k("k"), i2("i"), j2("j");
    Stmt y = Loop(i, 128, Loop(j, 128, Loop(k, 128, BlockY(i, j, k))));
    Stmt c = Loop(i2, 128, Loop(j2, 128, BlockC(i2, j2)));
    return Module("mm_relu", Func({A, B, C}, SeqStmt({y, c}), {Y}, "mm_relu"));
  }
  IRModule SplitReorder() {
    Var i("i"), j0("j_0"), j1("j_1"), k("k"), i2("i"), j2("j");
    Stmt y = Loop(i, 128, Loop(j0, 32, Loop(k, 128, Loop(j1, 4, BlockY(i, j0 * 4 + j1, k)))));
    Stmt c = Loop(i2, 128, Loop(j2, 128, BlockC(i2, j2)));
    return Module("mm_relu", Func({A, B, C}, SeqStmt({y, c}), {Y}, "mm_relu"));
  }
  IRModule ReverseComputeAt() {
    Var i("i"), j0("j_0"), j1("j_1"), k("k"), ax0("ax0");
    Stmt y = Loop(k, 128, Loop(j1, 4, BlockY(i, j0 * 4 + j1, k)));
    Stmt c = Loop(ax0, 4, BlockC(i, j0 * 4 + ax0));
    Stmt nest = Loop(i, 128, Loop(j0, 32, SeqStmt({y, c})));
    return Module("mm_relu", Func({A, B, C}, nest, {Y}, "mm_relu"));
  }
};

TEST(PrinterModule, MMReluAsTheCourseWritesIt) {
  std::string expected = std::string(kHeader) + R"(@I.ir_module
class Module:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        Y = T.alloc_buffer((128, 128))
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(Y[vi, vj])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0)))";
  EXPECT_EQ(AsTVMScript(MMRelu().Original()), expected);
}

TEST(PrinterModule, MMReluAfterSplitAndReorder) {
  std::string expected = std::string(kHeader) + R"(@I.ir_module
class Module:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        Y = T.alloc_buffer((128, 128))
        for i, j_0, k, j_1 in T.grid(128, 32, 128, 4):
            with T.block("Y"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j_0 * 4 + j_1)
                vk = T.axis.reduce(128, k)
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(Y[vi, vj])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0)))";
  EXPECT_EQ(AsTVMScript(MMRelu().SplitReorder()), expected);
}

TEST(PrinterModule, MMReluAfterReverseComputeAt) {
  std::string expected = std::string(kHeader) + R"(@I.ir_module
class Module:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        Y = T.alloc_buffer((128, 128))
        for i, j_0 in T.grid(128, 32):
            for k, j_1 in T.grid(128, 4):
                with T.block("Y"):
                    vi = T.axis.spatial(128, i)
                    vj = T.axis.spatial(128, j_0 * 4 + j_1)
                    vk = T.axis.reduce(128, k)
                    T.reads(A[vi, vk], B[vk, vj])
                    T.writes(Y[vi, vj])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
            for ax0 in range(4):
                with T.block("C"):
                    vi = T.axis.spatial(128, i)
                    vj = T.axis.spatial(128, j_0 * 4 + ax0)
                    T.reads(Y[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.max(Y[vi, vj], T.float32(0)))";
  EXPECT_EQ(AsTVMScript(MMRelu().ReverseComputeAt()), expected);
}

TEST(PrinterModule, FunctionsSortedByNameAndSeparatedByABlankLine) {
  Buffer A = decl_buffer({4}, kF32, "A");
  Var i("i");
  Stmt body = Loop(i, 4, BufferStore(A, F32(1), {i}));
  auto make = [&](const std::string& name) {
    Attrs attrs;
    attrs.Set("global_symbol", String(name));
    Var a("A", DataType::Handle());
    Map<Var, Buffer> bmap;
    bmap.Set(a, A);
    return PrimFunc({a}, body, bmap, attrs);
  };
  IRModule mod = IRModule::Empty();
  mod.mutable_node()->Add(GlobalVar("zeta"), make("zeta"));
  mod.mutable_node()->Add(GlobalVar("alpha"), make("alpha"));
  std::string expected = std::string(kHeader) + R"(@I.ir_module
class Module:
    @T.prim_func
    def alpha(A: T.Buffer((4,), "float32")):
        T.func_attr({"global_symbol": "alpha"})
        for i in range(4):
            A[i] = T.float32(1)

    @T.prim_func
    def zeta(A: T.Buffer((4,), "float32")):
        T.func_attr({"global_symbol": "zeta"})
        for i in range(4):
            A[i] = T.float32(1))";
  EXPECT_EQ(AsTVMScript(mod), expected);
  EXPECT_EQ(AsTVMScript(IRModule::Empty()), "# from tvm.script import ir as I\n\n@I.ir_module\nclass Module:\n    pass");
}

TEST(PrinterFunction, LonePrimFuncUsesItsGlobalSymbolOrMain) {
  MMRelu m;
  PrimFunc f = Downcast<PrimFunc>(m.Original()->Lookup("mm_relu"));
  std::string text = AsTVMScript(f);
  EXPECT_EQ(text.rfind("# from tvm.script import tir as T\n\n@T.prim_func\ndef mm_relu(A: T.Buffer((128, 128), \"float32\")", 0), 0u)
      << text;
  EXPECT_NE(text.find("\n    # with T.block(\"root\"):\n    Y = T.alloc_buffer((128, 128))\n"), std::string::npos) << text;
  PrimFunc anon = f;
  anon.CopyOnWrite()->attrs = Attrs();
  // No global symbol: private, named main.
  EXPECT_EQ(AsTVMScript(anon).find("@T.prim_func(private=True)\ndef main("),
            std::string("# from tvm.script import tir as T\n\n").size());
  PrinterConfig cfg;
  cfg.name = "renamed";
  cfg.print_header = false;
  EXPECT_EQ(AsTVMScript(f, cfg).rfind("@T.prim_func\ndef renamed(", 0), 0u);
}

// ---- chapter 6: GPU modules --------------------------------------------------

TEST(PrinterModule, WindowSumWithCooperativeFetch) {
  Buffer A = decl_buffer({1027}, kF32, "A");
  Buffer B = decl_buffer({1024}, kF32, "B");
  Buffer S = decl_buffer({1027}, kF32, "A_shared", "shared");
  Var i0("i_0"), i1("i_1"), ax00("ax0_0"), ax01("ax0_1"), v0("v0"), vi("vi");
  PrimExpr fetch_index = ax00 * 128 + ax01;
  Block fetch({Axis(v0, 1027)}, {Pt(A, {v0})}, {Pt(S, {v0})}, "A_shared", BufferStore(S, Ld(A, {v0}), {v0}));
  Stmt fetch_nest = Loop(ax00, 2, ThreadLoop(ax01, 128, "threadIdx.x",
                                             BlockRealize({i0 * 128 + fetch_index}, fetch_index < 130, fetch)));
  Stmt sum = BufferStore(B, Ld(S, {vi}) + Ld(S, {vi + 1}) + Ld(S, {vi + 2}), {vi});
  Block c({Axis(vi, 1024)}, {BufferRegion(S, {Range::FromMinExtent(vi, 3)})}, {Pt(B, {vi})}, "C", sum);
  Stmt body = ThreadLoop(i0, 8, "blockIdx.x",
                         ThreadLoop(i1, 128, "threadIdx.x", SeqStmt({fetch_nest, BlockRealize({i0 * 128 + i1}, True(), c)})));
  std::string expected = std::string(kHeader) + R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        A_shared = T.alloc_buffer((1027,), scope="shared")
        for i_0 in T.thread_binding(8, thread="blockIdx.x"):
            for i_1 in T.thread_binding(128, thread="threadIdx.x"):
                for ax0_0 in range(2):
                    for ax0_1 in T.thread_binding(128, thread="threadIdx.x"):
                        with T.block("A_shared"):
                            v0 = T.axis.spatial(1027, i_0 * 128 + (ax0_0 * 128 + ax0_1))
                            T.where(ax0_0 * 128 + ax0_1 < 130)
                            T.reads(A[v0])
                            T.writes(A_shared[v0])
                            A_shared[v0] = A[v0]
                with T.block("C"):
                    vi = T.axis.spatial(1024, i_0 * 128 + i_1)
                    T.reads(A_shared[vi:vi + 3])
                    T.writes(B[vi])
                    B[vi] = A_shared[vi] + A_shared[vi + 1] + A_shared[vi + 2])";
  EXPECT_EQ(AsTVMScript(Module("main", Func({A, B}, body, {S}, "main"))), expected);
}

TEST(PrinterModule, MatmulBlockingWithLocalCacheAndUnroll) {
  Buffer A = decl_buffer({1024, 1024}, kF32, "A");
  Buffer B = decl_buffer({1024, 1024}, kF32, "B");
  Buffer C = decl_buffer({1024, 1024}, kF32, "C");
  Buffer L = decl_buffer({1024, 1024}, kF32, "C_local", "local");
  Var i0("i_0"), j0("j_0"), i1("i_1"), j1("j_1"), i2i("i_2_init"), j2i("j_2_init"), k0("k_0"), k1("k_1"),
      i2("i_2"), j2("j_2"), ax0("ax0"), ax1("ax1");
  auto row = [&](const Var& inner) { return i0 * 64 + i1 * 8 + inner; };
  auto col = [&](const Var& inner) { return j0 * 64 + j1 * 8 + inner; };
  Var vi("vi"), vj("vj"), vk("vk"), wi("vi"), wj("vj"), v0("v0"), v1("v1");
  Block init({Axis(vi, 1024), Axis(vj, 1024)}, {}, {Pt(L, {vi, vj})}, "C_init", BufferStore(L, F32(0), {vi, vj}));
  Block update({Axis(wi, 1024), Axis(wj, 1024), Axis(vk, 1024, kCommReduce)},
               {Pt(L, {wi, wj}), Pt(A, {wi, vk}), Pt(B, {vk, wj})}, {Pt(L, {wi, wj})}, "C_update",
               BufferStore(L, Ld(L, {wi, wj}) + Ld(A, {wi, vk}) * Ld(B, {vk, wj}), {wi, wj}));
  Block write_back({Axis(v0, 1024), Axis(v1, 1024)}, {Pt(L, {v0, v1})}, {Pt(C, {v0, v1})}, "C_local",
                   BufferStore(C, Ld(L, {v0, v1}), {v0, v1}));
  Stmt init_nest = Loop(i2i, 8, Loop(j2i, 8, BlockRealize({row(i2i), col(j2i)}, True(), init)));
  Stmt update_nest =
      Loop(k0, 256, Loop(k1, 4, Loop(i2, 8, Loop(j2, 8, BlockRealize({row(i2), col(j2), k0 * 4 + k1}, True(), update))),
                         ForKind::kUnrolled));
  Stmt wb_nest = Loop(ax0, 8, Loop(ax1, 8, BlockRealize({row(ax0), col(ax1)}, True(), write_back)));
  Stmt body = ThreadLoop(
      i0, 16, "blockIdx.y",
      ThreadLoop(j0, 16, "blockIdx.x",
                 ThreadLoop(i1, 8, "threadIdx.y",
                            ThreadLoop(j1, 8, "threadIdx.x", SeqStmt({init_nest, update_nest, wb_nest})))));
  std::string expected = std::string(kHeader) + R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"), C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        C_local = T.alloc_buffer((1024, 1024), scope="local")
        for i_0 in T.thread_binding(16, thread="blockIdx.y"):
            for j_0 in T.thread_binding(16, thread="blockIdx.x"):
                for i_1 in T.thread_binding(8, thread="threadIdx.y"):
                    for j_1 in T.thread_binding(8, thread="threadIdx.x"):
                        for i_2_init, j_2_init in T.grid(8, 8):
                            with T.block("C_init"):
                                vi = T.axis.spatial(1024, i_0 * 64 + i_1 * 8 + i_2_init)
                                vj = T.axis.spatial(1024, j_0 * 64 + j_1 * 8 + j_2_init)
                                T.reads()
                                T.writes(C_local[vi, vj])
                                C_local[vi, vj] = T.float32(0)
                        for k_0 in range(256):
                            for k_1 in T.unroll(4):
                                for i_2, j_2 in T.grid(8, 8):
                                    with T.block("C_update"):
                                        vi = T.axis.spatial(1024, i_0 * 64 + i_1 * 8 + i_2)
                                        vj = T.axis.spatial(1024, j_0 * 64 + j_1 * 8 + j_2)
                                        vk = T.axis.reduce(1024, k_0 * 4 + k_1)
                                        T.reads(C_local[vi, vj], A[vi, vk], B[vk, vj])
                                        T.writes(C_local[vi, vj])
                                        C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
                        for ax0, ax1 in T.grid(8, 8):
                            with T.block("C_local"):
                                v0 = T.axis.spatial(1024, i_0 * 64 + i_1 * 8 + ax0)
                                v1 = T.axis.spatial(1024, j_0 * 64 + j_1 * 8 + ax1)
                                T.reads(C_local[v0, v1])
                                T.writes(C[v0, v1])
                                C[v0, v1] = C_local[v0, v1])";
  EXPECT_EQ(AsTVMScript(Module("main", Func({A, B, C}, body, {L}, "main"))), expected);
}

// ---- loops ------------------------------------------------------------------

TEST(PrinterLoops, GridFoldingStopsAtKindsAnnotationsDependentExtentsAndStatements) {
  Buffer A = decl_buffer({64}, kF32, "A");
  Var i("i"), j("j"), k("k"), m("m");
  // j's extent depends on i: no grid across them; k is parallel.
  Stmt s = Loop(i, 8, Loop(j, i + 1, Loop(k, 4, Loop(m, 2, BufferStore(A, F32(0), {i * 8 + j})), ForKind::kParallel)));
  EXPECT_EQ(AsTVMScript(s), R"(A = T.Buffer((64,))
for i in range(8):
    for j in range(i + 1):
        for k in T.parallel(4):
            for m in range(2):
                A[i * 8 + j] = T.float32(0))");
  // A statement between loops stops the grid; annotations print with T.serial.
  Map<String, Any> ann;
  ann.Set("pragma_unroll_explicit", 1);
  Stmt t = Loop(i, 8, SeqStmt({BufferStore(A, F32(1), {i}), Loop(j, 8, BufferStore(A, F32(2), {j}))}));
  Stmt u = For(k, IntImm(kI32, 2), IntImm(kI32, 6), ForKind::kSerial, BufferStore(A, F32(3), {k}), std::nullopt, ann);
  Stmt v = For(m, IntImm(kI32, 1), IntImm(kI32, 3), ForKind::kVectorized, BufferStore(A, F32(4), {m}));
  Stmt w = For(j, IntImm(kI32, 4), IntImm(kI32, 4), ForKind::kSerial, BufferStore(A, F32(5), {j}));
  EXPECT_EQ(AsTVMScript(SeqStmt({t, u, v, w})), R"(A = T.Buffer((64,))
for i in range(8):
    A[i] = T.float32(1)
    for j in range(8):
        A[j] = T.float32(2)
for k in T.serial(2, 8, annotations={"pragma_unroll_explicit": 1}):
    A[k] = T.float32(3)
for m in T.vectorized(1, 4):
    A[m] = T.float32(4)
for j in range(4, 8):
    A[j] = T.float32(5))");
}

TEST(PrinterLoops, ThreadBindingAndInt64Extents) {
  Buffer A = decl_buffer({IntImm(DataType::Int(64), 16)}, kF32, "A");
  Var i("i", DataType::Int(64)), t("t");
  Stmt s = For(i, IntImm(DataType::Int(64), 0), IntImm(DataType::Int(64), 16), ForKind::kSerial,
               ThreadLoop(t, 32, "threadIdx.x", BufferStore(A, F32(0), {i})));
  EXPECT_EQ(AsTVMScript(s), R"(A = T.Buffer((T.int64(16),))
for i in range(T.int64(16)):
    for t in T.thread_binding(32, thread="threadIdx.x"):
        A[i] = T.float32(0))");
}

// ---- blocks -----------------------------------------------------------------

TEST(PrinterBlocks, RemapOnlyForPlainLoopVarsCoveringTheDomain) {
  Buffer A = decl_buffer({16, 16, 16}, kF32, "A");
  Var i("i"), j("j"), k("k"), vi("vi"), vj("vj"), vk("vk");
  // vi: bound to i but the domain (8) differs from the loop (16): explicit.
  // vj, vk: remapped together; an opaque axis never remaps.
  Var vo("vo");
  Block b({Axis(vi, 8), Axis(vj, 16), Axis(vk, 16, kCommReduce), Axis(vo, 16, kOpaque)},
          {Pt(A, {vi, vj, vk})}, {}, "B", Evaluate(IntImm(kI32, 0)));
  Stmt s = Loop(i, 16, Loop(j, 16, Loop(k, 16, BlockRealize({i, j, k, k}, True(), b))));
  EXPECT_EQ(AsTVMScript(s), R"(A = T.Buffer((16, 16, 16))
for i, j, k in T.grid(16, 16, 16):
    with T.block("B"):
        vi = T.axis.spatial(8, i)
        vj, vk = T.axis.remap("SR", [j, k])
        vo = T.axis.opaque(16, k)
        T.reads(A[vi, vj, vk])
        T.writes()
        T.evaluate(0))");
}

TEST(PrinterBlocks, NonzeroDomainsAnnotationsNestedAllocsMatchBuffersAndNoRealize) {
  Buffer A = decl_buffer({16, 16}, DataType::Float(16), "A");
  Buffer tile = decl_buffer({4, 16}, DataType::Float(16), "A_tile");
  Buffer scratch = decl_buffer({4}, DataType::Int(8), "scratch", "local");
  Var i("i"), vi("vi");
  Map<String, Any> ann;
  ann.Set("meta_schedule.tiling_structure", String("SSRSRS"));
  ann.Set("auto_unroll", 16);
  Block inner({IterVar(Range::FromMinExtent(IntImm(kI32, 2), IntImm(kI32, 4)), vi, kDataPar)},
              {BufferRegion(A, {Range::FromMinExtent(vi * 4, 4), Range::FromMinExtent(0, 16)})}, {}, "tile",
              BufferStore(scratch, IntImm(DataType::Int(8), 1), {IntImm(kI32, 0)}), std::nullopt, {scratch},
              {MatchBufferRegion(tile, BufferRegion(A, {Range::FromMinExtent(vi * 4, 4), Range::FromMinExtent(0, 16)}))},
              ann);
  Stmt s = Loop(i, 4, BlockRealize({i + 2}, True(), inner));
  Block bare({}, {}, {}, "opaque", s);
  EXPECT_EQ(AsTVMScript(bare), R"(A = T.Buffer((16, 16), "float16")
with T.block("opaque", no_realize=True):
    T.reads()
    T.writes()
    for i in range(4):
        with T.block("tile"):
            vi = T.axis.spatial((2, 6), i + 2)
            T.reads(A[vi * 4:vi * 4 + 4, 0:16])
            T.writes()
            T.block_attr({"auto_unroll": 16, "meta_schedule.tiling_structure": "SSRSRS"})
            scratch = T.alloc_buffer((4,), "int8", scope="local")
            A_tile = T.match_buffer(A[vi * 4:vi * 4 + 4, 0:16], (4, 16), "float16")
            scratch[0] = T.int8(1))");
}

TEST(PrinterBlocks, ExplicitRootWhenNoBlockInsideAndSameNamesInSiblingScopes) {
  Buffer A = decl_buffer({8}, kF32, "A");
  Var i("i"), i2("i");
  Stmt body = SeqStmt({Loop(i, 8, BufferStore(A, F32(0), {i})), Loop(i2, 8, BufferStore(A, F32(1), {i2}))});
  PrimFunc f = Func({A}, body, {}, "f");
  EXPECT_EQ(AsTVMScript(f), R"(# from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    T.func_attr({"global_symbol": "f", "tir.noalias": T.bool(True)})
    with T.block("root"):
        T.reads()
        T.writes()
        for i in range(8):
            A[i] = T.float32(0)
        for i in range(8):
            A[i] = T.float32(1))");
}

// ---- symbolic shapes and names ---------------------------------------------

TEST(PrinterFunction, SymbolicShapesUseHandlesMatchBufferAndSizeVarDefinitions) {
  Var n("n", DataType::Int(64));
  Buffer A = decl_buffer({n, IntImm(DataType::Int(64), 128)}, kF32, "A");
  Buffer B = decl_buffer({n}, DataType::Float(16), "B");
  Var a("var_A", DataType::Handle()), b("var_B", DataType::Handle()), m("m");
  Var i("i", DataType::Int(64));
  Stmt body = For(i, IntImm(DataType::Int(64), 0), n, ForKind::kSerial,
                  BufferStore(B, Cast(DataType::Float(16), Ld(A, {i, IntImm(DataType::Int(64), 0)})), {i}));
  Map<Var, Buffer> bmap;
  bmap.Set(a, A);
  bmap.Set(b, B);
  PrimFunc f({a, b, m}, body, bmap);
  EXPECT_EQ(AsTVMScript(f), R"(# from tvm.script import tir as T

@T.prim_func(private=True)
def main(var_A: T.handle, var_B: T.handle, m: T.int32):
    n = T.int64()
    A = T.match_buffer(var_A, (n, T.int64(128)))
    B = T.match_buffer(var_B, (n,), "float16")
    for i in range(n):
        B[i] = T.Cast("float16", A[i, T.int64(0)]))");
}

TEST(PrinterNames, DistinctVariablesSharingANameGetSuffixes) {
  Buffer A = decl_buffer({8, 8}, kF32, "A");
  Buffer A2 = decl_buffer({8}, kF32, "A");
  Var i("i"), i2("i"), T_var("T"), kw("lambda"), bad("x.y");
  Stmt inner = Loop(i2, 8, BufferStore(A, Ld(A2, {i}) + Cast(kF32, T_var + kw + bad), {i, i2}));
  Stmt s = Loop(i, 8, inner);
  EXPECT_EQ(AsTVMScript(s), R"(A = T.Buffer((8, 8))
A_1 = T.Buffer((8,))
T_1 = T.int32()
lambda_1 = T.int32()
x_y = T.int32()
for i, i_1 in T.grid(8, 8):
    A[i, i_1] = A_1[i] + T.Cast("float32", T_1 + lambda_1 + x_y))");
}

TEST(PrinterStatements, IfLetAllocateWhileEvaluateAndAttr) {
  Buffer A = decl_buffer({8}, kF32, "A");
  Var x("x"), z("z"), p("p", DataType::Handle());
  Buffer P = Buffer(p, kF32, {8}, {}, PrimExpr(), "P");
  Stmt alloc = Allocate(p, kF32, {8}, True(), DeclBuffer(P, BufferStore(P, F32(2), {IntImm(kI32, 0)})));
  Stmt call = Evaluate(CallIntrin(kI32, "tir.call_extern", {StringImm("f"), x}));
  Stmt let = LetStmt(x, IntImm(kI32, 3), SeqStmt({call, alloc}));
  Stmt cond = IfThenElse(z < 4, BufferStore(A, F32(1), {z}), BufferStore(A, F32(0), {z}));
  Stmt loop = While(z > 0, Evaluate(IntImm(kI32, 0)));
  Stmt attr = AttrStmt(String("x"), "pragma", IntImm(kI32, 1), cond);
  // Free variables and buffers are defined first, in order of first use.
  EXPECT_EQ(AsTVMScript(SeqStmt({let, attr, loop})), R"(z = T.int32()
A = T.Buffer((8,))
with T.LetStmt(3) as x:
    T.call_extern("int32", "f", x)
    P = T.decl_buffer((8,))
    P[0] = T.float32(2)
with T.attr("x", "pragma", 1):
    if z < 4:
        A[z] = T.float32(1)
    else:
        A[z] = T.float32(0)
while z > 0:
    T.evaluate(0))");
  // A LetStmt last in its scope prints as an annotated assignment.
  Var y("y");
  EXPECT_EQ(AsTVMScript(LetStmt(y, IntImm(kI32, 1), BufferStore(A, F32(0), {y}))), R"(A = T.Buffer((8,))
y: T.int32 = 1
A[y] = T.float32(0))");
}

TEST(PrinterGlobals, AsTVMScriptAcceptsSettingsAndRejectsUnknownOnes) {
  PackedFunc f = Registry::GetOrThrow("script.AsTVMScript");
  MMRelu m;
  IRModule mod = m.Original();
  std::string plain = f(mod).cast<std::string>();
  EXPECT_EQ(plain, AsTVMScript(mod));
  Map<String, Any> settings;
  settings.Set("indent_spaces", 2);
  settings.Set("show_meta", false);
  std::string two = f(mod, settings).cast<std::string>();
  EXPECT_NE(two.find("\n  @T.prim_func\n  def mm_relu("), std::string::npos) << two;
  Map<String, Any> bad;
  bad.Set("indent", 2);
  EXPECT_THROW(f(mod, bad), ValueError);
  EXPECT_THROW(f(1), TypeError);
  PackedFunc repr = Registry::GetOrThrow("node.AsRepr");
  EXPECT_EQ(repr(PrimExpr(Var("x") + 1)).cast<std::string>(), "x + 1");
  EXPECT_EQ(repr(mod).cast<std::string>(), plain);
  EXPECT_EQ(repr(String("s")).cast<std::string>().rfind("<runtime.String object at", 0), 0u);
}

// A stand-in for Relax: any BaseFunc subtype other than PrimFunc.
class FakeFuncNode : public BaseFuncNode {
 public:
  TESSERA_DECLARE_FINAL_OBJECT_INFO(FakeFuncNode, BaseFuncNode, "test.PrinterFakeFunc");
};

TEST(PrinterGlobals, OtherFunctionKindsPrintThroughTheirRegisteredPrinter) {
  IRModule mod = IRModule::Empty();
  mod.mutable_node()->Add(GlobalVar("fake"), BaseFunc(make_object<FakeFuncNode>()));
  std::string before = AsTVMScript(mod);
  EXPECT_NE(before.find("    # fake: a test.PrinterFakeFunc, which has no TVMScript printer"), std::string::npos);
  script::printer::RegisterFunctionPrinter(
      "test.PrinterFakeFunc",
      {[](const PrinterConfig&) { return std::string("# from tvm.script import relax as R"); },
       [](const BaseFunc&, const std::string& name, int indent, script::printer::PrinterContext* ctx,
          std::string* out) {
         std::string pad(indent * ctx->cfg.indent_spaces, ' ');
         *out += pad + "@R.function\n" + pad + "def " + name + "():\n" + pad + "    return R.tuple()\n";
       }});
  EXPECT_EQ(AsTVMScript(mod), R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def fake():
        return R.tuple())");
}

// A stand-in for a Relax function with a tensor parameter of symbolic shape.
class ShapeFuncNode : public BaseFuncNode {
 public:
  Array<PrimExpr> shape;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ShapeFuncNode, BaseFuncNode, "test.PrinterShapeFunc");
};

TEST(PrinterGlobals, DialectPrintersShareNamesFramesAndSpansWithTheTIRPrinter) {
  Var n("n"), other_n("n");
  auto node = make_object<ShapeFuncNode>();
  node->shape = {n, IntImm(kI32, 4), other_n * 2};
  script::printer::RegisterFunctionPrinter(
      "test.PrinterShapeFunc",
      {[](const PrinterConfig&) { return std::string("# from tvm.script import relax as R"); },
       [](const BaseFunc& func, const std::string& name, int indent, script::printer::PrinterContext* ctx,
          std::string* out) {
         script::printer::NameScope frame(&ctx->names);  // the function's frame
         script::printer::TIRPrinter tir(ctx);
         std::string shape;
         for (PrimExpr e : func.as<ShapeFuncNode>()->shape) shape += (shape.empty() ? "" : ", ") + tir.PrintPrimExpr(e);
         // The same variable prints under the same name again.
         std::string again = tir.PrintPrimExpr(func.as<ShapeFuncNode>()->shape[0]);
         std::string pad(indent * ctx->cfg.indent_spaces, ' ');
         *out += pad + "@R.function\n" + pad + "def " + name + "(x: R.Tensor((" + shape + "), \"float32\")) -> R.Tensor((" +
                 again + ",), \"float32\"):\n" + pad + "    return x\n";
       }});
  IRModule mod = IRModule::Empty();
  mod.mutable_node()->Add(GlobalVar("f"), BaseFunc(node));
  EXPECT_EQ(AsTVMScript(mod), R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((n, 4, n_1 * 2), "float32")) -> R.Tensor((n,), "float32"):
        return x)");
  // The expressions the dialect printed through the TIR printer have spans.
  script::printer::PrintedDoc doc = script::printer::AsTVMScriptWithSpans(mod);
  ASSERT_EQ(doc.SpansOf(n.get()).size(), 2u);
  EXPECT_EQ(doc.text().substr(doc.SpansOf(n.get())[0].begin, 1), "n");
  ASSERT_EQ(doc.SpansOf(other_n.get()).size(), 1u);
  EXPECT_EQ(doc.text().substr(doc.SpansOf(other_n.get())[0].begin, 3), "n_1");
}

}  // namespace
}  // namespace tessera
