"""merge (TVM semantics): side-by-side loop nests merged level by level into
one chain; compared with hand-written TVMScript, run against NumPy, replayed
from Python and JSON traces; bad arguments (and nests that depend on each
other, which TVM does not check) are ScheduleErrors that leave the module
unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip


@T.prim_func
def two_outputs(A: T.Buffer((8, 6), "float32"), C: T.Buffer((8, 6), "float32"), D: T.Buffer((8, 3), "float32")):
    for i, j in T.grid(8, 6):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(8, 3):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = A[vi, vj * 2] * T.float32(2)


@T.prim_func
def two_outputs_merged(A: T.Buffer((8, 6), "float32"), C: T.Buffer((8, 6), "float32"),
                       D: T.Buffer((8, 3), "float32")):
    for i_m in range(8):
        for j in range(6):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i_m, j])
                C[vi, vj] = A[vi, vj] + T.float32(1)
        for j in range(3):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i_m, j])
                D[vi, vj] = A[vi, vj * 2] * T.float32(2)


@T.prim_func
def chain(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
    for i in range(8):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[7 - vi]


@T.prim_func
def separated(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32"),
              D: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
    for i in range(8):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = A[vi] * T.float32(3)
    for i in range(8):
        with T.block("D"):
            vi = T.axis.remap("S", [i])
            D[vi] = C[vi] * T.float32(2)


def test_merge_outer_loops():
    sch = tvm.tir.Schedule(two_outputs)
    merged = sch.merge(sch.get_loops("C")[0], sch.get_loops("D")[0])
    assert sch.get(merged).loop_var.name == "i_m"
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], two_outputs_merged)
    verify_trace_roundtrip(sch, two_outputs)
    a = np.random.rand(8, 6).astype("float32")
    c, d = tvm.nd.array(np.zeros((8, 6), "float32")), tvm.nd.array(np.zeros((8, 3), "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), c, d)
    np.testing.assert_allclose(c.numpy(), a + 1, rtol=1e-6)
    np.testing.assert_allclose(d.numpy(), a[:, ::2] * 2, rtol=1e-6)
    # The merged loop is a loop like any other.
    sch.parallel(merged)
    assert sch.get(merged).kind == tvm.tir.ForKind.PARALLEL


def test_merge_second_level_merges_the_loops_above_too():
    sch = tvm.tir.Schedule(separated)
    sch.merge(sch.get_loops("B")[0], sch.get_loops("C")[0])
    verify_trace_roundtrip(sch, separated)
    a = np.random.rand(8).astype("float32")
    outs = [tvm.nd.array(np.zeros(8, "float32")) for _ in range(3)]
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), *outs)
    np.testing.assert_allclose([o.numpy() for o in outs], [a + 1, a * 3, a * 6], rtol=1e-6)


def _loop0(block):
    return lambda sch: sch.get_loops(block)[0]


@pytest.mark.parametrize("prog, first, second, match", [
    (chain, _loop0("B"), _loop0("C"), "merging them would reorder"),
    (separated, _loop0("B"), _loop0("D"), "a statement between the nests"),
    (two_outputs, _loop0("C"), lambda s: s.get_loops("D")[1], "another depth"),
    (two_outputs, lambda s: s.get_loops("C")[1], lambda s: s.get_loops("D")[1], "differs from loop"),
    (two_outputs, _loop0("C"), lambda s: s.get_loops("C")[1], "another depth"),
])
def test_refusals_leave_the_module(prog, first, second, match):
    sch = tvm.tir.Schedule(prog)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match=match):
        sch.merge(first(sch), second(sch))
    assert sch.mod.same_as(before)


def test_merge_needs_two_loops():
    sch = tvm.tir.Schedule(two_outputs)
    with pytest.raises(tvm.tir.ScheduleError, match="at least two loops"):
        sch.merge(sch.get_loops("C")[0])
