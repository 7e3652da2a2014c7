"""CodeGenCUDA's kernels run on a GPU and compared with NumPy, independently of the CUDA runtime module:
the generated source is compiled to a cubin for the device with NVRTC and launched through the driver API
(libcuda via ctypes) with the launch extents the generator reads (KernelLaunchExtents). Skipped without a CUDA
device; written for the lead's GPU run (nothing here has run on a GPU while writing it)."""
import ctypes
import math

import numpy as np
import pytest

import tessera as tvm
from tessera.contrib import nvcc

from . import test_cuda_codegen as cg
from .test_cuda_tensor_core import _mma_kernel

pytestmark = [
    pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device"),
    pytest.mark.skipif(not nvcc.have_nvrtc(), reason="NVRTC not available"),
]

_launch_extents = tvm.get_global_func("codegen.KernelLaunchExtents")


class _Driver:
    """The few CUDA driver calls a launch needs, on the primary context of device 0."""

    def __init__(self):
        lib = ctypes.CDLL("libcuda.so.1")
        vp, u64, sz, ui = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_uint
        for name, args in {
            "cuInit": [ui], "cuDeviceGet": [ctypes.POINTER(ctypes.c_int), ctypes.c_int],
            "cuDevicePrimaryCtxRetain": [ctypes.POINTER(vp), ctypes.c_int], "cuCtxSetCurrent": [vp],
            "cuModuleLoadData": [ctypes.POINTER(vp), ctypes.c_char_p], "cuModuleUnload": [vp],
            "cuModuleGetFunction": [ctypes.POINTER(vp), vp, ctypes.c_char_p],
            "cuMemAlloc_v2": [ctypes.POINTER(u64), sz], "cuMemFree_v2": [u64],
            "cuMemcpyHtoD_v2": [u64, vp, sz], "cuMemcpyDtoH_v2": [vp, u64, sz],
            "cuLaunchKernel": [vp, ui, ui, ui, ui, ui, ui, ui, vp, ctypes.POINTER(vp), vp],
            "cuCtxSynchronize": [], "cuGetErrorString": [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)],
        }.items():
            getattr(lib, name).argtypes = args
            getattr(lib, name).restype = ctypes.c_int
        self.lib = lib
        self.check(lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        ctx = ctypes.c_void_p()
        self.check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
        self.check(lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")

    def check(self, rc, what):
        if rc != 0:
            msg = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(msg))
            raise RuntimeError(f"{what} failed: {rc} {msg.value}")

    def run(self, image, symbol, grid, block, args, dyn_shmem=0):
        """Launches `symbol` of cubin `image`; args: NumPy arrays (copied in and back) or ctypes scalars."""
        lib = self.lib
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        self.check(lib.cuModuleLoadData(ctypes.byref(mod), bytes(image)), "cuModuleLoadData")
        try:
            self.check(lib.cuModuleGetFunction(ctypes.byref(fn), mod, symbol.encode()), "cuModuleGetFunction")
            values, ptrs = [], []
            for a in args:
                if isinstance(a, np.ndarray):
                    p = ctypes.c_uint64()
                    self.check(lib.cuMemAlloc_v2(ctypes.byref(p), max(a.nbytes, 1)), "cuMemAlloc")
                    self.check(lib.cuMemcpyHtoD_v2(p, a.ctypes.data, a.nbytes), "cuMemcpyHtoD")
                    ptrs.append((p, a))
                    values.append(p)
                else:
                    values.append(a)
            params = (ctypes.c_void_p * len(values))(*[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values])
            self.check(lib.cuLaunchKernel(fn, *grid, *block, dyn_shmem, None, params, None), "cuLaunchKernel")
            self.check(lib.cuCtxSynchronize(), "kernel " + symbol)
            for p, a in ptrs:
                self.check(lib.cuMemcpyDtoH_v2(a.ctypes.data, p, a.nbytes), "cuMemcpyDtoH")
                lib.cuMemFree_v2(p)
        finally:
            lib.cuModuleUnload(mod)


_DRIVER = []


def driver():
    if not _DRIVER:
        _DRIVER.append(_Driver())
    return _DRIVER[0]


def run(kernels, arrays, scalars=None, sizes=None):
    """Compiles the one kernel of `kernels` for this GPU and runs it; arrays/scalars by parameter name.
    `sizes`: values of symbolic variables in the launch extents."""
    ((_, func),) = list(kernels.functions.items())
    symbol = str(func.attrs["global_symbol"])
    major, minor = nvcc.parse_compute_version(tvm.cuda(0).compute_version)
    cubin = nvcc.compile_cuda(cg.cuda_source(kernels), target_format="cubin", arch=f"sm_{major}{minor}")
    tags, extents, dyn = _launch_extents(func.body, symbol)
    sizes = sizes or {}

    def value(e):
        e = tvm.tir.stmt_functor.substitute(e, {v: tvm.tir.const(sizes[v.name], v.dtype) for v in _vars(e)})
        return int(tvm.arith.Analyzer().simplify(e))

    dims = {str(t): value(e) for t, e in zip(tags, extents)}
    grid = [dims.get(f"blockIdx.{a}", 1) for a in "xyz"]
    block = [dims.get(f"threadIdx.{a}", 1) for a in "xyz"]
    args = []
    for p in func.params:
        if p.dtype == "handle":
            args.append(arrays[p.name])
        else:
            ctype = {"int32": ctypes.c_int32, "int64": ctypes.c_int64, "float32": ctypes.c_float}[p.dtype]
            args.append(ctype((scalars or {})[p.name]))
    driver().run(cubin, symbol, grid, block, args, value(dyn))


def _vars(e):
    out = []
    tvm.tir.stmt_functor.post_order_visit(e, lambda n: out.append(n) if isinstance(n, tvm.tir.Var) else None)
    return out


def _rng():
    return np.random.default_rng(0)


def test_vecadd():
    sch = tvm.tir.Schedule(cg._Ch6.make_vecadd())
    i0, i1 = cg._Ch6.schedule_vecadd(sch)
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "threadIdx.x")
    a, b = _rng().uniform(size=(2, 1024)).astype("float32")
    c = np.zeros(1024, "float32")
    run(cg.device_kernels(sch.mod), {"A": a, "B": b, "C": c})
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_window_sum_shared_cooperative_fetch():
    kernels = tvm.tir.transform.ThreadSync("shared")(tvm.IRModule({"main_kernel": cg.window_sum_kernel}))
    a = _rng().uniform(size=1027).astype("float32")
    b = np.zeros(1024, "float32")
    run(kernels, {"A": a, "B": b})
    np.testing.assert_allclose(b, a[:1024] + a[1:1025] + a[2:1026], rtol=1e-5)


