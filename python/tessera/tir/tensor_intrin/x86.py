"""x86 tensor intrinsics: the 16x4 uint8 x int8 -> int32 dot product
(C[i] += A[k] * B[i, k], i < 16, k < 4) with AVX512-VNNI's vpdpbusd
("dot_16x4_vnni") and with plain AVX512 (vpmaddubsw + vpmaddwd,
"dot_16x4_avx512"; vpmaddubsw saturates its 16-bit pair sums, as the
hardware does)."""
from ...script import tir as T
from . import TensorIntrin
from .dot_product_common import dot_product_desc


@T.prim_func
def _dot_16x4_vnni_impl(A: T.Buffer((4,), "uint8", offset_factor=1),
                        B: T.Buffer((16, 4), "int8", offset_factor=1),
                        C: T.Buffer((16,), "int32", offset_factor=1)):
    with T.block("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        # the 4 bytes of A as one int32, repeated in each of the 16 lanes;
        # vpdpbusd adds to each int32 lane the dot product of its 4 unsigned
        # bytes of the first operand with the 4 signed bytes of the second.
        C[T.ramp(0, 1, 16)] = T.call_llvm_pure_intrin(
            "int32x16", "llvm.x86.avx512.vpdpbusd.512", C[T.ramp(0, 1, 16)],
            T.Broadcast(T.reinterpret("int32", A[T.ramp(0, 1, 4)]), 16),
            T.reinterpret("int32x16", B[0, T.ramp(0, 1, 64)]))


@T.prim_func
def _dot_16x4_avx512_impl(A: T.Buffer((4,), "uint8", offset_factor=1),
                          B: T.Buffer((16, 4), "int8", offset_factor=1),
                          C: T.Buffer((16,), "int32", offset_factor=1)):
    with T.block("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        # vpmaddubsw: 32 sums of two u8*s8 products (int16); vpmaddwd with
        # ones: 16 sums of two of those (int32), one per row of B.
        C[T.ramp(0, 1, 16)] = C[T.ramp(0, 1, 16)] + T.call_llvm_pure_intrin(
            "int32x16", "llvm.x86.avx512.pmaddw.d.512",
            T.call_llvm_pure_intrin(
                "int16x32", "llvm.x86.avx512.pmaddubs.w.512",
                T.reinterpret("int8x64", T.Broadcast(T.reinterpret("int32", A[T.ramp(0, 1, 4)]), 16)),
                B[0, T.ramp(0, 1, 64)]),
            T.Broadcast(T.int16(1), 32))


VNNI_DOT_16x4_INTRIN = "dot_16x4_vnni"
TensorIntrin.register(VNNI_DOT_16x4_INTRIN, dot_product_desc(16, 4, "uint8", "int8", "int32"), _dot_16x4_vnni_impl)

AVX512_DOT_16x4_INTRIN = "dot_16x4_avx512"
TensorIntrin.register(AVX512_DOT_16x4_INTRIN, dot_product_desc(16, 4, "uint8", "int8", "int32"),
                      _dot_16x4_avx512_impl)
