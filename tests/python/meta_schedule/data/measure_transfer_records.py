"""Writes the measured records test_meta_schedule_shared_cost_model.py trains and ranks on:
48 random samples of the default CPU design space ("llvm --num-cores=1") of each workload
below, built and timed with LocalBuilder / LocalRunner (tune_tir, strategy "random"), one
JSON database per workload under cost_model_transfer/<name>. Rerun by hand to refresh them:
  PYTHONPATH=python python tests/python/meta_schedule/data/measure_transfer_records.py"""
import os
import shutil

import tessera as tvm
from tessera import meta_schedule as ms
from tessera.script import tir as T

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cost_model_transfer")
TARGET = "llvm --num-cores=1"
TRIALS = 48


def matmul(M, N, K):
    """C = A @ B, A (M, K), B (K, N)."""
    @T.prim_func
    def main(A: T.Buffer((M, K), "float32"), B: T.Buffer((K, N), "float32"), C: T.Buffer((M, N), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(M, N, K):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    return tvm.IRModule({"main": main})


def dense_relu(M, N, K):
    """Z = max(X @ W^T + bias, 0), X (M, K), W (N, K): nn.dense + bias + relu fused."""
    @T.prim_func
    def main(X: T.Buffer((M, K), "float32"), W: T.Buffer((N, K), "float32"), Bias: T.Buffer((N,), "float32"),
             Z: T.Buffer((M, N), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        Y = T.alloc_buffer((M, N), "float32")
        for i, j, k in T.grid(M, N, K):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(M, N):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = T.max(Y[vi, vj] + Bias[vj], T.float32(0))
    return tvm.IRModule({"main": main})


WORKLOADS = {
    "matmul_128x128x128": lambda: matmul(128, 128, 128),
    "matmul_96x160x64": lambda: matmul(96, 160, 64),
    "dense_relu_64x256x128": lambda: dense_relu(64, 256, 128),
}


def main():
    for seed, (name, make) in enumerate(WORKLOADS.items(), start=1):
        work_dir = os.path.join(HERE, name)
        shutil.rmtree(work_dir, ignore_errors=True)
        ms.tune_tir(make(), TARGET, work_dir, TRIALS, num_trials_per_iter=TRIALS, strategy="random",
                    cost_model="random", seed=seed, num_tuning_cores=2)
        for entry in os.listdir(work_dir):   # keep the two database files only
            if not entry.startswith("database_"):
                path = os.path.join(work_dir, entry)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


if __name__ == "__main__":
    main()
