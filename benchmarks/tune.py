"""Tunes a float32 matmul with ms.tune_tir and compares the best candidate with NumPy
(OpenBLAS) measured in the same run. Usage:
  python benchmarks/tune.py [--n 512] [--trials 64] [--strategy evolutionary] [--seed 0]
Prints the tuning wall time, the best GFLOPS found (re-timed after tuning) and NumPy's."""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import tessera as tvm  # noqa: E402
from tessera import meta_schedule as ms  # noqa: E402
from tessera.script import tir as T  # noqa: E402


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


def numpy_gflops(n, repeat=10):
    a = np.random.rand(n, n).astype("float32")
    b = np.random.rand(n, n).astype("float32")
    c = np.empty((n, n), "float32")
    np.matmul(a, b, out=c)
    best = min(_timed(lambda: np.matmul(a, b, out=c)) for _ in range(repeat))
    return 2 * n ** 3 / best / 1e9


def _timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--per-iter", type=int, default=16)
    ap.add_argument("--strategy", default="evolutionary")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target", default="llvm --num-cores=1")
    args = ap.parse_args()
    mod = matmul_module(args.n)
    with tempfile.TemporaryDirectory() as work_dir:
        start = time.time()
        db = ms.tune_tir(mod, args.target, work_dir, args.trials, num_trials_per_iter=args.per_iter,
                         strategy=args.strategy, seed=args.seed)
        wall = time.time() - start
        sch = ms.tir_integration.compile_tir(db, mod, args.target)
    lib = tvm.build(sch.mod, target=args.target)
    a = tvm.nd.array(np.random.rand(args.n, args.n).astype("float32"))
    b = tvm.nd.array(np.random.rand(args.n, args.n).astype("float32"))
    c = tvm.nd.empty((args.n, args.n), "float32")
    t = lib.time_evaluator("main", tvm.cpu(), number=5, repeat=5)(a, b, c).min
    tess = 2 * args.n ** 3 / t / 1e9
    np_gf = numpy_gflops(args.n)
    print(f"matmul {args.n}^3 float32, {args.trials} trials ({args.strategy}), target '{args.target}'")
    print(f"  tuning wall time {wall:.1f} s ({wall / args.trials:.2f} s/trial)")
    print(f"  Tessera best {tess:.1f} GFLOPS | NumPy {np_gf:.1f} GFLOPS | ratio {tess / np_gf:.2f}")
    print(f"  NumPy threads: OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")


if __name__ == "__main__":
    main()
