"""GPU benchmark: Tessera's CUDA kernels against PyTorch (cuBLAS / eager) on the same GPU,
in the same run, interleaved rounds (median per engine), GFLOP/s and Tessera/peer ratios
(> 1: Tessera is faster). Rows:

  - fp32 GEMM N^3 (default 4096), hand-written schedule: 128x128 block tiles, 8x8 per
    thread (256 threads), k tiles of 8 staged in shared memory by a cooperative
    (vectorized) fetch, the C tile accumulated in registers; vs torch.matmul (TF32 off);
  - fp32 GEMM N^3 tuned: a short ms.tune_tir run (--trials) with the CUDA rules, its best
    schedule; vs torch.matmul;
  - fp16 GEMM N^3 with tensor cores: needs the mma intrinsics
    (tir/tensor_intrin/cuda.py: ldmatrix + mma.sync m16n8k16, scheduled by its
    schedule_fp16_gemm: 128x128 block tiles, 64x64 per warp); vs torch.matmul in fp16;
  - fp16 GEMM N^3 tuned with tensor cores: ms.tune_tir with the "cuda-tensorcore" space
    (MultiLevelTilingTensorCore samples the block/warp tiles of the same mma.sync
    steps), its best schedule; vs torch.matmul in fp16;
  - ResNet-18 (torchvision) and a BERT-base layer (seq 128, hidden 768, 12 heads) through
    relax.frontend.torch.from_fx and relax.build(target="cuda") vs PyTorch eager.

A row that cannot run prints "skipped: <reason>". Every Tessera result is checked against
PyTorch before it is timed. Runs alone on the GPU machine (scripts/gpu_check.sh):
`python benchmarks/gpu.py [--size 4096] [--trials 8] [--only gemm,tuned,fp16,fp16tuned,models]
[--time-limit 110]`: the rows run in that order, and a row whose usual time no longer fits
in --time-limit seconds is skipped, saying so (--quick: N=2048, 4 trials).
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

ROWS = ("gemm", "tuned", "fp16", "fp16tuned", "models")
# Seconds a row usually takes on an H200 (build, check, timing; the tuning run for "tuned"),
# to skip what no longer fits in --time-limit.
ROW_SECONDS = {"gemm": 10, "tuned": 45, "fp16": 15, "fp16tuned": 50, "models": 50}


def log(msg):
    print(msg, flush=True)


def skipped(row, reason):
    log(f"{row:<38} skipped: {reason}")


# ---- the workloads --------------------------------------------------------------------

def gemm_module(tvm, n, in_dtype="float32", acc_dtype="float32"):
    from tessera.script import tir as T  # pylint: disable=import-outside-toplevel

    @T.prim_func
    def main(A: T.Buffer((n, n), in_dtype), B: T.Buffer((n, n), in_dtype), C: T.Buffer((n, n), acc_dtype)):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(n, n, n):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.cast(0, acc_dtype)
                # a cast to the operands' own dtype folds away (fp32)
                C[vi, vj] = C[vi, vj] + T.cast(A[vi, vk], acc_dtype) * T.cast(B[vk, vj], acc_dtype)

    return tvm.IRModule({"main": main})


def schedule_gemm_shared(sch, bm=128, bn=128, bk=8, tm=8, tn=8, vector=4):
    """The hand-written shared-memory schedule (see the module docstring)."""
    block = sch.get_block("C")
    c_local = sch.cache_write(block, 0, "local")
    i, j, k = sch.get_loops(block)
    i0, i1, i2 = sch.split(i, [None, bm // tm, tm])
    j0, j1, j2 = sch.split(j, [None, bn // tn, tn])
    k0, k1 = sch.split(k, [None, bk])
    sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
    bx = sch.fuse(i0, j0)
    tx = sch.fuse(i1, j1)
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    sch.reverse_compute_at(c_local, tx)
    threads = (bm // tm) * (bn // tn)
    for index in (0, 1):
        stage = sch.cache_read(block, index, "shared")
        sch.compute_at(stage, k0)
        fused = sch.fuse(*sch.get_loops(stage)[-2:])
        if vector > 1:
            _, t, v = sch.split(fused, [None, threads, vector])
            sch.vectorize(v)
        else:
            _, t = sch.split(fused, [None, threads])
        sch.bind(t, "threadIdx.x")
    sch.unroll(k1)
    sch.decompose_reduction(block, k0)
    return sch


class _UncheckedRunner:
    """A LocalRunner without the reference run: the unscheduled N^3 GEMM would take minutes
    on the host; the benchmark checks the chosen schedule against PyTorch instead."""

    def __new__(cls, **kwargs):
        from tessera.meta_schedule.runner import LocalRunner  # pylint: disable=import-outside-toplevel

        class Runner(LocalRunner):
            def make_reference(self, mod, target, args_info, path, seed=0):
                return None

        return Runner(**kwargs)


# ---- timing ---------------------------------------------------------------------------

def cuda_timer(torch, fn, number):
    """Seconds per call of ``fn`` over ``number`` calls, CUDA events around them."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(number):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 1e3 / number


