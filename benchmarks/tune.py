"""Tunes the issue's workloads with ms.tune_tir and compares the best candidate with
NumPy (OpenBLAS) and PyTorch, measured in the same run, interleaved, with the same
thread count. Usage:
  python benchmarks/tune.py [--workloads matmul512,matmul1024,conv2d,softmax]
                            [--trials 64|256|1000] [--threads 1|all] [--per-iter 64]
                            [--strategy evolutionary] [--seed 0]
Workloads (float32): matmul 512^3 and 1024^3; conv2d = ResNet layer, NCHW 1x64x56x56,
64 filters 3x3, stride 1, padding 1 (topi.nn.conv2d_nchw, 2*64*56*56*64*9 FLOP);
softmax over the rows of a 256x1000 matrix (topi.nn.softmax; 5 FLOP per element: max,
subtract, exp, sum, divide). --threads 1: target "llvm --num-cores=1",
OPENBLAS_NUM_THREADS=1, torch.set_num_threads(1); --threads all: every core for all three.
NumPy's conv2d is im2col (sliding_window_view) + one OpenBLAS matmul.
Prints per workload the best GFLOPS, the ratios to each peer, the tuning wall time and
seconds per trial, and the machine's load average."""
import argparse
import os
import sys
import tempfile
import time


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workloads", default="matmul512,matmul1024,conv2d,softmax")
    ap.add_argument("--trials", type=int, default=64, help="64, 256 or 1000 in the issue's table")
    ap.add_argument("--per-iter", type=int, default=64, help="num_trials_per_iter (TVM's default 64)")
    ap.add_argument("--threads", default="1", choices=["1", "all"])
    ap.add_argument("--strategy", default="evolutionary")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=7, help="interleaved timing rounds (best kept)")
    return ap.parse_args()


ARGS = parse_args()
NUM_THREADS = 1 if ARGS.threads == "1" else (os.cpu_count() or 1)
# Before NumPy / PyTorch load OpenBLAS / their thread pools.
os.environ["OPENBLAS_NUM_THREADS"] = str(NUM_THREADS)
os.environ["OMP_NUM_THREADS"] = str(NUM_THREADS)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import tessera as tvm  # noqa: E402
from tessera import meta_schedule as ms, te, topi  # noqa: E402
from tessera.script import tir as T  # noqa: E402

try:
    import torch  # noqa: E402
    torch.set_num_threads(NUM_THREADS)
except ImportError:  # PyTorch is optional: its column is left out
    torch = None


def matmul_module(n):
    @tvm.script.ir_module
    class Matmul:
        @T.prim_func
        def main(A: T.Buffer((n, n), "float32"), B: T.Buffer((n, n), "float32"), C: T.Buffer((n, n), "float32")):
            T.func_attr({"global_symbol": "main", "tir.noalias": True})
            for i, j, k in T.grid(n, n, n):
                with T.block("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    return Matmul


class Workload:
    """name, the module to tune, FLOP, input arrays, and the NumPy / PyTorch peers."""

    def __init__(self, name, mod, flop, inputs, out_shape, np_fn, torch_fn):
        self.name, self.mod, self.flop = name, mod, flop
        self.inputs, self.out_shape = inputs, out_shape
        self.np_fn, self.torch_fn = np_fn, torch_fn


def make_matmul(n):
    rng = np.random.default_rng(0)
    a, b = rng.random((n, n), dtype="float32"), rng.random((n, n), dtype="float32")
    out = np.empty((n, n), "float32")
    ta, tb = (torch.from_numpy(a), torch.from_numpy(b)) if torch else (None, None)
    return Workload(f"matmul{n}", matmul_module(n), 2.0 * n ** 3, [a, b], (n, n),
                    lambda: np.matmul(a, b, out=out), (lambda: torch.matmul(ta, tb)) if torch else None)


def make_conv2d():
    n, c, h, w, k, r = 1, 64, 56, 56, 64, 3
    data = te.placeholder((n, c, h, w), name="A")
    weight = te.placeholder((k, c, r, r), name="W")
    conv = topi.nn.conv2d_nchw(data, weight, 1, 1, 1)
    mod = tvm.IRModule({"main": te.create_prim_func([data, weight, conv])})
    rng = np.random.default_rng(0)
    a, wt = rng.random((n, c, h, w), dtype="float32"), rng.random((k, c, r, r), dtype="float32")
    wmat = wt.reshape(k, c * r * r)

    def np_conv():
        padded = np.pad(a[0], ((0, 0), (1, 1), (1, 1)))
        cols = np.lib.stride_tricks.sliding_window_view(padded, (r, r), axis=(1, 2))   # c, h, w, r, r
        cols = np.ascontiguousarray(cols.transpose(0, 3, 4, 1, 2)).reshape(c * r * r, h * w)
        return (wmat @ cols).reshape(1, k, h, w)

    ta, tw = (torch.from_numpy(a), torch.from_numpy(wt)) if torch else (None, None)
    return Workload("conv2d", mod, 2.0 * n * k * h * w * c * r * r, [a, wt], (n, k, h, w), np_conv,
                    (lambda: torch.nn.functional.conv2d(ta, tw, padding=1)) if torch else None)


def make_softmax(rows=256, cols=1000):
    x = te.placeholder((rows, cols), name="X")
    mod = tvm.IRModule({"main": te.create_prim_func([x, topi.nn.softmax(x)])})
    a = np.random.default_rng(0).standard_normal((rows, cols), dtype="float32")

    def np_softmax():
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    ta = torch.from_numpy(a) if torch else None
    return Workload("softmax", mod, 5.0 * rows * cols, [a], (rows, cols), np_softmax,
                    (lambda: torch.softmax(ta, dim=1)) if torch else None)


FACTORIES = {"matmul512": lambda: make_matmul(512), "matmul1024": lambda: make_matmul(1024),
             "conv2d": make_conv2d, "softmax": make_softmax}


def _best_of(fn, number):
    fn()
    t = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t) / number


