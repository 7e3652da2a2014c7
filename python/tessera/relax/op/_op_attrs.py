"""Attributes of Relax operator calls from Python: ``make_attrs`` builds a
call's attrs map with values in the form the TVMScript parser gives them
(ints as int32 IntImm, bools as bool IntImm, lists as lists), so a call made
by ``relax.op.<name>`` and the same call parsed from TVMScript are
structurally equal; ``attr_ints``/``attr_int`` read them back in
legalizations. Op attribute signatures live with the C++ registrations
(src/relax/op/op_attrs.cc)."""
from ...ir.expr import PrimExpr
from ...error import TVMTypeError


def _value(v, what):
    from ...tir.expr import FloatImm, IntImm  # pylint: disable=import-outside-toplevel
    if isinstance(v, IntImm) and v.dtype.startswith("int"):
        # A constant such as a static dim of a struct info (int64): the same
        # value as a Python int, so the same attribute.
        return _value(int(v.value), what)
    if v is None or isinstance(v, (str, PrimExpr)):
        return v
    if isinstance(v, bool):
        return IntImm("bool", int(v))
    if isinstance(v, int):
        return IntImm("int32" if -2**31 <= v < 2**31 else "int64", v)
    if isinstance(v, float):
        return FloatImm("float32", v)
    if isinstance(v, (list, tuple)):
        return [_value(x, what) for x in v]
    if hasattr(v, "__index__"):
        return _value(int(v), what)
    return v


def make_attrs(op_name, **fields):
    """The attrs map of a call of ``op_name`` (every field, as TVM's Attrs)."""
    return {k: _value(v, f"{op_name}: attribute {k!r}") for k, v in fields.items()}


def attr_int(v):
    """An int attribute value (IntImm or int) as int; None stays None."""
    return None if v is None else int(v.value if hasattr(v, "value") else v)


def attr_ints(v):
    """A list-of-ints attribute (an int alone is a list of one); None stays None."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [attr_int(x) for x in v]
    return [attr_int(v)]


def check_expr(op_name, operand, v):
    """TypeError naming the op and operand unless ``v`` is a relax Expr."""
    from ..expr import Expr  # pylint: disable=import-outside-toplevel
    if not isinstance(v, Expr):
        raise TVMTypeError(f"{op_name}: operand {operand!r} must be a relax Expr, got {type(v).__name__}")
    return v


def check_axis_list(op_name, name, v, allow_none=True):
    """An axis attribute given as None, an int or a list of ints, as a list (or None)."""
    if v is None:
        if allow_none:
            return None
        raise TVMTypeError(f"{op_name}: attribute {name!r} is required")
    if isinstance(v, bool) or not isinstance(v, (int, list, tuple, PrimExpr)) and not hasattr(v, "__index__"):
        raise TVMTypeError(f"{op_name}: attribute {name!r} must be an int or a list of ints, got {type(v).__name__}")
    if isinstance(v, (list, tuple)):
        for x in v:
            if isinstance(x, bool) or not (isinstance(x, (int, PrimExpr)) or hasattr(x, "__index__")):
                raise TVMTypeError(f"{op_name}: attribute {name!r} must be a list of ints, got an element "
                                   f"{type(x).__name__}")
        return list(v)
    return [v]