def test_window_sum_through_the_pipeline():
    sch = cg._Ch6.schedule_window_sum(tvm.tir.Schedule(cg._Ch6.make_window_sum()), stage=3)
    kernels = cg.device_kernels(sch.mod)
    if cg.allocation_outside_kernel(kernels):
        pytest.skip("the pipeline allocates A_shared on the host (needs the scope-aware compaction of issue [H])")
    a = _rng().uniform(size=1027).astype("float32")
    b = np.zeros(1024, "float32")
    run(kernels, {"A": a, "B": b})
    np.testing.assert_allclose(b, a[:1024] + a[1:1025] + a[2:1026], rtol=1e-5)


def test_matmul_local_blocking():
    sch = cg._Ch6.blocking(tvm.tir.Schedule(cg._Ch6.make_matmul_1024()), 8, 8, 8, 8, 4)
    a, b = _rng().uniform(size=(2, 1024, 1024)).astype("float32")
    c = np.zeros((1024, 1024), "float32")
    run(cg.device_kernels(sch.mod), {"A": a, "B": b, "C": c})
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-3)


def test_fp16_gelu():
    a = _rng().uniform(-3, 3, size=(64, 96)).astype("float16")
    b = np.zeros((64, 96), "float16")
    run(cg.device_kernels(cg._bind_1d(cg.gelu_fp16, "B")), {"A": a, "B": b})
    x = a.astype("float32")
    erf = np.vectorize(math.erf)((x * np.float16(0.7071)).astype("float16").astype("float64"))
    np.testing.assert_allclose(b.astype("float32"), x * 0.5 * (1 + erf), rtol=2e-2, atol=2e-2)


