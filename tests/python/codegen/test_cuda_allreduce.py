"""Cross-thread reductions (LowerCrossThreadReduction + LowerThreadAllreduce), compile-only: reductions whose
reduction loop is bound to threadIdx are lowered to warp shuffles / shared-memory staging, printed as CUDA C and
compiled by NVRTC for sm_80 and sm_90; the CPU pipeline is unchanged. No GPU needed (test_cuda_allreduce_gpu.py
runs these kernels on one)."""
import pytest

import tessera as tvm
from tessera import te
from tessera.contrib import nvcc
from tessera.script import tir as T

from .test_cuda_codegen import ARCHS, requires_nvrtc

_REDUCERS = {"sum": te.sum, "max": te.max, "min": te.min}


def row_reduce(rows, n, op="sum", dtype="float32"):
    a = te.placeholder((rows, n), dtype, name="A")
    k = te.reduce_axis((0, n), name="k")
    b = te.compute((rows,), lambda i: _REDUCERS[op](a[i, k], axis=k), name="B")
    return te.create_prim_func([a, b])


def bound_row_reduce(rows, n, op="sum", threads=None, dtype="float32"):
    """One block per row, the reduction loop on threadIdx.x (split by `threads` when given: the outer part
    serial inside the thread loop, an in-thread reduction first)."""
    sch = tvm.tir.Schedule(row_reduce(rows, n, op, dtype))
    i, k = sch.get_loops(sch.get_block("B"))
    sch.bind(i, "blockIdx.x")
    if threads is None:
        sch.bind(k, "threadIdx.x")
    else:
        ko, ki = sch.split(k, [None, threads])
        sch.reorder(ki, ko)
        sch.bind(ki, "threadIdx.x")
    return sch.mod


def device_kernels(mod):
    """lower + BindTarget + SplitHostDevice + LowerThreadAllreduce + ThreadSync: the kernels (as build_cuda runs)."""
    target = tvm.target.Target("cuda")
    mod = tvm.tir.transform.SplitHostDevice()(tvm.tir.transform.BindTarget(target)(tvm.lower(mod)))
    kernels = tvm.IRModule({gv: f for gv, f in mod.functions.items() if "tir.is_global_func" in (f.attrs or {})})
    kernels = tvm.tir.transform.LowerThreadAllreduce()(kernels)
    return tvm.tir.transform.ThreadSync("shared")(kernels)


def cuda_source(mod):
    return tvm.get_global_func("codegen.CodeGenCUDASource")(device_kernels(mod), tvm.target.Target("cuda"))


def compile_all(src):
    for arch in ARCHS:
        assert f".target {arch}" in nvcc.compile_cuda(src, target_format="ptx", arch=arch).decode()


def test_cross_thread_reduction_becomes_allreduce():
    lowered = tvm.tir.transform.LowerCrossThreadReduction()(bound_row_reduce(4, 64))
    text = lowered.script()
    assert "tvm_thread_allreduce" in text and "reduce_scope" in text
    assert "cross_thread_B" in text and "B_write_back" in text and "in_thread" not in text
    split = tvm.tir.transform.LowerCrossThreadReduction()(bound_row_reduce(4, 1000, threads=128))
    assert "in_thread_B" in split.script()


@pytest.mark.parametrize("n", [32, 64, 256, 1024])
def test_whole_warps_use_shuffles(n):
    src = cuda_source(bound_row_reduce(3, n))
    assert "__shfl_down_sync" in src and "__shfl_sync" in src  # reduce, then broadcast lane 0
    assert ("__shared__" in src) == (n > 32)  # one partial per warp across warps
    assert src.count("__syncthreads()") == (1 if n > 32 else 0)
    assert "tvm_thread_allreduce" not in src


@pytest.mark.parametrize("n", [31, 33, 1000])
def test_partial_warps_use_masked_shuffles(n):
    # (one row per block; every extent: tests/python/codegen/test_cuda_allreduce_partial_warps.py)
    src = cuda_source(bound_row_reduce(3, n))
    assert "__shfl_down_sync" in src and "__activemask()" not in src
    assert src.count("__syncthreads()") == (2 if n > 32 else 0)


