"""Tensor-manipulation Relax ops (``relax.op.permute_dims``, ``reshape``,
``expand_dims``, ``squeeze``, ``concat``, ``split``, ``flatten``,
``broadcast_to``): constructors of calls of the ops registered in
src/relax/op/manipulate.cc (struct-info inference there) and their
legalization to TOPI, one place per op."""
from ...ir.expr import PrimExpr
from ...ir.op import Op
from ..expr import Call, Expr, ShapeExpr, Tuple
from ..struct_info import TupleStructInfo
from ._legalize_registry import register_legalize
from ._op_attrs import attr_int, attr_ints, check_axis_list, check_expr, make_attrs
from ...error import OpNotImplemented, TVMTypeError


def _shape_arg(op_name, shape):
    if isinstance(shape, Expr):
        return shape
    if isinstance(shape, (int, PrimExpr)):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise TVMTypeError(f"{op_name}: operand 'shape' must be a list of dims, a ShapeExpr or a shape var, got "
                           f"{type(shape).__name__}")
    return ShapeExpr(list(shape))


def _sinfo_shape(expr):
    sinfo = expr.struct_info_
    shape = getattr(sinfo, "shape", None) if sinfo is not None else None
    return list(shape.values) if isinstance(shape, ShapeExpr) else None


def permute_dims(x, axes=None):
    """x with its dimensions permuted by ``axes`` (reversed when None)."""
    check_expr("relax.permute_dims", "x", x)
    axes = check_axis_list("relax.permute_dims", "axes", axes)
    return Call(Op.get("relax.permute_dims"), [x], make_attrs("relax.permute_dims", axes=axes))


def reshape(x, shape):
    """x viewed with ``shape`` (a list of dims, one may be -1; a ShapeExpr; or a
    var of shape struct info). A -1 is resolved here when x's shape is known,
    as TVM does, else by the struct-info inference."""
    check_expr("relax.reshape", "x", x)
    if isinstance(shape, (list, tuple)):
        dims = [int(d) if isinstance(d, int) else d for d in shape]
        if sum(1 for d in dims if isinstance(d, int) and d == -1) == 1:
            src = _sinfo_shape(x)
            if src is not None:
                from ...tir.expr import IntImm  # pylint: disable=import-outside-toplevel
                total, known = 1, 1
                static = all(isinstance(d, IntImm) for d in src) and all(isinstance(d, int) for d in dims)
                if static:
                    for d in src:
                        total *= int(d.value)
                    for d in dims:
                        known *= d if d != -1 else 1
                    if known and total % known == 0:
                        dims[dims.index(-1)] = total // known
        shape = dims
    return Call(Op.get("relax.reshape"), [x, _shape_arg("relax.reshape", shape)])


def expand_dims(x, axis):
    """x with unit dimensions inserted at ``axis`` (an int or a list)."""
    check_expr("relax.expand_dims", "x", x)
    axis = check_axis_list("relax.expand_dims", "axis", axis, allow_none=False)
    return Call(Op.get("relax.expand_dims"), [x], make_attrs("relax.expand_dims", axis=axis))


def squeeze(x, axis=None):
    """x without its unit dimensions (all of them, or those of ``axis``)."""
    check_expr("relax.squeeze", "x", x)
    axis = check_axis_list("relax.squeeze", "axis", axis)
    return Call(Op.get("relax.squeeze"), [x], make_attrs("relax.squeeze", axis=axis))


def concat(tensors, axis=0):
    """The tensors (a list, a Tuple or a tuple-valued Expr) joined along
    ``axis`` (None: the tensors are flattened first; only 1-D ones are taken)."""
    if isinstance(tensors, (list, tuple)):
        for i, t in enumerate(tensors):
            check_expr("relax.concat", f"tensors[{i}]", t)
        tensors = Tuple(list(tensors))
    check_expr("relax.concat", "tensors", tensors)
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, int)):
        raise TVMTypeError(f"relax.concat: attribute 'axis' must be an int or None, got {type(axis).__name__}")
    return Call(Op.get("relax.concat"), [tensors], make_attrs("relax.concat", axis=axis))


