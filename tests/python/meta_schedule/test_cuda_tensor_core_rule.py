"""ms.schedule_rule.MultiLevelTilingTensorCore (src/meta_schedule/schedule_rule/multi_level_tiling_tensor_core.cc)
and the "cuda-tensorcore" defaults: the schedule it makes of small fp16 GEMMs (trace and loop structure, as TVM's
rule tests check them; the same steps as schedule_fp16_gemm), extents padded to multiples of 16, the blocks it leaves alone, the tuner's GPU flow
taking its candidates (postprocessors, VerifyGPUCode, the cuda build, NVRTC to PTX for sm_80 and sm_90, a 2-trial
tune_tir building every candidate), and, on a GPU (skipped here), the numbers against NumPy. Bad arguments:
reliability/test_gpu_tuning_inputs.py."""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import tir
from tessera.contrib import nvcc
from tessera.meta_schedule.builder import LocalBuilder
from tessera.script import tir as T
from tessera.tir.tensor_intrin.cuda import get_mma_intrin_group, schedule_fp16_gemm

from codegen.test_cuda_codegen import ARCHS, requires_nvrtc
from codegen.test_cuda_tensorize_gemm import gemm_module
from .test_cuda_space import _FakeRunner, _blocks, _loops, _verify

requires_cuda = pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device")
H100 = "nvidia/nvidia-h100"
F32 = get_mma_intrin_group("shared", "global", "float16", "float32", False, False)
F16 = get_mma_intrin_group("shared", "global", "float16", "float16", False, False)


def _rule(groups=(F32, F16), **kw):
    kw.setdefault("max_innermost_factor", 4)
    kw.setdefault("vector_load_lens", [1, 2, 4, 8])
    return ms.schedule_rule.MultiLevelTilingTensorCore(list(groups), "SSSRRSRS", **kw)


def _insts(sch):
    return [str(inst.kind.name) for inst in sch.trace.insts]


def _tensorized(sch):
    return [str(inst.attrs[0]) for inst in sch.trace.insts if str(inst.kind.name) == "Tensorize"]


def _decisions(sch):
    return [[int(x) for x in sch.trace.decisions[inst]] for inst in sch.trace.insts
            if str(inst.kind.name) == "SamplePerfectTile"]


