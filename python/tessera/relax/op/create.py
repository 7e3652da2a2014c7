"""Tensor-creation Relax ops (registered in src/relax/op/create.cc, struct-info
inference there): ``relax.op.zeros`` / ``relax.op.ones``, legalized to a
constant ``te.compute`` over the result's shape, ``relax.op.full`` (a 0-d tensor's
value everywhere, legalized to a ``te.compute`` reading it), and ``relax.op.tril`` /
``triu``, legalized to topi.trilu; ``relax.op.arange``, legalized to start + i * step."""
from ...ir.expr import PrimExpr
from ...ir.op import Op
from ...error import TVMTypeError
from ..expr import Call, PrimValue
from ._legalize_registry import register_legalize
from ._op_attrs import check_expr, make_attrs
from .manipulate import _shape_arg


def _filled(op_name, shape, dtype):
    if dtype is None:
        raise TVMTypeError(f"{op_name}: attribute 'dtype' is required")
    return Call(Op.get(op_name), [_shape_arg(op_name, shape)], make_attrs(op_name, dtype=str(dtype)))


def zeros(shape, dtype):
    """A tensor of ``shape`` (a list of dims, a ShapeExpr or a shape var) and ``dtype`` filled with 0."""
    return _filled("relax.zeros", shape, dtype)


def ones(shape, dtype):
    """A tensor of ``shape`` (a list of dims, a ShapeExpr or a shape var) and ``dtype`` filled with 1."""
    return _filled("relax.ones", shape, dtype)


def full(shape, fill_value, dtype=None):
    """A tensor of ``shape`` holding ``fill_value`` (a 0-d tensor: ``relax.const(1.5)``)
    everywhere, cast to ``dtype`` (None: fill_value's dtype)."""
    check_expr("relax.full", "fill_value", fill_value)
    return Call(Op.get("relax.full"), [_shape_arg("relax.full", shape), fill_value],
                make_attrs("relax.full", dtype=None if dtype is None else str(dtype)))


@register_legalize("relax.full")
def _legalize_full(bb, call):
    from ... import te  # pylint: disable=import-outside-toplevel

    dtype = call.struct_info.dtype

    def fill(value, shape):
        return te.compute(shape, lambda *i: value[()].astype(dtype), name="T_full")

    return bb.call_te(fill, call.args[1], list(call.struct_info.shape.values), primfunc_name_hint="full")


def _legalize_filled(value, name):
    def legalize(bb, call):
        from ... import te, tir  # pylint: disable=import-outside-toplevel

        dtype = call.struct_info.dtype

        def fill(shape):
            return te.compute(shape, lambda *i: tir.const(value, dtype), name=f"T_{name}")

        return bb.call_te(fill, list(call.struct_info.shape.values), primfunc_name_hint=name)
    return legalize


register_legalize("relax.zeros")(_legalize_filled(0, "zeros"))
register_legalize("relax.ones")(_legalize_filled(1, "ones"))



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

def _scalar(v):
    if isinstance(v, PrimValue):
        return v
    if isinstance(v, (bool, int)):
        from ...tir import IntImm  # pylint: disable=import-outside-toplevel
        return PrimValue(IntImm("int64", int(v)))
    return PrimValue(v)


def arange(start, end=None, step=1, dtype=None):
    """The 1-d tensor start, start + step, ... below ``end`` (``arange(n)``: 0 .. n-1), as TVM's
    relax.op.arange; the length is known when the three are constants (inference in create.cc)."""
    if end is None:
        start, end = 0, start
    attrs = make_attrs("relax.arange", dtype=None if dtype is None else str(dtype))
    return Call(Op.get("relax.arange"), [_scalar(start), _scalar(end), _scalar(step)], attrs)


@register_legalize("relax.arange")
def _legalize_arange(bb, call):
    """start + i * step for i below the length the inference computed, in the result dtype
    (the bounds' arithmetic in float64, or int64 for integer bounds)."""
    from ... import te, tir  # pylint: disable=import-outside-toplevel

    dtype = call.struct_info.dtype
    start, _, step = (arg.value for arg in call.args)
    wide = "float64" if any(v.dtype.startswith("float") for v in (start, step)) else "int64"

    def compute(length):
        return te.compute((length,), lambda i: tir.Cast(dtype, tir.Cast(wide, start) + tir.Cast(wide, i) *
                                                        tir.Cast(wide, step)), name="T_arange")

    return bb.call_te(compute, call.struct_info.shape.values[0], primfunc_name_hint="arange")


__all__ = ["zeros", "ones", "full", "tril", "triu", "arange"]
