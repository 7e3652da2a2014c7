"""ms.schedule_rule.ParallelizeVectorizeUnroll (C++ rule): root-block annotations with
TVM's keys and values (parallel = cores * max_jobs_per_core, the unroll limit from a
sample_categorical), against hand-written expected modules."""
import pytest

import tessera as tvm
from tessera.meta_schedule.schedule_rule import ParallelizeVectorizeUnroll
from tessera.script import tir as T

from _ms_rule_util import apply_rule, assert_func_equal


@T.prim_func
def matmul(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def matmul_annotated(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                     C: T.Buffer((16, 16), "float32")):
    with T.block("root"):
        T.block_attr({"meta_schedule.parallel": 64, "meta_schedule.vectorize": 64,
                      "meta_schedule.unroll_explicit": 16})
        for i, j, k in T.grid(16, 16, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def add_one(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] + T.float32(1)


@T.prim_func
def add_one_annotated(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    with T.block("root"):
        T.block_attr({"meta_schedule.parallel": 32, "meta_schedule.vectorize": 8})
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] + T.float32(1)


def test_annotates_the_root_block_with_tvm_keys():
    rule = ParallelizeVectorizeUnroll(max_jobs_per_core=16, max_vectorize_extent=64,
                                      unroll_max_steps=[0, 16, 64, 512], unroll_explicit=True)
    (sch,) = apply_rule(rule, matmul, "root", seed=13346, target="llvm --num-cores=4")
    inst = [i for i in sch.trace.insts if i.kind.name == "SampleCategorical"][0]
    assert [int(x) for x in inst.attrs[0]] == [0, 16, 64, 512]
    assert [float(p) for p in inst.attrs[1]] == [0.25] * 4
    assert int(sch.trace.decisions[inst]) == 1             # seed 13346 -> 16
    assert_func_equal(sch.mod["main"], matmul_annotated)
    annotates = [i for i in sch.trace.insts if i.kind.name == "Annotate"]
    assert [str(i.attrs[0]) for i in annotates] == ["meta_schedule.parallel", "meta_schedule.vectorize",
                                                     "meta_schedule.unroll_explicit"]


def test_a_spatial_function_gets_no_unroll_and_the_cores_come_from_the_target():
    rule = ParallelizeVectorizeUnroll(16, 8, [0, 16], True)
    (sch,) = apply_rule(rule, add_one, "root", target="llvm --num-cores=2")
    assert_func_equal(sch.mod["main"], add_one_annotated)


def test_a_single_core_target_gets_no_parallel_annotation():
    (sch,) = apply_rule(ParallelizeVectorizeUnroll(16, 8, [0, 16], True), add_one, "root", target="llvm --num-cores=1")
    assert dict(sch.get(sch.get_block("root")).annotations) == {"meta_schedule.vectorize": 8}


def test_disabled_parts_and_non_root_blocks():
    rule = ParallelizeVectorizeUnroll(-1, -1, None, True)
    (sch,) = apply_rule(rule, matmul, "root")
    assert_func_equal(sch.mod["main"], matmul)
    (sch,) = apply_rule(ParallelizeVectorizeUnroll(16, 64, [0, 16], True), matmul, "C")
    assert_func_equal(sch.mod["main"], matmul)


def test_bad_arguments_and_missing_initialization():
    with pytest.raises(ValueError, match="max_jobs_per_core"):
        ParallelizeVectorizeUnroll(max_jobs_per_core=0)
    with pytest.raises(ValueError, match="max_vectorize_extent"):
        ParallelizeVectorizeUnroll(max_vectorize_extent=-5)
    with pytest.raises(ValueError, match="unroll_max_steps"):
        ParallelizeVectorizeUnroll(unroll_max_steps=[16, -1])
    sch = tvm.tir.Schedule(matmul)
    with pytest.raises(ValueError, match="not initialized"):
        ParallelizeVectorizeUnroll().apply(sch, sch.get_block("root"))
    assert_func_equal(sch.mod["main"], matmul)
