"""Dot-product tensor intrinsics shared by several targets: the description
of an (m x k) integer dot product (C[i] += A[k] * B[i, k], accumulated in a
wider type) that the x86, Arm and Hexagon intrinsics implement, and CUDA's
``__dp4a`` (C[0] += A[0:4] . B[0:4]), registered as ``dp4a_<a><b><c>``."""
from ...script import tir as T
from . import TensorIntrin


def dot_product_desc(lanes, reduce_len, dtype_a, dtype_b, dtype_c):
    """C[i] += C(A[k]) * C(B[i, k]) for i < lanes, k < reduce_len: A is one
    row of reduce_len values, B lanes rows, C lanes accumulators."""

    @T.prim_func
    def desc(A: T.Buffer((reduce_len,), dtype_a, offset_factor=1),
             B: T.Buffer((lanes, reduce_len), dtype_b, offset_factor=1),
             C: T.Buffer((lanes,), dtype_c, offset_factor=1)):
        with T.block("root"):
            T.reads(C[0:lanes], A[0:reduce_len], B[0:lanes, 0:reduce_len])
            T.writes(C[0:lanes])
            for i, k in T.grid(lanes, reduce_len):
                with T.block("update"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    C[vi] = C[vi] + T.Cast(dtype_c, A[vk]) * T.Cast(dtype_c, B[vi, vk])

    return desc


def dp4a_desc(dtype_a, dtype_b, dtype_c):
    """C[0] += C(A[k]) * C(B[k]) for k < 4, operands in shared memory and the
    accumulator in a register (local), as CUDA schedules place them."""

    @T.prim_func
    def desc(A: T.Buffer((4,), dtype_a, offset_factor=1, align=4, scope="shared"),
             B: T.Buffer((4,), dtype_b, offset_factor=1, align=4, scope="shared"),
             C: T.Buffer((1,), dtype_c, offset_factor=1, align=4, scope="local")):
        with T.block("root"):
            T.reads(C[0], A[0:4], B[0:4])
            T.writes(C[0])
            for k in range(4):
                with T.block("update"):
                    vk = T.axis.remap("R", [k])
                    C[0] = C[0] + T.Cast(dtype_c, A[vk]) * T.Cast(dtype_c, B[vk])

    return desc


def _dp4a_impl(dtype_a, dtype_b, dtype_c):
    # __dp4a(a, b, c) = c + a[0]*b[0] + ... + a[3]*b[3] on 4-lane byte vectors.
    @T.prim_func
    def impl(A: T.Buffer((4,), dtype_a, offset_factor=1, align=4, scope="shared"),
             B: T.Buffer((4,), dtype_b, offset_factor=1, align=4, scope="shared"),
             C: T.Buffer((1,), dtype_c, offset_factor=1, align=4, scope="local")):
        with T.block("root"):
            T.reads(C[0], A[0:4], B[0:4])
            T.writes(C[0])
            C[0] = T.call_pure_extern(dtype_c, "__dp4a", A[T.ramp(0, 1, 4)], B[T.ramp(0, 1, 4)], C[0])

    return impl


def _register_dp4a(dtype_a, dtype_b, dtype_c):
    short = {"int8": "s8", "uint8": "u8", "int32": "s32", "uint32": "u32"}
    name = f"dp4a_{short[dtype_a]}{short[dtype_b]}{short[dtype_c]}"
    TensorIntrin.register(name, dp4a_desc(dtype_a, dtype_b, dtype_c), _dp4a_impl(dtype_a, dtype_b, dtype_c))
    return name


DP4A_S8S8S32_INTRIN = _register_dp4a("int8", "int8", "int32")
DP4A_U8S8S32_INTRIN = _register_dp4a("uint8", "int8", "int32")
DP4A_S8U8S32_INTRIN = _register_dp4a("int8", "uint8", "int32")
DP4A_U8U8U32_INTRIN = _register_dp4a("uint8", "uint8", "uint32")
