"""``relax.transform.LegalizeOps(customize_legalize_map=None, enable_warning=False)``:
replaces each call of a high-level Relax op that has a legalization ("FLegalize",
relax/op/_legalize_registry.py, or an entry of ``customize_legalize_map``) by
call_tir of a TOPI-generated PrimFunc added through a BlockBuilder (identical
PrimFuncs are shared). Calls of ops with no legalization are left unchanged. The
pass is C++ (src/relax/transform/legalize_ops.cc, an ExprMutator calling each op's
Python legalization); first pass of relax.get_pipeline()'s default build pipeline."""
import sys
import types

from ..._ffi.registry import get_global_func
from ...error import TVMTypeError


def LegalizeOps(customize_legalize_map=None, enable_warning=False):  # pylint: disable=invalid-name
    """Legalizes the high-level Relax ops of every Relax function to call_tir of
    TOPI PrimFuncs. ``customize_legalize_map``: {op name: fn(bb, call) -> Expr}
    used instead of the ops' registered legalizations (as TVM's);
    ``enable_warning``: name on stderr each op left without a legalization."""
    from ...ir.op import Op  # pylint: disable=import-outside-toplevel

    if not isinstance(enable_warning, bool):
        raise TVMTypeError(f"LegalizeOps: enable_warning must be a bool, got {type(enable_warning).__name__}")
    custom = {}
    if customize_legalize_map is not None:
        if not isinstance(customize_legalize_map, dict):
            raise TVMTypeError("LegalizeOps: customize_legalize_map must be a dict {op name: function}, got "
                               f"{type(customize_legalize_map).__name__}")
        for name, func in customize_legalize_map.items():
            key = name.name if isinstance(name, Op) else name
            if not isinstance(key, str):
                raise TVMTypeError(f"LegalizeOps: customize_legalize_map keys must be op names, got {key!r}")
            Op.get(key)  # an unknown op name raises naming it
            if not callable(func):
                raise TVMTypeError(f"LegalizeOps: the customized legalization of {key} must be callable, got "
                                   f"{type(func).__name__}")
            custom[key] = func
    if not custom and not enable_warning:
        return get_global_func("relax.transform.LegalizeOps")()
    return get_global_func("relax.transform.LegalizeOpsWith")(custom, enable_warning)


def _register_legalize(op_name, legal_func=None, level=10):
    """TVM's ``legalize_ops.common.register_legalize(op_name, legal_func)``: sets
    the op's "FLegalize" (a decorator when ``legal_func`` is None)."""
    from ...ir.op import register_op_attr  # pylint: disable=import-outside-toplevel

    def register(func):
        register_op_attr(op_name, "FLegalize", func, level=level)
        return func

    return register if legal_func is None else register(legal_func)


# TVM's legalize_ops is a package whose ``common`` module holds register_legalize;
# this module stands for both (tvm.relax.transform.legalize_ops.common imports).
__path__ = []  # pylint: disable=invalid-name
common = types.ModuleType(__name__ + ".common", "TVM's legalize_ops.common: register_legalize.")
common.register_legalize = _register_legalize
sys.modules[common.__name__] = common

__all__ = ["LegalizeOps"]
