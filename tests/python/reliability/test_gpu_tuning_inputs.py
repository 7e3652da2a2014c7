"""Bad inputs to GPU tuning: unknown target tags, GPU rule and postprocessor arguments,
GPU rules used without a target, CUDA tuning without a GPU, and VerifyGPUCode's limits
(every vthread axis, root-allocated shared buffers). Each is a Python exception naming the
culprit (also CrossThreadReduction and MultiLevelTilingTensorCore arguments); NumPy is the oracle where numbers are involved (the shared-memory footprint)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import tir
from tessera.script import tir as T


@T.prim_func
def copy2d(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


def _verify(target, sch):
    post = ms.postproc.VerifyGPUCode()
    post._initialize_with_tune_context(ms.TuneContext(target=target))
    return post.apply(sch), post.last_error


def test_unknown_tags_and_options():
    with pytest.raises(ValueError, match="nvidia/tesla-p101.*list_tags"):
        tvm.target.Target("nvidia/tesla-p101")
    with pytest.raises(ValueError, match="max_threads_per_block"):
        tvm.target.Target("nvidia/tesla-p100 -max_threads_per_block=lots")


def test_gpu_rule_arguments_are_checked():
    with pytest.raises(ValueError, match="tile_binds"):
        ms.schedule_rule.MultiLevelTiling("SSRSRS", tile_binds=["blockIdx.x", "vthread.x", "threadIdx.x"])
    with pytest.raises(ValueError, match="vector_load_lens"):
        ms.schedule_rule.MultiLevelTiling("SSSRRSRS", vector_load_lens=[4, -1])
    with pytest.raises(ValueError, match="max_threadblocks"):
        ms.schedule_rule.AutoBind(max_threadblocks=0)
    with pytest.raises(ValueError, match="thread_extents"):
        ms.schedule_rule.AutoBind(thread_extents=[32, 0])
    with pytest.raises(ValueError, match="max_threadblocks"):
        ms.postproc.RewriteUnboundBlock(max_threadblocks=-3)


def test_gpu_rules_without_a_target_say_so():
    sch = tir.Schedule(tvm.IRModule({"main": copy2d}))
    with pytest.raises(ValueError, match="_initialize_with_tune_context"):
        ms.schedule_rule.AutoBind().apply(sch, sch.get_block("B"))
    with pytest.raises(ValueError, match="_initialize_with_tune_context"):
        ms.postproc.RewriteUnboundBlock().apply(sch)
    with pytest.raises(ValueError, match="GPU target"):
        ms.postproc.RewriteUnboundBlock()._initialize_with_tune_context(ms.TuneContext(target="llvm"))


@pytest.mark.skipif(tvm.cuda(0).exist, reason="checks a machine without a GPU")
def test_cuda_tuning_without_a_gpu_fails_up_front(tmp_path):
    mod = tvm.IRModule({"main": copy2d})
    for target in ("cuda", "nvidia/nvidia-h200"):
        with pytest.raises(RuntimeError, match="no CUDA device to measure on"):
            ms.tune_tir(mod, target, str(tmp_path), 4)
    assert not list(tmp_path.glob("*.json"))  # nothing tuned, nothing written


def test_every_vthread_axis_counts_against_the_limit():
    sch = tir.Schedule(tvm.IRModule({"main": copy2d}))
    i, j = sch.get_loops(sch.get_block("B"))
    i0, i1, i2 = sch.split(i, [4, 4, 4])
    j0, j1, j2 = sch.split(j, [4, 4, 4])
    sch.reorder(i0, j0, i1, j1, i2, j2)
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "vthread.x")
    sch.bind(j1, "vthread.y")
    sch.bind(i2, "threadIdx.x")
    ok, why = _verify("cuda", sch)
    assert not ok and "16 virtual threads, more than 8" in why


@pytest.mark.parametrize("at", ["i0", "i1"])
def test_root_shared_buffer_counts_what_one_block_touches(at):
    sch = tir.Schedule(tvm.IRModule({"main": copy2d}))
    i, j = sch.get_loops(sch.get_block("B"))
    i0, i1 = sch.split(i, [None, 8])
    sch.bind(i0, "blockIdx.x")
    sch.bind(j, "threadIdx.x")
    shared = sch.cache_read(sch.get_block("B"), 0, "shared")
    sch.compute_at(shared, {"i0": i0, "i1": i1}[at])
    # The stage is allocated where its copy and its reads meet: under the blockIdx loop
    # (one block's 8 rows, all 64 columns) or under the serial i1 loop (one row).
    touched = np.zeros((64, 64), bool)
    for r in range(8 if at == "i0" else 1):
        touched[r, :] = True  # block 0 (and i1 = 0): the rows B reads, every threadIdx column
    need = int(touched.sum()) * 4
    assert _verify(f"cuda -max_shared_memory_per_block={need}", sch) == (True, "")
    ok, why = _verify(f"cuda -max_shared_memory_per_block={need - 4}", sch)
    assert not ok and f"allocates {need} bytes of shared memory" in why


def test_cross_thread_reduction_arguments():
    with pytest.raises(ValueError, match="thread_extents must be positive"):
        ms.schedule_rule.CrossThreadReduction(thread_extents=[4, -8])
    with pytest.raises(ValueError, match="thread_extents is empty"):
        ms.schedule_rule.CrossThreadReduction([])
    sch = tir.Schedule(tvm.IRModule({"main": copy2d}))
    with pytest.raises(ValueError, match="_initialize_with_tune_context"):
        ms.schedule_rule.CrossThreadReduction([32]).apply(sch, sch.get_block("B"))
    with pytest.raises(ValueError, match="need a GPU target"):
        ms.schedule_rule.CrossThreadReduction([32])._initialize_with_tune_context(ms.TuneContext(target="llvm"))


def test_tensor_core_rule_arguments_name_the_culprit():
    from tessera.tir.tensor_intrin.cuda import get_mma_intrin_group

    f32 = get_mma_intrin_group("shared", "global", "float16", "float32", False, False)
    mltc = ms.schedule_rule.MultiLevelTilingTensorCore
    wmma = dict(f32, init="wmma_fill_16x16x16_f32", compute="wmma_sync_16x16x16_f16f16f32")
    with pytest.raises(ValueError, match=r"intrin_groups\[1\]\): unknown tensor intrinsic\(s\) "
                                         r"'wmma_fill_16x16x16_f32', 'wmma_sync_16x16x16_f16f16f32'"):
        mltc([f32, wmma], "SSSRRSRS")
    with pytest.raises(ValueError, match=r"intrin_groups\[0\]\): missing key \"store\""):
        mltc([{k: v for k, v in f32.items() if k != "store"}], "SSSRRSRS")
    with pytest.raises(ValueError, match="unknown key \"epilogue\""):
        mltc([dict(f32, epilogue="x")], "SSSRRSRS")
    with pytest.raises(ValueError, match="intrin_groups is empty"):
        mltc([], "SSSRRSRS")
    with pytest.raises(NotImplementedError, match="use_software_pipeline"):
        mltc([f32], "SSSRRSRS", use_software_pipeline=True)
    with pytest.raises(ValueError, match="invalid tiling structure"):
        mltc([f32], "SSXR")
    # the rule has one tiling: asking for another is refused, naming the parameter, never ignored
    with pytest.raises(NotImplementedError, match=r"structure='SSRSRS'"):
        mltc([f32], "SSRSRS")
    with pytest.raises(NotImplementedError, match="tile_binds"):
        mltc([f32], "SSSRRSRS", tile_binds=["threadIdx.x"])
    with pytest.raises(NotImplementedError, match="reuse_read"):
        mltc([f32], "SSSRRSRS", reuse_read=ms.schedule_rule.ReuseType(req="may", levels=[4], scope="shared"))
    with pytest.raises(NotImplementedError, match="reuse_write"):
        mltc([f32], "SSSRRSRS", reuse_write=ms.schedule_rule.ReuseType(req="must", levels=[2], scope="shared.dyn"))
    rule = mltc([f32], "SSSRRSRS", tile_binds=["blockIdx.y", "blockIdx.x", "threadIdx.y"],
                reuse_read=ms.schedule_rule.ReuseType(req="must", levels=[4], scope="shared"),
                reuse_write=ms.schedule_rule.ReuseType(req="no", levels=[], scope=""))
    assert isinstance(rule, ms.schedule_rule.ScheduleRule)
    with pytest.raises(ValueError, match="load_scope='shared.dyn'.*trans_a=True"):
        get_mma_intrin_group("shared.dyn", "global", "float16", "float32", True, False)
    with pytest.raises(ValueError, match="int8"):
        get_mma_intrin_group("shared", "global", "int8", "int32", False, False)
