"""ms.schedule_rule.CrossThreadReduction (src/meta_schedule/schedule_rule/cross_thread_reduction.cc):
the schedules it leads to on small reductions (trace and loop structure, as TVM's rule tests check them),
its place in the CUDA defaults, the tuner's GPU flow taking its candidates (postprocessors, VerifyGPUCode,
the cuda build: NVRTC to PTX for sm_80 and sm_90), and, on a GPU (skipped here), the numbers against NumPy."""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import tir
from tessera.contrib import nvcc
from tessera.script import tir as T

from codegen.test_cuda_codegen import ARCHS, requires_nvrtc
from .test_cuda_space import _loops, _verify

requires_cuda = pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device")
A100 = "nvidia/nvidia-a100"


def rowsum(n=64, m=1024):
    @T.prim_func
    def main(A: T.Buffer((n, m), "float32"), B: T.Buffer((n,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, k in T.grid(n, m):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]

    return tvm.IRModule({"main": main})


def softmax(n=64, m=512):
    @T.prim_func
    def main(A: T.Buffer((n, m), "float32"), C: T.Buffer((n, m), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        M = T.alloc_buffer((n,))
        E = T.alloc_buffer((n, m))
        S = T.alloc_buffer((n,))
        for i, k in T.grid(n, m):
            with T.block("max"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    M[vi] = T.float32(-3.4e38)
                M[vi] = T.max(M[vi], A[vi, vk])
        for i, k in T.grid(n, m):
            with T.block("exp"):
                vi, vk = T.axis.remap("SS", [i, k])
                E[vi, vk] = T.exp(A[vi, vk] - M[vi])
        for i, k in T.grid(n, m):
            with T.block("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + E[vi, vk]
        for i, k in T.grid(n, m):
            with T.block("norm"):
                vi, vk = T.axis.remap("SS", [i, k])
                C[vi, vk] = E[vi, vk] / S[vi]

    return tvm.IRModule({"main": main})


def _rule(extents=(32, 64, 128), target=A100):
    rule = ms.schedule_rule.CrossThreadReduction(list(extents))
    rule._initialize_with_tune_context(ms.TuneContext(target=target))
    return rule


def _shape(sch, block):
    """[(extent, thread tag or None)] of the block's loops."""
    out = []
    for loop in sch.get_loops(sch.get_block(block)):
        node = sch.get(loop)
        out.append((int(node.extent), None if node.thread_binding is None else str(node.thread_binding.thread_tag)))
    return out


def _insts(sch):
    return [str(inst.kind.name) for inst in sch.trace.insts]


def test_a_long_row_sum_is_split_over_threadidx_x():
    sch = tir.Schedule(rowsum(), seed=5)
    branches = _rule().apply(sch, sch.get_block("B"))
    assert len(branches) == 2  # the cross-thread branch, then the schedule as it was
    ct, orig = branches
    assert _insts(ct) == ["GetBlock", "SampleCategorical", "GetLoops", "Split", "Reorder", "Bind"]
    threads = int(ct.get(ct.trace.insts[1].outputs[0]))
    assert threads in (32, 64, 128)
    # i, then the threads, then each thread's serial share of the row (k = k0 * threads + k1)
    assert _shape(ct, "B") == [(64, None), (threads, "threadIdx.x"), (1024 // threads, None)]
    assert _shape(orig, "B") == [(64, None), (1024, None)]
    assert "Split" not in _insts(orig)


def test_the_sampled_thread_count_covers_the_candidates():
    seen = set()
    for seed in range(16):
        sch = tir.Schedule(rowsum(), seed=7919 * seed + 1)
        ct, _ = _rule((16, 64, 256)).apply(sch, sch.get_block("B"))
        seen.add(_shape(ct, "B")[1][0])
    assert seen <= {16, 64, 256} and len(seen) >= 2


def test_the_sum_of_softmax_is_computed_in_its_consumers_thread_block():
    sch = tir.Schedule(softmax(), seed=2)
    ct, _ = _rule((64,)).apply(sch, sch.get_block("sum"))
    # the consumer's inner loop bound to the same 64 threads, the sum computed at the consumer's row loop
    assert _shape(ct, "norm") == [(64, None), (8, None), (64, "threadIdx.x")]
    assert _shape(ct, "sum") == [(64, None), (1, None), (64, "threadIdx.x"), (8, None)]
    assert ct.get(ct.get_block("sum")).writes[0].buffer.scope() == "shared"
    assert _insts(ct)[:8] == ["GetBlock", "GetConsumers", "GetLoops", "SampleCategorical", "Split", "Bind",
                              "GetLoops", "ComputeAt"]
    assert "SetScope" in _insts(ct)


def test_short_or_unknown_reductions_are_left_alone():
    sch = tir.Schedule(rowsum(m=16))  # 16 <= the warp size: no cross-thread reduction
    assert len(_rule().apply(sch, sch.get_block("B"))) == 1

    @T.prim_func
    def weird(A: T.Buffer((8, 256), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, k in T.grid(8, 256):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] * T.float32(0.5) + A[vi, vk]  # not a commutative reducer

    sch = tir.Schedule(tvm.IRModule({"main": weird}))
    (out,) = _rule().apply(sch, sch.get_block("B"))
    assert _shape(out, "B") == [(8, None), (256, None)]
    # thread counts above the target's limit are not candidates
    sch = tir.Schedule(rowsum())
    assert len(_rule((2048,), "cuda -max_threads_per_block=1024").apply(sch, sch.get_block("B"))) == 1


def test_it_is_in_the_cuda_defaults_with_tvms_thread_counts():
    rules = ms.schedule_rule.create("cuda")
    (ctr,) = [r for r in rules if isinstance(r, ms.schedule_rule.CrossThreadReduction)]
    assert [type(r).__name__ for r in rules].index("CrossThreadReduction") == 1  # after AutoInline, before MLT
    assert [int(t) for t in ctr.thread_extents] == [4, 8, 16, 32, 64, 128, 256, 512]


def _cross_thread_candidates(mod, n=12):
    ctx = ms.TuneContext(mod=mod, target=A100, rand_state=1)
    found = []
    for seed in range(n):
        sch = ctx.space_generator.sample(ctx.mod, seed, ctx)
        assert ctx.postprocess(sch), f"seed {seed}: a candidate the GPU postprocessors refuse"
        assert _verify(A100, sch) == (True, "")
        reduce_threads = [l for l in _loops(sch.mod["main"])
                          if l.thread_binding is not None and str(l.thread_binding.thread_tag) == "threadIdx.x"]
        if reduce_threads and _has_thread_bound_reduction(sch):
            found.append(sch)
    return found


def _has_thread_bound_reduction(sch):
    """Some block keeps its init with a threadIdx-bound reduction loop (what LowerCrossThreadReduction takes)."""
    return "with T.init()" in sch.mod["main"].script()


@pytest.mark.parametrize("make", [rowsum, softmax])
def test_tuner_candidates_pass_the_gpu_postprocessors_and_build(make):
    found = _cross_thread_candidates(make(), 16)
    assert found, "no sampled candidate took the cross-thread branch"
    for sch in found:  # every one builds (NVRTC, for the tag's sm_80)
        src = tvm.build(sch.mod, target=A100).imported_modules[0].get_source()
        assert "__shfl_down_sync" in src


def test_a_reduction_fused_into_a_thread_block_takes_its_thread_count():
    """softmax's max, computed where sum already shares norm's threads, reuses the sampled thread count (one
    variable in the trace, so a mutation changes all three loops): the kernel's threadIdx.x loops agree."""
    sch = tir.Schedule(softmax(), seed=2)
    sch.compute_inline(sch.get_block("exp"))  # as AutoInline does: max's consumers are sum and norm
    rule = _rule((32, 64, 128, 256))
    (sch, _) = rule.apply(sch, sch.get_block("sum"))
    (sch, _) = rule.apply(sch, sch.get_block("max"))
    threads = {n for block in ("max", "sum", "norm") for n, tag in _shape(sch, block) if tag == "threadIdx.x"}
    assert len(threads) == 1
    assert _insts(sch).count("SampleCategorical") == 1
    sch.bind(sch.get_loops(sch.get_block("norm"))[0], "blockIdx.x")  # what AutoBind does next
    assert "__shfl_down_sync" in tvm.build(sch.mod, target=A100).imported_modules[0].get_source()


@requires_nvrtc
def test_cross_thread_candidates_compile_for_sm80_and_sm90():
    (sch, *_) = _cross_thread_candidates(softmax())
    src = tvm.build(sch.mod, target=A100).imported_modules[0].get_source()
    for arch in ARCHS:
        assert f".target {arch}" in nvcc.compile_cuda(src, target_format="ptx", arch=arch).decode()


@requires_cuda
@pytest.mark.parametrize("make", [rowsum, softmax])
def test_cross_thread_candidates_match_numpy_on_the_gpu(make):
    mod = make()
    target = tvm.target.Target.from_device(tvm.cuda(0))
    ctx = ms.TuneContext(mod=mod, target=target, rand_state=1)
    rng = np.random.default_rng(0)
    shape = [int(x) for x in mod["main"].buffer_map[mod["main"].params[0]].shape]
    a = rng.standard_normal(shape).astype("float32")
    want = a.sum(axis=1) if make is rowsum else np.exp(a - a.max(1, keepdims=True)) / np.exp(
        a - a.max(1, keepdims=True)).sum(1, keepdims=True)
    checked = 0
    for seed in range(8):
        sch = ctx.space_generator.sample(ctx.mod, seed, ctx)
        if not ctx.postprocess(sch) or not _has_thread_bound_reduction(sch):
            continue
        rt_mod = tvm.build(sch.mod, target=target)
        dev = tvm.cuda(0)
        out = tvm.nd.array(np.zeros(want.shape, "float32"), dev)
        rt_mod["main"](tvm.nd.array(a, dev), out)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)
        checked += 1
    assert checked
