"""Helpers of the Relax nn operator constructors and legalizations
(relax/op/nn/*.py): operand checks, TVM's normalization of int/pair/padding
attributes; reading a call's attributes (``call_attrs``, with the signature
defaults) and constructor defaults (``signature_defaults``) come from
relax/op/_op_attrs.py."""
from ...expr import Call, Expr
from ....ir.op import Op
from ....error import TVMTypeError, TVMValueError
from .._op_attrs import call_attrs, plain, signature_defaults  # pylint: disable=unused-import


def make_call(op_name, args, attrs):
    """``Call(Op.get(op_name), args, attrs)`` after checking the operands are relax Exprs; the
    attribute values take the TVMScript parser's form (relax/op/_op_attrs.py make_attrs)."""
    from .._op_attrs import make_attrs  # pylint: disable=import-outside-toplevel
    for name, v in args:
        if not isinstance(v, Expr):
            raise TVMTypeError(f"{op_name}: operand {name!r} must be a relax Expr, got {type(v).__name__}")
    return Call(Op.get(op_name), [v for _, v in args], None if attrs is None else make_attrs(op_name, **attrs))


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def int_attr(op_name, name, v):
    if not _is_int(v):
        raise TVMTypeError(f"{op_name}: {name} must be an int, got {v!r}")
    return v


def int_list(op_name, name, v, lengths):
    """A list of ints of one of ``lengths`` (an int is one element)."""
    vals = [v] if _is_int(v) else v
    if not isinstance(vals, (list, tuple)) or not all(_is_int(x) for x in vals):
        raise TVMTypeError(f"{op_name}: {name} must be an int or a list of ints, got {v!r}")
    if len(vals) not in lengths:
        raise TVMValueError(f"{op_name}: {name} must have {' or '.join(map(str, lengths))} elements, got {len(vals)}")
    return list(vals)


def pair(op_name, name, v):
    """(h, w) from an int or 1/2 ints."""
    vals = int_list(op_name, name, v, (1, 2))
    return vals * 2 if len(vals) == 1 else vals


def padding4(op_name, v):
    """(top, left, bottom, right) from an int or 1, 2 or 4 ints, as TVM."""
    vals = int_list(op_name, "padding", v, (1, 2, 4))
    if len(vals) == 1:
        return vals * 4
    if len(vals) == 2:
        return vals * 2
    return vals


def float_attr(op_name, name, v):
    from ....tir.expr import FloatImm  # pylint: disable=import-outside-toplevel
    if isinstance(v, FloatImm):
        v = v.value
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TVMTypeError(f"{op_name}: {name} must be a float, got {v!r}")
    return float(v)


def bool_attr(op_name, name, v):
    if not isinstance(v, bool):
        raise TVMTypeError(f"{op_name}: {name} must be a bool, got {v!r}")
    return v


def str_attr(op_name, name, v):
    if not isinstance(v, str):
        raise TVMTypeError(f"{op_name}: {name} must be a string, got {v!r}")
    return v


def expand_pair(v):
    v = [v] if isinstance(v, int) else list(v)
    return v * 2 if len(v) == 1 else v


def expand_padding(v):
    v = [v] if isinstance(v, int) else list(v)
    return v * 4 if len(v) == 1 else (v * 2 if len(v) == 2 else v)