def test_power_of_two_below_a_warp_and_single_thread():
    src = cuda_source(bound_row_reduce(5, 16))
    assert "__shfl_down_sync" in src and ", 16);" in src and "__activemask()" in src  # 16 threads: partial warp
    one = cuda_source(bound_row_reduce(5, 1))
    assert "__shfl" not in one and "__shared__" not in one


@requires_nvrtc
@pytest.mark.parametrize("n", [1, 16, 31, 32, 33, 64, 1000, 1024])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_allreduce_compiles_with_nvrtc(n, op):
    compile_all(cuda_source(bound_row_reduce(4, n, op)))


@requires_nvrtc
@pytest.mark.parametrize("dtype", ["float16", "float64", "int32", "int64"])
@pytest.mark.parametrize("op", ["sum", "max"])
def test_allreduce_dtypes_compile(dtype, op):
    compile_all(cuda_source(bound_row_reduce(4, 100, op, threads=64, dtype=dtype)))


@requires_nvrtc
def test_in_thread_then_cross_thread_compiles():
    src = cuda_source(bound_row_reduce(2, 4096, threads=256))
    assert "in_thread_B" in src and "__shfl_down_sync" in src
    compile_all(src)


@T.prim_func
def max_and_sum(A: T.Buffer((4, 128), "float32"), M: T.Buffer((4,), "float32"), S: T.Buffer((4,), "float32")):
    for i in T.thread_binding(4, thread="blockIdx.x"):
        for k in T.thread_binding(128, thread="threadIdx.x"):
            with T.block("M"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    M[vi] = T.float32(-3.0e38)
                M[vi] = T.max(M[vi], A[vi, vk])
        for k in T.thread_binding(128, thread="threadIdx.x"):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(1)
                S[vi] = S[vi] + A[vi, vk]


@requires_nvrtc
def test_two_reductions_in_one_kernel():
    src = cuda_source(tvm.IRModule({"main": max_and_sum}))
    assert src.count("__global__") == 1 and "__shared__ float red_buf0[4]" in src and "red_buf0_1[4]" in src
    # an init that is not the identity is combined at the write-back: max(-3e38, .), 1 + .
    assert "S[i] = (((float)1.0) + cross_thread_S[0]);" in src
    assert "M[i] = tsr_max<float>(((float)-3.0000000000000001e+38), cross_thread_M[0]);" in src
    compile_all(src)


def test_cpu_pipeline_unchanged():
    mod = tvm.IRModule({"main": row_reduce(8, 100)})
    without = tvm.transform.Sequential(
        [p for p in tvm.tir.get_default_tir_pipeline().passes if p.info.name != "LowerCrossThreadReduction"])
    tvm.ir.assert_structural_equal(tvm.lower(mod), without(mod))
    assert tvm.tir.transform.LowerCrossThreadReduction()(mod).same_as(mod) or tvm.ir.structural_equal(
        tvm.tir.transform.LowerCrossThreadReduction()(mod), mod)


# ---- the GPU default schedule: a thread block per long row ----

ROWS, LONG = 8, 1000


def _rand(*shape):
    import numpy as np  # pylint: disable=import-outside-toplevel

    return np.random.default_rng(0).uniform(-1, 1, size=shape).astype("float32")


def row_functions(rows=ROWS, n=LONG):
    """name -> (PrimFunc, inputs, NumPy result) for softmax / layer_norm / sum / mean / max over the last axis."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    from tessera import topi  # pylint: disable=import-outside-toplevel

    a, g, b = _rand(rows, n), _rand(n), _rand(n)
    A, G, Bt = te.placeholder((rows, n), name="A"), te.placeholder((n,), name="G"), te.placeholder((n,), name="B")
    e = np.exp(a - a.max(1, keepdims=True))
    norm = (a - a.mean(1, keepdims=True)) / np.sqrt(a.var(1, keepdims=True) + 1e-5) * g + b
    return {
        "softmax": (te.create_prim_func([A, topi.nn.softmax(A)]), [a], e / e.sum(1, keepdims=True)),
        "layer_norm": (te.create_prim_func([A, G, Bt, topi.nn.layer_norm(A, G, Bt, axis=[1], epsilon=1e-5)]),
                       [a, g, b], norm),
        "sum": (te.create_prim_func([A, topi.sum(A, axis=1)]), [a], a.sum(1)),
        "mean": (te.create_prim_func([A, topi.mean(A, axis=1)]), [a], a.mean(1)),
        "max": (te.create_prim_func([A, topi.max(A, axis=1)]), [a], a.max(1)),
    }


def gpu_schedule(func):
    return tvm.tir.transform.DefaultGPUSchedule("cuda")(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}))


@pytest.mark.parametrize("name", ["softmax", "layer_norm", "sum", "mean", "max"])
def test_default_schedule_long_rows_use_a_thread_block(name):
    import numpy as np  # pylint: disable=import-outside-toplevel
    from gpu_schedule_helpers import serial  # pylint: disable=import-outside-toplevel

    func, inputs, expected = row_functions()[name]
    mod = gpu_schedule(func)
    loops = []
    tvm.tir.post_order_visit(mod["main"].body, lambda n: loops.append(n) if isinstance(n, tvm.tir.For) else None)
    bound = {(l.thread_binding.thread_tag, int(l.extent)) for l in loops if l.kind == tvm.tir.ForKind.THREAD_BINDING}
    assert bound == {("blockIdx.x", ROWS), ("threadIdx.x", 256)}, mod.script()  # a block per row, 256 threads
    src = cuda_source(mod)
    assert "__shfl_down_sync" in src and src.count("__global__") == 1
    # the schedule computes what the function computes (thread loops made serial, on the CPU)
    rt = tvm.build(serial(mod), target="llvm")
    nd = [tvm.nd.array(x) for x in inputs] + [tvm.nd.array(np.zeros(expected.shape, "float32"))]
    rt["main"](*nd)
    np.testing.assert_allclose(nd[-1].numpy(), expected, rtol=1e-4, atol=1e-4)
    if _nvrtc_ok():
        compile_all(src)


def _nvrtc_ok():
    return nvcc.have_nvrtc()


def test_default_schedule_short_rows_keep_one_thread_per_row():
    func, _, _ = row_functions(64, 100)["softmax"]
    assert "__shfl" not in cuda_source(gpu_schedule(func))


def test_relax_build_rows_for_cuda_compiles():
    """relax.build(target="cuda") of softmax / layer_norm / sum / mean / max over 4096: every kernel that reduces
    along a row does it with warp shuffles (compiled by NVRTC inside the build when present)."""
    from .test_cuda_allreduce_gpu import Rows  # pylint: disable=import-outside-toplevel

    if tvm.get_global_func("target.build.cuda", allow_missing=True) is None or not _nvrtc_ok():
        pytest.skip("the CUDA backend or NVRTC is not available")
    ex = tvm.relax.build(Rows, target="cuda")

    def find(mod):
        if mod.type_key == "cuda":
            return mod
        return next((f for f in (find(m) for m in mod.imported_modules) if f is not None), None)

    src = find(ex.mod).get_source()
    assert src.count("__shfl_down_sync") >= 5 * 5, src  # 5 functions, at least one 256-thread reduction each


def rows_on_threads_y(rows, n, ty, reduce_axis="threadIdx.x", row_axis="threadIdx.y"):
    """`ty` rows per block on `row_axis`, the row reduced over `reduce_axis` (groups of threads per block)."""
    sch = tvm.tir.Schedule(row_reduce(rows, n))
    i, k = sch.get_loops(sch.get_block("B"))
    bi, ti = sch.split(i, [None, ty])
    sch.bind(bi, "blockIdx.x")
    sch.bind(ti, row_axis)
    sch.bind(k, reduce_axis)
    return sch.mod


@pytest.mark.parametrize("n,ty,shuffles", [(64, 4, True), (8, 4, True), (48, 4, False), (32, 3, True)])
def test_several_rows_per_block(n, ty, shuffles):
    src = cuda_source(rows_on_threads_y(12, n, ty))
    assert ("__shfl_down_sync" in src) == shuffles
    if _nvrtc_ok():
        compile_all(src)


def test_reduction_over_threadidx_y_uses_the_tree():
    # the reduction's threads are not consecutive (x varies fastest): shared memory, no shuffles
    src = cuda_source(rows_on_threads_y(12, 64, 4, reduce_axis="threadIdx.y", row_axis="threadIdx.x"))
    assert "__shfl" not in src and "red_buf0[256]" in src
    if _nvrtc_ok():
        compile_all(src)


def test_default_schedule_gemv_uses_a_thread_block_per_output():
    """x(1, 784) @ w(784, 128): no matmul tile divides 1, so each output gets a thread block over k (TVM's GEMV
    style) instead of one thread doing 784 steps."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    from tessera import topi  # pylint: disable=import-outside-toplevel
    from gpu_schedule_helpers import serial  # pylint: disable=import-outside-toplevel

    x, w = _rand(1, 784), _rand(784, 128)
    X, W = te.placeholder((1, 784), name="X"), te.placeholder((784, 128), name="W")
    mod = gpu_schedule(te.create_prim_func([X, W, topi.matmul(X, W)]))
    assert "__shfl_down_sync" in cuda_source(mod)
    rt = tvm.build(serial(mod), target="llvm")
    nd = [tvm.nd.array(x), tvm.nd.array(w), tvm.nd.array(np.zeros((1, 128), "float32"))]
    rt["main"](*nd)
    np.testing.assert_allclose(nd[-1].numpy(), x @ w, rtol=1e-4, atol=1e-4)


def test_default_schedule_many_outputs_keep_one_thread_each():
    # 20000 row sums of 256: enough outputs to fill the GPU with one thread each (as conv2d)
    A = te.placeholder((20000, 256), name="A")
    from tessera import topi  # pylint: disable=import-outside-toplevel

    assert "__shfl" not in cuda_source(gpu_schedule(te.create_prim_func([A, topi.sum(A, axis=1)])))


def arg_functions(rows=ROWS, n=LONG):
    """name -> (PrimFunc, inputs, NumPy result) for topi argmax / argmin over the last axis, a NaN in one row."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    from tessera import topi  # pylint: disable=import-outside-toplevel

    a = _rand(rows, n)
    a[3, n // 2] = np.nan  # NaN wins (NumPy's rule), through the NaN-propagating max / min stage
    A = te.placeholder((rows, n), name="A")
    return {name: (te.create_prim_func([A, getattr(topi, name)(A, axis=1)]), [a], getattr(np, name)(a, axis=1))
            for name in ["argmax", "argmin"]}


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_default_schedule_argmax_reduces_across_threads(name):
    import numpy as np  # pylint: disable=import-outside-toplevel
    from gpu_schedule_helpers import serial  # pylint: disable=import-outside-toplevel

    func, inputs, expected = arg_functions()[name]
    mod = gpu_schedule(func)
    src = cuda_source(mod)
    assert src.count("__global__") == 2 and src.count("__shfl_down_sync") == 16  # the value, then the index
    rt = tvm.build(serial(mod), target="llvm")
    nd = [tvm.nd.array(x) for x in inputs] + [tvm.nd.array(np.zeros(expected.shape, "int64"))]
    rt["main"](*nd)
    np.testing.assert_array_equal(nd[-1].numpy(), expected)
    if _nvrtc_ok():
        compile_all(src)


@T.prim_func
def broadcast_from_thread0(a: T.handle, b: T.handle):
    A = T.Buffer((64,), data=a)
    B = T.Buffer((64,), data=b)
    for tx in T.thread_binding(64, thread="threadIdx.x"):
        S = T.allocate([1], "float32", "shared")
        S_1 = T.Buffer((1,), data=S, scope="shared")
        if tx == 0:
            S_1[0] = A[0]
        B[tx] = S_1[0]


def test_thread_sync_orders_an_element_shared_by_all_threads():
    """A per-row result written by thread 0 (an allreduce's write-back) and read by every thread: ThreadSync took
    "same index" as "same thread" and put no barrier (softmax's max was read before it was written)."""
    from .test_cuda_thread_sync import _events, _sync  # pylint: disable=import-outside-toplevel

    events = _events(_sync(broadcast_from_thread0))
    assert events.index("sync") > events.index("endif"), events
    func, _, _ = row_functions()["softmax"]
    assert cuda_source(gpu_schedule(func)).count("__syncthreads()") == 4  # 2 per reduction: partials, the row result
