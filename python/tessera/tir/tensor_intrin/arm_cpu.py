"""Arm (AArch64) tensor intrinsics: the 4x4 int8 dot product
(C[i] += A[k] * B[i, k], i, k < 4, int32 accumulators) with the Armv8.2
SDOT instruction ("dot_4x4_i8i8s32_sdot") and with plain NEON
(smull + saddlp + addp, "dot_4x4_i8i8s32_neon"). The dp4a intrinsics of
dot_product_common are re-exported here, as TVM does."""
from ...script import tir as T
from . import TensorIntrin
from .dot_product_common import (  # noqa: F401  (TVM exports them from this module)
    DP4A_S8S8S32_INTRIN,
    DP4A_S8U8S32_INTRIN,
    DP4A_U8S8S32_INTRIN,
    DP4A_U8U8U32_INTRIN,
    dot_product_desc,
)


@T.prim_func
def _dot_4x4_i8i8s32_sdot_impl(A: T.Buffer((4,), "int8", offset_factor=1),
                               B: T.Buffer((4, 4), "int8", offset_factor=1),
                               C: T.Buffer((4,), "int32", offset_factor=1)):
    with T.block("root"):
        T.reads(C[0:4], A[0:4], B[0:4, 0:4])
        T.writes(C[0:4])
        # sdot adds to int32 lane i the dot product of bytes 4i..4i+3 of both operands
        C[T.ramp(0, 1, 4)] = T.call_llvm_pure_intrin(
            "int32x4", "llvm.aarch64.neon.sdot.v4i32.v16i8", C[T.ramp(0, 1, 4)], B[0, T.ramp(0, 1, 16)],
            T.reinterpret("int8x16", T.Broadcast(T.reinterpret("int32", A[T.ramp(0, 1, 4)]), 4)))


@T.prim_func
def _dot_4x4_i8i8s32_neon_impl(A: T.Buffer((4,), "int8", offset_factor=1),
                               B: T.Buffer((4, 4), "int8", offset_factor=1),
                               C: T.Buffer((4,), "int32", offset_factor=1)):
    with T.block("root"):
        T.reads(C[0:4], A[0:4], B[0:4, 0:4])
        T.writes(C[0:4])
        # rows 0-1 and rows 2-3 of B times A twice over (smull, int16 products),
        # pairs summed (saddlp: [r0a, r0b, r1a, r1b] and [r2a, r2b, r3a, r3b]),
        # then the two halves of each row (addp: [r0, r1, r2, r3]).
        C[T.ramp(0, 1, 4)] = C[T.ramp(0, 1, 4)] + T.call_llvm_pure_intrin(
            "int32x4", "llvm.aarch64.neon.addp.v4i32",
            T.call_llvm_pure_intrin(
                "int32x4", "llvm.aarch64.neon.saddlp.v4i32.v8i16",
                T.call_llvm_pure_intrin(
                    "int16x8", "llvm.aarch64.neon.smull.v8i16", B[0, T.ramp(0, 1, 8)],
                    T.reinterpret("int8x8", T.Broadcast(T.reinterpret("int32", A[T.ramp(0, 1, 4)]), 2)))),
            T.call_llvm_pure_intrin(
                "int32x4", "llvm.aarch64.neon.saddlp.v4i32.v8i16",
                T.call_llvm_pure_intrin(
                    "int16x8", "llvm.aarch64.neon.smull.v8i16", B[2, T.ramp(0, 1, 8)],
                    T.reinterpret("int8x8", T.Broadcast(T.reinterpret("int32", A[T.ramp(0, 1, 4)]), 2)))))


ARM_DOT_4x4_i8_SDOT_INTRIN = "dot_4x4_i8i8s32_sdot"
TensorIntrin.register(ARM_DOT_4x4_i8_SDOT_INTRIN, dot_product_desc(4, 4, "int8", "int8", "int32"),
                      _dot_4x4_i8i8s32_sdot_impl)

ARM_DOT_4x4_i8_NEON_INTRIN = "dot_4x4_i8i8s32_neon"
TensorIntrin.register(ARM_DOT_4x4_i8_NEON_INTRIN, dot_product_desc(4, 4, "int8", "int8", "int32"),
                      _dot_4x4_i8i8s32_neon_impl)
