"""End-to-end latency of two PyTorch models compiled by Tessera without tuning
(relax.build's default CPU schedules, tir.transform.DefaultCPUSchedule) vs
PyTorch eager and ONNX Runtime, at batch 1 and 16, measured in the same run
(interleaved rounds, median per engine); prints times and peer/Tessera ratios
(> 1: Tessera is faster), the kernels launched per inference (vm.profile)
and the slowest kernels. Also Tessera without operator fusion
(disabled_pass=["FuseOps"]) and with the default schedules disabled
(disabled_pass=["DefaultCPUSchedule"]), the "before" figures.

  - SmallCNN: conv3x3(3->16)/bn/relu/maxpool, conv3x3(16->32)/bn/relu/maxpool,
    flatten, linear(2048->10) on 3x32x32 images;
  - TransformerBlock: pre-norm block, d_model 256, 4 heads, seq 128, layer_norm,
    attention (matmul, softmax), GELU MLP 256->1024->256, residuals.

The Tessera module comes from the PyTorch importer
(tvm.relax.frontend.torch.from_fx) when this build has it and it converts the
model; otherwise from the same model written with relax.BlockBuilder.emit_te
of TOPI operators (the weights as constants, BatchNorm folded into a per-channel
scale and shift, Linear weights pre-transposed as a constant folder would).
Which path was used is printed. Every engine's output is checked against
PyTorch before timing. All engines get the same number of threads
(--threads, default: all cores); OpenMP waits passively (OMP_WAIT_POLICY, unless set). Runs alone: `python benchmarks/frontend_models.py`.
"""
import argparse
import inspect
import os
import sys
import tempfile
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- the models (PyTorch) ----------------------------------------------------------

