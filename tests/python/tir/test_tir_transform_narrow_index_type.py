"""tir.transform.NarrowIndexType (src/tir/transform/narrow_index_type.cc), which
target.build.cuda runs on its kernels: int64 index arithmetic (Relax's shapes make
every loop variable int64) becomes int32 when every such value provably fits; a
kernel with a symbolic (int64 parameter) extent, int64 data, or an index that can
leave int32 is left unchanged. The rewrite is checked by running narrowed functions
on the CPU against NumPy (the pass is target-neutral), and on the CUDA C of a
relax-built convolution."""
import numpy as np
import pytest

import tessera as tvm
from tessera import te, topi
from tessera import relax
from tessera.script import ir as I, relax as R, tir as T

from gpu_schedule_helpers import cuda_source, serial

narrow = tvm.tir.transform.NarrowIndexType()


def _int64_vars(func):
    found = []
    tvm.tir.post_order_visit(func.body, lambda n: found.append(n.name) if isinstance(n, tvm.tir.Var)
                             and n.dtype == "int64" else None)
    return found


@T.prim_func
def add_one(A: T.Buffer((T.int64(64), T.int64(100)), "float32"), B: T.Buffer((T.int64(64), T.int64(100)), "float32")):
    for i, j in T.grid(T.int64(64), T.int64(100)):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)


def test_int64_loops_become_int32_and_compute_the_same():
    lowered = tvm.lower(tvm.IRModule({"main": add_one}))
    assert _int64_vars(lowered["main"])
    narrowed = narrow(lowered)
    assert _int64_vars(narrowed["main"]) == []
    a = np.random.default_rng(0).uniform(size=(64, 100)).astype("float32")
    b = tvm.nd.array(np.zeros_like(a))
    tvm.build(narrowed, target="llvm")["add_one"](tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1)


def test_relax_legalized_gpu_conv_narrowed_matches_numpy():
    """A conv with int64 shapes, GPU-scheduled, narrowed, run serially on the CPU, against NumPy."""
    X = te.placeholder((tvm.tir.IntImm("int64", 1), 8, 12, 12), name="X")
    W = te.placeholder((16, 8, 3, 3), name="W")
    func = te.create_prim_func([X, W, topi.nn.conv2d_nchw(X, W, 2, 1, 1)])
    mod = serial(tvm.tir.transform.DefaultGPUSchedule("cuda")(tvm.IRModule({"main": func})))
    lowered = tvm.lower(mod)
    narrowed = narrow(lowered)
    assert _int64_vars(lowered["main"]) and _int64_vars(narrowed["main"]) == []
    rng = np.random.default_rng(1)
    x, w = rng.uniform(-1, 1, (1, 8, 12, 12)).astype("float32"), rng.uniform(-1, 1, (16, 8, 3, 3)).astype("float32")
    outs = []
    for m in (lowered, narrowed):
        out = tvm.nd.array(np.zeros((1, 16, 6, 6), "float32"))
        tvm.build(m, target="llvm")["main"](tvm.nd.array(x), tvm.nd.array(w), out)
        outs.append(out.numpy())
    np.testing.assert_array_equal(outs[1], outs[0])
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = sum(np.einsum("nchw,kc->nkhw", xp[:, :, r:r + 11:2, s:s + 11:2], w[:, :, r, s]) for r in range(3) for s in range(3))
    np.testing.assert_allclose(outs[1], want, rtol=1e-4, atol=1e-4)


@T.prim_func
def huge(A: T.Buffer((T.int64(70000), T.int64(70000)), "int8"), B: T.Buffer((T.int64(70000),), "int8")):
    for i, j in T.grid(T.int64(70000), T.int64(70000)):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi] = A[vi, vj]


@T.prim_func
def symbolic(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi]


@T.prim_func
def int64_data(A: T.Buffer((T.int64(8),), "int64"), B: T.Buffer((T.int64(8),), "int64")):
    for i in range(T.int64(8)):
        with T.block("B"):
            vi = T.axis.spatial(T.int64(8), i)
            B[vi] = A[vi] * T.int64(3000000000)


@pytest.mark.parametrize("func", [huge, symbolic, int64_data], ids=["index_past_int32", "symbolic_extent", "int64_data"])
def test_left_unchanged_when_int32_cannot_hold_it(func):
    lowered = tvm.lower(tvm.IRModule({"main": func}))
    assert tvm.ir.structural_equal(narrow(lowered)["main"], lowered["main"])


@I.ir_module
class Conv:
    @R.function
    def main(x: R.Tensor((1, 64, 56, 56), "float32"), w: R.Tensor((64, 64, 3, 3), "float32")):
        with R.dataflow():
            out = R.nn.conv2d(x, w, strides=1, padding=1)
            R.output(out)
        return out


def test_cuda_conv_kernel_indices_are_int32():
    """relax.build(conv, "cuda"): Relax's int64 shapes, the kernel's index arithmetic in int32."""
    if tvm.get_global_func("target.build.cuda", allow_missing=True) is None:
        pytest.skip("the CUDA backend is not in this build")
    ex = relax.build(Conv, target="cuda")
    src = cuda_source(ex)
    kernel = src[src.index('extern "C" __global__'):]
    assert "int64_t" not in kernel and "int b_f_0_fused = blockIdx.z;" in kernel, kernel[:600]