def interleaved(torch, engines, rounds, budget_s):
    """{name: median seconds per call}: ``rounds`` rounds, the engines in rotating order,
    each calling itself enough times for about ``budget_s`` per round."""
    number = {}
    for name, fn in engines.items():
        fn()
        t = cuda_timer(torch, fn, 1)
        number[name] = max(1, min(200, int(budget_s / max(t, 1e-6))))
    times = {name: [] for name in engines}
    names = list(engines)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            times[name].append(cuda_timer(torch, engines[name], number[name]))
    return {name: float(np.median(v)) for name, v in times.items()}


def report(row, flop, secs, ours, peer):
    t_ours, t_peer = secs[ours], secs[peer]
    rate = (lambda t: f"{flop / t / 1e9:9.1f} GFLOP/s") if flop else (lambda t: "")
    log(f"{row:<38} {t_ours * 1e3:9.3f} ms {rate(t_ours)} | {peer}: {t_peer * 1e3:9.3f} ms {rate(t_peer)} | "
        f"ratio {t_peer / t_ours:5.2f}")


# ---- rows -----------------------------------------------------------------------------

def gemm_engines(tvm, torch, rt_mod, n, dtype, acc_dtype):
    dev = tvm.cuda(0)
    rng = np.random.default_rng(0)
    a_np, b_np = (rng.uniform(-0.5, 0.5, size=(n, n)).astype(dtype) for _ in range(2))
    nd = [tvm.nd.array(a_np, dev), tvm.nd.array(b_np, dev), tvm.nd.array(np.zeros((n, n), acc_dtype), dev)]
    a, b = torch.from_numpy(a_np).cuda(), torch.from_numpy(b_np).cuda()
    f = rt_mod["main"]
    f(*nd)
    want = torch.matmul(a.float(), b.float()).cpu().numpy()
    err = float(np.abs(nd[2].numpy().astype("float32") - want).max())
    tol = 1e-2 * max(1.0, float(np.abs(want).max()))
    if not err <= tol:
        raise AssertionError(f"Tessera's result differs from torch.matmul by {err:.3g} (tolerance {tol:.3g})")
    return {"tessera": lambda: f(*nd), "cuBLAS": lambda: torch.matmul(a, b)}


def row_gemm_hand(tvm, torch, args):
    row = f"fp32 GEMM {args.size}^3 hand-written"
    sch = tvm.tir.Schedule(gemm_module(tvm, args.size))
    try:
        schedule_gemm_shared(sch)
        rt_mod = tvm.build(sch.mod, target="cuda")
    except Exception as err:  # noqa: BLE001 -- the vectorized fetch may be what fails: retry scalar
        log(f"  (vectorized fetch failed: {first_line(err)}; retrying with scalar fetches)")
        sch = schedule_gemm_shared(tvm.tir.Schedule(gemm_module(tvm, args.size)), vector=1)
        rt_mod = tvm.build(sch.mod, target="cuda")
    engines = gemm_engines(tvm, torch, rt_mod, args.size, "float32", "float32")
    report(row, 2.0 * args.size ** 3, interleaved(torch, engines, args.rounds, args.budget), "tessera", "cuBLAS")


def tuned_gemm(tvm, args, in_dtype, acc_dtype, space="post-order-apply"):
    """The GEMM's best schedule after a short ms.tune_tir run (``space``: "post-order-apply"
    or a PostOrderApply, e.g. the "cuda-tensorcore" one)."""
    from tessera import meta_schedule as ms  # pylint: disable=import-outside-toplevel

    mod = gemm_module(tvm, args.size, in_dtype, acc_dtype)
    with tempfile.TemporaryDirectory() as wd:
        t0 = time.time()
        runner = _UncheckedRunner(timeout_sec=30, number=1, repeat=1, min_repeat_ms=0)
        try:
            db = ms.tune_tir(mod, args.target, wd, args.trials, num_trials_per_iter=min(args.trials, 16),
                             runner=runner, space=space, seed=0)
        finally:
            runner.close()
        sch = ms.tir_integration.compile_tir(db, mod, args.target)
        log(f"  (tuning took {time.time() - t0:.1f} s)")
    return tvm.build(sch.mod, target=args.target)


