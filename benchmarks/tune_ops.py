"""Per-operator tuning (issue [G2]): each operator's fused PrimFunc as relax.build makes it
(conv2d + bias + relu with the packed weight, a 1x1 conv2d, softmax, attention's
batch_matmul) tuned with tune_tir for --trials trials on one thread (target
"llvm --num-cores=1"), then its best record vs its untuned default schedule
(tir.transform.DefaultCPUSchedule) vs PyTorch vs NumPy, timed in the same run
(interleaved rounds, median). The tuned output is checked against the default's first
(the default schedules are checked against NumPy in tests/python). Prints per operator
the latencies and the ratios default / tuned, PyTorch / tuned, NumPy / tuned, and the
load average (the machine may be shared).

  python benchmarks/tune_ops.py [--ops conv3x3_64,softmax] [--trials 64] [--work-dir DIR] [--clock cpu]

A rerun with the same --work-dir measures the databases already tuned again."""
import argparse
import os
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

TARGET = "llvm --num-cores=1"


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", default="conv3x3_64,conv3x3_256,conv1x1,softmax,batch_matmul")
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--per-iter", type=int, default=16, help="num_trials_per_iter")
    ap.add_argument("--work-dir", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="cpu: time.process_time (one-thread kernels on a shared machine)")
    return ap.parse_args()


def _relax_fn(relax, params, body):
    bb = relax.BlockBuilder()
    vs = [relax.Var(n, relax.TensorStructInfo(s, "float32")) for n, s in params]
    with bb.function("main", vs):
        with bb.dataflow():
            out = bb.emit_output(body(bb, vs))
        bb.emit_func_output(out)
    return bb.get()