def run(wl, target):
    with tempfile.TemporaryDirectory() as work_dir:
        start = time.time()
        db = ms.tune_tir(wl.mod, target, work_dir, ARGS.trials, num_trials_per_iter=ARGS.per_iter,
                         strategy=ARGS.strategy, seed=ARGS.seed)
        wall = time.time() - start
        n_trials = len(db.get_all_tuning_records())
        sch = ms.tir_integration.compile_tir(db, wl.mod, target)
    lib = tvm.build(sch.mod, target=target)
    args = [tvm.nd.array(x) for x in wl.inputs] + [tvm.nd.empty(wl.out_shape, "float32")]
    lib["main"](*args)
    np.testing.assert_allclose(args[-1].numpy(), wl.np_fn(), rtol=1e-3, atol=1e-3)
    # Interleaved: one Tessera, one NumPy, one PyTorch measurement per round; best of rounds.
    probe = _best_of(wl.np_fn, 1)
    number = max(1, int(0.05 / max(probe, 1e-6)))
    timer = lib.time_evaluator("main", tvm.cpu(), number=number, repeat=1)
    times = {"tessera": [], "numpy": [], "torch": []}
    for _ in range(ARGS.rounds):
        times["tessera"].append(timer(*args).min)
        times["numpy"].append(_best_of(wl.np_fn, number))
        if wl.torch_fn is not None:
            times["torch"].append(_best_of(wl.torch_fn, number))
    gf = {k: wl.flop / min(v) / 1e9 for k, v in times.items() if v}
    return wall, n_trials, gf, min(times["tessera"])


def main():
    target = f"llvm --num-cores={NUM_THREADS}"
    names = [w for w in ARGS.workloads.split(",") if w]
    for w in names:
        if w not in FACTORIES:
            raise SystemExit(f"unknown workload {w!r}; choose from {', '.join(FACTORIES)}")
    print(f"target '{target}', {ARGS.trials} trials per workload ({ARGS.strategy}, {ARGS.per_iter} per round, "
          f"seed {ARGS.seed}); OPENBLAS_NUM_THREADS={NUM_THREADS}, torch threads "
          f"{torch.get_num_threads() if torch else 'n/a'}; load average at start {os.getloadavg()[0]:.2f}")
    rows = []
    for w in names:
        wl = FACTORIES[w]()
        load0 = os.getloadavg()[0]
        wall, n_trials, gf, best = run(wl, target)
        load1 = os.getloadavg()[0]
        rows.append((w, wall, n_trials, gf, best, load0, load1))
        ratio_np = gf["tessera"] / gf["numpy"]
        ratio_t = f"{gf['tessera'] / gf['torch']:.2f}" if "torch" in gf else "n/a"
        print(f"{w:10s} Tessera {gf['tessera']:7.1f} GFLOPS ({best * 1e6:9.1f} us) | NumPy {gf['numpy']:7.1f} "
              f"| PyTorch {gf.get('torch', float('nan')):7.1f} | x NumPy {ratio_np:.2f} | x PyTorch {ratio_t} | "
              f"tuning {wall:6.1f} s, {n_trials} trials, {wall / max(1, n_trials):.2f} s/trial | "
              f"load {load0:.1f}->{load1:.1f}", flush=True)


if __name__ == "__main__":
    main()
