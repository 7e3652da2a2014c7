"""Kernels and helpers shared by the CUDA runtime tests (test_cuda_build.py runs
without a GPU, test_cuda_gpu.py needs one): scheduled vector add, window sum
and matmul modules, and a fake CUDA NDArray (a DLPack capsule claiming device
cuda(0) at an address nothing dereferences) to drive the host side of a launch
on a machine without a GPU."""
import ctypes

import tessera as tvm
from tessera.script import tir as T
from ms_helpers import matmul_module


def bind_blocks(func, blocks, threads):
    """A Schedule of `func` whose blocks' single loops are split by `threads` and bound to blockIdx.x/threadIdx.x."""
    sch = tvm.tir.Schedule(tvm.IRModule({"main": func}))
    for name in blocks:
        (i,) = sch.get_loops(sch.get_block(name))
        i0, i1 = sch.split(i, [None, threads])
        sch.bind(i0, "blockIdx.x")
        sch.bind(i1, "threadIdx.x")
    return sch


def vecadd_mod(n=1024):
    @T.prim_func
    def main(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32"), C: T.Buffer((n,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(n):
            with T.block("C"):
                vi = T.axis.spatial(n, i)
                C[vi] = A[vi] + B[vi]

    return tvm.IRModule({"main": main})


def vecadd_scheduled(n=1024, threads=128):
    return bind_blocks(vecadd_mod(n)["main"], ["C"], threads).mod


def double_dynamic_scheduled():
    """B[i] = A[i] * 2 over a symbolic length n: the grid is ceil(n / 64) blocks, computed by the host."""

    @T.prim_func
    def main(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.block("B"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi] * 2.0

    return bind_blocks(main, ["B"], 64).mod


def two_kernels_scheduled():
    """B = A * 2 then C = B + 1, each bound separately: two kernels sharing the global intermediate B,
    which the host part allocates (on the device)."""

    @T.prim_func
    def main(A: T.Buffer((256,), "float32"), C: T.Buffer((256,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((256,), "float32")
        for i in range(256):
            with T.block("B"):
                vi = T.axis.spatial(256, i)
                B[vi] = A[vi] * 2.0
        for i in range(256):
            with T.block("C"):
                vi = T.axis.spatial(256, i)
                C[vi] = B[vi] + 1.0

    return bind_blocks(main, ["B", "C"], 64).mod


def scale_add_scheduled():
    """C[i] = A[i] * alpha + B[i] with a float32 scalar parameter alpha."""

    @T.prim_func
    def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32"), C: T.Buffer((256,), "float32"),
             alpha: T.float32):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(256):
            with T.block("C"):
                vi = T.axis.spatial(256, i)
                C[vi] = A[vi] * alpha + B[vi]

    return bind_blocks(main, ["C"], 64).mod


def mixed_scalars_scheduled():
    """C[i] = A[i] * h + s8 + (flag ? d : 0) + n: one scalar parameter of each width the kernel ABI passes."""

    @T.prim_func
    def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32"), s8: T.int8, h: T.float16,
             flag: T.bool, d: T.float64, n: T.int64):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                C[vi] = (A[vi] * T.Cast("float32", h) + T.Cast("float32", s8)
                         + T.Cast("float32", T.Select(flag, d, T.float64(0))) + T.Cast("float32", n))

    return bind_blocks(main, ["C"], 32).mod


def window_sum_scheduled():
    """The course's window sum with a shared-memory stage fetched cooperatively."""

    @T.prim_func
    def main(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(1024):
            with T.block("C"):
                vi = T.axis.spatial(1024, i)
                B[vi] = A[vi] + A[vi + 1] + A[vi + 2]

    sch = bind_blocks(main, ["C"], 128)
    block_c = sch.get_block("C")
    a_shared = sch.cache_read(block_c, 0, "shared")
    sch.compute_at(a_shared, sch.get_loops(block_c)[-1])
    ax = sch.get_loops(a_shared)[-1]
    _, ax1 = sch.split(ax, [None, 128])
    sch.bind(ax1, "threadIdx.x")
    return sch.mod


def matmul_shared_scheduled(n=256, local=4, block=8, tile_k=8):
    """Blocked matmul: a local accumulator per thread, A and B tiles staged in
    shared memory by every thread of the block (as the course's 6.3.2)."""
    sch = tvm.tir.Schedule(matmul_module(n))
    block_c = sch.get_block("C")
    c_local = sch.cache_write(block_c, 0, "local")
    i, j, k = sch.get_loops(block_c)
    i0, i1, i2 = sch.split(i, [None, block, local])
    j0, j1, j2 = sch.split(j, [None, block, local])
    k0, k1 = sch.split(k, [None, tile_k])
    sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
    sch.reverse_compute_at(c_local, j1)
    sch.bind(i0, "blockIdx.y")
    sch.bind(j0, "blockIdx.x")
    tx = sch.fuse(i1, j1)
    sch.bind(tx, "threadIdx.x")
    for index in (0, 1):
        cache = sch.cache_read(block_c, index, "shared")
        sch.compute_at(cache, k0)
        fused = sch.fuse(*sch.get_loops(cache)[-2:])
        _, ftx = sch.split(fused, [None, block * block])
        sch.bind(ftx, "threadIdx.x")
    sch.decompose_reduction(block_c, k0)
    return sch.mod


# ---- a fake CUDA array (no GPU needed) --------------------------------------------

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]
_KEEP = []


def fake_cuda_array(n, address=1 << 20):
    """A float32 NDArray of n elements claiming to live on cuda(0) at `address`
    (never dereferenced on the host: only the launch path sees it)."""
    shape = (ctypes.c_int64 * 1)(n)
    managed = _DLManagedTensor()
    managed.dl_tensor = _DLTensor(address, _DLDevice(2, 0), 1, _DLDataType(2, 32, 1), shape, None, 0)
    managed.deleter = _DELETER(0)
    _KEEP.extend([shape, managed])
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return tvm.nd.from_dlpack(new(ctypes.addressof(managed), b"dltensor", None))
