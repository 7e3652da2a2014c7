"""128-bit global accesses on the GPU: the default schedule's elementwise rule gives each
thread 4 consecutive elements of a 32-bit output in a vectorized loop when the innermost
extent is a multiple of 4 (src/tir/transform/default_schedule_gpu_elementwise.cc), and
CodeGenCUDA prints that store and its consecutive loads as float4 / int4 accesses under a
run-time 16-byte alignment check (src/codegen/cuda/codegen_cuda_vector.cc). Checked on the
CUDA C and on NVRTC's PTX (ld.global.*.v4 / st.global.v4) for sm_80 and sm_90; on a GPU
(skipped here) against NumPy."""
import re

import numpy as np
import pytest

import tessera as tvm
from tessera import te, topi
from tessera.contrib import nvcc

from .test_cuda_codegen import ARCHS, requires_nvrtc

requires_cuda_backend = pytest.mark.skipif(tvm.get_global_func("target.build.cuda", allow_missing=True) is None,
                                           reason="the CUDA backend (target.build.cuda) is not in this build")
requires_cuda = pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device")


def _scheduled(func):
    return tvm.tir.transform.DefaultGPUSchedule("cuda")(tvm.IRModule({"main": func}))


def _add_exp(shape, dtype="float32"):
    A, B = te.placeholder(shape, dtype, name="A"), te.placeholder(shape, dtype, name="B")
    out = topi.exp(topi.add(A, B)) if dtype.startswith("float") else topi.add(A, B)
    return te.create_prim_func([A, B, out])


def _bias_add(n, c, h, w):
    X, Bias = te.placeholder((n, c, h, w), name="X"), te.placeholder((c,), name="Bias")
    out = te.compute((n, c, h, w), lambda i, j, y, x: te.max(X[i, j, y, x] + Bias[j], 0.0), name="relu")
    return te.create_prim_func([X, Bias, out])


def _source(func):
    return tvm.build(_scheduled(func), target="cuda").imported_modules[0].get_source()


def _ptx_accesses(src, arch):
    ptx = bytes(nvcc.compile_cuda(src, target_format="ptx", arch=arch)).decode()
    return re.findall(r"\b((?:ld|st)\.global[.\w]*)", ptx)


@requires_nvrtc
@requires_cuda_backend
@pytest.mark.parametrize("arch", ARCHS)
def test_elementwise_uses_128_bit_loads_and_stores(arch):
    src = _source(_add_exp((64, 100)))
    assert "float4 v = *(const float4*)vld;" in src and "*(float4*)vst = vval;" in src, src
    assert "& 15ULL) == 0ULL)" in src  # the run-time alignment check, the lane-by-lane path otherwise
    accesses = _ptx_accesses(src, arch)
    assert sum(a.startswith("ld.global") and a.endswith("v4.f32") for a in accesses) == 2, accesses
    assert "st.global.v4.f32" in accesses, accesses


@requires_nvrtc
@requires_cuda_backend
def test_int32_elementwise_uses_int4():
    src = _source(_add_exp((8, 64), "int32"))
    assert "int4 v = *(const int4*)vld;" in src
    assert "st.global.v4.u32" in _ptx_accesses(src, "sm_80") or "st.global.v4.b32" in _ptx_accesses(src, "sm_80")


@requires_nvrtc
@requires_cuda_backend
def test_broadcast_operand_stays_per_lane():
    """relu(X + bias[c]): X and the output are 128-bit, the bias (the same element for the 4 lanes) a scalar load."""
    src = _source(_bias_add(1, 8, 7, 16))
    assert src.count("*(const float4*)") == 1 and "*(float4*)vst" in src
    accesses = _ptx_accesses(src, "sm_90")
    assert "st.global.v4.f32" in accesses and any(a.endswith("v4.f32") and a.startswith("ld") for a in accesses)


@requires_cuda_backend
@pytest.mark.parametrize("shape, dtype", [((64, 99), "float32"), ((64, 100), "float16"), ((64, 100), "float64")])
def test_no_vector_access_when_the_innermost_extent_or_dtype_does_not_allow(shape, dtype):
    mod = _scheduled(_add_exp(shape, dtype))
    assert "T.vectorized" not in mod.script()
    src = tvm.build(mod, target="cuda").imported_modules[0].get_source()
    assert "float4" not in src and "int4" not in src


def test_vectorized_schedule_matches_numpy_on_the_cpu():
    from gpu_schedule_helpers import serial  # pylint: disable=import-outside-toplevel

    rng = np.random.default_rng(0)
    x, b = rng.uniform(-1, 1, (2, 8, 7, 16)).astype("float32"), rng.uniform(-1, 1, 8).astype("float32")
    out = tvm.nd.array(np.zeros_like(x))
    mod = _scheduled(_bias_add(2, 8, 7, 16))
    assert "T.vectorized(4)" in mod.script()
    tvm.build(serial(mod), target="llvm")["main"](tvm.nd.array(x), tvm.nd.array(b), out)
    np.testing.assert_allclose(out.numpy(), np.maximum(x + b[None, :, None, None], 0), rtol=1e-6)


# ---- on a GPU (skipped without one) ------------------------------------------------------


@requires_cuda
@pytest.mark.parametrize("shape", [(64, 100), (3, 4), (1, 4096)])
def test_vectorized_elementwise_on_gpu_matches_numpy(shape):
    rng = np.random.default_rng(1)
    a, b = (rng.uniform(-1, 1, shape).astype("float32") for _ in range(2))
    dev = tvm.cuda(0)
    out = tvm.nd.empty(shape, "float32", dev)
    tvm.build(_scheduled(_add_exp(shape)), target="cuda")["main"](tvm.nd.array(a, dev), tvm.nd.array(b, dev), out)
    np.testing.assert_allclose(out.numpy(), np.exp(a + b), rtol=1e-5, atol=1e-6)


@requires_cuda
def test_bias_relu_on_gpu_matches_numpy():
    rng = np.random.default_rng(2)
    x, b = rng.uniform(-1, 1, (2, 8, 7, 16)).astype("float32"), rng.uniform(-1, 1, 8).astype("float32")
    dev = tvm.cuda(0)
    out = tvm.nd.empty(x.shape, "float32", dev)
    tvm.build(_scheduled(_bias_add(2, 8, 7, 16)), target="cuda")["main"](tvm.nd.array(x, dev), tvm.nd.array(b, dev), out)
    np.testing.assert_allclose(out.numpy(), np.maximum(x + b[None, :, None, None], 0), rtol=1e-6)
