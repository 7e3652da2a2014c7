"""The tensor-core fp16 GEMM of schedule_fp16_gemm (tir/tensor_intrin/cuda.py: ldmatrix + mma.sync m16n8k16)
built with tvm.build(target="cuda") and run on tvm.cuda(0), against NumPy in fp32 from the same fp16 inputs.
Needs a GPU of compute capability 8.0 or more (mma.sync m16n8k16, ldmatrix); skipped otherwise. Written for the
lead's GPU run: nothing here has run on a GPU while writing it."""
import numpy as np
import pytest

import tessera as tvm
from tessera.testing import requires_cuda_compute_version
from tessera.tir.tensor_intrin.cuda import schedule_fp16_gemm

from .test_cuda_tensorize_gemm import gemm_module

pytestmark = [
    pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device"),
    requires_cuda_compute_version(8, 0),
]


def _run(m, n, k, out_dtype, **tiles):
    rng = np.random.default_rng(m + 7 * n + 13 * k)
    a = rng.uniform(-1, 1, size=(m, k)).astype("float16")
    b = rng.uniform(-1, 1, size=(k, n)).astype("float16")
    sch = schedule_fp16_gemm(tvm.tir.Schedule(gemm_module(m, n, k, out_dtype)), **tiles)
    rt = tvm.build(sch.mod, target="cuda")
    dev = tvm.cuda(0)
    c = tvm.nd.array(np.full((m, n), np.nan, out_dtype), dev)
    rt["main"](tvm.nd.array(a, dev), tvm.nd.array(b, dev), c)
    ref = a.astype("float32") @ b.astype("float32")  # exact products of fp16 values, fp32 sums
    return c.numpy().astype("float32"), ref


@pytest.mark.parametrize("m,n,k,tiles", [
    (128, 128, 128, {}),
    (256, 512, 384, {}),  # non-square: 2 x 4 block tiles, 12 k steps
    (64, 96, 48, dict(block_m=32, block_n=32, block_k=16, warp_m=16, warp_n=32)),  # small tiles, 2 warps
    (1024, 1024, 1024, {}),
])
def test_fp16_gemm_fp32_accumulate(m, n, k, tiles):
    out, ref = _run(m, n, k, "float32", **tiles)
    # fp32 accumulation of exact fp16 products: only the summation order differs from NumPy's
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-3 * np.sqrt(k))


def test_fp16_gemm_fp16_accumulate():
    out, ref = _run(256, 256, 256, "float16")
    # fp16 accumulation: each of the k partial sums rounds to 11 bits
    np.testing.assert_allclose(out, ref, rtol=2e-2, atol=2e-2 * np.sqrt(256))
