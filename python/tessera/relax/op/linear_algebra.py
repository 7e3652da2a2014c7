"""Linear-algebra Relax ops: ``relax.op.matmul`` (registered in
src/relax/op/linear_algebra.cc with its struct-info inference) and its
legalization to ``topi.matmul``; ``relax.op.linear`` is TVM's Python helper
``matmul(x, permute_dims(weight)) + bias``."""
from ...ir.op import Op
from ..expr import Call
from ._legalize_registry import register_legalize
from ._op_attrs import check_expr, make_attrs


def matmul(x1, x2, out_dtype=None):
    """Matrix product with NumPy semantics: batch dims broadcast, a 1-D
    operand is a vector; ``out_dtype`` (None: the operands') is the result's."""
    check_expr("relax.matmul", "x1", x1)
    check_expr("relax.matmul", "x2", x2)
    out_dtype = "void" if out_dtype is None or out_dtype == "" else str(out_dtype)
    return Call(Op.get("relax.matmul"), [x1, x2], make_attrs("relax.matmul", out_dtype=out_dtype))


def linear(data, weight, bias=None, out_dtype=None):
    """``data @ weight.T (+ bias)``: matmul(data, permute_dims(weight)) plus bias."""
    from .manipulate import permute_dims  # pylint: disable=import-outside-toplevel
    from .binary import add  # pylint: disable=import-outside-toplevel
    out = matmul(data, permute_dims(check_expr("relax.linear", "weight", weight)), out_dtype=out_dtype)
    return out if bias is None else add(out, check_expr("relax.linear", "bias", bias))


@register_legalize("relax.matmul")
def _legalize_matmul(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    out_dtype = str(call.attrs["out_dtype"]) if call.attrs is not None else "void"
    out_dtype = None if out_dtype in ("", "void") else out_dtype
    return bb.call_te(topi.matmul, call.args[0], call.args[1], out_dtype=out_dtype, primfunc_name_hint="matmul")


__all__ = ["matmul", "linear"]
