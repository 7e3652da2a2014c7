"""AMD GPU (ROCm) tensor intrinsics: the 4-element int8 dot product
C[0] += A[0:4] . B[0:4] with llvm.amdgcn.sdot4 ("sdot4"), operands in shared
memory and the accumulator in a register."""
from ...script import tir as T
from . import TensorIntrin
from .dot_product_common import dp4a_desc


@T.prim_func
def _sdot4_impl(A: T.Buffer((4,), "int8", offset_factor=1, align=4, scope="shared"),
                B: T.Buffer((4,), "int8", offset_factor=1, align=4, scope="shared"),
                C: T.Buffer((1,), "int32", offset_factor=1, align=4, scope="local")):
    with T.block("root"):
        T.reads(C[0], A[0:4], B[0:4])
        T.writes(C[0])
        # sdot4(a, b, c, clamp) = c + the dot product of the 4 signed bytes of a and b
        C[0] = T.call_llvm_pure_intrin("int32", "llvm.amdgcn.sdot4", T.reinterpret("int32", A[T.ramp(0, 1, 4)]),
                                       T.reinterpret("int32", B[T.ramp(0, 1, 4)]), C[0], T.bool(False))


AMDGPU_SDOT4_INTRIN = "sdot4"
TensorIntrin.register(AMDGPU_SDOT4_INTRIN, dp4a_desc("int8", "int8", "int32"), _sdot4_impl)
