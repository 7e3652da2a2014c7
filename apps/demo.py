"""Tessera demo: write a tensor program in TVMScript, schedule it, compile it
for this CPU, run it on real data and compare with NumPy — the course's
chapter 2 and 4 flow, end to end.

Run with `make demo`. (The Fashion-MNIST end-to-end model demo arrives with
the Relax issues: graph import, VM and tuning.)
"""
import time

import numpy as np
import torch

import tessera as tvm
from tessera.script import tir as T


@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer((512, 512), "float32"), B: T.Buffer((512, 512), "float32"),
                C: T.Buffer((512, 512), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((512, 512), dtype="float32")
        for i, j, k in T.grid(512, 512, 512):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(512, 512):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


def timed(f, *args, repeat=5):
    f(*args)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    print(f"Tessera {tvm.__version__}: TensorIR -> schedule -> LLVM -> run\n")
    rng = np.random.default_rng(0)
    a, b = rng.random((512, 512)).astype("float32"), rng.random((512, 512)).astype("float32")
    expected = np.maximum(a @ b, 0)
    A, B = tvm.nd.array(a), tvm.nd.array(b)

    # 1. The program as written: three nested loops.
    naive = tvm.build(MyModule, target="llvm")["mm_relu"]
    C = tvm.nd.empty((512, 512), "float32")
    t_naive = timed(naive, A, B, C)
    np.testing.assert_allclose(C.numpy(), expected, rtol=1e-4, atol=1e-3)
    print(f"1. unscheduled mm_relu           {t_naive * 1e3:8.2f} ms  (matches NumPy)")

    # 2. A schedule: tile, keep a 4x16 accumulator in registers, pack B panels,
    #    fuse the ReLU into the tile, vectorize, unroll, parallelize.
    sch = tvm.tir.Schedule(MyModule)
    y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(y)
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 16])
    sch.reorder(j0, i0, k, i1, j1)
    packed_b = sch.cache_read(y, 1, "global")
    sch.compute_at(packed_b, j0)
    sch.reverse_compute_at(sch.get_block("C", func_name="mm_relu"), i0)
    sch.decompose_reduction(y, k)
    sch.vectorize(j1)
    sch.unroll(i1)
    sch.parallel(j0)
    print("2. the schedule, as a replayable trace:")
    print("   " + str(sch.trace).replace("\n", "\n   "))
    fast = tvm.build(sch.mod, target="llvm")["mm_relu"]
    t_fast = timed(fast, A, B, C)
    np.testing.assert_allclose(C.numpy(), expected, rtol=1e-4, atol=1e-3)
    t_numpy = timed(lambda: np.maximum(a @ b, 0))
    t_torch = timed(lambda x, y: torch.relu(x @ y), torch.from_numpy(a), torch.from_numpy(b))
    print(f"   scheduled mm_relu             {t_fast * 1e3:8.2f} ms  ({t_naive / t_fast:.0f}x faster, matches NumPy)")
    print(f"   NumPy (OpenBLAS)              {t_numpy * 1e3:8.2f} ms  -> Tessera/NumPy speed {t_numpy / t_fast:.2f}x")
    print(f"   PyTorch                       {t_torch * 1e3:8.2f} ms  -> Tessera/PyTorch speed {t_torch / t_fast:.2f}x")

    # 3. Zero-copy interop and clear errors.
    t = torch.from_dlpack(C)
    print(f"3. torch.from_dlpack(C) shares memory: {t.data_ptr() == C.data_ptr}")
    try:
        fast(A, tvm.nd.array(b[:, :256].copy()), C)
    except ValueError as err:
        print(f"   wrong shape is refused: {err}")
    print("\nSee README.md for what works today.")


if __name__ == "__main__":
    main()