def test_integer_floordiv_with_scalar():
    a = _rng().integers(-1000, 1000, size=1000).astype("int32")
    b = np.zeros(1000, "int32")
    run(cg.device_kernels(cg._bind_1d(cg.int_index_math, "B")), {"A": a, "B": b}, {"d": -7})
    np.testing.assert_array_equal(b, a // -7 + a % 7 + np.minimum(a, -7))


def test_symbolic_grid_and_dynamic_shared_memory():
    n = 1000
    a = _rng().uniform(size=n).astype("float32")
    b = np.zeros(n, "float32")
    run(tvm.IRModule({"sym_kernel": cg.symbolic_kernel}), {"a": a, "b": b}, {"n": n}, sizes={"n": n})
    np.testing.assert_allclose(b, 2 * a)
    a = _rng().uniform(size=256).astype("float32")
    h = _rng().uniform(size=256).astype("float16")
    expect = np.concatenate([a[127::-1], a[:127:-1]]) + np.float32(h[0])
    run(tvm.IRModule({"dyn_kernel": cg.dyn_shared_kernel}), {"a": a, "h": h})
    np.testing.assert_allclose(a, expect, rtol=1e-6)


def test_warp_shuffle_sum():
    a = _rng().uniform(size=32).astype("float32")
    b = np.zeros(1, "float32")
    run(tvm.IRModule({"warp_sum": cg.warp_sum_kernel}), {"a": a, "b": b})
    np.testing.assert_allclose(b[0], a.sum(), rtol=1e-5)


@pytest.mark.parametrize("in_dtype,ptx_in", [("float16", "fp16")])
def test_mma_m16n8k16(in_dtype, ptx_in):
    major, _ = nvcc.parse_compute_version(tvm.cuda(0).compute_version)
    if major < 8:
        pytest.skip("mma.sync m16n8k16 needs sm_80")
    a = _rng().uniform(-1, 1, size=256).astype(in_dtype)
    bt = _rng().uniform(-1, 1, size=256).astype(in_dtype)  # B stored as [n][k]
    c = np.zeros(256, "float32")
    run(tvm.IRModule({"k": _mma_kernel(in_dtype, ptx_in, "float32", "fp32")}), {"a": a, "b": bt, "c": c})
    expect = a.reshape(16, 16).astype("float32") @ bt.reshape(16, 16).astype("float32").T
    np.testing.assert_allclose(c.reshape(16, 16), expect, rtol=1e-2, atol=1e-2)


def test_bit_intrinsics():
    rng = _rng()
    a = rng.integers(-128, 128, size=32).astype("int8")
    b = rng.integers(-2**31, 2**31, size=32).astype("int32")
    c = rng.integers(-2**63, 2**63, size=32, dtype="int64")
    b0, c0 = b.copy(), c.copy()
    run(tvm.IRModule({"bits": cg.bits_kernel}), {"a": a, "b": b, "c": c})

    def pop(x, bits):
        return bin(int(x) & ((1 << bits) - 1)).count("1")

    def clz(x, bits):
        v = int(x) & ((1 << bits) - 1)
        return bits - v.bit_length()

    np.testing.assert_array_equal(b, [pop(x, 8) + clz(x, 8) + pop(y, 32) + clz(y, 32) for x, y in zip(a, b0)])
    expect = [pop(z, 64) + clz(z, 64) + (int(z) >> 3) + (int(z) ^ 5) for z in c0]
    np.testing.assert_array_equal(c, np.array([(e + 2**63) % 2**64 - 2**63 for e in expect], dtype="int64"))