def row_gemm_tuned(tvm, torch, args):
    row = f"fp32 GEMM {args.size}^3 tuned ({args.trials} trials)"
    rt_mod = tuned_gemm(tvm, args, "float32", "float32")
    engines = gemm_engines(tvm, torch, rt_mod, args.size, "float32", "float32")
    report(row, 2.0 * args.size ** 3, interleaved(torch, engines, args.rounds, args.budget), "tessera", "cuBLAS")


def row_gemm_fp16_tuned(tvm, torch, args):
    from tessera import meta_schedule as ms  # pylint: disable=import-outside-toplevel

    row = f"fp16 GEMM {args.size}^3 tuned tensor cores ({args.trials} trials)"
    space = ms.space_generator.PostOrderApply(sch_rules="cuda-tensorcore", postprocs="cuda-tensorcore",
                                              mutator_probs="cuda-tensorcore")
    rt_mod = tuned_gemm(tvm, args, "float16", "float32", space)
    engines = gemm_engines(tvm, torch, rt_mod, args.size, "float16", "float32")
    report(row, 2.0 * args.size ** 3, interleaved(torch, engines, args.rounds, args.budget), "tessera", "cuBLAS")


def row_gemm_fp16(tvm, torch, args):
    """fp16 inputs, fp32 results: with the tensor-core intrinsics when this build has a
    schedule using them, and on the CUDA cores (the hand-written schedule) in any case."""
    row = f"fp16 GEMM {args.size}^3 tensor cores"
    flop = 2.0 * args.size ** 3
    schedule, why = None, None
    try:
        from tessera.tir.tensor_intrin import cuda as cuda_intrin  # pylint: disable=import-outside-toplevel
        schedule = getattr(cuda_intrin, "schedule_fp16_gemm", None)
        if schedule is None:
            why = ("tessera.tir.tensor_intrin.cuda has no schedule_fp16_gemm(sch) tensorizing the GEMM with its "
                   "mma intrinsics")
    except ImportError:
        why = "no CUDA tensor intrinsics in this build (tessera.tir.tensor_intrin.cuda)"
    if schedule is None:
        skipped(row, why)
    else:
        try:
            sch = schedule(tvm.tir.Schedule(gemm_module(tvm, args.size, "float16", "float32")))
            rt_mod = tvm.build(sch.mod, target="cuda")
            engines = gemm_engines(tvm, torch, rt_mod, args.size, "float16", "float32")
            report(row, flop, interleaved(torch, engines, args.rounds, args.budget), "tessera", "cuBLAS")
        except Exception as err:  # noqa: BLE001 -- the CUDA-core row below still runs
            skipped(row, f"failed: {type(err).__name__}: {first_line(err)}")
    row = f"fp16 GEMM {args.size}^3 CUDA cores, hand"
    sch = schedule_gemm_shared(tvm.tir.Schedule(gemm_module(tvm, args.size, "float16", "float32")))
    rt_mod = tvm.build(sch.mod, target="cuda")
    engines = gemm_engines(tvm, torch, rt_mod, args.size, "float16", "float32")
    report(row, flop, interleaved(torch, engines, args.rounds, args.budget), "tessera", "cuBLAS")


def bert_layer(torch):
    nn = torch.nn

    class BertLayer(nn.Module):
        def __init__(self, d=768, heads=12, ff=3072):
            super().__init__()
            self.heads, self.dh = heads, d // heads
            self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.fc1, self.fc2, self.act = nn.Linear(d, ff), nn.Linear(ff, d), nn.GELU()

        def forward(self, x):
            b, s, d = x.shape
            q, k, v = self.qkv(x).reshape(b, s, 3, self.heads, self.dh).permute(2, 0, 3, 1, 4)
            att = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) / (self.dh ** 0.5), dim=-1)
            ctx = torch.matmul(att, v).permute(0, 2, 1, 3).reshape(b, s, d)
            x = self.ln1(x + self.out(ctx))
            return self.ln2(x + self.fc2(self.act(self.fc1(x))))

    return BertLayer().eval(), (1, 128, 768)


def resnet18(torch):
    import torchvision  # pylint: disable=import-outside-toplevel

    return torchvision.models.resnet18().eval(), (1, 3, 224, 224)


