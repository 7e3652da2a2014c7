"""GPU tuning without a GPU: the target tags, the CUDA design space (MultiLevelTiling bound
to blockIdx.x / vthread.x / threadIdx.x with shared-memory reads, AutoBind), the GPU
postprocessors (RewriteCooperativeFetch, RewriteUnboundBlock, VerifyGPUCode) and the
tuning loop with a measure-free builder and runner. The GPU runs are in test_cuda_tune.py."""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import tir
from tessera.meta_schedule.builder import Builder, BuilderResult
from tessera.meta_schedule.runner import Runner, RunnerResult
from tessera.script import tir as T

from ms_helpers import matmul_module

P100 = "nvidia/tesla-p100"


def matmul(n=1024):
    return matmul_module(n)


def add_relu(n):
    @T.prim_func
    def main(A: T.Buffer((n, n), "float32"), B: T.Buffer((n, n), "float32"), C: T.Buffer((n, n), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        D = T.alloc_buffer((n, n))
        for i, j in T.grid(n, n):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = A[vi, vj] + B[vi, vj]
        for i, j in T.grid(n, n):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(D[vi, vj], T.float32(0))

    return tvm.IRModule({"main": main})


def _loops(func):
    loops = []
    tvm.tir.stmt_functor.post_order_visit(func.body, lambda n: loops.append(n) if isinstance(n, tvm.tir.For) else None)
    return loops


def _tags(func):
    return sorted({str(l.thread_binding.thread_tag) for l in _loops(func) if l.thread_binding is not None})


def _blocks(func):
    out = []
    tvm.tir.stmt_functor.post_order_visit(func.body, lambda n: out.append(n) if isinstance(n, tvm.tir.Block) else None)
    return {str(b.name_hint): b for b in out}


def _valid_candidates(mod, target, n_seeds, ctx=None):
    ctx = ctx or ms.TuneContext(mod=mod, target=target, rand_state=1)
    valid = []
    for seed in range(n_seeds):
        sch = ctx.space_generator.sample(ctx.mod, seed, ctx)
        if ctx.postprocess(sch):
            valid.append(sch)
    return ctx, valid


# ---- target tags ---------------------------------------------------------------------------
def test_nvidia_tags_carry_tvms_limits():
    p100 = tvm.target.Target(P100)
    assert p100.kind.name == "cuda" and list(p100.keys) == ["cuda", "gpu"]
    assert {k: p100.attrs[k] for k in ("arch", "max_threads_per_block", "max_shared_memory_per_block",
                                       "thread_warp_size", "registers_per_block")} == {
        "arch": "sm_60", "max_threads_per_block": 1024, "max_shared_memory_per_block": 49152,
        "thread_warp_size": 32, "registers_per_block": 65536}
    assert tvm.target.Target("nvidia/nvidia-a100").attrs["arch"] == "sm_80"
    assert tvm.target.Target("nvidia/nvidia-a100").attrs["l2_cache_size_bytes"] == 41943040
    assert tvm.target.Target("nvidia/nvidia-h100").attrs["arch"] == "sm_90a"
    assert tvm.target.Target("nvidia/nvidia-h200").attrs["arch"] == "sm_90"  # Tessera's own tag
    assert tvm.target.Target("nvidia/geforce-rtx-3090").attrs["arch"] == "sm_86"
    assert "l2_cache_size_bytes" not in tvm.target.Target("nvidia/geforce-rtx-3090").attrs
    tags = tvm.target.list_tags()
    assert P100 in tags and tags[P100].attrs["arch"] == "sm_60"


def test_a_tag_with_options_and_its_string_round_trip():
    t = tvm.target.Target("nvidia/nvidia-a100 -max_threads_per_block=512")
    assert t.attrs["max_threads_per_block"] == 512 and t.attrs["arch"] == "sm_80"
    again = tvm.target.Target(str(t))  # the canonical string is a plain cuda target
    assert str(again) == str(t) and again.attrs["max_threads_per_block"] == 512
    assert tvm.ir.structural_equal(again, t) and tvm.ir.structural_hash(again) == tvm.ir.structural_hash(t)
    assert tvm.target.Target(P100).kind.get_attr("meta_schedule.default_rules") == "gpu"
    with pytest.raises(ValueError, match="unknown target kind 'nvidia/no-such-gpu'.*list_tags"):
        tvm.target.Target("nvidia/no-such-gpu")
    with pytest.raises(ValueError, match="unknown option -mcpu"):
        tvm.target.Target("nvidia/tesla-p100 -mcpu=x")


# ---- the default rules and the design space ---------------------------------------------------
def test_default_cuda_rules_are_tvms():
    rules = ms.schedule_rule.create("cuda")
    names = [type(r).__name__ for r in rules]
    assert names == ["AutoInline", "CrossThreadReduction", "MultiLevelTiling", "AutoInline",
                     "ParallelizeVectorizeUnroll", "AutoBind"]
    mlt = rules[2]
    assert mlt.structure == "SSSRRSRS" and mlt.max_innermost_factor == 64
    assert list(mlt.tile_binds) == ["blockIdx.x", "vthread.x", "threadIdx.x"]
    assert rules[4].max_jobs_per_core == -1 and rules[4].max_vectorize_extent == -1
    assert [int(x) for x in rules[4].unroll_max_steps] == [0, 16, 64, 512, 1024]


def test_design_space_of_a_1024_matmul_is_thread_bound_with_shared_stages():
    ctx = ms.TuneContext(mod=matmul(), target=P100, rand_state=0)
    (space,) = ctx.generate_design_space()
    func = space.mod["main"]
    assert _tags(func) == ["blockIdx.x", "threadIdx.x", "vthread.x"]
    blocks = _blocks(func)
    assert blocks["A_shared"].writes[0].buffer.scope() == "shared"
    assert blocks["B_shared"].writes[0].buffer.scope() == "shared"
    assert blocks["C_local"].reads[0].buffer.scope() == "local"
    fetch = [l for l in _loops(func) if "meta_schedule.cooperative_fetch" in l.annotations]
    assert len(fetch) == 2
    assert "SampleCategorical" in str(space.trace) or "sample_categorical" in str(space.trace)


def test_sampled_candidates_are_valid_gpu_schedules():
    ctx, valid = _valid_candidates(matmul(), P100, 40)
    assert len(valid) >= 2, "too few of 40 samples survive the GPU postprocessors"
    verify = ctx.postprocs[-1]
    for sch in valid:
        func = sch.mod["main"]
        assert "threadIdx.x" in _tags(func) and "blockIdx.x" in _tags(func)
        # the cooperative fetch is realized: no annotation left, the copy bound to threadIdx.x
        assert not [l for l in _loops(func) if "meta_schedule.cooperative_fetch" in l.annotations]
        assert verify.apply(sch), verify.last_error
        blocks = _blocks(func)
        assert "C_init" in blocks and "C_update" in blocks  # RewriteReductionBlock ran
    for sch in valid[:3]:
        tvm.lower(sch.mod)  # the TIR pipeline takes the candidates (code generation aside)
    fetch_threads = [l for l in _loops(valid[0].mod["main"]) if l.thread_binding is not None
                     and str(l.thread_binding.thread_tag) == "threadIdx.x"]
    assert len(fetch_threads) == 3  # the kernel's threads, then one per shared stage


def test_elementwise_blocks_are_inlined_and_bound_by_auto_bind():
    ctx, valid = _valid_candidates(add_relu(1024), P100, 5)
    assert len(valid) == 5
    for sch in valid:
        func = sch.mod["main"]
        assert list(_blocks(func)) == ["C", "root"] or set(_blocks(func)) == {"C", "root"}
        assert _tags(func) == ["blockIdx.x", "threadIdx.x"]
        # 1024 * 1024 elements > 256 blocks * 1024 threads: a serial loop inside the thread
        extents = sorted(int(l.extent) for l in _loops(func))
        assert extents == [4, 256, 1024]


def test_auto_bind_samples_the_thread_count():
    rule = ms.schedule_rule.AutoBind(max_threadblocks=256, thread_extents=[32, 64, 128])
    rule._initialize_with_tune_context(ms.TuneContext(target=P100))
    seen = set()
    for seed in range(12):
        sch = tir.Schedule(add_relu(64), seed=104729 * seed + 7)
        (out,) = rule.apply(sch, sch.get_block("D"))
        loops = out.get_loops(out.get_block("D"))
        assert [str(out.get(l).thread_binding.thread_tag) for l in loops] == ["blockIdx.x", "threadIdx.x"]
        seen.add(int(out.get(loops[1]).extent))
    assert seen <= {32, 64, 128} and len(seen) >= 2
    with pytest.raises(ValueError, match="_initialize_with_tune_context"):
        sch = tir.Schedule(add_relu(64))
        ms.schedule_rule.AutoBind().apply(sch, sch.get_block("D"))


def test_rewrite_unbound_block_binds_what_no_rule_bound():
    post = ms.postproc.RewriteUnboundBlock(max_threadblocks=256)
    post._initialize_with_tune_context(ms.TuneContext(target=P100))
    sch = tir.Schedule(add_relu(20))
    assert post.apply(sch)
    func = sch.mod["main"]
    for name in ("C", "D"):
        loops = sch.get_loops(sch.get_block(name))
        assert [str(sch.get(l).thread_binding.thread_tag) for l in loops] == ["blockIdx.x", "threadIdx.x"]
        assert [int(sch.get(l).extent) for l in loops] == [1, 400]  # all 400 elements in one block
    assert post.apply(sch) and tvm.ir.structural_equal(sch.mod["main"], func)  # nothing left to bind


def test_rewrite_cooperative_fetch_splits_by_the_thread_extent():
    sch = tir.Schedule(matmul(64))
    i, j, k = sch.get_loops(sch.get_block("C"))
    i0, i1 = sch.split(i, [None, 16])
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "threadIdx.x")
    a_shared = sch.cache_read(sch.get_block("C"), 0, "shared")
    sch.compute_at(a_shared, i1)
    fused = sch.fuse(*sch.get_loops(a_shared)[-2:])
    sch.annotate(fused, "meta_schedule.cooperative_fetch", 4)
    assert ms.postproc.RewriteCooperativeFetch().apply(sch)
    loops = sch.get_loops(a_shared)
    # 16 rows x 64 columns fetched by 16 threads, 4 elements each, vectorized
    assert [int(sch.get(l).extent) for l in loops[2:]] == [16, 16, 4]
    assert str(sch.get(loops[3]).thread_binding.thread_tag) == "threadIdx.x"
    assert sch.get(loops[4]).kind == tvm.tir.ForKind.VECTORIZED
    assert "cooperative_fetch" not in str(sch.mod)


# ---- VerifyGPUCode on the scheduled program -------------------------------------------------
def _window_sum_shared():
    @T.prim_func
    def main(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(1024):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + A[vi + 1] + A[vi + 2]

    sch = tir.Schedule(tvm.IRModule({"main": main}))
    i0, i1 = sch.split(sch.get_loops(sch.get_block("C"))[0], [None, 128])
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "threadIdx.x")
    shared = sch.cache_read(sch.get_block("C"), 0, "shared")
    sch.compute_at(shared, i1)
    return sch


def _verify(target, sch):
    post = ms.postproc.VerifyGPUCode()
    post._initialize_with_tune_context(ms.TuneContext(target=target))
    return post.apply(sch), post.last_error


def test_verify_gpu_code_counts_a_root_shared_buffer_per_thread_block():
    sch = _window_sum_shared()  # A_shared: 1027 floats allocated at the root, 130 used per block
    assert _verify("cuda -max_shared_memory_per_block=520", sch) == (True, "")
    ok, why = _verify("cuda -max_shared_memory_per_block=516", sch)
    assert not ok and "520 bytes of shared memory, more than 516" in why


def test_verify_gpu_code_counts_every_vthread_axis():
    ctx, valid = _valid_candidates(matmul(256), P100, 30)
    vthreads = []
    for sch in valid:
        ext = [int(l.extent) for l in _loops(sch.mod["main"])
               if l.thread_binding is not None and str(l.thread_binding.thread_tag) == "vthread.x"]
        vthreads.append(ext[0] if ext else 1)
    assert valid and max(vthreads) <= 8


# ---- the tuning loop, measure-free ---------------------------------------------------------
class _NoBuild(Builder):
    """Builds nothing: every candidate "builds" (measure-free tuning of the search only)."""

    def build(self, build_inputs):
        return [BuilderResult("/nonexistent/candidate.so", None) for _ in build_inputs]


class _FakeRunner(Runner):
    """Times nothing: a latency from the candidate's position, no reference check."""

    def __init__(self):
        self.n = 0

    def make_reference(self, mod, target, args_info, path, seed=0):
        return None

    def run(self, runner_inputs):
        out = []
        for inp in runner_inputs:
            assert inp.device_type == "cuda"
            self.n += 1
            out.append(RunnerResult([1e-3 / self.n], None))
        return out


def test_tune_tir_for_cuda_without_measuring_gives_a_valid_schedule(tmp_path):
    mod = matmul(256)
    db = ms.tune_tir(mod, P100, str(tmp_path), 8, num_trials_per_iter=8, builder=_NoBuild(),
                     runner=_FakeRunner(), strategy="replay-trace", seed=3)
    sch = ms.tir_integration.compile_tir(db, mod, P100)
    assert "threadIdx.x" in _tags(sch.mod["main"])
    assert _verify(P100, sch) == (True, "")


@pytest.mark.skipif(tvm.cuda(0).exist, reason="checks the machine without a GPU")
def test_tune_tir_for_cuda_without_a_gpu_fails_up_front(tmp_path):
    with pytest.raises(RuntimeError, match="no CUDA device to measure on"):
        ms.tune_tir(matmul(64), P100, str(tmp_path), 8)


def test_mutate_thread_binding_repicks_auto_binds_thread_count():
    rule = ms.schedule_rule.AutoBind(thread_extents=[32, 64, 128, 256])
    ctx = ms.TuneContext(mod=add_relu(64), target=P100)
    rule._initialize_with_tune_context(ctx)
    sch = tir.Schedule(add_relu(64), seed=11)
    (sch,) = rule.apply(sch, sch.get_block("D"))
    m = ms.mutator.MutateThreadBinding()
    m._initialize_with_tune_context(ctx)
    seen = set()
    for state in range(8):
        trace = m.apply(sch.trace, state)
        assert trace is not None
        replay = tir.Schedule(add_relu(64))
        trace.apply_to_schedule(replay, remove_postproc=False)
        seen.add(int(replay.get(replay.get_loops(replay.get_block("D"))[1]).extent))
    before = int(sch.get(sch.get_loops(sch.get_block("D"))[1]).extent)
    assert before not in seen and len(seen) >= 2
    # nothing to mutate without a sampled thread count
    assert m.apply(tir.Schedule(add_relu(64)).trace, 0) is None
    # MutateUnroll leaves the thread count alone
    assert ms.mutator.MutateUnroll().apply(sch.trace, 0) is None


def test_tune_relax_for_cuda_without_measuring(tmp_path):
    from .test_meta_schedule_relax import mlp_module

    mod = mlp_module()
    tasks = ms.relax_integration.extract_tasks(mod, "nvidia/nvidia-h200")
    db = ms.relax_integration.tune_relax(mod, None, "nvidia/nvidia-h200", str(tmp_path), 2 * len(tasks),
                                         num_trials_per_iter=2, builder=_NoBuild(), runner=_FakeRunner(),
                                         strategy="replay-trace", seed=1)
    records = db.get_all_tuning_records()
    assert len(records) == 2 * len(tasks) and all(r.is_valid for r in records)
    for task in tasks:  # every kernel's best schedule is a valid GPU schedule
        sch = db.query_schedule(task.mod, target=str(tvm.target.Target("nvidia/nvidia-h200")), workload_name="main")
        assert sch is not None and "threadIdx.x" in _tags(sch.mod["main"])
        assert _verify("nvidia/nvidia-h200", sch) == (True, "")


@T.prim_func
def _sum_all(A: T.Buffer((32, 64), "float32"), B: T.Buffer((1,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, k in T.grid(32, 64):
        with T.block("B"):
            vi, vk = T.axis.remap("RR", [i, k])
            with T.init():
                B[0] = T.float32(0)
            B[0] = B[0] + A[vi, vk]


def test_a_reduction_to_a_scalar_runs_in_one_thread_around_its_loops():
    post = ms.postproc.RewriteUnboundBlock()
    post._initialize_with_tune_context(ms.TuneContext(target=P100))
    sch = tir.Schedule(tvm.IRModule({"main": _sum_all}))
    assert post.apply(sch)
    loops = sch.get_loops(sch.get_block("B"))
    assert [int(sch.get(l).extent) for l in loops] == [1, 1, 32, 64]
    assert [str(sch.get(l).thread_binding.thread_tag) for l in loops[:2]] == ["blockIdx.x", "threadIdx.x"]
    tvm.lower(sch.mod)


def test_target_from_device():
    assert str(tvm.target.Target.from_device(tvm.cpu())) == str(tvm.target.default_host())
    if not tvm.cuda(0).exist:
        with pytest.raises(ValueError, match="does not exist"):
            tvm.target.Target.from_device(tvm.cuda(0))


def test_a_worker_whose_device_is_unusable_restarts():
    """The GPU runner raises RestartWorker when a candidate left the CUDA context unusable:
    that candidate fails, the next one runs in a fresh worker (not in the broken one)."""
    from tessera.meta_schedule.worker_pool import WorkerFailure, WorkerPool

    pool = WorkerPool(1)
    try:
        (first,) = pool.map("ms_helpers", "pid_or_restart", [(False,)], 60)
        (again,) = pool.map("ms_helpers", "pid_or_restart", [(False,)], 60)
        assert first == again  # a worker serves call after call
        (res,) = pool.map("ms_helpers", "pid_or_restart", [(True,)], 60)
        assert isinstance(res, WorkerFailure) and res.kind == "error" and "device is unusable" in res.message
        (fresh,) = pool.map("ms_helpers", "pid_or_restart", [(False,)], 60)
        assert isinstance(fresh, int) and fresh != first
    finally:
        pool.close()


def _gpu_benchmark():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "benchmarks", "gpu.py")
    spec = importlib.util.spec_from_file_location("tessera_gpu_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def test_the_gpu_benchmarks_hand_written_gemm_is_a_valid_gpu_schedule():
    """benchmarks/gpu.py's shared-memory GEMM (fp32 and fp16 inputs, 4096^3) passes VerifyGPUCode
    and the TIR pipeline, so the GPU run does not find it broken."""
    bench, _ = _gpu_benchmark()
    for in_dtype in ("float32", "float16"):
        for vector in (4, 1):
            sch = bench.schedule_gemm_shared(tir.Schedule(bench.gemm_module(tvm, 4096, in_dtype, "float32")),
                                             vector=vector)
            assert _verify("nvidia/nvidia-h200", sch) == (True, "")
            assert _tags(sch.mod["main"]) == ["blockIdx.x", "threadIdx.x"]
    tvm.lower(bench.schedule_gemm_shared(tir.Schedule(bench.gemm_module(tvm, 256))).mod)


@pytest.mark.skipif(tvm.cuda(0).exist, reason="checks a machine without a GPU")
def test_the_gpu_benchmark_says_why_it_skips_without_a_gpu():
    import subprocess
    import sys

    _, path = _gpu_benchmark()
    out = subprocess.run([sys.executable, path, "--only", "gemm,models"], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.count("skipped: no CUDA device") == 2, out
