"""Legalization shared by the elementwise binary ops and the comparisons
(binary.py, comparison.py): a TOPI broadcast function over the operands,
where an R.Prim operand of known value (a PrimValue, or a var whose struct
info carries the value) enters as a scalar; two such scalars give a
PrimValue of the TIR expression."""
from ...error import OpNotImplemented


def _scalar(op_name, operand, arg):
    from ..expr import PrimValue  # pylint: disable=import-outside-toplevel
    from ..struct_info import PrimStructInfo  # pylint: disable=import-outside-toplevel

    sinfo = arg.struct_info_
    if not isinstance(sinfo, PrimStructInfo):
        return arg
    if isinstance(arg, PrimValue):
        return arg.value
    if sinfo.value is not None:
        return sinfo.value
    raise OpNotImplemented(f"{op_name}: legalizing an R.Prim operand '{operand}' whose value is not known at compile "
                           f"time is not supported (give a PrimValue or an R.Prim(value=...))")


def legalize_binary(bb, call, topi_func, name):
    """The legalized form of ``call`` (x1, x2) through ``topi_func``."""
    from ..expr import PrimValue  # pylint: disable=import-outside-toplevel
    from ...ir.expr import PrimExpr  # pylint: disable=import-outside-toplevel

    op_name = call.op.name
    x1 = _scalar(op_name, "x1", call.args[0])
    x2 = _scalar(op_name, "x2", call.args[1])
    if isinstance(x1, PrimExpr) and isinstance(x2, PrimExpr):
        return PrimValue(topi_func(x1, x2))
    return bb.call_te(topi_func, x1, x2, primfunc_name_hint=name)