def row_model(tvm, torch, args, name, make):
    row = f"{name} relax.build(cuda) vs eager"
    try:
        model, shape = make(torch)
    except ImportError as err:
        return skipped(row, f"{err.name or err} is not installed")
    try:
        from tessera.relax.frontend import torch as torch_frontend  # pylint: disable=import-outside-toplevel
        with torch.no_grad():
            mod = torch_frontend.from_fx(torch.fx.symbolic_trace(model), [(shape, "float32")])
        ex = tvm.relax.build(mod, target="cuda")
        vm = tvm.relax.VirtualMachine(ex, tvm.cuda(0))
    except Exception as err:  # noqa: BLE001 -- report why the row cannot run
        return skipped(row, f"importing or building for cuda failed: {type(err).__name__}: {first_line(err)}")
    x_np = np.random.default_rng(0).uniform(-0.5, 0.5, size=shape).astype("float32")
    x = torch.from_numpy(x_np).cuda()
    model = model.cuda()
    nd_x = tvm.nd.array(x_np, tvm.cuda(0))
    f = vm["main"]
    out = f(nd_x)
    if not hasattr(out, "numpy"):
        out = out[0]
    with torch.no_grad():
        want = model(x).cpu().numpy()
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-2, atol=1e-2)

    def eager():
        with torch.no_grad():
            model(x)

    secs = interleaved(torch, {"tessera": lambda: f(nd_x), "eager": eager}, args.rounds, args.budget)
    report(row, 0, secs, "tessera", "eager")


def first_line(err):
    text = str(err).strip()
    return text.splitlines()[0][:160] if text else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=4096, help="GEMM size N (N^3)")
    parser.add_argument("--trials", type=int, default=8, help="tune_tir trials for the tuned GEMM")
    parser.add_argument("--target", default=None,
                        help="the tuning target (a cuda target or tag; default: Target.from_device(tvm.cuda(0)))")
    parser.add_argument("--only", default=",".join(ROWS), help=f"rows to run, among {','.join(ROWS)}")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds")
    parser.add_argument("--budget", type=float, default=0.05, help="seconds per engine per round")
    parser.add_argument("--time-limit", type=float, default=110.0,
                        help="seconds for the whole run: rows that would not fit are skipped")
    parser.add_argument("--quick", action="store_true", help="N=2048, 4 trials, 3 rounds")
    args = parser.parse_args()
    if args.quick:
        args.size, args.trials, args.rounds = 2048, 4, 3
    rows = [r.strip() for r in args.only.split(",") if r.strip()]
    unknown = [r for r in rows if r not in ROWS]
    if unknown:
        parser.error(f"unknown rows {unknown} (choose among {', '.join(ROWS)})")
    t0 = time.time()
    import tessera as tvm  # pylint: disable=import-outside-toplevel

    names = {"gemm": f"fp32 GEMM {args.size}^3 hand-written", "tuned": f"fp32 GEMM {args.size}^3 tuned",
             "fp16": f"fp16 GEMM {args.size}^3 tensor cores",
             "fp16tuned": f"fp16 GEMM {args.size}^3 tuned tensor cores", "models": "ResNet-18 / BERT layer"}
    if not tvm.cuda(0).exist:
        for r in rows:
            skipped(names[r], "no CUDA device (tvm.cuda(0).exist is False)")
        return
    try:
        import torch  # pylint: disable=import-outside-toplevel
        if not torch.cuda.is_available():
            raise ImportError("torch has no CUDA device")
    except ImportError as err:
        for r in rows:
            skipped(names[r], f"PyTorch with CUDA is needed for the comparison ({err})")
        return
    if args.target is None:
        args.target = str(tvm.target.Target.from_device(tvm.cuda(0)))
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 against fp32
    torch.backends.cudnn.allow_tf32 = False
    log(f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; target {args.target}; "
        "Tessera/peer ratio > 1: Tessera faster")
    todo = {"gemm": [lambda: row_gemm_hand(tvm, torch, args)],
            "tuned": [lambda: row_gemm_tuned(tvm, torch, args)],
            "fp16": [lambda: row_gemm_fp16(tvm, torch, args)],
            "fp16tuned": [lambda: row_gemm_fp16_tuned(tvm, torch, args)],
            "models": [lambda: row_model(tvm, torch, args, "ResNet-18", resnet18),
                       lambda: row_model(tvm, torch, args, "BERT layer", bert_layer)]}
    for r in rows:
        left = args.time_limit - (time.time() - t0)
        if left < ROW_SECONDS[r]:
            skipped(names[r], f"time limit: {left:.0f} s left of --time-limit {args.time_limit:.0f}, the row "
                    f"usually takes {ROW_SECONDS[r]} s")
            continue
        for fn in todo[r]:
            try:
                fn()
            except Exception as err:  # noqa: BLE001 -- one failing row does not stop the others
                skipped(names[r], f"failed: {type(err).__name__}: {first_line(err)}")
    log(f"total {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
