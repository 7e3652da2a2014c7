"""Search Relax ops (``relax.op.where``, ``argmax``, ``argmin``): constructors
of calls of the ops registered in src/relax/op/search.cc and their
legalization to TOPI."""
from ...ir.op import Op
from ..expr import Call
from ._legalize_registry import register_legalize
from ._op_attrs import attr_int, check_expr, make_attrs
from ...error import TVMTypeError


def where(condition, x1, x2):
    """x1 where the bool ``condition`` holds, else x2 (broadcasting)."""
    for name, v in (("condition", condition), ("x1", x1), ("x2", x2)):
        check_expr("relax.where", name, v)
    return Call(Op.get("relax.where"), [condition, x1, x2])


def _arg(name):
    op_name = "relax." + name

    def ctor(x, axis=None, keepdims=False):
        check_expr(op_name, "x", x)
        if axis is not None and (isinstance(axis, bool) or not isinstance(axis, int)):
            raise TVMTypeError(f"{op_name}: attribute 'axis' must be an int or None, got {type(axis).__name__}")
        return Call(Op.get(op_name), [x], make_attrs(op_name, axis=axis, keepdims=bool(keepdims)))

    def legalize(bb, call):
        from ... import topi  # pylint: disable=import-outside-toplevel
        return bb.call_te(getattr(topi, name), call.args[0], attr_int(call.attrs["axis"]),
                          bool(call.attrs["keepdims"]), primfunc_name_hint=name)

    register_legalize(op_name)(legalize)
    ctor.__name__ = name
    ctor.__doc__ = f"Index (int64) of the {name[3:]}imum of x along axis (None: of all elements)."
    return ctor


argmax = _arg("argmax")
argmin = _arg("argmin")


@register_legalize("relax.where")
def _legalize_where(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    return bb.call_te(topi.where, *call.args, primfunc_name_hint="where")


__all__ = ["where", "argmax", "argmin"]
