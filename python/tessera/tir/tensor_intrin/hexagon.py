"""Hexagon (HVX, 128-byte vectors) tensor intrinsics: the 32x4 byte dot
product C[i] += A[k] * B[i, k] (i < 32, k < 4, uint8 operands, int32
accumulators) with vrmpy ("dot_32x4_u8u8i32_vrmpy") and the 32x2
int16 one with vdmpy ("dot_32x2_i16i16i32_vdmpy", saturating as the
instruction does)."""
from ...script import tir as T
from . import TensorIntrin
from .dot_product_common import dot_product_desc


def _vrmpy_impl(dtype_b, llvm_name):
    # vrmpy(Vu.ub, Rt.ub): the bytes of the vector B times the 4 bytes of the scalar A
    @T.prim_func
    def impl(A: T.Buffer((4,), "uint8", offset_factor=1),
             B: T.Buffer((32, 4), dtype_b, offset_factor=1),
             C: T.Buffer((32,), "int32", offset_factor=1)):
        with T.block("root"):
            T.reads(C[0:32], A[0:4], B[0:32, 0:4])
            T.writes(C[0:32])
            # lane i += the dot product of bytes 4i..4i+3 of B with the 4 bytes of A
            C[T.ramp(0, 1, 32)] = T.call_llvm_pure_intrin(
                "int32x32", llvm_name, C[T.ramp(0, 1, 32)], T.reinterpret("int32x32", B[0, T.ramp(0, 1, 128)]),
                T.reinterpret("int32", A[T.ramp(0, 1, 4)]))

    return impl


@T.prim_func
def _vdmpy_impl(A: T.Buffer((2,), "int16", offset_factor=1),
                B: T.Buffer((32, 2), "int16", offset_factor=1),
                C: T.Buffer((32,), "int32", offset_factor=1)):
    with T.block("root"):
        T.reads(C[0:32], A[0:2], B[0:32, 0:2])
        T.writes(C[0:32])
        # lane i += B[i, 0] * A[0] + B[i, 1] * A[1] (the pair of A in every lane)
        C[T.ramp(0, 1, 32)] = T.call_llvm_pure_intrin(
            "int32x32", "llvm.hexagon.V6.vdmpyhvsat.acc.128B", C[T.ramp(0, 1, 32)],
            T.reinterpret("int32x32", B[0, T.ramp(0, 1, 64)]),
            T.Broadcast(T.reinterpret("int32", A[T.ramp(0, 1, 2)]), 32))


VRMPY_u8u8i32_INTRIN = "dot_32x4_u8u8i32_vrmpy"
TensorIntrin.register(VRMPY_u8u8i32_INTRIN, dot_product_desc(32, 4, "uint8", "uint8", "int32"),
                      _vrmpy_impl("uint8", "llvm.hexagon.V6.vrmpyub.acc.128B"))

VDMPY_i16i16i32_INTRIN = "dot_32x2_i16i16i32_vdmpy"
TensorIntrin.register(VDMPY_i16i16i32_INTRIN, dot_product_desc(32, 2, "int16", "int16", "int32"), _vdmpy_impl)
