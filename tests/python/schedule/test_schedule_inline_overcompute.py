"""reverse_compute_inline into a producer that computes more than the
consumer reads (TVM: the producer gets a predicate limiting it to the
consumer's domain), against a hand-written expected module and NumPy; a
producer computing less than the consumer reads is still refused."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T


@T.prim_func
def overcomputed(A: T.Buffer((16, 16), "float32"), C: T.Buffer((15, 13), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(15, 13):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def overcomputed_inlined(A: T.Buffer((16, 16), "float32"), C: T.Buffer((15, 13), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.where(i < 15 and j < 13)
            C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)


def test_overcomputed_producer_gets_a_predicate():
    sch = tvm.tir.Schedule(overcomputed)
    sch.reverse_compute_inline(sch.get_block("C"))
    tvm.ir.assert_structural_equal(sch.mod["main"], overcomputed_inlined.with_attr("global_symbol", "overcomputed"))
    f = tvm.build(sch.mod, target="llvm -bound-check")
    a = np.random.rand(16, 16).astype("float32")
    c = tvm.nd.array(np.zeros((15, 13), "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a[:15, :13] * 2 + 1, rtol=1e-6)


@T.prim_func
def undercomputed(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(8, 16):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            vj = T.axis.spatial(16, j)
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


def test_producer_computing_less_is_refused():
    sch = tvm.tir.Schedule(undercomputed)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="reads only part"):
        sch.reverse_compute_inline(sch.get_block("C"))
    assert sch.mod.same_as(before)


@T.prim_func
def fused_overcomputed(A: T.Buffer((16, 16), "float32"), C: T.Buffer((15, 13), "float32")):
    B = T.alloc_buffer((16, 16))
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(16, i // 16)
            vj = T.axis.spatial(16, i % 16)
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(15, 13):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def fused_overcomputed_inlined(A: T.Buffer((16, 16), "float32"), C: T.Buffer((15, 13), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(16, i // 16)
            vj = T.axis.spatial(16, i % 16)
            # i // 16 < 15 and i % 16 < 13 tightened (as TVM): i < 14 * 16 + 13
            T.where(i < 237 and i % 16 < 13)
            C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)


def test_fused_producer_predicate_is_tightened():
    sch = tvm.tir.Schedule(fused_overcomputed, debug_mask="all")
    sch.reverse_compute_inline(sch.get_block("C"))
    tvm.ir.assert_structural_equal(sch.mod["main"],
                                   fused_overcomputed_inlined.with_attr("global_symbol", "fused_overcomputed"))
    a = np.random.rand(16, 16).astype("float32")
    c = tvm.nd.array(np.full((15, 13), -5, "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a[:15, :13] * 2 + 1, rtol=1e-6)
