"""CUDA builds and launches on bad input (target.build.cuda, runtime/cuda/cuda_module.cc): a function whose
loops are not bound to GPU threads, arrays on the CPU, a direct kernel call with wrong arguments, and a launch
on a machine without a GPU each raise an exception naming the function or kernel, never a crash or a host
access to device memory. Launch paths run in a subprocess (harness.run_case); arrays that claim to be on
cuda(0) come from DLPack capsules (cuda_test_kernels.fake_cuda_array) and are never dereferenced. Launch
limits on a real GPU (too many threads per block) are in tests/python/runtime/test_cuda_gpu.py."""
import os

import numpy as np
import pytest

import tessera as tvm
from tessera.contrib import nvcc
from cuda_test_kernels import fake_cuda_array, vecadd_mod, vecadd_scheduled

from .harness import run_case

_info = nvcc.nvrtc_info()
pytestmark = pytest.mark.skipif(not _info["available"], reason=f"NVRTC not available: {_info['why']}")
_HOSTS = ["c"] + (["llvm"] if tvm.get_global_func("target.build.llvm", allow_missing=True) is not None else [])
_TESTS_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def test_unbound_function_is_refused_by_name():
    # Without thread bindings the loop would run on the host over device memory (TVM's VerifyMemory).
    with pytest.raises(ValueError, match=r"main .*accesses buffer . outside any loop bound to a GPU thread.*forget to bind"):
        tvm.build(vecadd_mod(), target="cuda")


@pytest.mark.parametrize("host", _HOSTS)
def test_cpu_arrays_are_refused_for_a_cuda_function(host):
    rt = tvm.build(vecadd_scheduled(), target=tvm.target.Target("cuda", host=host))
    a = tvm.nd.array(np.ones(1024, "float32"))
    with pytest.raises(ValueError, match=r"main: argument A is on cpu.0. but this function runs on cuda"):
        rt["main"](a, a, a)


def test_direct_kernel_call_checks_its_arguments():
    k = tvm.build(vecadd_scheduled(), target="cuda").imported_modules[0]["main_kernel"]
    with pytest.raises(TypeError, match=r"main_kernel expects 5 arguments \(3 kernel arguments, then the extents of "
                                        r"blockIdx.x, threadIdx.x\) but got 3"):
        k(1, 2, 3)
    a = tvm.nd.array(np.ones(4, "float32"))
    with pytest.raises(ValueError, match=r"main_kernel: argument 0 is on cpu.0. but the kernel runs on a CUDA device"):
        k(a, a, a, 1, 1)
    with pytest.raises(TypeError, match=r"main_kernel: argument 1 must be an NDArray on a CUDA device, got float"):
        k(fake_cuda_array(4), 1.5, a, 1, 1)


@pytest.mark.skipif(tvm.cuda(0).exist, reason="checks the behaviour without a GPU")
@pytest.mark.parametrize("host", _HOSTS)
def test_launch_without_a_gpu_raises_runtime_error_naming_the_kernel(host):
    res = run_case(f"""
        import sys, tempfile
        sys.path.insert(0, {_TESTS_DIR!r})
        import tessera as tvm
        from cuda_test_kernels import fake_cuda_array, two_kernels_scheduled, vecadd_scheduled
        assert not tvm.cuda(0).exist
        rt = tvm.build(vecadd_scheduled(), target=tvm.target.Target("cuda", host="{host}"))
        a = fake_cuda_array(1024)
        path = tempfile.mkdtemp() + "/lib.so"
        rt.export_library(path)
        loaded = tvm.runtime.load_module(path)
        for call in (lambda: rt["main"](a, a, a), lambda: rt.imported_modules[0]["main_kernel"](a, a, a, 8, 128),
                     lambda: loaded["main"](a, a, a)):
            try:
                call()
            except RuntimeError as e:
                assert "CUDA kernel main_kernel" in str(e), e
                print("OK", e)
            else:
                raise SystemExit("no error")
        try:
            tvm.nd.empty((4,), "float32", tvm.cuda(0))
        except RuntimeError as e:
            print("OK", e)
        # The buffer two kernels share cannot be allocated on the missing device: MemoryError.
        rt2 = tvm.build(two_kernels_scheduled(), target=tvm.target.Target("cuda", host="{host}"))
        try:
            rt2["main"](fake_cuda_array(256), fake_cuda_array(256))
        except MemoryError as e:
            assert "cannot allocate 1024 bytes on cuda(0)" in str(e), e
            print("OK", e)
        """, timeout=120)
    assert res.returncode == 0 and res.stdout.count("OK") == 5, res.describe()
