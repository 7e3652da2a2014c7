"""Schedule instruction kinds (tvm.tir.schedule.InstructionKind): every
registered kind has a case here that applies it, serializes the trace to
JSON text, rebuilds it and replays it on a fresh schedule; the replayed
module must equal the directly scheduled one, and so must a replay of the
trace printed as Python. A kind registered without a case fails the test."""
import json

import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T
from tessera.tir.schedule import InstructionKind, Trace


@tvm.script.ir_module
class MatmulRelu:
    @T.prim_func
    def main(A: T.Buffer((32, 16), "float32"), B: T.Buffer((16, 24), "float32"), D: T.Buffer((32, 24), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        C = T.alloc_buffer((32, 24), "float32")
        for i, j, k in T.grid(32, 24, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(32, 24):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0))


@tvm.script.ir_module
class InplaceScale:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(4):
            with T.block("S"):
                vi = T.axis.spatial(4, i)
                T.reads(A[vi * 4:vi * 4 + 4])
                T.writes(A[vi * 4:vi * 4 + 4])
                for k in range(4):
                    A[vi * 4 + k] = A[vi * 4 + k] * T.float32(2)


@tvm.script.ir_module
class AddThenScale:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((16, 16), "float32")
        for i, j in T.grid(16, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for i, j in T.grid(16, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] * T.float32(2)


@T.prim_func
def _add4_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4,), "float32", offset_factor=1)
    C = T.match_buffer(c, (4,), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(A[0:4], B[0:4])
        T.writes(C[0:4])
        for i in range(4):
            with T.block(""):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]


@T.prim_func
def _add4_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4,), "float32", offset_factor=1)
    C = T.match_buffer(c, (4,), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(A[0:4], B[0:4])
        T.writes(C[0:4])
        T.evaluate(T.call_extern("int32", "add4", C.access_ptr("w"), A.access_ptr("r"), B.access_ptr("r")))


@tvm.script.ir_module
class VecAdd:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(16):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]


