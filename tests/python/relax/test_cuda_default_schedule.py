"""The GPU default schedule's kernels (DefaultGPUSchedule, one per rule:
elementwise, rows, matmul, dense + epilogue, batch_matmul, reductions) through
tvm.build(target="cuda"): compiled by NVRTC without a GPU when the CUDA
backend is built in, and run on tvm.cuda(0) against NumPy with a GPU (the
lead's H200 run). Their CPU-serial checks are tests/python/tir/
test_default_schedule_gpu.py."""
import numpy as np
import pytest

import tessera as tvm
from gpu_schedule_helpers import topi_cases

requires_cuda = pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device")
requires_cuda_backend = pytest.mark.skipif(tvm.get_global_func("target.build.cuda", allow_missing=True) is None,
                                           reason="the CUDA backend (target.build.cuda) is not in this build")

CASES = topi_cases()


def _build(func):
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    return tvm.build(tvm.tir.transform.DefaultGPUSchedule("cuda")(mod), target="cuda")


@requires_cuda_backend
@pytest.mark.parametrize("func", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_default_schedule_kernel_compiles(func):
    src = _build(func).imported_modules[0].get_source()
    assert "__global__" in src


@requires_cuda
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_default_schedule_kernel_on_gpu_matches_numpy(case):
    _, func, arrays, expected = case
    dev = tvm.cuda(0)
    nd = [tvm.nd.array(a, dev) for a in arrays]
    _build(func)["main"](*nd)
    np.testing.assert_allclose(nd[-1].numpy(), expected, rtol=1e-4, atol=1e-4)
