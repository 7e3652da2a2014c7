"""relax.transform.AnnotateTIROpPattern: each PrimFunc gets "op_pattern", the
OpPatternKind read from how its blocks index their buffers (elementwise,
broadcast, injective, reduction, matmul/conv/pool-like, opaque); existing
annotations are kept. C++: src/relax/transform/annotate_tir_op_pattern.cc."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, topi
from tessera.script import tir as T, relax as R, ir as I

K_ELEMWISE, K_BROADCAST, K_INJECTIVE, K_COMM_REDUCE, K_OUT_EWISE_FUSABLE, K_OPAQUE = 0, 1, 2, 3, 4, 8


def _pattern(prim_func, name="f"):
    mod = tvm.IRModule({name: prim_func})
    out = relax.transform.AnnotateTIROpPattern()(mod)
    return int(out[name].attrs["op_pattern"])


def test_elementwise_and_bias_add():
    @T.prim_func
    def ewise(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
        for i, j in T.grid(16, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)

    @T.prim_func
    def bias_add(A: T.Buffer((1, 8), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((1, 8), "float32")):
        for i, j in T.grid(1, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vj]

    @T.prim_func
    def unit_and_scalar(A: T.Buffer((2, 4, 3), "float32"), B: T.Buffer((4, 1, 1), "float32"),
                        S: T.Buffer((), "float32"), C: T.Buffer((2, 4, 3), "float32")):
        for i, j, k in T.grid(2, 4, 3):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                C[vi, vj, vk] = A[vi, vj, vk] + B[vj, 0, 0] * S[()]

    assert _pattern(ewise) == K_ELEMWISE
    assert _pattern(bias_add) == K_ELEMWISE
    assert _pattern(unit_and_scalar) == K_ELEMWISE


def test_broadcast_and_injective():
    @T.prim_func
    def bcast(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 3, 4, 2), "float32")):
        for i, j, k, l in T.grid(4, 3, 4, 2):
            with T.block("B"):
                vi, vj, vk, vl = T.axis.remap("SSSS", [i, j, k, l])
                B[vi, vj, vk, vl] = A[vi, vk]

    @T.prim_func
    def reshape(A: T.Buffer((4, 4, 2, 2), "float32"), B: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(8, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi // 2, vj // 2, vi % 2, vj % 2]

    @T.prim_func
    def transpose(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 4), "float32")):
        for i, j in T.grid(8, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vj, vi]

    assert _pattern(bcast) == K_BROADCAST
    assert _pattern(reshape) == K_INJECTIVE
    assert _pattern(transpose) == K_INJECTIVE


def test_reductions():
    @T.prim_func
    def row_sum(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
        for i, k in T.grid(16, 16):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]

    @T.prim_func
    def matmul(A: T.Buffer((8, 16), "float16"), B: T.Buffer((16, 4), "float16"), C: T.Buffer((8, 4), "float32")):
        for i, j, k in T.grid(8, 4, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.Cast("float32", B[vk, vj])

    @T.prim_func
    def max_pool(A: T.Buffer((1, 2, 8, 8), "float32"), B: T.Buffer((1, 2, 4, 4), "float32")):
        for n, c, h, w, rh, rw in T.grid(1, 2, 4, 4, 2, 2):
            with T.block("B"):
                vn, vc, vh, vw, vrh, vrw = T.axis.remap("SSSSRR", [n, c, h, w, rh, rw])
                with T.init():
                    B[vn, vc, vh, vw] = T.float32(-3.4e38)
                B[vn, vc, vh, vw] = T.max(B[vn, vc, vh, vw], A[vn, vc, vh * 2 + vrh, vw * 2 + vrw])

    assert _pattern(row_sum) == K_COMM_REDUCE
    assert _pattern(matmul) == K_OUT_EWISE_FUSABLE
    assert _pattern(max_pool) == K_OUT_EWISE_FUSABLE


def test_reduction_then_output_block_is_out_ewise_fusable():
    """A reduction whose result feeds the output block (softmax, layer norm), as TVM."""
    mod = relax.transform.LegalizeOps()(_softmax_module())
    out = relax.transform.AnnotateTIROpPattern()(mod)
    prims = {gv.name_hint: f for gv, f in out.functions.items() if isinstance(f, tvm.tir.PrimFunc)}
    assert len(prims) == 1
    assert int(next(iter(prims.values())).attrs["op_pattern"]) == K_OUT_EWISE_FUSABLE


def _softmax_module():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4, 8), "float32")):
            with R.dataflow():
                y = R.nn.softmax(x, axis=-1)
                R.output(y)
            return y

    return Mod


def test_opaque_functions():
    @T.prim_func
    def extern(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                T.evaluate(T.call_extern("int32", "my_kernel", vi))

    @T.prim_func
    def scan(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        with T.block("scan"):
            B[0] = A[0]
            for k in range(7):
                B[k + 1] = B[k] + A[k + 1]

    @T.prim_func
    def spatial_gather(A: T.Buffer((8,), "float32"), I_: T.Buffer((4,), "int32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[I_[vi]]

    assert _pattern(extern) == K_OPAQUE
    assert _pattern(scan) == K_OPAQUE
    assert _pattern(spatial_gather) == K_INJECTIVE  # a gather (take) is injective, as in TVM


def test_legalized_mlp_and_existing_annotation_kept():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 8), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((4, 8), "float32"))
    b = relax.Var("b", relax.TensorStructInfo((4,), "float32"))
    with bb.function("main", [x, w, b]):
        with bb.dataflow():
            wt = bb.emit_te(topi.transpose, w)
            mm = bb.emit_te(topi.matmul, x, wt)
            add = bb.emit_te(topi.add, mm, b)
            gv = bb.emit_output(bb.call_te(topi.nn.relu, add))
        bb.emit_func_output(gv)
    mod = bb.get()
    mod["relu"] = mod["relu"].with_attr("op_pattern", 8)
    out = relax.transform.AnnotateTIROpPattern()(mod)
    got = {gv.name_hint: int(f.attrs["op_pattern"]) for gv, f in out.functions.items()
           if isinstance(f, tvm.tir.PrimFunc)}
    assert got == {"transpose": K_INJECTIVE, "matmul": K_OUT_EWISE_FUSABLE, "add": K_ELEMWISE, "relu": K_OPAQUE}
    # The input module is unchanged and Relax functions get no attribute.
    assert "op_pattern" not in (mod["add"].attrs or {})
    assert out["main"].attrs is None or "op_pattern" not in out["main"].attrs