@tvm.script.ir_module
class TwoOutputs:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(16, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + T.float32(1)
        for i, j in T.grid(16, 16):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = A[vi, vj] * T.float32(2)


@tvm.script.ir_module
class PadRows:
    @T.prim_func
    def main(A: T.Buffer((8, 8), "float32"), P: T.Buffer((10, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(10, 8):
            with T.block("P"):
                vi, vj = T.axis.remap("SS", [i, j])
                P[vi, vj] = T.if_then_else(1 <= vi and vi < 9, A[vi - 1, vj], T.float32(0), dtype="float32")


def _mm_loops(sch):
    c = sch.get_block("C")
    return (c, *sch.get_loops(c))


def _tensorize(sch):
    tir.TensorIntrin.register("test_add4", _add4_desc, _add4_impl, override=True)
    (i,) = sch.get_loops(sch.get_block("C"))
    _, i1 = sch.split(i, factors=[None, 4])
    sch.tensorize(i1, "test_add4")


# kind -> (module, schedule function using that kind at least once)
CASES = {
    "GetBlock": (MatmulRelu, lambda s: s.get_block("C")),
    "GetLoops": (MatmulRelu, lambda s: s.get_loops(s.get_block("D"))),
    "GetChildBlocks": (MatmulRelu, lambda s: s.get_child_blocks(s.get_loops(s.get_block("C"))[0])),
    "GetProducers": (MatmulRelu, lambda s: s.get_producers(s.get_block("D"))),
    "GetConsumers": (MatmulRelu, lambda s: s.get_consumers(s.get_block("C"))),
    "GetOutputBlocks": (MatmulRelu, lambda s: s.get_output_blocks("root")),
    "ReorderBlockIterVar": (MatmulRelu, lambda s: s.reorder_block_iter_var(s.get_block("C"), [2, 0, 1])),
    "UnsafeSetDType": (MatmulRelu, lambda s: s.unsafe_set_dtype(s.get_block("C"), 0, "float64")),
    "EnterPostproc": (MatmulRelu, lambda s: (s.enter_postproc(), s.parallel(s.get_loops(s.get_block("D"))[0]))),
    "Split": (MatmulRelu, lambda s: s.split(_mm_loops(s)[1], factors=[None, 8])),
    "Fuse": (MatmulRelu, lambda s: s.fuse(*_mm_loops(s)[1:3])),
    "Reorder": (MatmulRelu, lambda s: s.reorder(*reversed(_mm_loops(s)[1:]))),
    "AddUnitLoop": (MatmulRelu, lambda s: s.add_unit_loop(s.get_block("D"))),
    "Parallel": (MatmulRelu, lambda s: s.parallel(_mm_loops(s)[1])),
    "Vectorize": (MatmulRelu, lambda s: s.vectorize(s.get_loops(s.get_block("D"))[1])),
    "Unroll": (MatmulRelu, lambda s: s.unroll(_mm_loops(s)[3])),
    "Bind": (MatmulRelu, lambda s: s.bind(_mm_loops(s)[1], "blockIdx.x")),
    "Annotate": (MatmulRelu, lambda s: (s.annotate(_mm_loops(s)[1], "pragma_unroll", 16),
                                        s.annotate(s.get_block("C"), "note", "text"),
                                        s.annotate(s.get_block("D"), "sampled",
                                                   s.sample_categorical([0, 16, 64], [0.2, 0.4, 0.4])))),
    "Unannotate": (MatmulRelu, lambda s: (s.annotate(s.get_block("C"), "note", 1), s.annotate(s.get_block("C"), "keep", 2),
                                          s.unannotate(s.get_block("C"), "note"))),
    "DecomposeReduction": (MatmulRelu, lambda s: s.decompose_reduction(s.get_block("C"), _mm_loops(s)[3])),
    "ComputeAt": (AddThenScale, lambda s: s.compute_at(s.get_block("B"), s.get_loops(s.get_block("C"))[0])),
    "ReverseComputeAt": (MatmulRelu, lambda s: s.reverse_compute_at(s.get_block("D"), _mm_loops(s)[1])),
    "ComputeInline": (AddThenScale, lambda s: s.compute_inline(s.get_block("B"))),
    "ReverseComputeInline": (AddThenScale, lambda s: s.reverse_compute_inline(s.get_block("C"))),
    "CacheRead": (MatmulRelu, lambda s: s.cache_read(s.get_block("C"), 1, "local")),
    "CacheWrite": (MatmulRelu, lambda s: s.cache_write(s.get_block("C"), 0, "local")),
    "SetScope": (AddThenScale, lambda s: s.set_scope(s.get_block("B"), 0, "local")),
    "Blockize": (MatmulRelu, lambda s: s.blockize(s.get_loops(s.get_block("D"))[1])),
    "Tensorize": (VecAdd, _tensorize),
    "TransformLayout": (AddThenScale, lambda s: s.transform_layout("B", ("write", 0), lambda i, j: (j // 4, i, j % 4))),
    "RFactor": (MatmulRelu, lambda s: s.rfactor(_mm_loops(s)[3], 0)),
    "StorageAlign": (AddThenScale, lambda s: s.storage_align(s.get_block("B"), 0, axis=0, factor=32, offset=8)),
    "SampleComputeLocation": (AddThenScale, lambda s: s.compute_at(
        s.get_block("B"), s.sample_compute_location(s.get_block("B"), decision=1))),
    "SamplePerfectTile": (MatmulRelu, lambda s: s.split(
        _mm_loops(s)[1], factors=s.sample_perfect_tile(_mm_loops(s)[1], n=3, max_innermost_factor=4))),
    "ReIndex": (MatmulRelu, lambda s: (s.reindex(s.get_block("C"), ("write", 0)), s.reindex(s.get_block("D"), "C"))),
    "TransformBlockLayout": (MatmulRelu, lambda s: s.transform_block_layout(s.get_block("D"), lambda i, j: (i * 24 + j,))),
    "PadEinsum": (MatmulRelu, lambda s: s.pad_einsum(s.get_block("C"), [5, 5, 5])),
    "Merge": (TwoOutputs, lambda s: s.merge(s.get_loops(s.get_block("C"))[0], s.get_loops(s.get_block("D"))[0])),
    "SamplePartitionedTile": (MatmulRelu, lambda s: s.split(
        _mm_loops(s)[1], factors=s.sample_partitioned_tile(_mm_loops(s)[1], n=3, partition_pos=1, innerpart_factor=4))),
    "LoopPartition": (MatmulRelu, lambda s: s.loop_partition(_mm_loops(s)[3], [None, 4])),
    "SetAxisSeparator": (MatmulRelu, lambda s: s.set_axis_separator(s.get_block("D"), ("read", 0), [1])),
    "ReindexCacheRead": (MatmulRelu, lambda s: s.reindex_cache_read(s.get_block("D"), 0, "local",
                                                                     lambda i, j: (j, i // 2, i % 2))),
    "ReindexCacheWrite": (MatmulRelu, lambda s: s.reindex_cache_write(s.get_block("D"), 0, "global",
                                                                      lambda i, j: (j, i))),
    "CacheInplace": (InplaceScale, lambda s: (lambda b: s.cache_write(b[1], 0, "global"))(
        s.cache_inplace(s.get_block("S"), "A", "local"))),
    "CacheIndex": (InplaceScale, lambda s: s.cache_index(s.get_block("S"), "global")),
    "DecomposePadding": (PadRows, lambda s: s.decompose_padding(s.get_block("P"), s.get_loops(s.get_block("P"))[1])),
    "SampleCategorical": (MatmulRelu, lambda s: s.split(
        _mm_loops(s)[2], factors=[None, s.sample_categorical([2, 4, 8], [0.2, 0.3, 0.5])])),
}


@tvm.script.ir_module
class WindowChain:
    @T.prim_func
    def main(A: T.Buffer((20,), "float32"), C: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((18,), "float32")
        for i_0 in range(4):
            for ax0 in range(6):
                with T.block("B"):
                    vi = T.axis.spatial(18, i_0 * 4 + ax0)
                    B[vi] = A[vi] + A[vi + 2]
            for i_1 in range(4):
                with T.block("C"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    C[vi] = B[vi] + B[vi + 2]


CASES["RollingBuffer"] = (WindowChain, lambda s: s.rolling_buffer(s.get_block("B"), 0))


@pytest.mark.parametrize("kind", InstructionKind.list_kinds())
def test_every_kind_round_trips_through_json(kind):
    assert kind in CASES, f"instruction kind {kind} has no JSON round-trip case in this file"
    mod, apply = CASES[kind]
    sch = tvm.tir.Schedule(mod, seed=3)
    apply(sch)
    assert kind in [inst.kind.name for inst in sch.trace.insts]
    if not InstructionKind.get(kind).is_pure:
        assert not tvm.ir.structural_equal(sch.mod, mod), f"{kind} left the module unchanged"
    text = json.dumps(sch.trace.as_json())
    restored = Trace.from_json(text)
    assert str(restored) == str(sch.trace)
    fresh = tvm.tir.Schedule(mod, seed=99)
    Trace.apply_json_to_schedule(json.loads(text), fresh)
    tvm.ir.assert_structural_equal(fresh.mod, sch.mod)
    assert str(fresh.trace) == str(sch.trace)
    # The trace printed as Python replays too.
    ns = {"tir": tvm.tir}
    exec(str(sch.trace), ns)  # pylint: disable=exec-used
    again = tvm.tir.Schedule(mod, seed=42)
    ns["apply_trace"](again)
    tvm.ir.assert_structural_equal(again.mod, sch.mod)


def test_kinds_are_registered_objects():
    split = InstructionKind.get("Split")
    assert split.name == "Split" and not split.is_pure
    assert InstructionKind.get("GetBlock").is_pure and InstructionKind.get("SamplePerfectTile").is_pure
    assert split.same_as(InstructionKind.get("Split"))
    sch = tvm.tir.Schedule(MatmulRelu)
    sch.get_block("C")
    assert sch.trace.insts[0].kind.same_as(InstructionKind.get("GetBlock"))


def test_instructions_can_be_built_from_python():
    from tessera.tir.schedule import Instruction, BlockRV  # pylint: disable=import-outside-toplevel

    sch = tvm.tir.Schedule(MatmulRelu)
    block = sch.get_block("C")
    inst = Instruction("GetLoops", [block], [], [])
    assert inst.kind.same_as(InstructionKind.get("GetLoops")) and inst.inputs[0].same_as(block)
    assert isinstance(inst.inputs[0], BlockRV)
    with pytest.raises(ValueError, match="unknown schedule instruction kind"):
        Instruction("Nope", [], [], [])


def test_unknown_kind_is_a_value_error_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown schedule instruction kind 'Nope'.*Split"):
        InstructionKind.get("Nope")
    bad = {"insts": [["Nope", [], [], []]], "decisions": []}
    with pytest.raises(ValueError, match="Nope"):
        Trace.from_json(bad)


def test_malformed_trace_json_is_a_value_error():
    with pytest.raises(ValueError, match="malformed trace JSON"):
        Trace.from_json("{not json")
    with pytest.raises(ValueError, match="malformed trace JSON"):
        Trace.from_json({"insts": [["Split"]], "decisions": []})
    with pytest.raises(ValueError, match="TransformLayout needs 3 or 5 attributes"):
        Trace.from_json({"insts": [["TransformLayout", [{"rv": "b0"}], [True, 0], []]], "decisions": []})


def test_replaying_a_trace_that_does_not_fit_is_a_schedule_error_and_changes_nothing():
    sch = tvm.tir.Schedule(MatmulRelu)
    c = sch.get_block("C")
    sch.split(sch.get_loops(c)[0], factors=[None, 8])
    other = tvm.tir.Schedule(AddThenScale)  # has no block "D"
    before = other.mod
    trace = {"insts": [["GetBlock", [], ["D", "main"], ["b0"]]], "decisions": []}
    with pytest.raises(tvm.tir.ScheduleError, match='cannot find a block named "D"'):
        Trace.apply_json_to_schedule(trace, other)
    assert other.mod.same_as(before)


def test_annotating_with_a_sampled_value_stores_the_integer():
    sch = tvm.tir.Schedule(MatmulRelu)
    v = sch.sample_categorical([0, 16, 64], [0.0, 1.0, 0.0])
    sch.annotate(sch.get_block("D"), "pragma_auto_unroll_max_step", v)
    assert int(sch.get(sch.get_block("D")).annotations["pragma_auto_unroll_max_step"]) == 16


def test_replaying_an_instruction_with_missing_operands_is_a_value_error():
    for bad in ({"insts": [["GetBlock", [], [], ["b0"]]], "decisions": []},
                {"insts": [["Split", [], [True], []]], "decisions": []}):
        sch = tvm.tir.Schedule(MatmulRelu)
        with pytest.raises(ValueError, match="too few for this kind"):
            Trace.apply_json_to_schedule(bad, sch)
        assert tvm.ir.structural_equal(sch.mod, MatmulRelu)
    bad = {"insts": [["GetBlock", [], ["C", "main"], ["b0"]], ["GetLoops", [7], [], ["l1"]]], "decisions": []}
    with pytest.raises(TypeError, match="expected tir.BlockRV"):
        Trace.apply_json_to_schedule(bad, tvm.tir.Schedule(MatmulRelu))
