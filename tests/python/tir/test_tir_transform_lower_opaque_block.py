"""tir.transform.LowerOpaqueBlock alone: blocks disappear; predicates become
`if`, block allocations become Allocate + DeclBuffer, match_buffers index
their source."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tir_transform_helpers import check, find_nodes, run, run_pass


@T.prim_func
def before(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i0, i1 in T.grid(3, 4):
        with T.block("b"):
            T.where(i0 * 4 + i1 < 10)
            T.reads(A[i0 * 4 + i1])
            T.writes(B[i0 * 4 + i1])
            B[i0 * 4 + i1] = A[i0 * 4 + i1] * T.float32(3)


@T.prim_func
def expected(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i0, i1 in T.grid(3, 4):
        if i0 * 4 + i1 < 10:
            B[i0 * 4 + i1] = A[i0 * 4 + i1] * T.float32(3)


@T.prim_func
def with_alloc(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": True})
    Tmp = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("t"):
            vi = T.axis.spatial(8, i)
            Tmp[vi] = A[vi] + T.float32(1)
    for i in range(8):
        with T.block("c"):
            vi = T.axis.spatial(8, i)
            C[vi] = Tmp[7 - vi] * T.float32(2)


@T.prim_func
def with_match(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in range(4):
        with T.block("row"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi, 0:8])
            T.writes(B[vi, 0:8])
            Arow = T.match_buffer(A[vi, 0:8], (1, 8))
            for j in range(8):
                B[vi, j] = Arow[0, j] + T.float32(1)


def test_predicate_becomes_if():
    check(tvm.tir.transform.LowerOpaqueBlock(), before, expected)


def test_alloc_buffer_becomes_allocate_and_decl_buffer():
    after = run_pass(tvm.tir.transform.LowerOpaqueBlock(), with_alloc)
    assert not find_nodes(after, tvm.tir.Block) and not find_nodes(after, tvm.tir.BlockRealize)
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    (decl,) = find_nodes(after, tvm.tir.DeclBuffer)
    assert decl.buffer.name == "Tmp" and alloc.buffer_var.same_as(decl.buffer.data)
    assert [int(e) for e in alloc.extents] == [8] and alloc.dtype == "float32"
    a = np.random.rand(8).astype("float32")
    (_, c) = run(after, a, np.zeros(8, "float32"))
    np.testing.assert_allclose(c, (a[::-1] + 1) * 2, rtol=1e-6)


def test_match_buffer_indexes_its_source():
    after = run_pass(tvm.tir.transform.LowerOpaqueBlock(), with_match)
    loads = find_nodes(after, tvm.tir.BufferLoad)
    assert [ld.buffer.name for ld in loads] == ["A"]  # Arow[0, j] became A[i + 0, 0 + j]
    a = np.random.rand(4, 8).astype("float32")
    (_, b) = run(after, a, np.zeros((4, 8), "float32"))
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)


def test_lowered_predicate_skips_out_of_range():
    a = np.random.rand(10).astype("float32")
    (_, b) = run(run_pass(tvm.tir.transform.LowerOpaqueBlock(), before), a, np.zeros(10, "float32"))
    np.testing.assert_allclose(b, a * 3, rtol=1e-6)


@T.prim_func
def with_init(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 4):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def test_init_is_refused_not_dropped():
    with pytest.raises(ValueError, match="block sum.*LowerInitBlock"):
        run_pass(tvm.tir.transform.LowerOpaqueBlock(), with_init)