def torch_models(torch):
    nn = torch.nn

    class SmallCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16)
            self.conv2, self.bn2 = nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32)
            self.relu, self.pool = nn.ReLU(), nn.MaxPool2d(2)
            self.flatten = nn.Flatten()
            self.fc = nn.Linear(32 * 8 * 8, 10)

        def forward(self, x):
            x = self.pool(self.relu(self.bn1(self.conv1(x))))
            x = self.pool(self.relu(self.bn2(self.conv2(x))))
            return self.fc(self.flatten(x))

    class TransformerBlock(nn.Module):
        def __init__(self, batch, seq=128, d_model=256, heads=4, d_ff=1024):
            super().__init__()
            self.batch, self.seq, self.d, self.h = batch, seq, d_model, heads
            self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
            self.q, self.k, self.v = (nn.Linear(d_model, d_model) for _ in range(3))
            self.proj = nn.Linear(d_model, d_model)
            self.fc1, self.fc2, self.act = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model), nn.GELU()

        def heads(self, t):
            return t.reshape(self.batch, self.seq, self.h, self.d // self.h).permute(0, 2, 1, 3)

        def forward(self, x):
            h = self.ln1(x)
            q, k, v = self.heads(self.q(h)), self.heads(self.k(h)), self.heads(self.v(h))
            att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * (1.0 / (self.d // self.h) ** 0.5), dim=-1)
            o = torch.matmul(att, v).permute(0, 2, 1, 3).reshape(self.batch, self.seq, self.d)
            x = x + self.proj(o)
            return x + self.fc2(self.act(self.fc1(self.ln2(x))))

    return SmallCNN, TransformerBlock


def randomize_batchnorm(torch, model, seed=0):
    """Non-trivial running statistics and affine parameters (eval mode uses them)."""
    gen = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)


# ---- Tessera: the importer, or the same model through BlockBuilder.emit_te of TOPI --

def import_with_from_fx(tvm, torch, model, shape):
    """The module from tvm.relax.frontend.torch.from_fx, or raises why not."""
    from tessera.relax.frontend import torch as torch_frontend  # pylint: disable=import-outside-toplevel

    graph = torch.fx.symbolic_trace(model)
    return torch_frontend.from_fx(graph, [(shape, "float32")])


def _np(t):
    return t.detach().numpy().astype("float32")


def _linear_te(topi, x, w_t, b):
    """x (rows, in) @ w_t (in, out) + b: a weight transposed ahead of time."""
    return topi.nn.matmul(x, w_t, bias=b)


def _batch_matmul_te(te, a, b):
    """(B, H, m, k) @ (B, H, k, n): topi.matmul (relax.matmul's legalization) where this
    build has it, else the same product written in TE."""
    from tessera import topi  # pylint: disable=import-outside-toplevel

    if hasattr(topi, "matmul"):
        return topi.matmul(a, b)
    B, H, M, K = [int(d) for d in a.shape]
    N = int(b.shape[3])
    k = te.reduce_axis((0, K), name="k")
    return te.compute((B, H, M, N), lambda z, h, i, j: te.sum(a[z, h, i, k] * b[z, h, k, j], axis=k),
                      name="T_batch_matmul_NN")


def cnn_by_hand(tvm, model, batch):
    """SmallCNN with BlockBuilder.emit_te of TOPI (eval-mode BatchNorm as scale and shift)."""
    from tessera import relax, topi  # pylint: disable=import-outside-toplevel

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((batch, 3, 32, 32), "float32"))
    const = lambda a: relax.const(np.ascontiguousarray(a, dtype="float32"))  # noqa: E731

    def conv_bn_relu_pool(h, conv, bn):
        scale = _np(bn.weight) / np.sqrt(_np(bn.running_var) + bn.eps)
        shift = _np(bn.bias) - _np(bn.running_mean) * scale
        h = bb.emit_te(topi.nn.conv2d, h, const(_np(conv.weight)), 1, 1, 1)
        h = bb.emit_te(topi.add, h, const(_np(conv.bias).reshape(-1, 1, 1)))
        h = bb.emit_te(topi.multiply, h, const(scale.reshape(-1, 1, 1)))
        h = bb.emit_te(topi.add, h, const(shift.reshape(-1, 1, 1)))
        h = bb.emit_te(topi.nn.relu, h)
        return bb.emit_te(topi.nn.max_pool2d, h, 2, 2)

    with bb.function("main", [x]):
        with bb.dataflow():
            h = conv_bn_relu_pool(x, model.conv1, model.bn1)
            h = conv_bn_relu_pool(h, model.conv2, model.bn2)
            h = bb.emit_te(topi.nn.flatten, h)
            out = bb.emit_output(bb.emit_te(_linear_te, topi, h, const(_np(model.fc.weight).T), const(_np(model.fc.bias))))
        bb.emit_func_output(out)
    return bb.get()


def transformer_by_hand(tvm, model, batch):
    """TransformerBlock with BlockBuilder.emit_te of TOPI."""
    from tessera import relax, te, topi  # pylint: disable=import-outside-toplevel

    S, D, H = model.seq, model.d, model.h
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((batch, S, D), "float32"))
    const = lambda a: relax.const(np.ascontiguousarray(a, dtype="float32"))  # noqa: E731

    def linear(h2d, lin):
        return bb.emit_te(_linear_te, topi, h2d, const(_np(lin.weight).T), const(_np(lin.bias)))

    def layer_norm(h, ln):
        return bb.emit_te(topi.nn.layer_norm, h, const(_np(ln.weight)), const(_np(ln.bias)), [-1], ln.eps)

    def heads(h2d):
        h4 = bb.emit_te(topi.reshape, h2d, (batch, S, H, D // H))
        return bb.emit_te(topi.transpose, h4, (0, 2, 1, 3))

    with bb.function("main", [x]):
        with bb.dataflow():
            h = bb.emit_te(topi.reshape, layer_norm(x, model.ln1), (batch * S, D))
            q, k, v = heads(linear(h, model.q)), heads(linear(h, model.k)), heads(linear(h, model.v))
            k_t = bb.emit_te(topi.transpose, k, (0, 1, 3, 2))  # as the importer's permute_dims
            scores = bb.emit_te(_batch_matmul_te, te, q, k_t)
            scores = bb.emit_te(topi.multiply, scores, 1.0 / (D // H) ** 0.5)
            att = bb.emit_te(topi.nn.softmax, scores, -1)
            o = bb.emit_te(_batch_matmul_te, te, att, v)
            o = bb.emit_te(topi.reshape, bb.emit_te(topi.transpose, o, (0, 2, 1, 3)), (batch * S, D))
            x2 = bb.emit_te(topi.add, x, bb.emit_te(topi.reshape, linear(o, model.proj), (batch, S, D)))
            h = bb.emit_te(topi.reshape, layer_norm(x2, model.ln2), (batch * S, D))
            h = bb.emit_te(topi.nn.gelu, linear(h, model.fc1))
            h = bb.emit_te(topi.reshape, linear(h, model.fc2), (batch, S, D))
            out = bb.emit_output(bb.emit_te(topi.add, x2, h))
        bb.emit_func_output(out)
    return bb.get()


def tessera_module(tvm, torch, name, model, batch, shape, log):
    """(IRModule, how it was made)."""
    try:
        return import_with_from_fx(tvm, torch, model, shape), "from_fx"
    except Exception as err:  # noqa: BLE001 - fall back, and say so
        text = str(err).strip()
        reason = f"{type(err).__name__}: {text.splitlines()[0] if text else ''}"
    builder = cnn_by_hand if name == "SmallCNN" else transformer_by_hand
    log(f"    [{name}] importer not used ({reason[:150]}); built with BlockBuilder.emit_te of TOPI")
    return builder(tvm, model, batch), "emit_te"


def tessera_engine(tvm, mod, nd_x, disabled, config=None):
    """(call, build seconds, profile) of relax.build(mod) with passes ``disabled`` and
    PassContext ``config`` (e.g. {"relax.matmul_packed": False})."""
    ctx = {"disabled_pass": list(disabled)} if disabled else {}
    if config:
        ctx["config"] = dict(config)
    t0 = time.perf_counter()
    with tvm.transform.PassContext(**ctx):
        ex = tvm.relax.build(mod, target="llvm")
    build_s = time.perf_counter() - t0
    vm = tvm.relax.VirtualMachine(ex, tvm.cpu(), profile=True)
    f = vm["main"]
    return (lambda: f(nd_x)), build_s, (lambda: vm.profile("main", nd_x))


def kernel_launches(report):
    """Kernels (not VM builtins) launched in one call, from a vm.profile report."""
    return sum(c["Count"] for c in report.calls if not c["Name"].startswith("vm.builtin."))


# ---- peers ---------------------------------------------------------------------------

def onnx_session(torch, model, x, path, threads):
    import onnxruntime as ort  # pylint: disable=import-outside-toplevel

    kwargs = dict(input_names=["x"], output_names=["y"], opset_version=17)
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.from_numpy(x),), path, **kwargs)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(path, sess_options=opts, providers=["CPUExecutionProvider"])


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time, "thread": time.thread_time}


def timed_clocks(engines, budget_s=0.25, repeat=7):
    """Interleaved rounds (rotating order); per engine and clock the median over rounds
    of the mean per call, each engine calling itself enough times for ~budget_s of wall
    time per round. Clocks (CLOCKS), read around the same calls: "wall" (perf_counter),
    "cpu" (process_time: every thread of the process, so an engine's helper threads
    count) and "thread" (thread_time: the calling thread only). cpu > thread: the engine
    ran work on other threads; wall > cpu: the process waited (another process had the
    core, or a thread slept)."""
    number = {}
    for name, fn in engines.items():
        fn()
        t0 = time.perf_counter()
        fn()
        one = max(time.perf_counter() - t0, 1e-6)
        number[name] = max(1, min(2000, int(budget_s / one)))
    names = list(engines)
    samples = {n: {c: [] for c in CLOCKS} for n in names}
    for r in range(repeat):
        for name in names[r % len(names):] + names[:r % len(names)]:
            fn, k = engines[name], number[name]
            t0 = {c: clock() for c, clock in CLOCKS.items()}
            for _ in range(k):
                fn()
            t1 = {c: clock() for c, clock in CLOCKS.items()}
            for c in CLOCKS:
                samples[name][c].append((t1[c] - t0[c]) / k)
    return {n: {c: float(np.median(v)) for c, v in samples[n].items()} for n in names}


def timed(engines, budget_s=0.25, repeat=7, clock=time.perf_counter):
    """timed_clocks' medians of one clock (``clock``: one of CLOCKS' functions; wall time
    by default, time.process_time gives CPU time)."""
    key = next(c for c, f in CLOCKS.items() if f is clock)
    return {n: t[key] for n, t in timed_clocks(engines, budget_s, repeat).items()}


def run(batches=(1, 16), threads=None, repeat=7, log=print, models=("SmallCNN", "TransformerBlock"), top=5):
    threads = threads or os.cpu_count()
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))  # Tessera's parallel loops (OpenMP)
    # Idle OpenMP workers of one engine must not spin on the cores the next engine runs on
    # (on a loaded 2-core machine active waiting made parallel loops 100x slower).
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    import torch  # pylint: disable=import-outside-toplevel
    import tessera as tvm  # pylint: disable=import-outside-toplevel

    torch.set_num_threads(threads)
    torch.set_grad_enabled(False)
    SmallCNN, TransformerBlock = torch_models(torch)
    log(f"Frontend models, untuned Tessera vs PyTorch eager vs ONNX Runtime, {threads} thread(s) each; "
        f"xN = peer time / Tessera (default schedules) time")
    results = {}
    for name in models:
        for batch in batches:
            torch.manual_seed(0)
            if name == "SmallCNN":
                model, shape = SmallCNN(), (batch, 3, 32, 32)
                randomize_batchnorm(torch, model)
            else:
                model, shape = TransformerBlock(batch), (batch, 128, 256)
            model.eval()
            x = np.random.default_rng(1).standard_normal(shape).astype("float32")
            expected = model(torch.from_numpy(x)).numpy()
            mod, how = tessera_module(tvm, torch, name, model, batch, shape, log)
            nd_x = tvm.nd.array(x)
            engines, build_times, profiles = {}, {}, {}
            for label, disabled in (("Tessera (default schedules)", ()), ("Tessera (no fusion)", ("FuseOps",)),
                                    ("Tessera (unscheduled)", ("DefaultCPUSchedule",))):
                fn, build_times[label], profiles[label] = tessera_engine(tvm, mod, nd_x, disabled)
                np.testing.assert_allclose(fn().numpy(), expected, rtol=1e-3, atol=1e-3)
                engines[label] = fn
            tx = torch.from_numpy(x)
            engines["PyTorch eager"] = lambda: model(tx)
            with tempfile.TemporaryDirectory() as tmp:
                sess = onnx_session(torch, model, x, os.path.join(tmp, "m.onnx"), threads)
            np.testing.assert_allclose(sess.run(None, {"x": x})[0], expected, rtol=1e-3, atol=1e-3)
            engines["ONNX Runtime"] = lambda: sess.run(None, {"x": x})
            lat = timed(engines, repeat=repeat)
            base = lat["Tessera (default schedules)"]
            log(f"  {name} batch {batch} (Tessera module: {how}; build "
                + ", ".join(f"{k.split('(')[1][:-1]} {v:.1f} s" for k, v in build_times.items()) + ")")
            for label, t in lat.items():
                ratio = "" if label == "Tessera (default schedules)" else f"   x{t / base:7.2f}"
                log(f"    {label:30s} {t * 1e3:10.3f} ms{ratio}")
            launches = {label: kernel_launches(prof()) for label, prof in profiles.items()}
            log("    kernel launches per inference: " + ", ".join(f"{k}: {v}" for k, v in launches.items()))
            if top:
                report = profiles["Tessera (default schedules)"]()
                log(f"    top {top} callees of Tessera (default schedules), vm.profile of one call:")
                log("\n".join("      " + line for line in report.table(top=top).splitlines()))
            results[(name, batch)] = lat
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--batch", type=int, action="append")
    parser.add_argument("--model", action="append", choices=["SmallCNN", "TransformerBlock"])
    parser.add_argument("--top", type=int, default=5, help="print the N slowest callees (vm.profile); 0: none")
    args = parser.parse_args()
    run(batches=tuple(args.batch or (1, 16)), threads=args.threads, repeat=args.repeat,
        models=tuple(args.model or ("SmallCNN", "TransformerBlock")), top=args.top)
