"""ms.schedule_rule.AutoInline (C++ rule): inlining into consumers / producers under TVM's
conditions, checked against hand-written expected modules; blocks it does not fit stay."""
import pytest

import tessera as tvm
from tessera.meta_schedule.schedule_rule import AutoInline
from tessera.script import tir as T

from _ms_rule_util import apply_rule, assert_func_equal


@T.prim_func
def elem_chain(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def elem_chain_inlined_into_c(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)


@T.prim_func
def elem_chain_inlined_into_b(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)


@T.prim_func
def exp_then_sum(A: T.Buffer((8, 8), "float32"), S: T.Buffer((8,), "float32")):
    E = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("E"):
            vi, vj = T.axis.remap("SS", [i, j])
            E[vi, vj] = T.exp(A[vi, vj])
    for i, j in T.grid(8, 8):
        with T.block("S"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + E[vi, vj]


@T.prim_func
def transpose_then_sum(A: T.Buffer((8, 8), "float32"), S: T.Buffer((8,), "float32")):
    E = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("E"):
            vi, vj = T.axis.remap("SS", [i, j])
            E[vi, vj] = A[vj, vi]
    for i, j in T.grid(8, 8):
        with T.block("S"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + E[vi, vj]


@T.prim_func
def scale_then_sum(A: T.Buffer((8, 8), "float32"), S: T.Buffer((8,), "float32")):
    E = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("E"):
            vi, vj = T.axis.remap("SS", [i, j])
            E[vi, vj] = A[vi, vj] * T.float32(3)
    for i, j in T.grid(8, 8):
        with T.block("S"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + E[vi, vj]


@T.prim_func
def scale_then_sum_inlined(A: T.Buffer((8, 8), "float32"), S: T.Buffer((8,), "float32")):
    for i, j in T.grid(8, 8):
        with T.block("S"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vj] * T.float32(3)


def _tvm_llvm_auto_inline():
    # TVM's llvm default: into_consumer only, exp disallowed
    return AutoInline(False, True, True, True, True, True, ["tir.exp"])


def test_inlines_a_spatial_producer_into_its_consumer():
    (sch,) = apply_rule(_tvm_llvm_auto_inline(), elem_chain, "B")
    assert_func_equal(sch.mod["main"], elem_chain_inlined_into_c)
    assert [i.kind.name for i in sch.trace.insts] == ["GetBlock", "ComputeInline"]


def test_reverse_inlines_a_consumer_into_its_producer():
    (sch,) = apply_rule(AutoInline(True, False, True, True, True, True), elem_chain, "C")
    assert_func_equal(sch.mod["main"], elem_chain_inlined_into_b)


def test_inlines_into_a_reduction_when_the_read_is_injective_and_ordered():
    (sch,) = apply_rule(_tvm_llvm_auto_inline(), scale_then_sum, "E")
    assert_func_equal(sch.mod["main"], scale_then_sum_inlined)


@pytest.mark.parametrize("func, why", [(exp_then_sum, "disallowed op tir.exp"),
                                       (transpose_then_sum, "read->write index map not ordered")])
def test_keeps_blocks_the_conditions_exclude(func, why):
    (sch,) = apply_rule(_tvm_llvm_auto_inline(), func, "E")
    assert_func_equal(sch.mod["main"], func), why


def test_the_same_blocks_inline_without_the_conditions():
    rule = AutoInline(False, True, True, False, False, False, None)
    (sch,) = apply_rule(rule, transpose_then_sum, "E")
    assert len(sch.mod["main"].body.block.alloc_buffers) == 0


def test_disable_annotation_output_block_and_root_are_left_alone():
    sch = tvm.tir.Schedule(elem_chain)
    sch.annotate(sch.get_block("B"), "meta_schedule.inline_rule", "disable")
    before = sch.mod["main"]
    (out,) = _tvm_llvm_auto_inline().apply(sch, sch.get_block("B"))
    assert_func_equal(out.mod["main"], before)
    for name in ("C", "root"):   # C writes the output: no consumer; root: never
        (out,) = apply_rule(_tvm_llvm_auto_inline(), elem_chain, name)
        assert_func_equal(out.mod["main"], elem_chain)


def test_bad_arguments():
    with pytest.raises(ValueError, match="tir.not_an_op"):
        AutoInline(False, True, True, True, True, True, ["tir.not_an_op"])
    with pytest.raises(TypeError, match="disallow_op"):
        AutoInline(False, True, True, True, True, True, "tir.exp")
    with pytest.raises(TypeError):
        AutoInline(False, True)
