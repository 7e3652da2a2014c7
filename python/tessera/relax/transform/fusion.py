"""Operator fusion passes of ``tvm.relax.transform`` (TVM v0.18 names and
signatures): AnnotateTIROpPattern, FuseOps, FuseTIR. C++:
src/relax/transform/{annotate_tir_op_pattern,fuse_ops,fuse_tir}.cc."""
from ..._ffi.registry import get_global_func
from ...error import TVMTypeError


def AnnotateTIROpPattern():
    """Gives every PrimFunc without one the int attribute ``"op_pattern"``, its
    TVM OpPatternKind (0 elementwise, 1 broadcast, 2 injective, 3 comm-reduce,
    4 out-elementwise-fusable, 8 opaque) read from its TIR."""
    return get_global_func("relax.transform.AnnotateTIROpPattern")()


def FuseOps(fuse_opt_level=-1):
    """Groups call_tir bindings of dataflow blocks (by the "op_pattern" of their
    PrimFuncs and the post-dominator tree, as TVM) into private Relax functions
    with ``{"Primitive": 1}``. ``fuse_opt_level``: -1 uses the PassContext's
    opt_level; 0 fuses nothing."""
    if isinstance(fuse_opt_level, bool) or not isinstance(fuse_opt_level, int):
        raise TVMTypeError(f"FuseOps: fuse_opt_level must be an int, got {type(fuse_opt_level).__name__}")
    return get_global_func("relax.transform.FuseOpsWith")(fuse_opt_level)


def FuseTIR():
    """Turns each called "Primitive" Relax function of call_tir bindings into one
    PrimFunc (named as the function) called by one call_tir; PrimFuncs left
    unused by that are removed."""
    return get_global_func("relax.transform.FuseTIR")()


__all__ = ["AnnotateTIROpPattern", "FuseOps", "FuseTIR"]
