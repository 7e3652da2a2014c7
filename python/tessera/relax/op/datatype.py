"""Data-type Relax ops: ``relax.op.astype`` (registered in
src/relax/op/datatype.cc) and its legalization to ``topi.cast``."""
from ...ir.op import Op
from ..expr import Call
from ._legalize_registry import register_legalize
from ._op_attrs import check_expr, make_attrs
from ...error import TVMTypeError


def astype(x, dtype):
    """x cast elementwise to ``dtype``."""
    check_expr("relax.astype", "x", x)
    if dtype is None:
        raise TVMTypeError("relax.astype: attribute 'dtype' is required")
    return Call(Op.get("relax.astype"), [x], make_attrs("relax.astype", dtype=str(dtype)))


@register_legalize("relax.astype")
def _legalize_astype(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    return bb.call_te(topi.cast, call.args[0], str(call.attrs["dtype"]), primfunc_name_hint="cast")


__all__ = ["astype"]
