"""Tessera vs peers (NumPy/OpenBLAS and PyTorch), measured in the same run;
prints ratios (peer time / Tessera time: > 1 means Tessera is faster).
`make bench` runs it.

  (a) elementwise add of 2^24 float32         vs NumPy
  (b) sgemm 1024^3, hand-scheduled TIR        vs NumPy (OpenBLAS)
  (c) time to build mm_relu (128^3)            (absolute, target < 100 ms)
  (d) sgemm 1024^3 scheduled with tvm.tir.Schedule primitives vs NumPy
  (e) the course's MLP, batch 1, end to end from Python (relax.build + VM)
      vs NumPy, PyTorch and ONNX Runtime (benchmarks/mlp.py)
"""
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
sys.path.insert(0, os.path.dirname(__file__))
import tessera as tvm  # noqa: E402
from tessera import tir  # noqa: E402
from tir_build_helpers import buf, func, block, loops  # noqa: E402

from sgemm_schedule import sgemm_func  # noqa: E402
from sgemm_primitives import schedule as sgemm_schedule  # noqa: E402
import mlp as mlp_bench  # noqa: E402


def best_of(fn, repeat=7, number=5):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times)


def bench_add():
    n = 1 << 24
    A, B, C = buf("A", (n,)), buf("B", (n,)), buf("C", (n,))
    body = loops([n // 4096, 4096], lambda i, j: tir.BufferStore(C, A[i * 4096 + j] + B[i * 4096 + j], [i * 4096 + j]),
                 kinds=[tir.ForKind.PARALLEL, tir.ForKind.VECTORIZED])
    lib = tvm.build(func([A, B, C], body, name="add"))
    x, y = np.random.rand(n).astype("float32"), np.random.rand(n).astype("float32")
    z = np.empty_like(x)
    xa, ya, za = tvm.nd.array(x), tvm.nd.array(y), tvm.nd.empty((n,), "float32")
    f = lib["add"]
    t_tessera = best_of(lambda: f(xa, ya, za))
    t_numpy = best_of(lambda: np.add(x, y, out=z))
    tx, ty, tz = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(z)
    t_torch = best_of(lambda: torch.add(tx, ty, out=tz))
    np.testing.assert_allclose(za.numpy(), x + y)
    return t_tessera, t_numpy, t_torch


def bench_matmul(lib, fname):
    """Times `lib[fname](A, B, C)` (1024^3 float32) against NumPy; checks the result."""
    n = 1024
    a, b = np.random.rand(n, n).astype("float32"), np.random.rand(n, n).astype("float32")
    an, bn, cn = tvm.nd.array(a), tvm.nd.array(b), tvm.nd.empty((n, n), "float32")
    f = lib[fname]
    t_tessera = best_of(lambda: f(an, bn, cn), repeat=5, number=3)
    t_numpy = best_of(lambda: a @ b, repeat=5, number=3)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    t_torch = best_of(lambda: ta @ tb, repeat=5, number=3)
    np.testing.assert_allclose(cn.numpy(), a @ b, rtol=1e-3, atol=1e-3)
    return t_tessera, t_numpy, t_torch


def bench_sgemm():
    return bench_matmul(tvm.build(sgemm_func(1024)), "sgemm")


def bench_sgemm_scheduled():
    return bench_matmul(tvm.build(sgemm_schedule().mod), "main")


def mm_relu_func(n=128):
    A, B, C, Y = buf("A", (n, n)), buf("B", (n, n)), buf("C", (n, n)), buf("Y", (n, n))
    mm = loops([n, n, n], lambda i, j, k: block(
        "Y", [("vi", n, "S"), ("vj", n, "S"), ("vk", n, "R")], [i, j, k],
        lambda vi, vj, vk: tir.BufferStore(Y, Y[vi, vj] + A[vi, vk] * B[vk, vj], [vi, vj]),
        init=lambda vi, vj, vk: tir.BufferStore(Y, tir.const(0.0, "float32"), [vi, vj])))
    relu = loops([n, n], lambda i, j: block(
        "C", [("vi", n, "S"), ("vj", n, "S")], [i, j],
        lambda vi, vj: tir.BufferStore(C, tir.max(Y[vi, vj], tir.const(0.0, "float32")), [vi, vj])))
    return func([A, B, C], tir.stmt_seq(mm, relu), name="mm_relu", allocs=[Y])


def bench_build():
    f = mm_relu_func()
    tvm.build(f)  # first build initializes LLVM
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        tvm.build(mm_relu_func())
        times.append(time.perf_counter() - t0)
    return min(times)


def report(label, t, p, q, flops=None):
    extra = f"   ({flops / t / 1e9:.1f} GFLOP/s)" if flops else ""
    print(f"{label:28s} tessera {t * 1e3:8.3f} ms | numpy {p * 1e3:8.3f} ms  x{p / t:5.2f} | "
          f"torch {q * 1e3:8.3f} ms  x{q / t:5.2f}{extra}")


def main():
    print(f"Tessera {tvm.__version__} benchmarks ({os.cpu_count()} cores); xN = peer time / Tessera time\n")
    report("(a) add 2^24 float32", *bench_add())
    report("(b) sgemm 1024^3 (TIR)", *bench_sgemm(), flops=2 * 1024 ** 3)
    report("(d) sgemm 1024^3 (Schedule)", *bench_sgemm_scheduled(), flops=2 * 1024 ** 3)
    t = bench_build()
    print(f"(c) build mm_relu            tessera {t * 1e3:8.3f} ms   (target < 100 ms)")
    mlp_bench.run()


if __name__ == "__main__":
    main()
