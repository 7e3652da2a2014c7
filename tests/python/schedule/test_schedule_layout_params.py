"""transform_layout of function parameters (TVM semantics: the parameter's
buffer in the signature takes the new shape, so callers pass arrays in the
new layout), for read and write buffers, checked against NumPy, with its
Python and JSON trace replay. pad_value is checked as TVM does and has no
effect on a map that needs no padding (padding: test_schedule_layout_padding.py)."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule.testing import verify_trace_roundtrip


@T.prim_func
def scale(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


def _call(mod, a, out_shape):
    f = tvm.build(mod, target="llvm")
    out = tvm.nd.array(np.zeros(out_shape, "float32"))
    f(tvm.nd.array(a), out)
    return out.numpy()


def test_read_parameter_tiled():
    sch = tvm.tir.Schedule(scale)
    sch.transform_layout("B", ("read", 0), lambda i, j: (i // 4, j, i % 4))
    assert [int(x) for x in sch.mod["main"].buffer_map[sch.mod["main"].params[0]].shape] == [4, 8, 4]
    a = np.random.rand(16, 8).astype("float32")
    tiled = a.reshape(4, 4, 8).transpose(0, 2, 1).copy()  # tiled[io, j, ii] = a[io * 4 + ii, j]
    np.testing.assert_allclose(_call(sch.mod, tiled, (16, 8)), a * 2, rtol=1e-6)
    verify_trace_roundtrip(sch, scale)


def test_write_parameter_transposed():
    sch = tvm.tir.Schedule(scale)
    sch.transform_layout("B", "B", lambda i, j: (j, i))
    a = np.random.rand(16, 8).astype("float32")
    np.testing.assert_allclose(_call(sch.mod, a, (8, 16)), (a * 2).T, rtol=1e-6)
    verify_trace_roundtrip(sch, scale)


def test_padding_without_pad_value_refused():
    sch = tvm.tir.Schedule(scale)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="pass pad_value"):
        sch.transform_layout("B", ("read", 0), lambda i, j: (i // 3, j, i % 3))
    assert sch.mod.same_as(before)


def test_pad_value_without_padding_changes_nothing():
    expected = tvm.tir.Schedule(scale)
    expected.transform_layout("B", ("read", 0), lambda i, j: (i // 4, j, i % 4))
    for pad in (tvm.tir.const(1, "float32"), 1.5, lambda a, b, c: tvm.tir.const(0, "float32")):
        sch = tvm.tir.Schedule(scale)
        sch.transform_layout("B", ("read", 0), lambda i, j: (i // 4, j, i % 4), pad_value=pad)
        tvm.ir.assert_structural_equal(sch.mod, expected.mod)


def test_pad_value_checked_as_tvm():
    sch = tvm.tir.Schedule(scale)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="dtype int32"):  # a Python int is int32
        sch.transform_layout("B", ("read", 0), lambda i, j: (i // 4, j, i % 4), pad_value=0)
    other = tvm.tir.decl_buffer((1,), "float32", name="other")
    with pytest.raises(tvm.tir.ScheduleError, match="reads other"):
        sch.transform_layout("B", ("read", 0), lambda i, j: (i // 4, j, i % 4), pad_value=lambda a, b, c: other[0])
    with pytest.raises(TypeError, match="pad_value"):
        sch.transform_layout("B", ("read", 0), lambda i, j: (i // 4, j, i % 4), pad_value="zero")
    assert sch.mod.same_as(before)


def test_assume_injective_transform_accepted():
    sch = tvm.tir.Schedule(scale)
    sch.transform_layout("B", ("read", 0), lambda i, j: (j, i), assume_injective_transform=True)
    a = np.random.rand(16, 8).astype("float32")
    np.testing.assert_allclose(_call(sch.mod, a.T.copy(), (16, 8)), a * 2, rtol=1e-6)
    # As TVM: with assume_injective_transform the buffer is padded (6 x 8 x 3)
    # without analysis; the loops still write only the 16 x 8 valid elements.
    sch.transform_layout("B", ("write", 0), lambda i, j: (i // 3, j, i % 3), assume_injective_transform=True)
    out = _call(sch.mod, a.T.copy(), (6, 8, 3))
    np.testing.assert_allclose(out.transpose(0, 2, 1).reshape(18, 8)[:16], a * 2, rtol=1e-6)
    with pytest.raises(TypeError):
        sch.transform_layout("B", ("write", 0), lambda i, j: (j, i), assume_injective_transform="yes")


def test_index_map_with_sampled_integers():
    """An index map may use sampled integers (TVM substitutes their values):
    the layout follows the decision, the trace keeps the map symbolic (Python
    and JSON replay), and replaying with another decision gives the layout of
    that decision."""
    def tiled_with(decision):
        sch = tvm.tir.Schedule(scale)
        block = sch.get_block("B")
        _, j0, j1 = sch.sample_perfect_tile(sch.get_loops(block)[1], 3, decision=decision)
        sch.transform_layout(block, ("write", 0), lambda i, j: (i, j // (j0 * j1), j % (j0 * j1)))
        return sch

    sch = tiled_with([2, 2, 2])
    shape = [int(x) for x in sch.mod["main"].buffer_map[sch.mod["main"].params[1]].shape]
    assert shape == [16, 2, 4]
    trace = "\n".join(sch.trace.as_python())
    assert "index_map=lambda i, j: (i, j // (v4 * v5), j % (v4 * v5))" in trace, trace
    verify_trace_roundtrip(sch, scale, text_format="json")
    verify_trace_roundtrip(sch, scale, text_format="python")
    a = np.random.rand(16, 8).astype("float32")
    np.testing.assert_allclose(_call(sch.mod, a, (16, 2, 4)), (a * 2).reshape(16, 2, 4), rtol=1e-6)
    # Replaying the JSON trace with decision [4, 1, 2] lays B out as 16x4x2.
    trace = tvm.tir.schedule.Trace.from_json(sch.trace.as_json())
    sample = [inst for inst in trace.insts if inst.kind.name == "SamplePerfectTile"][0]
    other = tvm.tir.Schedule(scale)
    trace.with_decision(sample, [4, 1, 2], remove_postproc=True).apply_to_schedule(other)
    tvm.ir.assert_structural_equal(other.mod["main"], tiled_with([4, 1, 2]).mod["main"])
    assert [int(x) for x in other.mod["main"].buffer_map[other.mod["main"].params[1]].shape] == [16, 4, 2]


def test_index_map_json_keeps_free_variables():
    """An IndexMap using a variable that is not an initial index (a symbolic
    extent) round-trips through JSON: the variable comes back by name."""
    n = tvm.tir.Var("n", "int32")
    m = tvm.tir.IndexMap.from_func(lambda i: (i // n, i % n), index_dtype="int32")
    back = tvm.ir.load_json(tvm.ir.save_json(m))
    assert str(back.final_indices[0]) == "i // n" and str(back.final_indices[1]) == "i % n"
