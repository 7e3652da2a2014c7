"""tvm.tir.analysis.verify_gpu_code / tvm.tir.transform.VerifyGPUCode (src/tir/analysis/verify_gpu_code.cc: lowered
kernels against explicit limits), which CodeGenCUDASource also runs with the target's limits."""
import pytest

import tessera as tvm
from tessera.script import tir as T

from .test_cuda_codegen import blocking_kernel, window_sum_kernel


@T.prim_func
def wide_block(a: T.handle):
    A = T.Buffer((4096,), data=a)
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        S = T.allocate([16384], "float32", "shared")
        S_1 = T.Buffer((16384,), data=S, scope="shared")
        for ty in T.thread_binding(64, thread="threadIdx.y"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                S_1[ty * 32 + tx] = A[ty * 32 + tx]
                A[bx * 2048 + ty * 32 + tx] = S_1[ty * 32 + tx]


def test_within_limits():
    assert tvm.tir.analysis.verify_gpu_code(window_sum_kernel, {"max_threads_per_block": 128,
                                                                "max_shared_memory_per_block": 520})
    assert tvm.tir.analysis.verify_gpu_code(blocking_kernel, {"max_local_memory_per_block": 256, "max_thread_x": 8})


@pytest.mark.parametrize("key,value", [
    ("max_threads_per_block", 1024),        # 64 x 32 = 2048 threads
    ("max_shared_memory_per_block", 49152),  # 64 KiB of shared memory
    ("max_thread_y", 32),
])
def test_exceeded(key, value):
    assert not tvm.tir.analysis.verify_gpu_code(wide_block, {key: value})
    assert tvm.tir.analysis.verify_gpu_code(wide_block, {key: value * 100})


def test_local_memory_and_kernel_count():
    assert not tvm.tir.analysis.verify_gpu_code(blocking_kernel, {"max_local_memory_per_block": 255})
    assert not tvm.tir.analysis.verify_gpu_code(window_sum_kernel, {"max_kernels": 0})


def test_pass_raises_naming_the_limit():
    mod = tvm.IRModule({"main": wide_block.with_attr("global_symbol", "wide")})
    with pytest.raises(ValueError, match=r"wide.*2048 threads per block, more than 1024"):
        tvm.tir.transform.VerifyGPUCode({"max_threads_per_block": 1024})(mod)
    assert tvm.tir.transform.VerifyGPUCode({"max_threads_per_block": 4096})(mod) is not None


def test_unknown_constraint():
    with pytest.raises(ValueError, match=r"unknown constraint \"max_warps\""):
        tvm.tir.analysis.verify_gpu_code(wide_block, {"max_warps": 3})
