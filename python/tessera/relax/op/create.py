"""Tensor-creation Relax ops (``relax.op.tril``, ``triu``): constructors of
calls of the ops registered in src/relax/op/create.cc (struct-info inference
there) and their legalization to topi.trilu."""
from ...ir.expr import PrimExpr
from ...ir.op import Op
from ..expr import Call, PrimValue
from ._legalize_registry import register_legalize
from ._op_attrs import check_expr
from ...error import TVMTypeError


def _make(name, upper):
    op_name = "relax." + name

    def ctor(x, k=0):
        check_expr(op_name, "x", x)
        if not isinstance(k, PrimValue):
            if isinstance(k, bool) or not isinstance(k, (int, PrimExpr)):
                raise TVMTypeError(f"{op_name}: operand 'k' must be an int, PrimExpr or PrimValue, got {type(k).__name__}")
            k = PrimValue(k)
        return Call(Op.get(op_name), [x, k])

    def legalize(bb, call):
        from ... import topi  # pylint: disable=import-outside-toplevel
        return bb.call_te(topi.trilu, call.args[0], call.args[1].value, upper, primfunc_name_hint=name)

    register_legalize(op_name)(legalize)
    ctor.__name__ = name
    ctor.__doc__ = f"x with the elements {'below' if upper else 'above'} diagonal k of its last two dims set to 0."
    return ctor


tril = _make("tril", False)
triu = _make("triu", True)

__all__ = ["tril", "triu"]
