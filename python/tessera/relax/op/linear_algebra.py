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


def _from_constants(bb, expr, depth=4):
    """Whether ``expr`` is a constant or a var bound (within ``depth`` bindings)
    to a call of constants only, i.e. FoldConstant will make it one."""
    from ..expr import Constant, Var, Tuple, ShapeExpr  # pylint: disable=import-outside-toplevel
    if isinstance(expr, Constant):
        return True
    if isinstance(expr, Tuple):
        return all(_from_constants(bb, f, depth) for f in expr.fields)
    if depth == 0 or not isinstance(expr, Var):
        return False
    value = bb.lookup_binding(expr)
    if not isinstance(value, Call):
        return False
    args = [a for a in value.args if not isinstance(a, ShapeExpr) and getattr(a, "struct_info", None) is not None
            and not _is_callee(a)]
    return bool(args) and all(_from_constants(bb, a, depth - 1) for a in args)


def _is_callee(expr):
    from ...ir.expr import GlobalVar  # pylint: disable=import-outside-toplevel
    from ..expr import ExternFunc  # pylint: disable=import-outside-toplevel
    return isinstance(expr, (GlobalVar, ExternFunc))


def _panel_width(bb, call, out_dtype):
    """The panel width of the packed-weight kernel (topi.matmul_packed) for this
    call, or None: float32, a static 2-D weight computed from constants (its
    last panel zero-padded when the width does not divide N), a static K. On by default inside
    relax.build's pipeline for a CPU only (a LegalizeOps run by hand gives TVM's plain matmul kernel);
    PassContext config "relax.matmul_packed" (True/False) forces it either way."""
    from ... import topi  # pylint: disable=import-outside-toplevel
    from ..vm_build import cpu_layout_allowed  # pylint: disable=import-outside-toplevel
    if not cpu_layout_allowed("relax.matmul_packed", outside_build=False) or \
            out_dtype not in (None, "float32"):
        return None
    a, b = [arg.struct_info for arg in call.args]
    if getattr(a, "dtype", None) != "float32" or getattr(b, "dtype", None) != "float32" or \
            getattr(a, "shape", None) is None or getattr(b, "shape", None) is None:
        return None
    if a.ndim < 2 or b.ndim != 2:
        return None
    try:
        k, n = [int(d) for d in b.shape]
        int(a.shape[-1])
    except (TypeError, ValueError):
        return None
    if k == 0 or not _from_constants(bb, call.args[1]):
        return None
    return topi.matmul_panel_width(n)


@register_legalize("relax.matmul")
def _legalize_matmul(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    out_dtype = str(call.attrs["out_dtype"]) if call.attrs is not None else "void"
    out_dtype = None if out_dtype in ("", "void") else out_dtype
    width = _panel_width(bb, call, out_dtype)
    if width:
        # The weight packed in column panels by its own kernel, which
        # FoldConstant evaluates at build time: no panel copy per call.
        packed = bb.emit(bb.call_te(topi.matmul_pack_weight, call.args[1], width,
                                    primfunc_name_hint="matmul_weight_pack"))
        columns = int(call.args[1].struct_info.shape[1])
        return bb.call_te(topi.matmul_packed, call.args[0], packed, out_dtype=out_dtype, columns=columns,
                          primfunc_name_hint="matmul")
    return bb.call_te(topi.matmul, call.args[0], call.args[1], out_dtype=out_dtype, primfunc_name_hint="matmul")


__all__ = ["matmul", "linear"]
