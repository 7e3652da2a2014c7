"""``relax.op.collapse_sum_like(data, collapse_target)`` and
``relax.op.collapse_sum_to(data, shape)``: constructors of calls of the ops
registered in src/relax/op/collapse_sum.cc (struct-info inference there) and
their legalization to TOPI (a keepdims sum over the broadcast axes, then a
reshape to the target shape)."""
from ...ir.expr import PrimExpr
from ...ir.op import Op
from ..expr import Call, Expr, ShapeExpr
from ._legalize_registry import register_legalize
from ._op_attrs import check_expr
from ...error import OpNotImplemented, TVMTypeError


def collapse_sum_like(data, collapse_target):
    """``data`` summed to the shape of ``collapse_target``."""
    check_expr("relax.collapse_sum_like", "data", data)
    check_expr("relax.collapse_sum_like", "collapse_target", collapse_target)
    return Call(Op.get("relax.collapse_sum_like"), [data, collapse_target])


def collapse_sum_to(data, shape):
    """``data`` summed to ``shape`` (a tuple of dims, a ShapeExpr or a shape var)."""
    check_expr("relax.collapse_sum_to", "data", data)
    if isinstance(shape, (list, tuple)):
        shape = ShapeExpr(list(shape))
    if not isinstance(shape, Expr):
        raise TVMTypeError(f"relax.collapse_sum_to: operand 'shape' must be a tuple of dims or a shape expression, "
                           f"got {type(shape).__name__}")
    return Call(Op.get("relax.collapse_sum_to"), [data, shape])


def _legalize(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    out = call.struct_info
    data = call.args[0].struct_info
    if out.shape is None or not isinstance(out.shape, ShapeExpr) or data.shape is None:
        raise OpNotImplemented(f"{call.op.name}: legalization needs the data's and the target's shapes")
    target = list(out.shape.values)
    dims = list(data.shape.values)
    lead = len(dims) - len(target)
    axes = list(range(lead)) + [lead + i for i, t in enumerate(target)
                                if isinstance(t, PrimExpr) and getattr(t, "value", None) == 1
                                and getattr(dims[lead + i], "value", None) != 1]

    def compute(x):
        if not axes:
            return topi.reshape(x, target)
        return topi.reshape(topi.sum(x, axes, True), target)

    return bb.call_te(compute, call.args[0], primfunc_name_hint="collapse_sum")


register_legalize("relax.collapse_sum_like")(_legalize)
register_legalize("relax.collapse_sum_to")(_legalize)

__all__ = ["collapse_sum_like", "collapse_sum_to"]