def conv_module(relax, cin, cout, hw, k):
    def body(bb, v):
        c = bb.emit(relax.op.nn.conv2d(v[0], v[1], padding=k // 2))
        c = bb.emit(relax.op.add(c, relax.op.reshape(v[2], (1, cout, 1, 1))))
        return bb.emit(relax.op.nn.relu(c))
    return _relax_fn(relax, [("x", (1, cin, hw, hw)), ("w", (cout, cin, k, k)), ("b", (cout,))], body)


def softmax_module(relax):
    return _relax_fn(relax, [("x", (256, 1000))], lambda bb, v: bb.emit(relax.op.nn.softmax(v[0], axis=-1)))


def bmm_module(relax):
    return _relax_fn(relax, [("q", (12, 128, 64)), ("k", (12, 64, 128))],
                     lambda bb, v: bb.emit(relax.op.matmul(v[0], v[1])))


def peers(name, np, torch):
    """(PyTorch fn, NumPy fn) computing the operator on fresh random inputs."""
    rng = np.random.default_rng(0)
    if name.startswith("conv"):
        cin, cout, hw, k = OPS[name][1]
        x = rng.standard_normal((1, cin, hw, hw), dtype="float32")
        w = rng.standard_normal((cout, cin, k, k), dtype="float32")
        b = rng.standard_normal((cout,), dtype="float32")
        tx, tw, tb = (torch.from_numpy(a) for a in (x, w, b))
        wm = w.reshape(cout, -1)
        p = k // 2

        def numpy_conv():  # im2col + GEMM (OpenBLAS)
            xp = np.pad(x[0], ((0, 0), (p, p), (p, p)))
            cols = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(1, 2))  # cin, hw, hw, k, k
            cols = cols.transpose(0, 3, 4, 1, 2).reshape(cin * k * k, hw * hw)
            return np.maximum(wm @ cols + b[:, None], 0)
        return (lambda: torch.relu(torch.nn.functional.conv2d(tx, tw, tb, padding=p))), numpy_conv
    if name == "softmax":
        x = rng.standard_normal((256, 1000), dtype="float32")
        tx = torch.from_numpy(x)

        def numpy_softmax():
            e = np.exp(x - x.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
        return (lambda: torch.softmax(tx, dim=-1)), numpy_softmax
    q = rng.standard_normal((12, 128, 64), dtype="float32")
    k = rng.standard_normal((12, 64, 128), dtype="float32")
    tq, tk = torch.from_numpy(q), torch.from_numpy(k)
    return (lambda: torch.bmm(tq, tk)), (lambda: np.matmul(q, k))


OPS = {
    "conv3x3_64": (lambda relax: conv_module(relax, 64, 64, 56, 3), (64, 64, 56, 3), "fused_conv2d"),
    "conv3x3_256": (lambda relax: conv_module(relax, 256, 256, 14, 3), (256, 256, 14, 3), "fused_conv2d"),
    "conv1x1": (lambda relax: conv_module(relax, 256, 64, 56, 1), (256, 64, 56, 1), "fused_conv2d"),
    "softmax": (softmax_module, None, "softmax"),
    "batch_matmul": (bmm_module, None, "matmul"),
}


def task_of(tvm, ms, relax, name):
    """The operator's fused PrimFunc (the task whose name holds the op's name)."""
    mod = relax.get_pipeline("zero")(OPS[name][0](relax))
    tasks = [t for t in ms.relax_integration.extract_tasks(mod, TARGET) if OPS[name][2] in t.task_name]
    if not tasks:
        raise SystemExit(f"{name}: no task named like {OPS[name][2]!r}")
    return tasks[0].dispatched[0]


def main():
    args = parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import numpy as np
    import torch
    import tessera as tvm
    from tessera import meta_schedule as ms, relax
    from tessera.meta_schedule.default_candidate import default_schedule, is_default_trace
    from tessera.meta_schedule.tune_context import normalize_mod
    from frontend_models import timed

    torch.set_num_threads(1)
    work = args.work_dir or tempfile.mkdtemp(prefix="tune_ops_")
    target = tvm.target.Target(TARGET)
    dev = tvm.cpu(0)
    rows = []
    for name in args.ops.split(","):
        mod = normalize_mod(task_of(tvm, ms, relax, name))
        t0 = time.time()
        db = ms.tune_tir(mod, TARGET, os.path.join(work, name), args.trials, num_trials_per_iter=args.per_iter,
                         seed=args.seed, num_tuning_cores=1)
        tune_s = time.time() - t0
        tuned = tvm.build(ms.tir_integration.compile_tir(db, mod, TARGET).mod, target=TARGET)["main"]
        dflt = tvm.build(default_schedule(mod, target).mod, target=TARGET)["main"]
        rng = np.random.default_rng(1)
        ins, outs = [], []
        for p in mod["main"].params:
            buf = mod["main"].buffer_map[p]
            shape = [int(s) for s in buf.shape]
            ins.append(tvm.nd.array(rng.standard_normal(shape).astype(buf.dtype), dev))
        nd_args = lambda: list(ins)  # noqa: E731 -- the output is the last parameter
        a_t, a_d = nd_args(), [tvm.nd.array(x.numpy(), dev) for x in ins]
        tuned(*a_t)
        dflt(*a_d)
        np.testing.assert_allclose(a_t[-1].numpy(), a_d[-1].numpy(), rtol=1e-3, atol=1e-3)
        pt, npf = peers(name, np, torch)
        res = timed({"tuned": lambda: tuned(*a_t), "default": lambda: dflt(*a_d), "pytorch": pt, "numpy": npf},
                    repeat=args.repeat, clock=time.process_time if args.clock == "cpu" else time.perf_counter)
        recs = [r for r in db.records_of(mod) if r.is_valid]
        dflt_rec = [r.mean_run_sec for r in recs if is_default_trace(r.trace, default_schedule(mod, target))]
        best_rec = min(r.mean_run_sec for r in recs)
        rows.append((name, len(db.records_of(mod)), tune_s, res))
        # The records' own latencies (measured by the tuner's runner during tuning): the
        # default candidate's and the best one's.
        print(f"{name}: records default/best {dflt_rec[0] / best_rec:.2f}" if dflt_rec else f"{name}: no default record")
        print(f"{name}: {len(recs)} valid of {len(db.records_of(mod))} trials in {tune_s:.0f} s; "
              + ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in res.items())
              + f"; default/tuned {res['default'] / res['tuned']:.2f}, pytorch/tuned {res['pytorch'] / res['tuned']:.2f}"
              + f", numpy/tuned {res['numpy'] / res['tuned']:.2f}", flush=True)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
