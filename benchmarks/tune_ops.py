"""Per-operator tuning (issue [G2]): each operator's fused PrimFunc as relax.build makes it
(conv2d + bias + relu with the packed weight, a 1x1 conv2d, softmax, attention's
batch_matmul; and the other operators of ResNet-18/50, MobileNetV2 and the BERT layer:
layer_norm, depthwise and strided 3x3 conv, 1x1 64->256, conv + residual, max_pool2d,
dense + bias + gelu, attention's softmax: see OPS) tuned with tune_tir for --trials trials on one thread (target
"llvm --num-cores=1"), then its best record vs its untuned default schedule
(tir.transform.DefaultCPUSchedule) vs PyTorch vs NumPy, timed in the same run
(interleaved rounds, median). The tuned output is checked against the default's first
(the default schedules are checked against NumPy in tests/python). Prints per operator
the latencies and the ratios default / tuned, PyTorch / tuned, NumPy / tuned, and the
load average (the machine may be shared).

  python benchmarks/tune_ops.py [--ops conv3x3_64,softmax|grouped|all] [--trials 64] [--work-dir DIR] [--clock cpu]

The tuning log's last line per operator states its rejected samples of the space.

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


def conv_module(relax, cin, cout, hw, k, stride=1, groups=1, residual=False, act="relu"):
    """conv2d (padding k // 2) + bias + activation (relu, or relu6 = clip(0, 6)), with a
    residual add before the activation when ``residual`` (ResNet's block output)."""
    ho = (hw + 2 * (k // 2) - k) // stride + 1

    def body(bb, v):
        c = bb.emit(relax.op.nn.conv2d(v[0], v[1], strides=stride, padding=k // 2, groups=groups))
        c = bb.emit(relax.op.add(c, relax.op.reshape(v[2], (1, cout, 1, 1))))
        if residual:
            c = bb.emit(relax.op.add(c, v[3]))
        return bb.emit(relax.op.nn.relu(c) if act == "relu" else relax.op.clip(c, 0, 6))
    params = [("x", (1, cin, hw, hw)), ("w", (cout, cin // groups, k, k)), ("b", (cout,))]
    return _relax_fn(relax, params + ([("r", (1, cout, ho, ho))] if residual else []), body)


def softmax_module(relax, shape=(256, 1000)):
    return _relax_fn(relax, [("x", shape)], lambda bb, v: bb.emit(relax.op.nn.softmax(v[0], axis=-1)))


def layer_norm_module(relax, rows=128, cols=768):
    return _relax_fn(relax, [("x", (rows, cols)), ("g", (cols,)), ("b", (cols,))],
                     lambda bb, v: bb.emit(relax.op.nn.layer_norm(v[0], v[1], v[2], axes=[-1], epsilon=1e-12)))


def pool_module(relax, c=64, hw=112):
    return _relax_fn(relax, [("x", (1, c, hw, hw))], lambda bb, v: bb.emit(
        relax.op.nn.max_pool2d(v[0], pool_size=3, strides=2, padding=1)))


def dense_gelu_module(relax, m=128, k=768, n=3072):
    def body(bb, v):
        y = bb.emit(relax.op.add(relax.op.matmul(v[0], v[1]), v[2]))
        return bb.emit(relax.op.nn.gelu(y))
    return _relax_fn(relax, [("x", (m, k)), ("w", (k, n)), ("b", (n,))], body)


def bmm_module(relax):
    return _relax_fn(relax, [("q", (12, 128, 64)), ("k", (12, 64, 128))],
                     lambda bb, v: bb.emit(relax.op.matmul(v[0], v[1])))


def _conv_peers(np, torch, rng, cin, cout, hw, k, stride=1, groups=1, residual=False, act="relu"):
    x = rng.standard_normal((1, cin, hw, hw), dtype="float32")
    w = rng.standard_normal((cout, cin // groups, k, k), dtype="float32")
    b = rng.standard_normal((cout,), dtype="float32")
    p = k // 2
    ho = (hw + 2 * p - k) // stride + 1
    r = rng.standard_normal((1, cout, ho, ho), dtype="float32")
    tx, tw, tb, tr = (torch.from_numpy(a) for a in (x, w, b, r))
    cg, og = cin // groups, cout // groups
    wm = w.reshape(groups, og, cg * k * k)
    act_np = (lambda y: np.maximum(y, 0)) if act == "relu" else (lambda y: np.clip(y, 0, 6))
    act_t = torch.relu if act == "relu" else (lambda y: torch.clamp(y, 0, 6))

    def numpy_conv():  # im2col + GEMM (OpenBLAS; one batched GEMM per group)
        xp = np.pad(x[0], ((0, 0), (p, p), (p, p)))
        cols = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(1, 2))[:, ::stride, ::stride]
        cols = cols.reshape(groups, cg, ho, ho, k, k).transpose(0, 1, 4, 5, 2, 3).reshape(groups, cg * k * k, ho * ho)
        y = np.matmul(wm, cols).reshape(cout, ho * ho) + b[:, None]
        return act_np(y + r[0].reshape(cout, -1) if residual else y)

    def torch_conv():
        y = torch.nn.functional.conv2d(tx, tw, tb, stride=stride, padding=p, groups=groups)
        return act_t(y + tr if residual else y)
    return torch_conv, numpy_conv


def _softmax_peers(np, torch, rng, shape):
    x = rng.standard_normal(shape, dtype="float32")
    tx = torch.from_numpy(x)

    def numpy_softmax():
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return (lambda: torch.softmax(tx, dim=-1)), numpy_softmax


def _layer_norm_peers(np, torch, rng, rows=128, cols=768):
    x = rng.standard_normal((rows, cols), dtype="float32")
    g, b = rng.standard_normal((cols,), dtype="float32"), rng.standard_normal((cols,), dtype="float32")
    tx, tg, tb = (torch.from_numpy(a) for a in (x, g, b))

    def numpy_ln():
        mu = x.mean(axis=-1, keepdims=True)
        return (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-12) * g + b
    return (lambda: torch.nn.functional.layer_norm(tx, (cols,), tg, tb, 1e-12)), numpy_ln


def _pool_peers(np, torch, rng, c=64, hw=112):
    x = rng.standard_normal((1, c, hw, hw), dtype="float32")
    tx = torch.from_numpy(x)

    def numpy_pool():
        xp = np.pad(x[0], ((0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        return np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(1, 2))[:, ::2, ::2].max(axis=(-1, -2))
    return (lambda: torch.nn.functional.max_pool2d(tx, 3, 2, 1)), numpy_pool


def _dense_gelu_peers(np, torch, rng, m=128, k=768, n=3072):
    x, w = rng.standard_normal((m, k), dtype="float32"), rng.standard_normal((k, n), dtype="float32")
    b = rng.standard_normal((n,), dtype="float32")
    tx, tw, tb = (torch.from_numpy(a) for a in (x, w, b))
    from scipy.special import erf  # NumPy has no erf (the exact gelu)

    def numpy_dense_gelu():
        y = x @ w + b
        return 0.5 * y * (1 + erf(y * np.float32(0.5 ** 0.5)))
    return (lambda: torch.nn.functional.gelu(torch.addmm(tb, tx, tw))), numpy_dense_gelu


def _bmm_peers(np, torch, rng):
    q = rng.standard_normal((12, 128, 64), dtype="float32")
    k = rng.standard_normal((12, 64, 128), dtype="float32")
    tq, tk = torch.from_numpy(q), torch.from_numpy(k)
    return (lambda: torch.bmm(tq, tk)), (lambda: np.matmul(q, k))


def peers(name, np, torch):
    """(PyTorch fn, NumPy fn) computing the operator on fresh random inputs."""
    return OPS[name][1](np, torch, np.random.default_rng(0))


def _conv_row(cin, cout, hw, k, **kw):
    return (lambda relax: conv_module(relax, cin, cout, hw, k, **kw),
            lambda np, torch, rng: _conv_peers(np, torch, rng, cin, cout, hw, k, **kw), "fused_conv2d")


# name: (relax module builder, peers(np, torch, rng) -> (PyTorch fn, NumPy fn), task name part)
OPS = {
    "conv3x3_64": _conv_row(64, 64, 56, 3),
    "conv3x3_256": _conv_row(256, 256, 14, 3),
    "conv1x1": _conv_row(256, 64, 56, 1),
    "softmax": (softmax_module, lambda np, torch, rng: _softmax_peers(np, torch, rng, (256, 1000)), "softmax"),
    "batch_matmul": (bmm_module, _bmm_peers, "matmul"),
    # The operators of ResNet-18/50, MobileNetV2 and the BERT layer (issue [G2]'s survey).
    "layer_norm": (layer_norm_module, _layer_norm_peers, "layer_norm"),
    "dwconv3x3_s1": _conv_row(144, 144, 56, 3, groups=144, act="relu6"),   # MobileNetV2 expanded block
    "dwconv3x3_s2": _conv_row(144, 144, 56, 3, stride=2, groups=144, act="relu6"),
    "conv3x3_s2": _conv_row(64, 128, 56, 3, stride=2),                     # ResNet stage entry
    "conv1x1_64_256": _conv_row(64, 256, 56, 1),                           # ResNet-50 bottleneck expansion
    "conv3x3_residual": _conv_row(64, 64, 56, 3, residual=True),           # ResNet block output
    "max_pool2d": (pool_module, _pool_peers, "max_pool2d"),                 # ResNet stem
    "dense_gelu": (dense_gelu_module, _dense_gelu_peers, "matmul"),         # BERT FFN in
    "attn_softmax": (lambda relax: softmax_module(relax, (12, 128, 128)),
                     lambda np, torch, rng: _softmax_peers(np, torch, rng, (12, 128, 128)), "softmax"),
    # Grouped 3x3 convs (the packed kernel per group): ResNeXt-50 32x4d's first and second
    # stages (groups of 4 and 8 channels) and two wide groups.
    "gconv3x3_g32_56": _conv_row(128, 128, 56, 3, groups=32),
    "gconv3x3_g32_28": _conv_row(256, 256, 28, 3, groups=32),
    "gconv3x3_g2": _conv_row(64, 64, 56, 3, groups=2),
}
# --ops names standing for several rows.
OP_GROUPS = {"grouped": [n for n in OPS if n.startswith("gconv")]}


def task_of(tvm, ms, relax, name):
    """The operator's fused PrimFunc (the first task whose name holds the op's name part)."""
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
    names = list(OPS) if args.ops == "all" else [n for op in args.ops.split(",") for n in OP_GROUPS.get(op, [op])]
    for name in names:
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
