"""set_axis_separator (TVM semantics): a buffer gets axis_separators wherever
it is declared (allocation, parameter, buffers matched on it); compared with
hand-written TVMScript, replayed from Python and JSON traces, printed and
parsed back; FlattenBuffer turns it into an N-d buffer (one axis per group),
which the CPU backend lays out row-major (NumPy oracle); bad arguments leave
the module unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip


@T.prim_func
def element_wise(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8), "float32")
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def element_wise_sep(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8), "float32", axis_separators=[1])
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def element_wise_input_sep(A: T.Buffer((16, 8), "float32", axis_separators=(1,)),
                           C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8), "float32")
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def subregion(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8), "float32")
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            Bs = T.match_buffer(B[vi, vj], [], offset_factor=1)
            Bs[()] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def subregion_sep(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8), "float32", axis_separators=[1])
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            Bs = T.match_buffer(B[vi, vj], [], offset_factor=1, axis_separators=[0])
            Bs[()] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@pytest.mark.parametrize("buffer", [("write", 0), "B"])
def test_intermediate_buffer(buffer):
    sch = tir.Schedule(element_wise, debug_mask="all")
    sch.set_axis_separator(sch.get_block("B"), buffer, [1])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], element_wise_sep)
    assert not tvm.ir.structural_equal(sch.mod["main"], element_wise.with_attr("global_symbol", "main"))
    verify_trace_roundtrip(sch, element_wise)
    assert "sch.set_axis_separator(block=b0, buffer=(\"write\", 0), axis_separators=[1])" in \
        "\n".join(sch.trace.as_python())
    b = sch.get(sch.get_block("C")).reads[0].buffer
    assert [int(k) for k in b.axis_separators] == [1]


def test_input_buffer():
    sch = tir.Schedule(element_wise, debug_mask="all")
    sch.set_axis_separator(sch.get_block("B"), ("read", 0), [1])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], element_wise_input_sep)
    verify_trace_roundtrip(sch, element_wise)


def test_subregion_match_buffer():
    sch = tir.Schedule(subregion, debug_mask="all")
    sch.set_axis_separator("B", ("write", 0), [1])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], subregion_sep)
    verify_trace_roundtrip(sch, subregion)


@pytest.mark.parametrize("style", ["name", "buffer_object"])
def test_transform_layout_separator_matches_set_axis_separator(style):
    """transform_layout with IndexMap.AXIS_SEPARATOR (the buffer named or
    given as a Buffer object) gives what set_axis_separator gives, also when
    the buffer is viewed through T.match_buffer (the view follows)."""
    for func, expected in ((element_wise, element_wise_sep), (subregion, subregion_sep)):
        sch = tir.Schedule(func, debug_mask="all")
        buffer = "B" if style == "name" else sch.get(sch.get_block("B")).writes[0].buffer
        sch.transform_layout("B", buffer, lambda i, j: [i, tir.IndexMap.AXIS_SEPARATOR, j])
        assert_structural_equal_ignore_global_symbol(sch.mod["main"], expected)
        verify_trace_roundtrip(sch, func)


def test_transform_layout_refuses_non_identity_map_of_viewed_buffer():
    """A T.match_buffer view's region is in the old layout: a permuting map
    of the viewed buffer is refused naming the viewing block, the schedule
    unchanged."""
    sch = tir.Schedule(subregion, debug_mask="all")
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match=r"B.*match_buffer.*block \"B\""):
        sch.transform_layout("B", "B", lambda i, j: [j, i])
    assert sch.mod.same_as(before)


def test_print_parse_roundtrip():
    text = element_wise_sep.script()
    assert "axis_separators=[1]" in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), element_wise_sep)
    # the separators are compared
    assert not tvm.ir.structural_equal(element_wise_sep, element_wise)
    text = element_wise_input_sep.script()
    assert "axis_separators=[1]" in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), element_wise_input_sep)
    again = tvm.ir.load_json(tvm.ir.save_json(element_wise_sep))
    tvm.ir.assert_structural_equal(again, element_wise_sep)


def _lowered(func):
    mod = tvm.IRModule({"main": func})
    seq = tvm.transform.Sequential([tir.transform.LowerInitBlock(), tir.transform.ConvertBlocksToOpaque(),
                                    tir.transform.LowerOpaqueBlock(), tir.transform.FlattenBuffer()])
    return seq(mod)["main"]


def test_flatten_to_nd_buffer():
    f = _lowered(element_wise_sep)
    allocs, b_accesses, a_accesses = [], [], []

    def visit(node):
        if isinstance(node, tir.Allocate):
            allocs.append([int(e) for e in node.extents])
        if isinstance(node, (tir.BufferLoad, tir.BufferStore)):
            (b_accesses if node.buffer.name == "B" else a_accesses).append(node)

    tir.stmt_functor.post_order_visit(f.body, visit)
    assert allocs == [[16, 8]]
    assert b_accesses and all(len(x.indices) == 2 for x in b_accesses)
    assert all([int(k) for k in x.buffer.axis_separators] == [1] for x in b_accesses)
    assert a_accesses and all(len(x.indices) == 1 for x in a_accesses)


@pytest.mark.parametrize("func", [element_wise_sep, element_wise_input_sep])
def test_cpu_build_linearizes_nd_buffers(func):
    # The CPU has one flat memory: an N-d buffer is one row-major block there.
    lib = tvm.build(func, target="llvm -bound-check")
    a = np.random.default_rng(0).standard_normal((16, 8)).astype("float32")
    c = tvm.nd.array(np.zeros((16, 8), "float32"))
    lib(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)


def test_three_groups_run():
    @T.prim_func
    def f(A: T.Buffer((4, 6, 10), "float32"), C: T.Buffer((4, 6, 10), "float32")):
        B = T.alloc_buffer((4, 6, 10), "float32", axis_separators=[1, 2])
        for i, j, k in T.grid(4, 6, 10):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, vj, vk] - T.float32(3)
        for i, j, k in T.grid(4, 6, 10):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                C[vi, vj, vk] = B[3 - vi, vj, 9 - vk]

    sch = tir.Schedule(f)
    _, _, k = sch.get_loops(sch.get_block("C"))
    sch.vectorize(k)
    lib = tvm.build(sch.mod, target="llvm -bound-check")
    a = np.random.default_rng(1).standard_normal((4, 6, 10)).astype("float32")
    c = tvm.nd.array(np.zeros((4, 6, 10), "float32"))
    lib(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), (a - 3)[::-1, :, ::-1], rtol=1e-6)


@T.prim_func
def indexed_lookup():
    A = T.alloc_buffer([4, 4], dtype="int32")
    B = T.alloc_buffer([1, 1], dtype="int32")
    for j in T.serial(4):
        with T.block("block"):
            A[B[0, 0], j] = 0


@T.prim_func
def indexed_lookup_sep():
    A = T.alloc_buffer([4, 4], dtype="int32")
    B = T.alloc_buffer([1, 1], dtype="int32", axis_separators=[1])
    for j in T.serial(4):
        with T.block("block"):
            A[B[0, 0], j] = 0


def test_buffer_used_as_index():
    sch = tir.Schedule(indexed_lookup)
    sch.set_axis_separator("block", "B", [1])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], indexed_lookup_sep)


def test_bad_arguments_leave_schedule_unchanged():
    sch = tir.Schedule(element_wise, debug_mask="all")
    before = sch.mod
    with pytest.raises(AssertionError):
        sch.set_axis_separator(sch.get_block("B"), ("write", 1), [1])
    with pytest.raises(AssertionError):
        sch.set_axis_separator(sch.get_block("B"), ("read", -1), [1])
    with pytest.raises(tir.ScheduleError, match="out of range"):
        tir.schedule._ffi_api.SetAxisSeparator(sch, sch.get_block("B"), 3, 1, [1])
    with pytest.raises(tir.ScheduleError, match="non-decreasing positions in \\[0, 2\\]"):
        sch.set_axis_separator(sch.get_block("B"), ("write", 0), [3])
    with pytest.raises(tir.ScheduleError, match="non-decreasing"):
        sch.set_axis_separator(sch.get_block("B"), ("write", 0), [1, 0])
    with pytest.raises(TypeError, match="list of ints"):
        sch.set_axis_separator(sch.get_block("B"), ("write", 0), 1)
    with pytest.raises(tir.ScheduleError, match="no buffer named|does not access"):
        sch.set_axis_separator(sch.get_block("B"), "Z", [1])
    tvm.ir.assert_structural_equal(sch.mod, before)
    assert all(inst.kind.name == "GetBlock" for inst in sch.trace.insts)


def test_parser_rejects_bad_separators():
    with pytest.raises(tvm.error.DiagnosticError if hasattr(tvm.error, "DiagnosticError") else Exception,
                       match="axis_separators"):
        tvm.script.from_source(element_wise_sep.script().replace("axis_separators=[1]", "axis_separators=[5]"))


@T.prim_func
def element_wise_transformed_sep(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((4, 8, 4), "float32", axis_separators=[2])
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi // 4, vj, vi % 4] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi // 4, vj, vi % 4] + T.float32(1)


@pytest.mark.parametrize("separator", [tir.IndexMap.AXIS_SEPARATOR, tvm.te.AXIS_SEPARATOR])
def test_transform_layout_with_axis_separator(separator):
    sch = tir.Schedule(element_wise, debug_mask="all")
    sch.transform_layout(sch.get_block("B"), ("write", 0), lambda i, j: [i // 4, j, separator, i % 4])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], element_wise_transformed_sep)
    verify_trace_roundtrip(sch, element_wise)
    steps = "\n".join(sch.trace.as_python())
    assert "sch.transform_layout(" in steps and "axis_separators=[2]" in steps
    # the result runs as the unseparated kernel does
    a = np.random.rand(16, 8).astype("float32")
    c = tvm.nd.empty((16, 8), "float32")
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)


def test_index_map_with_separators():
    index_map, seps = tir.IndexMap.from_func_with_separators(
        lambda i, j: [i // 4, tir.IndexMap.AXIS_SEPARATOR, j, tir.IndexMap.AXIS_SEPARATOR, i % 4],
        index_dtype="int32")
    assert seps == [1, 2] and len(index_map.final_indices) == 3
    plain, none = tir.IndexMap.from_func_with_separators(lambda i: [i // 4, i % 4])
    assert none == [] and len(plain.final_indices) == 2
    with pytest.raises(ValueError, match="from_func_with_separators"):
        tir.IndexMap.from_func(lambda i: [i // 4, tir.IndexMap.AXIS_SEPARATOR, i % 4])
    for bad in ([tir.IndexMap.AXIS_SEPARATOR, "i"], ["i", tir.IndexMap.AXIS_SEPARATOR],
                ["i", tir.IndexMap.AXIS_SEPARATOR, tir.IndexMap.AXIS_SEPARATOR, "i"]):
        fn = (lambda b: lambda i: [i if x == "i" else x for x in b])(bad)
        with pytest.raises(ValueError, match="AXIS_SEPARATOR must"):
            tir.IndexMap.from_func_with_separators(fn)
    # a refused transform leaves the schedule unchanged
    sch = tir.Schedule(element_wise, debug_mask="all")
    with pytest.raises(ValueError, match="AXIS_SEPARATOR must"):
        sch.transform_layout("B", ("write", 0), lambda i, j: [i, j, tir.IndexMap.AXIS_SEPARATOR])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], element_wise)
    assert len(sch.trace.insts) == 1  # the get_block only
