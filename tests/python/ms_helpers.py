"""Shared pieces of the meta_schedule tests: the course's 128^3 matmul (smaller sizes
too), its stochastic schedule function, and helpers run inside worker processes."""
import os
import time

import tessera as tvm
from tessera.script import tir as T


def matmul_module(n=128):
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


def zero_fill_module(n=128):
    """Same signature as matmul_module(n) but writes zeros: fast and wrong."""
    @tvm.script.ir_module
    class Zero:
        @T.prim_func
        def main(A: T.Buffer((n, n), "float32"), B: T.Buffer((n, n), "float32"), C: T.Buffer((n, n), "float32")):
            T.func_attr({"global_symbol": "main", "tir.noalias": True})
            for i, j in T.grid(n, n):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = T.float32(0)
    return Zero


def stochastic_schedule_mm(sch):
    block = sch.get_block("C", "main")
    i, j, k = sch.get_loops(block=block)
    i_factors = sch.sample_perfect_tile(loop=i, n=2)
    j_factors = sch.sample_perfect_tile(loop=j, n=2)
    i_0, i_1 = sch.split(loop=i, factors=i_factors)
    j_0, j_1 = sch.split(loop=j, factors=j_factors)
    sch.reorder(i_0, j_0, k, i_1, j_1)
    sch.decompose_reduction(block, k)
    return sch


# ---- functions the tests run inside builder workers
def crash_now(*_args):
    os.abort()


def hang(*_args):
    time.sleep(600)


def pid_or_restart(restart):
    """The worker's process id, or a RestartWorker error (the worker exits after reporting it)."""
    if restart:
        from tessera.meta_schedule.worker_pool import RestartWorker
        raise RestartWorker("the device is unusable")
    return os.getpid()
