"""ms.postproc.RewriteParallelVectorizeUnroll and RewriteReductionBlock (C++ postprocs):
realizing the root-block annotations and decomposing reductions, against hand-written
expected modules; the space's postprocessors reject candidates that fail them."""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera.meta_schedule.postproc import Postproc, PyPostproc, RewriteParallelVectorizeUnroll, RewriteReductionBlock
from tessera.script import tir as T

from _ms_rule_util import assert_func_equal
from .test_meta_schedule_schedule_rule_multi_level_tiling import matmul, matmul_ssrsrs


@T.prim_func
def matmul_tiled_parallel(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                          C: T.Buffer((16, 16), "float32")):
    # parallel 4: i_0 (1) j_0 (2) i_1 (2) j_1 (2) fused, the loop crossing the limit included;
    # vectorize 64: only j_3 is contiguous for C and B; unroll 16 on the outermost loop
    for f in T.parallel(8, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
        for k_0, i_2, j_2, k_1, i_3 in T.grid(4, 4, 1, 4, 2):
            for j_3 in T.vectorized(4):
                with T.block("C"):
                    vi = T.axis.spatial(16, f // 8 * 16 + f % 4 // 2 * 8 + i_2 * 2 + i_3)
                    vj = T.axis.spatial(16, f % 8 // 4 * 8 + f % 2 * 4 + j_2 * 4 + j_3)
                    vk = T.axis.reduce(16, k_0 * 4 + k_1)
                    T.reads(A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def matmul_tiled_decomposed(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                            C: T.Buffer((16, 16), "float32")):
    for i_0, j_0, i_1, j_1 in T.grid(1, 2, 2, 2):
        for i_2_init, j_2_init, i_3_init, j_3_init in T.grid(4, 1, 2, 4):
            with T.block("C_init"):
                vi = T.axis.spatial(16, i_0 * 16 + i_1 * 8 + i_2_init * 2 + i_3_init)
                vj = T.axis.spatial(16, j_0 * 8 + j_1 * 4 + j_2_init * 4 + j_3_init)
                T.reads()
                T.writes(C[vi, vj])
                T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})  # copied from the block, as TVM
                C[vi, vj] = T.float32(0)
        for k_0, i_2, j_2, k_1, i_3, j_3 in T.grid(4, 4, 1, 4, 2, 4):
            with T.block("C_update"):
                vi = T.axis.spatial(16, i_0 * 16 + i_1 * 8 + i_2 * 2 + i_3)
                vj = T.axis.spatial(16, j_0 * 8 + j_1 * 4 + j_2 * 4 + j_3)
                vk = T.axis.reduce(16, k_0 * 4 + k_1)
                T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def elem_annotated(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):
    with T.block("root"):
        T.block_attr({"meta_schedule.parallel": 64, "meta_schedule.vectorize": 16})
        for i, j in T.grid(64, 32):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)


@T.prim_func
def elem_rewritten(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):
    # every loop fusible: fused, split by the vector extent, outer parallel, inner vectorized
    for f0 in T.parallel(128):
        for f1 in T.vectorized(16):
            with T.block("B"):
                vi = T.axis.spatial(64, (f0 * 16 + f1) // 32)
                vj = T.axis.spatial(32, (f0 * 16 + f1) % 32)
                B[vi, vj] = A[vi, vj] + T.float32(1)


def _annotated_tiled_matmul():
    sch = tvm.tir.Schedule(matmul_ssrsrs)
    root = sch.get_block("root")
    sch.annotate(root, "meta_schedule.parallel", 4)
    sch.annotate(root, "meta_schedule.vectorize", 64)
    v = sch.sample_categorical([16], [1.0])
    sch.annotate(root, "meta_schedule.unroll_explicit", v)
    return sch


def test_rewrite_parallel_vectorize_unroll_on_a_tiled_matmul():
    sch = _annotated_tiled_matmul()
    assert RewriteParallelVectorizeUnroll().apply(sch)
    assert_func_equal(sch.mod["main"], matmul_tiled_parallel)


def test_rewrite_parallel_vectorize_unroll_fuses_and_splits_a_fully_fusible_nest():
    sch = tvm.tir.Schedule(elem_annotated)
    assert RewriteParallelVectorizeUnroll().apply(sch)
    assert_func_equal(sch.mod["main"], elem_rewritten)


def test_rewrite_reduction_block_decomposes_at_the_first_reduction_loop():
    sch = tvm.tir.Schedule(matmul_ssrsrs)
    assert RewriteReductionBlock().apply(sch)
    assert_func_equal(sch.mod["main"], matmul_tiled_decomposed)
    assert RewriteReductionBlock().apply(sch)               # nothing left: unchanged
    assert_func_equal(sch.mod["main"], matmul_tiled_decomposed)


def test_default_postprocs_in_tvm_order_and_the_result_computes_the_matmul():
    names = [type(p).__name__ for p in Postproc.create("llvm")]
    assert names[-2:] == ["RewriteParallelVectorizeUnroll", "RewriteReductionBlock"]
    sch = _annotated_tiled_matmul()
    for p in Postproc.create("llvm"):
        assert p.apply(sch)
    a, b = np.random.rand(16, 16).astype("float32"), np.random.rand(16, 16).astype("float32")
    c = tvm.nd.empty((16, 16), "float32")
    tvm.build(sch.mod, target="llvm")["matmul_ssrsrs"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)


def test_modules_without_annotations_or_reductions_are_unchanged():
    sch = tvm.tir.Schedule(matmul)
    assert RewriteParallelVectorizeUnroll().apply(sch)
    assert_func_equal(sch.mod["main"], matmul)


class _Refuse(PyPostproc):
    def apply(self, sch):
        return False


class _Raise(PyPostproc):
    def apply(self, sch):
        sch.vectorize(sch.get_loops(sch.get_block("C"))[2])     # a reduction loop: ScheduleError
        return True


def test_a_failing_postproc_discards_the_candidate():
    for bad in (_Refuse(), _Raise()):
        space = ms.space_generator.PostOrderApply(postprocs=[RewriteReductionBlock(), bad])
        ctx = ms.TuneContext(matmul, "llvm --num-cores=1", space_generator=space, rand_state=1)
        sch = space.sample(ctx.mod, 5, ctx)
        assert not space.apply_postprocs(sch)
    with pytest.raises(ValueError, match="Unsupported kind"):
        Postproc.create("rocm")
    with pytest.raises(TypeError, match="postprocs"):
        ms.space_generator.PostOrderApply(postprocs=[3])
