"""reindex (TVM semantics): the staged buffer is indexed by the block's
iteration variables that the access uses; compared with hand-written
TVMScript, run against NumPy, replayed from Python and JSON traces; bad
arguments are ScheduleErrors that leave the module unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip


@T.prim_func
def transposed_scale(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 8), "float32")):
    for i, j in T.grid(6, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vj, vi] * T.float32(2)


@T.prim_func
def transposed_scale_reindex_read(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 8), "float32")):
    A_reindex = T.alloc_buffer((6, 8), "float32")
    for ax0, ax1 in T.grid(6, 8):
        with T.block("A_reindex_reindex"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v1, v0])
            T.writes(A_reindex[v0, v1])
            A_reindex[v0, v1] = A[v1, v0]
    for i, j in T.grid(6, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A_reindex[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A_reindex[vi, vj] * T.float32(2)


@T.prim_func
def batch_matmul(A: T.Buffer((2, 8, 4), "float32"), B: T.Buffer((2, 4, 6), "float32"),
                 C: T.Buffer((2, 8, 6), "float32")):
    for b, i, j, k in T.grid(2, 8, 6, 4):
        with T.block("C"):
            vb, vi, vj, vk = T.axis.remap("SSSR", [b, i, j, k])
            T.reads(C[vb, vi, vj], A[vb, vi, vk], B[vb, vk, vj])
            T.writes(C[vb, vi, vj])
            with T.init():
                C[vb, vi, vj] = T.float32(0)
            C[vb, vi, vj] = C[vb, vi, vj] + A[vb, vi, vk] * B[vb, vk, vj]


@T.prim_func
def batch_matmul_reindex_b_and_c(A: T.Buffer((2, 8, 4), "float32"), B: T.Buffer((2, 4, 6), "float32"),
                                 C: T.Buffer((2, 8, 6), "float32")):
    B_reindex = T.alloc_buffer((2, 6, 4), "float32")
    C_reindex = T.alloc_buffer((2, 8, 6), "float32")
    for ax0, ax1, ax2 in T.grid(2, 6, 4):
        with T.block("B_reindex_reindex"):
            v0, v1, v2 = T.axis.remap("SSS", [ax0, ax1, ax2])
            T.reads(B[v0, v2, v1])
            T.writes(B_reindex[v0, v1, v2])
            B_reindex[v0, v1, v2] = B[v0, v2, v1]
    for b, i, j, k in T.grid(2, 8, 6, 4):
        with T.block("C"):
            vb, vi, vj, vk = T.axis.remap("SSSR", [b, i, j, k])
            T.reads(C_reindex[vb, vi, vj], A[vb, vi, vk], B_reindex[vb, vj, vk])
            T.writes(C_reindex[vb, vi, vj])
            with T.init():
                C_reindex[vb, vi, vj] = T.float32(0)
            C_reindex[vb, vi, vj] = C_reindex[vb, vi, vj] + A[vb, vi, vk] * B_reindex[vb, vj, vk]
    for ax0, ax1, ax2 in T.grid(2, 8, 6):
        with T.block("C_reindex"):
            v0, v1, v2 = T.axis.remap("SSS", [ax0, ax1, ax2])
            T.reads(C_reindex[v0, v1, v2])
            T.writes(C[v0, v1, v2])
            C[v0, v1, v2] = C_reindex[v0, v1, v2]


@T.prim_func
def two_reads(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + A[vj, vi]


@T.prim_func
def accumulate_no_init(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = B[vi] + A[vi]


@T.prim_func
def split_nest(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = A[vi] * T.float32(2)


def test_reindex_read_transposed():
    sch = tvm.tir.Schedule(transposed_scale)
    rv = sch.reindex("B", ("read", 0))
    assert sch.get(rv).name_hint == "A_reindex_reindex"
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], transposed_scale_reindex_read)
    verify_trace_roundtrip(sch, transposed_scale)
    a = np.random.rand(8, 6).astype("float32")
    b = tvm.nd.array(np.zeros((6, 8), "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.T * 2, rtol=1e-6)


@pytest.mark.parametrize("by_name", [False, True])
def test_reindex_read_and_write_of_a_reduction(by_name):
    sch = tvm.tir.Schedule(batch_matmul)
    block = sch.get_block("C")
    sch.reindex(block, "B" if by_name else ("read", 2))
    # C is read and written: by name it resolves to the write, as in TVM.
    sch.reindex(block, "C" if by_name else ("write", 0))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], batch_matmul_reindex_b_and_c)
    verify_trace_roundtrip(sch, batch_matmul)
    a = np.random.rand(2, 8, 4).astype("float32")
    b = np.random.rand(2, 4, 6).astype("float32")
    c = tvm.nd.array(np.zeros((2, 8, 6), "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)


def test_reindex_trace_prints_tvm_form():
    sch = tvm.tir.Schedule(batch_matmul)
    sch.reindex("C", ("write", 0))
    assert 'sch.reindex(block=b0, buffer=("write", 0))' in "\n".join(sch.trace.as_python())


@pytest.mark.parametrize("prog, block, buffer, match", [
    (two_reads, "B", ("read", 0), "different indices"),
    (accumulate_no_init, "B", ("write", 0), "no init"),
    (accumulate_no_init, "B", ("read", 0), "also writes"),
    (split_nest, "C", ("read", 0), "single chain"),
    (transposed_scale, "B", ("read", 3), "out of range"),
    (transposed_scale, "B", "Q", "does not access"),
])
def test_reindex_refusals_leave_the_module(prog, block, buffer, match):
    sch = tvm.tir.Schedule(prog)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match=match):
        sch.reindex(block, buffer)
    assert sch.mod.same_as(before)
    assert len(sch.trace.insts) == 1  # only the get_block


def test_reindex_bad_buffer_argument_types():
    sch = tvm.tir.Schedule(transposed_scale)
    with pytest.raises(ValueError):
        sch.reindex("B", ("reads", 0))
    with pytest.raises(TypeError):
        sch.reindex("B", 0.5)


@T.prim_func
def _pad_tail(A: T.Buffer((4, 3), "float32"), C: T.Buffer((4, 3), "float32")):
    P = T.alloc_buffer((4, 3))
    for i, j in T.grid(4, 3):
        with T.block("P"):
            vi, vj = T.axis.remap("SS", [i, j])
            P[vi, vj] = A[vi, vj]
    for i, j in T.grid(4, 3):
        with T.block("pad"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.where(i == 3 and 1 <= j)
            P[vi, vj] = T.float32(0)
    for i, j in T.grid(4, 3):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = P[vi, vj] + T.float32(1)


def test_write_under_a_predicate_refused():
    """Random schedule case 19171: a block writing under a predicate (a
    padding block) cannot have its write reindexed: the copy covering its
    whole domain copied points it never writes over the other writer's."""
    sch = tvm.tir.Schedule(_pad_tail.with_attr("global_symbol", "main"))
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="under the predicate"):
        sch.reindex("pad", ("write", 0))
    assert sch.mod.same_as(before)
    a = np.random.rand(4, 3).astype("float32")
    c = tvm.nd.empty((4, 3), "float32")
    tvm.build(sch.mod, target="llvm -bound-check")["main"](tvm.nd.array(a), c)
    want = a + 1
    want[3, 1:] = 1
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-6)
