"""transform_layout with an index map that pads the buffer (14 -> 4 x 4) and
pad_value, as TVM: the producer's loops widened with if_then_else, a
padding block after a producer that cannot be widened, T.assume on a padded
input; each against a hand-written expected module and NumPy, plus the
refusals (no pad_value, wrong dtype, other buffers, several values) and the
trace replay."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T
from tessera.tir.schedule.testing import verify_trace_roundtrip


@T.prim_func
def copy14(A: T.Buffer(14, "int32"), C: T.Buffer(14, "int32")):
    B = T.alloc_buffer(14, "int32")
    for i in T.serial(14):
        with T.block("block"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi]
    for i in T.serial(14):
        with T.block("out"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi] * 2


@T.prim_func
def copy14_padded(A: T.Buffer(14, "int32"), C: T.Buffer(14, "int32")):
    B = T.alloc_buffer((4, 4), "int32")
    for i, j in T.grid(4, 4):
        with T.block("block"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = T.if_then_else(vi == 3 and 2 <= vj, 7, A[vi * 4 + vj], dtype="int32")
    for i in T.serial(14):
        with T.block("out"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi // 4, vi % 4] * 2


def _run(mod, *arrays):
    f = tvm.build(mod, target="llvm")
    nds = [tvm.nd.array(a) for a in arrays]
    f(*nds)
    return [x.numpy() for x in nds]


def test_producer_widened_with_if_then_else():
    sch = tvm.tir.Schedule(copy14)
    sch.transform_layout("block", "B", lambda i: [i // 4, i % 4], pad_value=7)
    tvm.ir.assert_structural_equal(sch.mod["main"], copy14_padded.with_attr("global_symbol", "copy14"))
    a = np.arange(14, dtype="int32") + 3
    _, c = _run(sch.mod, a, np.zeros(14, "int32"))
    np.testing.assert_array_equal(c, a * 2)
    verify_trace_roundtrip(sch, copy14)


@T.prim_func
def write_param(A: T.Buffer(14, "float32"), B: T.Buffer(14, "float32")):
    for i in T.serial(14):
        with T.block("block"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)


def test_output_parameter_padding_holds_pad_value():
    # The padding of an output parameter is written: NumPy sees pad_value there.
    sch = tvm.tir.Schedule(write_param)
    sch.transform_layout("block", "B", lambda i: [i // 4, i % 4], pad_value=-1.5)
    a = np.random.rand(14).astype("float32")
    _, b = _run(sch.mod, a, np.zeros((4, 4), "float32"))
    np.testing.assert_allclose(b.reshape(16)[:14], a + 1, rtol=1e-6)
    np.testing.assert_array_equal(b.reshape(16)[14:], [-1.5, -1.5])


def test_pad_value_function_of_the_new_indices():
    sch = tvm.tir.Schedule(write_param)
    sch.transform_layout("block", "B", lambda i: [i // 4, i % 4],
                         pad_value=lambda i, j: tir.Cast("float32", i * 10 + j))
    a = np.random.rand(14).astype("float32")
    _, b = _run(sch.mod, a, np.zeros((4, 4), "float32"))
    np.testing.assert_array_equal(b[3, 2:], [32.0, 33.0])
    np.testing.assert_allclose(b.reshape(16)[:14], a + 1, rtol=1e-6)


@T.prim_func
def reduce14(A: T.Buffer((14, 8), "int32"), B: T.Buffer(14, "int32")):
    for i, k in T.grid(14, 8):
        with T.block("block"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = 0
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def reduce14_padded(A: T.Buffer((14, 8), "int32"), B: T.Buffer((4, 4), "int32")):
    for i, j, k in T.grid(4, 4, 8):
        with T.block("block"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                B[vi, vj] = T.if_then_else(vi == 3 and 2 <= vj, 5, 0, dtype="int32")
            B[vi, vj] = T.if_then_else(vi == 3 and 2 <= vj, 5, B[vi, vj] + A[vi * 4 + vj, vk], dtype="int32")


def test_reduction_producer():
    sch = tvm.tir.Schedule(reduce14)
    sch.transform_layout("block", "B", lambda i: [i // 4, i % 4], pad_value=5)
    tvm.ir.assert_structural_equal(sch.mod["main"], reduce14_padded.with_attr("global_symbol", "reduce14"))
    a = np.random.randint(-50, 50, (14, 8)).astype("int32")
    _, b = _run(sch.mod, a, np.zeros((4, 4), "int32"))
    np.testing.assert_array_equal(b.reshape(16)[:14], a.sum(axis=1))
    np.testing.assert_array_equal(b.reshape(16)[14:], [5, 5])


@T.prim_func
def two_outputs(A: T.Buffer(14, "int32"), B: T.Buffer(14, "int32"), C: T.Buffer(14, "int32")):
    for i in T.serial(14):
        with T.block("block"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi]
            C[vi] = A[vi] + 1


@T.prim_func
def two_outputs_padded(A: T.Buffer(14, "int32"), B: T.Buffer((4, 4), "int32"), C: T.Buffer(14, "int32")):
    for i in T.serial(14):
        with T.block("block"):
            vi = T.axis.remap("S", [i])
            B[vi // 4, vi % 4] = A[vi]
            C[vi] = A[vi] + 1
    for i, j in T.grid(4, 4):
        with T.block("buffer_B_padding"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.where(i == 3 and 2 <= j)
            B[vi, vj] = 9


def test_padding_block_after_a_producer_with_other_effects():
    sch = tvm.tir.Schedule(two_outputs)
    sch.transform_layout("block", "B", lambda i: [i // 4, i % 4], pad_value=9)
    tvm.ir.assert_structural_equal(sch.mod["main"], two_outputs_padded.with_attr("global_symbol", "two_outputs"))
    a = np.arange(14, dtype="int32")
    _, b, c = _run(sch.mod, a, np.zeros((4, 4), "int32"), np.zeros(14, "int32"))
    np.testing.assert_array_equal(b.reshape(16), np.concatenate([a, [9, 9]]))
    np.testing.assert_array_equal(c, a + 1)
    verify_trace_roundtrip(sch, two_outputs)


@T.prim_func
def read_input(A: T.Buffer(14, "int32"), B: T.Buffer(14, "int32")):
    for i in T.serial(14):
        with T.block("block"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi]


@T.prim_func
def read_input_padded(A: T.Buffer((4, 4), "int32"), B: T.Buffer(14, "int32")):
    for i, j in T.grid(4, 4):
        with T.block("buffer_A_assumptions"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.evaluate(T.assume(not (vi == 3 and 2 <= vj) or A[vi, vj] == 42))
    for i in T.serial(14):
        with T.block("block"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi // 4, vi % 4]


def test_padded_input_gets_an_assumption():
    sch = tvm.tir.Schedule(read_input)
    sch.transform_layout("block", "A", lambda i: [i // 4, i % 4], pad_value=42)
    tvm.ir.assert_structural_equal(sch.mod["main"], read_input_padded.with_attr("global_symbol", "read_input"))
    a = np.arange(16, dtype="int32").reshape(4, 4)
    _, b = _run(sch.mod, a, np.zeros(14, "int32"))  # the assumption costs nothing at run time
    np.testing.assert_array_equal(b, np.arange(14))


def test_offset_padding_at_both_ends():
    # (i + 1) // 8 over 16 elements: one element of padding before, seven after.
    sch = tvm.tir.Schedule(write_param)
    sch.transform_layout("block", "B", lambda i: [(i + 2) // 8, (i + 2) % 8], pad_value=0.5)
    fn = sch.mod["main"]
    assert [int(x) for x in fn.buffer_map[fn.params[1]].shape] == [2, 8]
    a = np.random.rand(14).astype("float32")
    _, b = _run(sch.mod, a, np.zeros((2, 8), "float32"))
    np.testing.assert_allclose(b.reshape(16)[2:], a + 1, rtol=1e-6)
    np.testing.assert_array_equal(b.reshape(16)[:2], [0.5, 0.5])


def test_refusals_leave_the_schedule_unchanged():
    sch = tvm.tir.Schedule(copy14)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="pass pad_value"):
        sch.transform_layout("block", "B", lambda i: [i // 4, i % 4])
    with pytest.raises(tvm.tir.ScheduleError, match="dtype int8"):
        sch.transform_layout("block", "B", lambda i: [i // 4, i % 4], pad_value=tir.IntImm("int8", 0))
    with pytest.raises(tvm.tir.ScheduleError, match="dtype float32"):
        sch.transform_layout("block", "B", lambda i: [i // 4, i % 4], pad_value=1.0)
    other = tir.decl_buffer((1,), "int32", name="other")
    with pytest.raises(tvm.tir.ScheduleError, match="reads other"):
        sch.transform_layout("block", "B", lambda i: [i // 4, i % 4], pad_value=lambda i, j: other[0])
    with pytest.raises(tvm.tir.ScheduleError, match="one value"):
        sch.transform_layout("block", "B", lambda i: [i // 4, i % 4], pad_value=lambda i, j: (i, j))
    with pytest.raises(TypeError, match="pad_value"):
        sch.transform_layout("block", "B", lambda i: [i // 4, i % 4], pad_value="zero")
    with pytest.raises(tvm.tir.ScheduleError, match="bijective"):  # not affine: no padding makes it a tiling
        sch.transform_layout("block", "B", lambda i: [i * i], pad_value=0)
    assert sch.mod.same_as(before)
    assert all(inst.kind.name == "GetBlock" for inst in sch.trace.insts)


def test_assume_injective_transform_skips_the_padding():
    sch = tvm.tir.Schedule(copy14)
    sch.transform_layout("block", "B", lambda i: [i // 4, i % 4], assume_injective_transform=True)
    fn = sch.mod["main"]
    assert "if_then_else" not in fn.script()
    a = np.arange(14, dtype="int32")
    _, c = _run(sch.mod, a, np.zeros(14, "int32"))
    np.testing.assert_array_equal(c, a * 2)


def test_index_map_with_star_args_and_keyword_only_index():
    # TVM's sugar: *indices takes the leading indices, k the last one.
    m = tvm.tir.IndexMap.from_func(lambda *indices, k: [*indices, k // 4, k % 4], ndim=3, index_dtype="int32")
    assert [v.name for v in m.initial_indices] == ["i0", "i1", "k"]
    assert str(m.map_indices([1, 2, 13])) == str([1, 2, 3, 1])
    with pytest.raises(ValueError, match="at least"):
        tvm.tir.IndexMap.from_func(lambda a, *rest, k: [a, k], ndim=1)


@T.prim_func
def int64_extent(A: T.Buffer((T.int64(8), T.int64(8)), "float32"), B: T.Buffer((T.int64(8), T.int64(8)), "float32")):
    for i, j in T.grid(T.int64(8), T.int64(8)):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


def test_trace_with_int64_constants_replays_from_python():
    # The printed index map holds T.int64(8): the replay evaluates it to a constant.
    sch = tvm.tir.Schedule(int64_extent)
    sch.transform_block_layout("B", lambda i, j: (i * 8 + j,))
    assert "T.int64(8)" in str(sch.trace)
    verify_trace_roundtrip(sch, int64_extent)


@T.prim_func
def tiled_reader(A: T.Buffer(32, "float32"), C: T.Buffer(32, "float32")):
    B = T.alloc_buffer(32)
    for i in range(32):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * T.float32(2)
    for o, i in T.grid(2, 16):
        with T.block("C"):
            vo, vi = T.axis.remap("SS", [o, i])
            C[vo * 16 + vi] = B[vo * 16 + vi] + T.float32(1)


@T.prim_func
def tiled_reader_transformed(A: T.Buffer(32, "float32"), C: T.Buffer(32, "float32")):
    B = T.alloc_buffer((2, 16))
    for i in range(32):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi // 16, vi % 16] = A[vi] * T.float32(2)
    for o, i in T.grid(2, 16):
        with T.block("C"):
            vo, vi = T.axis.remap("SS", [o, i])
            C[vo * 16 + vi] = B[vo, vi] + T.float32(1)


def test_mapped_indices_simplified_with_the_iteration_ranges():
    # (vo * 16 + vi) // 16 is vo since vi < 16 (TVM simplifies with its iterator context).
    sch = tvm.tir.Schedule(tiled_reader)
    sch.transform_layout("B", "B", lambda k: (k // 16, k % 16))
    tvm.ir.assert_structural_equal(sch.mod["main"], tiled_reader_transformed.with_attr("global_symbol", "tiled_reader"))