def test_an_fp16_gemm_is_tiled_and_tensorized_with_the_groups_intrinsics():
    sch = tir.Schedule(gemm_module(256, 128, 64), seed=4)
    (out,) = _rule().apply(sch, sch.get_block("C"))  # only the fp32-accumulating group fits
    assert _tensorized(out) == ["mma_fill_16x16_f32", "mma_ldmatrix_f16_a", "mma_ldmatrix_f16_b", "mma_f16f16f32",
                                "mma_store_16x16_f32_global"]
    assert _insts(out).count("SamplePerfectTile") == 3 and _insts(out).count("SampleCategorical") == 1
    (bi, wi, fi), (bj, wj, fj), (ks, kf) = _decisions(out)
    assert (bi * wi * fi, bj * wj * fj, ks * kf) == (256 // 16, 128 // 16, 64 // 16)
    assert fi <= 4 and fj <= 4 and kf <= 4  # max_innermost_factor
    loops = [out.get(x) for x in out.get_loops(out.get_block("C_update_o"))]
    assert [None if lp.thread_binding is None else str(lp.thread_binding.thread_tag) for lp in loops] == [
        "blockIdx.x", "threadIdx.y", None, None, None, None]
    assert [int(lp.extent) for lp in loops] == [bi * bj, wi * wj, ks, kf, fi, fj]
    text = out.mod.script()
    assert 'scope="shared"' in text and 'scope="warp"' in text
    fetch = [lp for lp in _loops(out.mod["main"]) if "meta_schedule.cooperative_fetch" in lp.annotations]
    assert len(fetch) == 2  # A and B staged in shared memory by the block's threads


def test_fp16_accumulation_takes_the_fp16_group():
    sch = tir.Schedule(gemm_module(64, 64, 64, out_dtype="float16"), seed=1)
    (out,) = _rule().apply(sch, sch.get_block("C"))
    assert "mma_f16f16f16" in _tensorized(out) and "mma_store_16x16_f16_global" in _tensorized(out)


def test_the_rule_and_schedule_fp16_gemm_share_their_steps():
    """With the decisions schedule_fp16_gemm's tiles imply, the rule's schedule (cooperative fetch realized)
    is the hand schedule."""
    sch = tir.Schedule(gemm_module(256, 256, 128), seed=0)
    (out,) = _rule().apply(sch, sch.get_block("C"))
    trace = out.trace
    decisions = {}
    tiles = iter([[2, 2, 4], [2, 2, 4], [4, 2]])  # 128 x 128 blocks, 2 x 2 warps of 64 x 64, k steps of 32
    for inst in trace.insts:
        if str(inst.kind.name) == "SamplePerfectTile":
            decisions[inst] = next(tiles)
        elif str(inst.kind.name) == "SampleCategorical":
            decisions[inst] = 3  # vector length 8
    replay = tir.Schedule(gemm_module(256, 256, 128))
    tir.schedule.Trace(trace.insts, decisions).apply_to_schedule(replay, remove_postproc=False)
    assert ms.postproc.RewriteCooperativeFetch().apply(replay)
    hand = schedule_fp16_gemm(tir.Schedule(gemm_module(256, 256, 128)))
    tvm.ir.assert_structural_equal(replay.mod, hand.mod)


@T.prim_func
def _transposed_b(A: T.Buffer((64, 64), "float16"), B: T.Buffer((64, 64), "float16"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + T.cast(A[vi, vk], "float32") * T.cast(B[vj, vk], "float32")


@pytest.mark.parametrize("mod", [
    gemm_module(64, 64, 64, in_dtype="float32"),  # no fp32 x fp32 group
    tvm.IRModule({"main": _transposed_b}),  # B[j, k]: no _trans intrinsics
], ids=["fp32", "transposed-b"])
def test_blocks_it_cannot_tensorize_are_left_to_the_next_rules(mod):
    sch = tir.Schedule(mod)
    before = sch.mod
    (out,) = _rule().apply(sch, sch.get_block("C"))
    tvm.ir.assert_structural_equal(out.mod, before)
    assert "Tensorize" not in _insts(out)


def test_extents_that_are_not_multiples_of_16_are_padded_first():
    sch = tir.Schedule(gemm_module(48, 40, 24), seed=2)
    (out,) = _rule().apply(sch, sch.get_block("C"))
    assert _insts(out)[:2] == ["GetBlock", "PadEinsum"] and "mma_f16f16f32" in _tensorized(out)
    (bi, wi, fi), (bj, wj, fj), (ks, kf) = _decisions(out)
    assert (bi * wi * fi, bj * wj * fj, ks * kf) == (3, 3, 2)  # 48, 48 and 32 in 16s
    names = {str(b.name_hint) for b in _blocks(out.mod["main"]).values()}
    assert {"A_pad", "B_pad", "C_pad"} <= names  # zero-padded copies in, the valid part copied out


def test_cuda_tensorcore_defaults():
    rules = ms.schedule_rule.create("cuda-tensorcore")
    assert [type(r).__name__ for r in rules] == ["MultiLevelTilingTensorCore", "AutoInline", "CrossThreadReduction",
                                                 "MultiLevelTiling", "AutoInline", "ParallelizeVectorizeUnroll",
                                                 "AutoBind"]
    assert [g["compute"] for g in rules[0].intrin_groups] == ["mma_f16f16f32", "mma_f16f16f16"]
    assert [type(p).__name__ for p in ms.postproc.Postproc.create("cuda-tensorcore")] == [
        type(p).__name__ for p in ms.postproc.Postproc.create("cuda")]
    assert len(ms.mutator.Mutator.create("cuda-tensorcore")) == 3


def _space():
    return ms.space_generator.PostOrderApply(sch_rules="cuda-tensorcore", postprocs="cuda-tensorcore",
                                             mutator_probs="cuda-tensorcore")


def _valid(mod, n=8):
    ctx = ms.TuneContext(mod=mod, target=H100, space_generator=_space(), rand_state=1)
    out = []
    for seed in range(n):
        sch = ctx.space_generator.sample(ctx.mod, seed, ctx)
        if ctx.postprocess(sch):
            assert _verify(H100, sch) == (True, "")
            out.append(sch)
    return out


@pytest.mark.parametrize("shape", [(256, 256, 256), (48, 40, 24)], ids=["aligned", "padded"])
def test_candidates_pass_the_gpu_postprocessors_and_build(shape):
    valid = _valid(gemm_module(*shape))
    assert len(valid) >= 4
    for sch in valid[:3]:
        func = sch.mod["main"]
        assert not [lp for lp in _loops(func) if "meta_schedule.cooperative_fetch" in lp.annotations]
        # the copies into shared memory are spread over the warps' 32 lanes too
        tags = {str(lp.thread_binding.thread_tag) for lp in _loops(func) if lp.thread_binding is not None}
        assert {"blockIdx.x", "threadIdx.y", "threadIdx.x"} <= tags
        src = tvm.build(sch.mod, target=H100).imported_modules[0].get_source()
        assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in src and "ldmatrix" in src


@requires_nvrtc
def test_candidates_compile_for_sm80_and_sm90():
    (sch, *_) = _valid(gemm_module(128, 128, 128, out_dtype="float16"), 2)
    src = tvm.build(sch.mod, target=H100).imported_modules[0].get_source()
    for arch in ARCHS:
        assert "mma.sync.aligned.m16n8k16" in nvcc.compile_cuda(src, target_format="ptx", arch=arch).decode()


class _RecordingBuilder(LocalBuilder):
    def __init__(self):
        super().__init__(max_workers=1)
        self.results = []

    def build(self, build_inputs):
        out = super().build(build_inputs)
        self.results += out
        return out


@pytest.mark.parametrize("space", ["cuda-tensorcore", "default"])
def test_tune_tir_builds_every_candidate_of_an_fp16_gemm(tmp_path, space):
    builder = _RecordingBuilder()
    kwargs = {"space": _space()} if space == "cuda-tensorcore" else {}
    try:
        ms.tune_tir(gemm_module(256, 256, 256), H100, str(tmp_path), 2, num_trials_per_iter=2, builder=builder,
                    runner=_FakeRunner(), strategy="replay-trace", seed=0, **kwargs)
    finally:
        builder.close()
    assert len(builder.results) == 2
    assert all(r.error_msg is None for r in builder.results), [r.error_msg for r in builder.results]


@requires_cuda
@pytest.mark.parametrize("m, n, k, out_dtype", [(256, 256, 256, "float32"), (256, 256, 256, "float16"),
                                                (48, 40, 24, "float32")])
def test_tensor_core_candidates_match_numpy_on_the_gpu(m, n, k, out_dtype):
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype("float16")
    b = rng.uniform(-1, 1, (k, n)).astype("float16")
    want = a.astype("float32") @ b.astype("float32")
    dev = tvm.cuda(0)
    target = tvm.target.Target.from_device(dev)
    ctx = ms.TuneContext(mod=gemm_module(m, n, k, out_dtype), target=target, space_generator=_space(), rand_state=1)
    checked = 0
    for seed in range(6):
        sch = ctx.space_generator.sample(ctx.mod, seed, ctx)
        if not ctx.postprocess(sch):
            continue
        rt_mod = tvm.build(sch.mod, target=target)
        c = tvm.nd.array(np.zeros((m, n), out_dtype), dev)
        rt_mod["main"](tvm.nd.array(a, dev), tvm.nd.array(b, dev), c)
        # fp16 x fp16 products are exact in fp32 (only the summation order differs); fp16 accumulation rounds
        atol, rtol = (2e-3, 2e-3) if out_dtype == "float32" else (0.15, 5e-2)
        np.testing.assert_allclose(c.numpy().astype("float32"), want, rtol=rtol, atol=atol)
        checked += 1
    assert checked
