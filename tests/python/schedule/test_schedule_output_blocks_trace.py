"""get_output_blocks (blocks writing a buffer the function does not
allocate, nested blocks included) and the trace API TVM's tests use:
Trace(insts, decisions), append/pop, enter_postproc + simplified /
remove_postproc, as_python, dict annotations and float attributes in Python
and JSON traces. Expectations are written by hand."""
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule import BlockRV, Instruction, InstructionKind, LoopRV, Trace
from tessera.tir.schedule.testing import verify_trace_roundtrip


@T.prim_func
def matmul_relu(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    C = T.alloc_buffer((16, 16), "float32")
    for i, j, k in T.grid(16, 16, 16):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))


@T.prim_func
def nested(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    with T.block("outer"):
        vo = T.axis.spatial(1, 0)
        T.reads(A[0:16, 0:16])
        T.writes(B[0:16, 0:16])
        for i, j in T.grid(16, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)


def _names(sch, rvs):
    return [sch.get(rv).name_hint for rv in rvs]


def test_get_output_blocks():
    sch = tvm.tir.Schedule(matmul_relu)
    assert _names(sch, sch.get_output_blocks("root")) == ["relu"]
    sch.cache_write("relu", 0, "global")  # relu now writes D_global; the copy writes D
    assert _names(sch, sch.get_output_blocks("root")) == ["D_global"]
    sch = tvm.tir.Schedule(nested)
    assert _names(sch, sch.get_output_blocks("root")) == ["outer", "B"]
    assert _names(sch, sch.get_output_blocks("outer")) == ["B"]
    assert _names(sch, sch.get_output_blocks(sch.get_block("B"))) == []
    verify_trace_roundtrip(sch, nested)
    assert 'sch.get_output_blocks(scope_block="root")' in "\n".join(sch.trace.as_python())


def test_get_output_blocks_bad_scope():
    sch = tvm.tir.Schedule(nested)
    with pytest.raises(tvm.tir.ScheduleError, match="missing"):
        sch.get_output_blocks("missing")
    with pytest.raises(tvm.tir.ScheduleError, match='block handle or "root"'):
        sch.get_output_blocks(3)


def _get_block(name, rv):
    return Instruction(InstructionKind.get("GetBlock"), [], [name, "main"], [rv])


def test_trace_construction_append_pop():
    b0, l1 = BlockRV(), LoopRV()
    trace = Trace([_get_block("B", b0), Instruction("GetLoops", [b0], [], [l1])], {})
    assert trace.as_python() == ['b0 = sch.get_block(name="B", func_name="main")', "l1, = sch.get_loops(block=b0)"]
    trace.append(_get_block("C", BlockRV()))
    assert len(trace.insts) == 3 and str(trace).endswith('b2 = sch.get_block(name="C", func_name="main")')
    last = trace.insts[-1]
    assert trace.pop().same_as(last) and len(trace.insts) == 2
    assert Trace([], {}).pop() is None
    assert str(Trace([], {})) == "# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:\n  pass"
    with pytest.raises(TypeError):
        trace.append("GetBlock")


def test_enter_postproc_and_simplified():
    sch = tvm.tir.Schedule(matmul_relu)
    sch.get_block("matmul")  # unused lookup: simplified drops it
    relu = sch.get_block("relu")
    sch.enter_postproc()
    sch.parallel(sch.get_loops(relu)[0])
    full = sch.trace
    assert "sch.enter_postproc()" in str(full)
    kinds = [i.kind.name for i in full.simplified(remove_postproc=False).insts]
    assert kinds == ["GetBlock", "EnterPostproc", "GetLoops", "Parallel"]
    assert [i.kind.name for i in full.simplified(remove_postproc=True).insts] == []
    assert "enter_postproc" not in "\n".join(full.as_python(remove_postproc=True))
    # Replaying without the postprocessing leaves the loop serial.
    replay = tvm.tir.Schedule(matmul_relu)
    full.apply_to_schedule(replay, remove_postproc=True)
    assert "T.parallel" not in replay.mod.script()
    replay = tvm.tir.Schedule(matmul_relu)
    Trace.apply_json_to_schedule(full.as_json(), replay)
    tvm.ir.assert_structural_equal(replay.mod, sch.mod)


def test_dict_annotation_and_float_attrs_in_traces():
    sch = tvm.tir.Schedule(matmul_relu)
    i = sch.get_loops("relu")[0]
    sch.annotate(i, "test4", {"arr": [0, 0], "key": 3})
    assert 'ann_val={"arr": [0, 0], "key": 3}' in "\n".join(sch.trace.as_python())
    verify_trace_roundtrip(sch, matmul_relu)
    v = tvm.tir.Var("v", "int64")
    trace = Trace([Instruction("SampleCategorical", [], [[tvm.tir.IntImm("int32", 3)],
                                                        [tvm.tir.FloatImm("float32", 1.0)]], [v])], {})
    fresh = tvm.tir.Schedule(matmul_relu)
    Trace.apply_json_to_schedule(trace.as_json(), fresh)
    assert fresh.trace.insts[0].kind.name == "SampleCategorical"
