"""Relax expressions, bindings and blocks (``tvm.relax.Var``, ``Call``,
``Function``, ...). Nodes are built in C++ (src/relax/expr.cc); construct
programs through :class:`tvm.relax.BlockBuilder`, whose normalizer fills
struct info and binds nested calls to variables."""
import numpy as _np

from .._ffi.registry import register_object
from ..ir.base import Node
from ..ir.expr import RelaxExpr, GlobalVar, PrimExpr
from ..ir.function import BaseFunc
from ..ir.op import Op
from .struct_info import StructInfo, as_struct_info
from . import _ffi_api
from ..error import TVMIndexError, TVMTypeError, TVMValueError

Expr = RelaxExpr


def _expr_struct_info(self):
    """The struct info of this expression; ValueError when it has none (not normalized)."""
    sinfo = _ffi_api.ExprStructInfo(self)
    if sinfo is None:
        raise TVMValueError(f"{type(self).__name__} has no struct info yet: build it through a BlockBuilder "
                            "(or normalize it)")
    return sinfo


# Every Relax expression (GlobalVar and Op included) answers .struct_info.
RelaxExpr.struct_info = property(_expr_struct_info)


def _binary(op_name, reflected=False):
    def apply(self, other):
        from . import op  # pylint: disable=import-outside-toplevel
        if not isinstance(other, RelaxExpr):
            return NotImplemented
        return getattr(op, op_name)(other, self) if reflected else getattr(op, op_name)(self, other)
    return apply


class ExprWithOp(RelaxExpr):
    """Relax expressions usable as tuples (``x[0]``) and with arithmetic
    operators (``x * c + y``: relax.op.multiply/add calls, as in TVM)."""

    __add__, __radd__ = _binary("add"), _binary("add", True)
    __sub__, __rsub__ = _binary("subtract"), _binary("subtract", True)
    __mul__, __rmul__ = _binary("multiply"), _binary("multiply", True)
    __truediv__, __rtruediv__ = _binary("divide"), _binary("divide", True)

    def __getitem__(self, index):
        if not isinstance(index, int):
            raise TVMTypeError(f"relax tuple index must be an int, got {type(index).__name__}")
        return TupleGetItem(self, index)

    def __call__(self, *args, attrs=None):
        return Call(self, list(args), attrs)


def _check_sinfo(sinfo, what):
    sinfo = as_struct_info(sinfo)
    if sinfo is not None and not isinstance(sinfo, StructInfo):
        raise TVMTypeError(f"{what}: struct_info must be a relax StructInfo, got {type(sinfo).__name__}")
    return sinfo


def _check_expr(value, what):
    if not isinstance(value, RelaxExpr):
        raise TVMTypeError(f"{what} must be a relax Expr, got {type(value).__name__}")
    return value


