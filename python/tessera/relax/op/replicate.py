"""Relax ops that replicate or reverse elements (``relax.op.tile``,
``repeat``, ``flip``) with TVM v0.18's signatures: constructors of calls of
the ops registered in src/relax/op/replicate.cc (struct-info inference there)
and their legalization to TE, one place per op."""
from ...ir.op import Op
from ..expr import Call
from ._legalize_registry import register_legalize
from ._op_attrs import call_attrs, check_expr, make_attrs
from ...error import TVMTypeError


def _int(op_name, name, v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TVMTypeError(f"{op_name}: attribute '{name}' must be an int, got {v!r}")
    return v


def tile(data, repeats):
    """``data`` repeated ``repeats`` times per dimension (an int or a tuple aligned to the trailing dims)."""
    check_expr("relax.tile", "data", data)
    reps = [repeats] if isinstance(repeats, int) and not isinstance(repeats, bool) else repeats
    if not isinstance(reps, (list, tuple)):
        raise TVMTypeError(f"relax.tile: attribute 'repeats' must be an int or a tuple of ints, got {repeats!r}")
    reps = [_int("relax.tile", "repeats", r) for r in reps]
    return Call(Op.get("relax.tile"), [data], make_attrs("relax.tile", repeats=reps))


def repeat(data, repeats, axis=None):
    """Each element of ``data`` repeated ``repeats`` times along ``axis`` (None: the flattened data)."""
    check_expr("relax.repeat", "data", data)
    attrs = {"repeats": _int("relax.repeat", "repeats", repeats),
             "axis": None if axis is None else _int("relax.repeat", "axis", axis)}
    return Call(Op.get("relax.repeat"), [data], make_attrs("relax.repeat", **attrs))


def flip(data, axis):
    """``data`` reversed along ``axis``."""
    check_expr("relax.flip", "data", data)
    return Call(Op.get("relax.flip"), [data], make_attrs("relax.flip", axis=_int("relax.flip", "axis", axis)))


def _te():
    from ... import te, tir  # pylint: disable=import-outside-toplevel
    return te, tir


def _out_shape(call):
    return list(call.struct_info.shape.values)


@register_legalize("relax.tile")
def _legalize_tile(bb, call):
    te, _ = _te()
    out_shape = _out_shape(call)

    def compute(x):
        lead = len(out_shape) - len(x.shape)
        return te.compute(out_shape, lambda *i: x(*[i[lead + k] % x.shape[k] for k in range(len(x.shape))]),
                          name="T_tile")

    return bb.call_te(compute, call.args[0], primfunc_name_hint="tile")


@register_legalize("relax.repeat")
def _legalize_repeat(bb, call):
    te, tir = _te()
    attrs = call_attrs(call)
    repeats, axis = int(attrs["repeats"]), attrs["axis"]
    out_shape = _out_shape(call)

    def compute(x):
        ndim = len(x.shape)
        if axis is None:
            def at(j):
                flat = tir.floordiv(j, repeats)
                idx = []
                for k in reversed(range(ndim)):
                    idx.append(tir.floormod(flat, x.shape[k]))
                    flat = tir.floordiv(flat, x.shape[k])
                return x(*reversed(idx))
            return te.compute(out_shape, at, name="T_repeat")
        a = axis + ndim if axis < 0 else axis
        return te.compute(out_shape, lambda *i: x(*[tir.floordiv(i[k], repeats) if k == a else i[k]
                                                    for k in range(ndim)]), name="T_repeat")

    return bb.call_te(compute, call.args[0], primfunc_name_hint="repeat")


@register_legalize("relax.flip")
def _legalize_flip(bb, call):
    te, _ = _te()
    axis = int(call_attrs(call)["axis"])

    def compute(x):
        ndim = len(x.shape)
        a = axis + ndim if axis < 0 else axis
        return te.compute(x.shape, lambda *i: x(*[x.shape[k] - 1 - i[k] if k == a else i[k] for k in range(ndim)]),
                          name="T_reverse_sequence")

    return bb.call_te(compute, call.args[0], primfunc_name_hint="flip")


__all__ = ["tile", "repeat", "flip"]
