"""Tensor-core builtins printed as inline PTX by CodeGenCUDA (src/codegen/cuda/ptx.cc): tir.ptx_ldmatrix,
tir.ptx_mma (m16n8k16, fp16/bf16 -> fp32, fp16 -> fp16), tir.mma_fill, tir.mma_store, compiled with NVRTC for
sm_80 (and sm_90). Compile-only: the numbers have not been checked on a GPU."""
import pytest

import tessera as tvm
from tessera.script import tir as T

from .test_cuda_codegen import cuda_source, requires_nvrtc
from tessera.contrib import nvcc


def _mma_kernel(in_dtype, ptx_in, acc_dtype, ptx_acc):
    acc_regs = 8 if acc_dtype == "float32" else 8

    @T.prim_func
    def f(a: T.handle, b: T.handle, c: T.handle):
        T.func_attr({"global_symbol": "mma_kernel", "tir.noalias": True})
        A = T.Buffer((256,), in_dtype, data=a)
        B = T.Buffer((256,), in_dtype, data=b)
        C = T.Buffer((256,), acc_dtype, data=c)
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            As = T.allocate([256], in_dtype, "shared")
            As_1 = T.Buffer((256,), in_dtype, data=As, scope="shared")
            Bs = T.allocate([256], in_dtype, "shared")
            Bs_1 = T.Buffer((256,), in_dtype, data=Bs, scope="shared")
            Af = T.allocate([8], in_dtype, "local")
            Bf = T.allocate([8], in_dtype, "local")
            Cf = T.allocate([acc_regs], acc_dtype, "local")
            for i in range(8):
                As_1[tx * 8 + i] = A[tx * 8 + i]
                Bs_1[tx * 8 + i] = B[tx * 8 + i]
            T.tvm_storage_sync("shared")
            T.evaluate(T.mma_fill(acc_dtype, acc_regs, Cf, 0))
            T.evaluate(T.ptx_ldmatrix(in_dtype, False, 4, ".b16", Af, 0, As, tx % 16 * 16 + tx // 16 * 8))
            T.evaluate(T.ptx_ldmatrix(in_dtype, False, 4, ".b16", Bf, 0, Bs,
                                      (tx % 8 + tx // 16 * 8) * 16 + tx // 8 % 2 * 8))
            T.evaluate(T.ptx_mma(acc_dtype, "m16n8k16", "row", "col", ptx_in, ptx_in, ptx_acc, Af, 0, Bf, 0, Cf, 0,
                                 False))
            T.evaluate(T.ptx_mma(acc_dtype, "m16n8k16", "row", "col", ptx_in, ptx_in, ptx_acc, Af, 0, Bf, 4, Cf,
                                 acc_regs // 2, False))
            T.evaluate(T.mma_store(acc_dtype, 16, 16, T.tvm_access_ptr(T.type_annotation(acc_dtype), c, 0, 256, 2),
                                   Cf, 0, 16))

    return f


@requires_nvrtc
@pytest.mark.parametrize("in_dtype,ptx_in,acc_dtype,ptx_acc", [
    ("float16", "fp16", "float32", "fp32"),
    ("bfloat16", "bf16", "float32", "fp32"),
    ("float16", "fp16", "float16", "fp16"),
])
def test_mma_m16n8k16(in_dtype, ptx_in, acc_dtype, ptx_acc):
    src = cuda_source(tvm.IRModule({"k": _mma_kernel(in_dtype, ptx_in, acc_dtype, ptx_acc)}))
    at = {"fp16": "f16", "bf16": "bf16"}[ptx_in]
    ct = {"fp32": "f32", "fp16": "f16"}[ptx_acc]
    assert src.count(f"mma.sync.aligned.m16n8k16.row.col.{ct}.{at}.{at}.{ct}") == 2
    assert src.count("ldmatrix.sync.aligned.m8n8.x4.shared.b16") == 2
    assert "%%laneid" in src and "__syncthreads();" in src
    for arch in ("sm_80", "sm_90"):
        ptx = nvcc.compile_cuda(src, target_format="ptx", arch=arch).decode()
        assert ptx.count("mma.sync.aligned.m16n8k16") == 2 and "ldmatrix.sync.aligned" in ptx
    assert bytes(nvcc.compile_cuda(src, target_format="cubin", arch="sm_80")[:4]) == b"\x7fELF"


def test_unsupported_mma_shape_is_refused():
    @T.prim_func
    def f(a: T.handle):
        T.func_attr({"global_symbol": "bad_mma"})
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            Af = T.allocate([8], "float16", "local")
            Cf = T.allocate([8], "float32", "local")
            T.evaluate(T.ptx_mma("float32", "m8n8k4", "row", "col", "fp16", "fp16", "fp32", Af, 0, Af, 0, Cf, 0,
                                 False))

    with pytest.raises(NotImplementedError, match="ptx_mma: shape m8n8k4 is not supported"):
        cuda_source(tvm.IRModule({"k": f}))