@register_object("relax.expr.ShapeExpr")
class ShapeExpr(ExprWithOp):
    """A shape value: ``ShapeExpr([1, n])``."""

    def __init__(self, values, span=None):  # pylint: disable=unused-argument
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
            raise TVMTypeError(f"ShapeExpr: values must be a list of dims, got {type(values).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.ShapeExpr, list(values))

    def __len__(self):
        return len(self.values)

    def __getitem__(self, index):
        return self.values[index]


@register_object("relax.expr.Var")
class Var(ExprWithOp):
    """A variable: ``Var("x", R.Tensor((1, 784), "float32"))``."""

    def __init__(self, name_hint, struct_info=None, span=None):  # pylint: disable=unused-argument
        if not isinstance(name_hint, str):
            raise TVMTypeError(f"Var: name_hint must be a str, got {type(name_hint).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.Var, name_hint, _check_sinfo(struct_info, "Var"))

    @property
    def vid(self):
        """The identity of this var, the key of PyExprMutator.set_var_remap (TVM: an Id; Tessera: the var itself)."""
        return self

    def __repr__(self):
        return self.name_hint


@register_object("relax.expr.DataflowVar")
class DataflowVar(Var):
    """A variable local to a dataflow block."""

    def __init__(self, name_hint, struct_info=None, span=None):  # pylint: disable=unused-argument,super-init-not-called
        if not isinstance(name_hint, str):
            raise TVMTypeError(f"DataflowVar: name_hint must be a str, got {type(name_hint).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.DataflowVar, name_hint, _check_sinfo(struct_info, "DataflowVar"))


@register_object("relax.expr.Constant")
class Constant(ExprWithOp):
    """A constant tensor holding an NDArray."""

    def __init__(self, data, struct_info=None, span=None):  # pylint: disable=unused-argument
        from ..runtime.ndarray import NDArray  # pylint: disable=import-outside-toplevel
        if not isinstance(data, NDArray):
            raise TVMTypeError(f"Constant: data must be a tvm.nd.NDArray, got {type(data).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.Constant, data, _check_sinfo(struct_info, "Constant"))


@register_object("relax.expr.Tuple")
class Tuple(ExprWithOp):
    """A tuple of expressions."""

    def __init__(self, fields, span=None):  # pylint: disable=unused-argument
        if isinstance(fields, RelaxExpr) or not hasattr(fields, "__iter__"):
            raise TVMTypeError(f"Tuple: fields must be a list of relax Exprs, got {type(fields).__name__}")
        fields = list(fields)
        for i, f in enumerate(fields):
            _check_expr(f, f"Tuple field {i}")
        self.__init_handle_by_constructor__(_ffi_api.Tuple, fields)

    def __getitem__(self, index):
        if index >= len(self) or index < -len(self):
            raise TVMIndexError("Tuple index out of range")
        return self.fields[index]

    def __len__(self):
        return len(self.fields)


@register_object("relax.expr.TupleGetItem")
class TupleGetItem(ExprWithOp):
    """``tuple_value[index]``."""

    def __init__(self, tuple_value, index, span=None):  # pylint: disable=unused-argument
        _check_expr(tuple_value, "TupleGetItem: tuple_value")
        if not isinstance(index, int) or isinstance(index, bool):
            raise TVMTypeError(f"TupleGetItem: index must be an int, got {type(index).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.TupleGetItem, tuple_value, index)

    @property
    def tuple_value(self):
        """The tuple indexed (TVM's name for the field ``tuple``)."""
        return self.tuple


@register_object("relax.expr.Call")
class Call(ExprWithOp):
    """A call of an Op or function: ``Call(op, args, attrs=None, sinfo_args=None)``."""

    def __init__(self, op, args, attrs=None, sinfo_args=None, span=None):  # pylint: disable=unused-argument
        _check_expr(op, "Call: op")
        if isinstance(args, RelaxExpr) or not hasattr(args, "__iter__"):
            raise TVMTypeError(f"Call: args must be a list of relax Exprs, got {type(args).__name__}")
        args = list(args)
        for i, a in enumerate(args):
            _check_expr(a, f"Call argument {i}")
        if sinfo_args is not None:
            sinfo_args = [as_struct_info(s) for s in sinfo_args]
            for i, s in enumerate(sinfo_args):
                if not isinstance(s, StructInfo):
                    raise TVMTypeError(f"Call: sinfo_args[{i}] must be a StructInfo, got {type(s).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.Call, op, args, attrs, sinfo_args)


@register_object("relax.expr.PrimValue")
class PrimValue(ExprWithOp):
    """A scalar value: ``PrimValue(n)``, ``PrimValue(1)`` (int64)."""

    def __init__(self, value, span=None):  # pylint: disable=unused-argument
        if isinstance(value, bool):
            from ..tir.expr import IntImm  # pylint: disable=import-outside-toplevel
            value = IntImm("bool", int(value))
        elif isinstance(value, int):
            from ..tir.expr import IntImm  # pylint: disable=import-outside-toplevel
            value = IntImm("int64", value)
        elif isinstance(value, float):
            from ..tir.expr import FloatImm  # pylint: disable=import-outside-toplevel
            value = FloatImm("float64", value)
        elif not isinstance(value, PrimExpr):
            raise TVMTypeError(f"PrimValue: value must be an int, float or PrimExpr, got {type(value).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.PrimValue, value)


@register_object("relax.expr.StringImm")
class StringImm(ExprWithOp):
    """A string value."""

    def __init__(self, value, span=None):  # pylint: disable=unused-argument
        if not isinstance(value, str):
            raise TVMTypeError(f"StringImm: value must be a str, got {type(value).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.StringImm, value)


@register_object("relax.expr.DataTypeImm")
class DataTypeImm(ExprWithOp):
    """A dtype value."""

    def __init__(self, value, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.DataTypeImm, str(value))


@register_object("relax.expr.ExternFunc")
class ExternFunc(BaseFunc):
    """A function known by its global symbol (a registered PackedFunc)."""

    def __init__(self, global_symbol, struct_info=None, span=None):  # pylint: disable=unused-argument
        if not isinstance(global_symbol, str):
            raise TVMTypeError(f"ExternFunc: global_symbol must be a str, got {type(global_symbol).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.ExternFunc, global_symbol,
                                            _check_sinfo(struct_info, "ExternFunc"))

    def __call__(self, *args):
        return Call(self, list(args))


def extern(name, struct_info=None, span=None):
    """An ExternFunc named ``name``."""
    return ExternFunc(name, struct_info, span)


@register_object("relax.expr.Binding")
class Binding(Node):
    """Base of VarBinding and MatchCast."""


@register_object("relax.expr.VarBinding")
class VarBinding(Binding):
    """``var = value``."""

    def __init__(self, var, value, span=None):  # pylint: disable=unused-argument
        if not isinstance(var, Var):
            raise TVMTypeError(f"VarBinding: var must be a relax Var, got {type(var).__name__}")
        _check_expr(value, "VarBinding: value")
        self.__init_handle_by_constructor__(_ffi_api.VarBinding, var, value)


@register_object("relax.expr.MatchCast")
class MatchCast(Binding):
    """``var = R.match_cast(value, struct_info)``."""

    def __init__(self, var, value, struct_info, span=None):  # pylint: disable=unused-argument
        if not isinstance(var, Var):
            raise TVMTypeError(f"MatchCast: var must be a relax Var, got {type(var).__name__}")
        _check_expr(value, "MatchCast: value")
        struct_info = as_struct_info(struct_info)
        if not isinstance(struct_info, StructInfo):
            raise TVMTypeError(f"MatchCast: struct_info must be a StructInfo, got {type(struct_info).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.MatchCast, var, value, struct_info)


def _check_bindings(bindings, what):
    if not hasattr(bindings, "__iter__"):
        raise TVMTypeError(f"{what}: bindings must be a list of bindings, got {type(bindings).__name__}")
    bindings = list(bindings)
    for i, b in enumerate(bindings):
        if not isinstance(b, Binding):
            raise TVMTypeError(f"{what}: binding {i} must be a VarBinding or MatchCast, got {type(b).__name__}")
    return bindings


@register_object("relax.expr.BindingBlock")
class BindingBlock(Node):
    """A sequence of bindings."""

    def __init__(self, bindings, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.BindingBlock, _check_bindings(bindings, "BindingBlock"))


@register_object("relax.expr.DataflowBlock")
class DataflowBlock(BindingBlock):
    """A block of pure bindings whose DataflowVars are local to it."""

    def __init__(self, bindings, span=None):  # pylint: disable=unused-argument,super-init-not-called
        self.__init_handle_by_constructor__(_ffi_api.DataflowBlock, _check_bindings(bindings, "DataflowBlock"))


@register_object("relax.expr.SeqExpr")
class SeqExpr(ExprWithOp):
    """Blocks followed by a result: ``SeqExpr(blocks, body)``."""

    def __init__(self, blocks, body, span=None):  # pylint: disable=unused-argument
        if not hasattr(blocks, "__iter__"):
            raise TVMTypeError(f"SeqExpr: blocks must be a list of blocks, got {type(blocks).__name__}")
        blocks = list(blocks)
        for i, b in enumerate(blocks):
            if not isinstance(b, BindingBlock):
                raise TVMTypeError(f"SeqExpr: block {i} must be a BindingBlock, got {type(b).__name__}")
        _check_expr(body, "SeqExpr: body")
        self.__init_handle_by_constructor__(_ffi_api.SeqExpr, blocks, body)


@register_object("relax.expr.If")
class If(ExprWithOp):
    """``true_branch if cond else false_branch``; only the taken branch runs."""

    def __init__(self, cond, true_branch, false_branch, span=None):  # pylint: disable=unused-argument
        _check_expr(cond, "If: cond")
        _check_expr(true_branch, "If: true_branch")
        _check_expr(false_branch, "If: false_branch")
        self.__init_handle_by_constructor__(_ffi_api.If, cond, true_branch, false_branch)


@register_object("relax.expr.Function")
class Function(BaseFunc):
    """A Relax function: ``Function(params, body, ret_struct_info=None, is_pure=True, attrs=None)``."""

    def __init__(self, params, body, ret_struct_info=None, is_pure=True, attrs=None,
                 span=None):  # pylint: disable=unused-argument
        if isinstance(params, Var):
            params = [params]
        if not hasattr(params, "__iter__"):
            raise TVMTypeError(f"Function: params must be a list of relax Vars, got {type(params).__name__}")
        params = list(params)
        for i, p in enumerate(params):
            if not isinstance(p, Var):
                raise TVMTypeError(f"Function: parameter {i} must be a relax Var, got {type(p).__name__}")
        _check_expr(body, "Function: body")
        _check_sinfo(ret_struct_info, "Function ret")
        if attrs is not None and not isinstance(attrs, dict):
            attrs = dict(attrs.items()) if hasattr(attrs, "items") else attrs
        self.__init_handle_by_constructor__(_ffi_api.Function, params, body, ret_struct_info, bool(is_pure), attrs)

    def __call__(self, *args):
        return Call(self, list(args))


def const(value, dtype=None):
    """A Constant of ``value`` (NumPy array or scalar, Python number/bool/list,
    or NDArray). Without ``dtype``, int64 data becomes int32 and float64
    becomes float32, as in TVM."""
    from ..runtime.ndarray import NDArray, array  # pylint: disable=import-outside-toplevel
    if isinstance(value, NDArray):
        if dtype is not None and str(value.dtype) != str(dtype):
            value = array(value.numpy().astype(dtype))
        return Constant(value)
    if isinstance(value, (bool, int, float, list, tuple)):
        value = _np.array(value, dtype=dtype)
    if not isinstance(value, (_np.ndarray, _np.generic)):
        raise TVMTypeError(f"const: cannot make a constant of {type(value).__name__}")
    if value.dtype == object:
        raise TVMTypeError("const: the value is not a rectangular array of numbers")
    if not dtype:
        dtype = {_np.dtype("int64"): _np.int32, _np.dtype("float64"): _np.float32}.get(value.dtype, None)
    if dtype is not None:
        value = value.astype(dtype)
    return Constant(array(_np.asarray(value)))


__all__ = ["Expr", "ExprWithOp", "Var", "DataflowVar", "Constant", "Tuple", "TupleGetItem", "Call", "ShapeExpr",
           "PrimValue", "StringImm", "DataTypeImm", "ExternFunc", "extern", "Binding", "VarBinding", "MatchCast",
           "BindingBlock", "DataflowBlock", "SeqExpr", "If", "Function", "const", "GlobalVar", "Op"]


def get_shape_of(expr):
    """The shape of tensor ``expr``: its struct info's shape when known, else ``R.shape_of(expr)``."""
    from .struct_info import TensorStructInfo  # pylint: disable=import-outside-toplevel
    from .op.base import shape_of  # pylint: disable=import-outside-toplevel
    sinfo = expr.struct_info_ if isinstance(expr, Expr) else None
    if not isinstance(sinfo, TensorStructInfo):
        raise TVMTypeError(f"get_shape_of: expected a tensor expression with struct info, got "
                           f"{type(expr).__name__} of {sinfo!r}")
    return sinfo.shape if sinfo.shape is not None else shape_of(expr)
