"""pad_einsum (TVM semantics): an einsum block's iteration space padded to
multiples, through zero-padded input copies and a padded output copied back;
compared with hand-written TVMScript, run against NumPy, replayed from Python
and JSON traces; bad arguments are ScheduleErrors that leave the module
unchanged (Tessera also refuses padding a reduction whose update would not
ignore the padded zeros, which TVM accepts)."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip


@T.prim_func
def matmul(A: T.Buffer((6, 5), "float32"), B: T.Buffer((5, 8), "float32"), C: T.Buffer((6, 8), "float32")):
    for i, j, k in T.grid(6, 8, 5):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def matmul_padded(A: T.Buffer((6, 5), "float32"), B: T.Buffer((5, 8), "float32"), C: T.Buffer((6, 8), "float32")):
    A_pad = T.alloc_buffer((8, 8), "float32")
    B_pad = T.alloc_buffer((8, 8), "float32")
    C_pad = T.alloc_buffer((8, 8), "float32")
    for i0, i1 in T.grid(8, 8):
        with T.block("A_pad"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            T.reads(A[v0, v1])
            T.writes(A_pad[v0, v1])
            A_pad[v0, v1] = T.if_then_else(v0 < 6 and v1 < 5, A[v0, v1], T.float32(0))
    for i0, i1 in T.grid(8, 8):
        with T.block("B_pad"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            T.reads(B[v0, v1])
            T.writes(B_pad[v0, v1])
            B_pad[v0, v1] = T.if_then_else(v0 < 5, B[v0, v1], T.float32(0))
    for i, j, k in T.grid(8, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A_pad[vi, vk], B_pad[vk, vj])
            T.writes(C_pad[vi, vj])
            with T.init():
                C_pad[vi, vj] = T.float32(0)
            C_pad[vi, vj] = C_pad[vi, vj] + A_pad[vi, vk] * B_pad[vk, vj]
    for i0, i1 in T.grid(6, 8):
        with T.block("C_pad"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            T.reads(C_pad[v0, v1])
            T.writes(C[v0, v1])
            C[v0, v1] = C_pad[v0, v1]


@T.prim_func
def row_max(A: T.Buffer((4, 5), "float32"), C: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 5):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(C[vi])
            with T.init():
                C[vi] = T.float32(-1e30)
            C[vi] = T.max(C[vi], A[vi, vk])


@T.prim_func
def shifted(A: T.Buffer((8,), "float32"), B: T.Buffer((7,), "float32")):
    for i in range(7):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi + 1]


@T.prim_func
def two_blocks_one_loop(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32"), C: T.Buffer((7,), "float32")):
    for i in range(7):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = A[vi] * T.float32(2)


def _run_matmul(mod):
    a = np.random.rand(6, 5).astype("float32")
    b = np.random.rand(5, 8).astype("float32")
    c = tvm.nd.array(np.zeros((6, 8), "float32"))
    tvm.build(mod, target="llvm -bound-check")(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)


def test_pad_matmul_all_axes():
    sch = tvm.tir.Schedule(matmul)
    sch.pad_einsum("C", [4, 4, 4])  # j (8) needs no padding
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], matmul_padded)
    verify_trace_roundtrip(sch, matmul)
    _run_matmul(sch.mod)
    # The padded loops tile evenly now.
    block = sch.get_block("C")
    i, _, k = sch.get_loops(block)
    sch.split(i, factors=[None, 4])
    sch.split(k, factors=[None, 4])
    _run_matmul(sch.mod)


def test_nothing_to_pad_changes_nothing_but_is_recorded():
    sch = tvm.tir.Schedule(matmul)
    before = sch.mod
    sch.pad_einsum("C", [1, 2, 5])
    assert sch.mod.same_as(before)
    assert "sch.pad_einsum(block=b0, padding=[1, 2, 5])" in "\n".join(sch.trace.as_python())


def test_spatial_padding_of_a_non_product_reduction_is_fine():
    sch = tvm.tir.Schedule(row_max)
    sch.pad_einsum("C", [8, 1])
    a = np.random.rand(4, 5).astype("float32")
    c = tvm.nd.array(np.zeros((4,), "float32"))
    tvm.build(sch.mod, target="llvm -bound-check")(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a.max(axis=1))
    verify_trace_roundtrip(sch, row_max)


@pytest.mark.parametrize("prog, block, padding, match", [
    (matmul, "C", [4, 4], "3 iteration variables"),
    (matmul, "C", [4, 0, 4], "positive"),
    (row_max, "C", [1, 4], "would change the result"),
    (shifted, "B", [4], "not an einsum"),
    (two_blocks_one_loop, "C", [4], "holds other blocks"),
])
def test_refusals_leave_the_module(prog, block, padding, match):
    sch = tvm.tir.Schedule(prog)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match=match):
        sch.pad_einsum(block, padding)
    assert sch.mod.same_as(before)


def test_bad_padding_type():
    sch = tvm.tir.Schedule(matmul)
    with pytest.raises(TypeError):
        sch.pad_einsum("C", 4)


@T.prim_func
def matmul_f16_f32(A: T.Buffer((6, 5), "float16"), B: T.Buffer((5, 8), "float16"), C: T.Buffer((6, 8), "float32")):
    for i, j, k in T.grid(6, 8, 5):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.Cast("float32", B[vk, vj])


def test_a_mixed_precision_matmul_pads_its_reduction():
    """The factors may be cast loads (fp16 operands accumulated in fp32): a cast of the padded zero is zero."""
    sch = tvm.tir.Schedule(matmul_f16_f32)
    sch.pad_einsum("C", [8, 8, 8])
    assert [int(sch.get(x).extent) for x in sch.get_loops(sch.get_block("C"))] == [8, 8, 8]
    a = np.random.rand(6, 5).astype("float16")
    b = np.random.rand(5, 8).astype("float16")
    c = tvm.nd.array(np.zeros((6, 8), "float32"))
    tvm.build(sch.mod, target="llvm -bound-check")(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a.astype("float32") @ b.astype("float32"), rtol=1e-5)
    verify_trace_roundtrip(sch, matmul_f16_f32)