def split(x, indices_or_sections, axis=0):
    """A tuple of parts of x along ``axis``: ``indices_or_sections`` equal
    sections (an int) or the split points (a list of ints)."""
    check_expr("relax.split", "x", x)
    if isinstance(indices_or_sections, bool) or not isinstance(indices_or_sections, (int, list, tuple)):
        raise TVMTypeError("relax.split: attribute 'indices_or_sections' must be an int or a list of ints, got "
                           f"{type(indices_or_sections).__name__}")
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TVMTypeError(f"relax.split: attribute 'axis' must be an int, got {type(axis).__name__}")
    ios = list(indices_or_sections) if isinstance(indices_or_sections, (list, tuple)) else indices_or_sections
    return Call(Op.get("relax.split"), [x], make_attrs("relax.split", indices_or_sections=ios, axis=axis))


def flatten(x):
    """x as a 1-D tensor."""
    return Call(Op.get("relax.flatten"), [check_expr("relax.flatten", "x", x)])


def broadcast_to(x, shape):
    """x broadcast (NumPy rules) to ``shape``."""
    check_expr("relax.broadcast_to", "x", x)
    return Call(Op.get("relax.broadcast_to"), [x, _shape_arg("relax.broadcast_to", shape)])


# ---- legalization ----
def _out_shape(call):
    return list(call.struct_info.shape.values)


@register_legalize("relax.permute_dims")
def _legalize_permute_dims(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    return bb.call_te(topi.transpose, call.args[0], attr_ints(call.attrs["axes"]) if call.attrs else None,
                      primfunc_name_hint="transpose")


def _legalize_as_reshape(name_hint):
    """The legalizer of an op that only reshapes its input into the call's inferred shape."""
    def legalize(bb, call):
        from ... import topi  # pylint: disable=import-outside-toplevel
        return bb.call_te(topi.reshape, call.args[0], _out_shape(call), primfunc_name_hint=name_hint)
    return legalize


register_legalize("relax.reshape")(_legalize_as_reshape("reshape"))
register_legalize("relax.flatten")(_legalize_as_reshape("reshape"))
register_legalize("relax.expand_dims")(_legalize_as_reshape("expand_dims"))


@register_legalize("relax.squeeze")
def _legalize_squeeze(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    return bb.call_te(topi.squeeze, call.args[0], attr_ints(call.attrs["axis"]) if call.attrs else None,
                      primfunc_name_hint="squeeze")


@register_legalize("relax.concat")
def _legalize_concat(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    tensors = call.args[0]
    if not isinstance(tensors, Tuple):
        # LegalizeOps rewrites one binding at a time and cannot bind the tuple's items first.
        raise OpNotImplemented("relax.concat of a tuple-valued variable is not legalized; pass the tensors "
                                  "as a tuple expression, R.concat((x, y))")
    fields = list(tensors.fields)
    axis = call.attrs["axis"] if call.attrs else 0
    return bb.call_te(topi.concatenate, fields, 0 if axis is None else attr_int(axis),
                      primfunc_name_hint="concatenate")


@register_legalize("relax.split")
def _legalize_split(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    ios = call.attrs["indices_or_sections"]
    ios = attr_ints(ios) if isinstance(ios, (list, tuple)) else attr_int(ios)
    axis = attr_int(call.attrs["axis"])
    if isinstance(ios, int):
        # Sections of ceil(n / sections) elements, the last one shorter (as the inferred struct info).
        sinfo = call.args[0].struct_info
        dims = sinfo.shape.values if sinfo.shape is not None and hasattr(sinfo.shape, "values") else None
        n = dims[axis] if dims is not None else None
        if n is not None and hasattr(n, "value") and int(n.value) % ios:
            part = -(-int(n.value) // ios)
            ios = [part * k for k in range(1, ios)]
    parts = bb.call_te(topi.split, call.args[0], ios, axis, primfunc_name_hint="split")
    # One part (split(x, 1), split(x, [])): call_tir of one output is a tensor; split's result is a tuple of one.
    return parts if isinstance(parts.sinfo_args[0], TupleStructInfo) else Tuple([parts])


@register_legalize("relax.broadcast_to")
def _legalize_broadcast_to(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    return bb.call_te(topi.broadcast_to, call.args[0], _out_shape(call), primfunc_name_hint="broadcast_to")


__all__ = ["permute_dims", "reshape", "expand_dims", "squeeze", "concat", "split", "flatten", "broadcast_to"]
