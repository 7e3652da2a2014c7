"""Attributes of Relax operator calls from Python: ``make_attrs`` builds a
call's attrs map through the one C++ constructor (``relax.op.MakeAttrs``,
src/relax/op/op_attrs.cc: signature defaults filled in, values in the form the
TVMScript parser gives them: ints as int32 IntImm, bools as bool IntImm), so a
call made by ``relax.op.<name>`` and the same call parsed from TVMScript are
structurally equal; ``signature_defaults`` gives a constructor's attribute
parameters the defaults of that signature, ``call_attrs`` reads a call's
attributes with them (legalizations); ``attr_ints``/``attr_int`` read values
back. Op attribute signatures live with the C++ registrations only."""
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
    """The attrs map of a call of ``op_name`` (every attribute of its signature, as
    TVM's Attrs: ``fields`` else the signature's defaults), made by the C++ constructor."""
    from ..._ffi.registry import get_global_func  # pylint: disable=import-outside-toplevel
    given = {k: _value(v, f"{op_name}: attribute {k!r}") for k, v in fields.items()}
    return get_global_func("relax.op.MakeAttrs")(op_name, given)


def plain(v):
    """An attribute value as Python: IntImm -> int (bool for T.bool), FloatImm -> float, lists recursively."""
    from ...tir.expr import IntImm, FloatImm  # pylint: disable=import-outside-toplevel
    if isinstance(v, IntImm):
        return bool(v.value) if str(v.dtype) == "bool" else int(v.value)
    if isinstance(v, FloatImm):
        return float(v.value)
    if isinstance(v, (list, tuple)) or type(v).__name__ == "Array":
        return [plain(x) for x in v]
    if type(v).__name__ == "String":
        return str(v)
    return v


_REQUIRED = object()


def attr_signature(op_name):
    """The op's attribute signature from C++ as [(name, plain default or _REQUIRED)]; [] without one."""
    from ...ir.op import Op  # pylint: disable=import-outside-toplevel
    sig = Op.get(op_name).get_attr("TScriptAttrSignature")
    return [(str(item[0]), plain(item[1]) if len(item) > 1 else _REQUIRED) for item in (sig or [])]


def signature_defaults(op_name):
    """Decorator: the constructor's attribute parameters (named as the op's
    attributes) get the defaults of the op's C++ signature, the one place they
    are written; ``help()`` shows them."""
    import inspect  # pylint: disable=import-outside-toplevel

    def decorate(func):
        defaults = dict(attr_signature(op_name))
        params = list(inspect.signature(func).parameters.values())
        trailing = []
        for p in reversed(params):
            if defaults.get(p.name, _REQUIRED) is _REQUIRED:
                break
            trailing.append(defaults[p.name])
        func.__defaults__ = tuple(reversed(trailing)) or None
        return func

    return decorate


def call_attrs(call):
    """The call's attributes as plain Python values, with its op's signature
    defaults for the missing ones and those given as None."""
    out = {k: v for k, v in attr_signature(call.op.name) if v is not _REQUIRED}
    attrs = call.attrs
    items = [] if attrs is None else (attrs.items() if hasattr(attrs, "items")
                                      else [(k, attrs[k]) for k in attrs.keys()])
    for k, v in items:
        if v is not None:
            out[str(k)] = plain(v)
    return out


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
