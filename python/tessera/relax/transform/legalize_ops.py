"""``relax.transform.LegalizeOps()``: replaces each call of a high-level Relax op that has a
legalization ("FLegalize", relax/op/_legalize_registry.py) by call_tir of a TOPI-generated
PrimFunc added through a BlockBuilder (identical PrimFuncs are shared). Calls of ops with no
legalization are left unchanged. The pass is C++ (src/relax/transform/legalize_ops.cc, an
ExprMutator calling each op's Python legalization); first pass of relax.get_pipeline()'s
default build pipeline."""
from ..._ffi.registry import get_global_func


def LegalizeOps():  # pylint: disable=invalid-name
    """Legalizes the high-level Relax ops of every Relax function to call_tir of TOPI PrimFuncs."""
    return get_global_func("relax.transform.LegalizeOps")()


__all__ = ["LegalizeOps"]
