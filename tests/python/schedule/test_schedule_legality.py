"""Legality checks of parallel/vectorize that TVM makes: blocks under the loop
must not be opaque, must be complete or reduction blocks (no write indexed by
a reduction variable: compact data flow) and must be bound quasi-affinely.
Each refusal is a ScheduleError naming the block, and leaves the module the
very same object; the legal neighbour of each case is accepted and checked
against NumPy."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T


@T.prim_func
def not_quasi_affine(A: T.Buffer((16, 128), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 11):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            vk = T.axis.reduce(128, k * k // 2)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def not_compact(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vk] = T.float32(0)
            B[vk] = B[vk] + A[vi, vk]


@T.prim_func
def opaque(A: T.Buffer((16,), "float32")):
    for i in range(15):
        with T.block("scan"):
            A[i + 1] = A[i + 1] + A[i]


@T.prim_func
def rowsum(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@pytest.mark.parametrize("func,block,primitive,match", [
    (not_quasi_affine, "B", "parallel", "not quasi-affine"),
    (not_compact, "B", "parallel", "reduction variable vk"),
    (opaque, "scan", "vectorize", "opaque"),
    (opaque, "scan", "parallel", "opaque"),
])
def test_refused(func, block, primitive, match):
    sch = tvm.tir.Schedule(func)
    before = sch.mod
    loop = sch.get_loops(block)[0]
    with pytest.raises(tvm.tir.ScheduleError, match=match) as info:
        getattr(sch, primitive)(loop)
    assert f'block "{block}"' in str(info.value)
    assert sch.mod.same_as(before)


def test_legal_neighbour_runs():
    sch = tvm.tir.Schedule(rowsum)
    sch.parallel(sch.get_loops("B")[0])
    f = tvm.build(sch.mod, target="llvm")
    a = np.random.rand(16, 16).astype("float32")
    b = tvm.nd.array(np.zeros(16, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(1), rtol=1e-5)


@T.prim_func
def annotated(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j in T.serial(16, annotations={"note": 1}):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)


def test_split_fuse_refuse_annotated_or_bound_loops():
    sch = tvm.tir.Schedule(annotated)
    before = sch.mod
    i, j = sch.get_loops("B")
    with pytest.raises(tvm.tir.ScheduleError, match="loop j has annotations"):
        sch.split(j, [None, 4])
    with pytest.raises(tvm.tir.ScheduleError, match="loop j has annotations"):
        sch.fuse(i, j)
    assert sch.mod.same_as(before)
    sch.unannotate(j, "note")
    sch.bind(j, "threadIdx.x")
    with pytest.raises(tvm.tir.ScheduleError, match="bound to a thread axis"):
        sch.split(j, [None, 4])


def test_storage_scopes_checked():
    sch = tvm.tir.Schedule(rowsum)
    before = sch.mod
    for call in (lambda: sch.cache_read("B", 0, "test_scope"), lambda: sch.cache_write("B", 0, "wmma"),
                 lambda: sch.cache_read("B", 0, "sharedx")):
        with pytest.raises(tvm.tir.ScheduleError, match="is not a storage scope"):
            call()
    assert sch.mod.same_as(before)
    sch.cache_read("B", 0, "shared.dyn")
    sch.cache_write("B", 0, "local")
    sch.set_scope("B", "B_local", "shared")  # buffer given by name
    assert sch.get(sch.get_block("B")).writes[0].buffer.scope() == "shared"
