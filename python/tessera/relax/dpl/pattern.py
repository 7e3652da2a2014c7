"""Dataflow patterns (``tvm.relax.dpl``, TVM v0.18's names): the pattern node
classes (built in C++, src/relax/dpl/pattern.h), the builder functions
(``is_op``, ``wildcard``, ...), the operators ``|`` ``&`` ``~`` and the graph
constraints ``used_by`` (``^``) and ``only_used_by`` (``>>``), which a
:class:`PatternContext` (context.py) collects."""
from typing import Dict, List, Optional

from ..._ffi.registry import register_object
from ...error import TVMError, TVMTypeError, TVMValueError, TVMIndexError
from ...ir.base import Node
from ...ir.op import Op
from ..expr import Expr, Var
from . import _ffi


def _pattern(value, what):
    """``value`` as a pattern; a relax Expr becomes an ExprPattern; TypeError names ``what`` otherwise."""
    if isinstance(value, DFPattern):
        return value
    if isinstance(value, Expr):
        return ExprPattern(value)
    raise TVMTypeError(f"{what} must be a DFPattern (or a relax Expr), got {type(value).__name__}")


@register_object("relax.dpl.DFPattern")
class DFPattern(Node):
    """Base of every pattern."""

    def __call__(self, *args, varg_default_wildcard=False, add_constraint=True) -> "CallPattern":
        return CallPattern(self, args, varg_default_wildcard, add_constraint)

    def __or__(self, other) -> "OrPattern":
        return OrPattern(self, other)

    def __and__(self, other) -> "AndPattern":
        return AndPattern(self, other)

    def __invert__(self) -> "NotPattern":
        return NotPattern(self)

    def has_attr(self, attrs: Dict) -> "AttrPattern":
        return AttrPattern(self, attrs)

    def has_struct_info(self, struct_info) -> "StructInfoPattern":
        return StructInfoPattern(self, struct_info)

    def has_type(self, ty) -> "TypePattern":
        return TypePattern(self, ty)

    def has_dtype(self, dtype: str) -> "DataTypePattern":
        return DataTypePattern(self, dtype)

    def has_shape(self, shape) -> "ShapePattern":
        return ShapePattern(self, shape)

    def match(self, expr, var2val: Optional[Dict[Var, Expr]] = None) -> bool:
        """Whether ``expr`` matches; with ``var2val`` (``relax.analysis.get_var2val``) vars are seen through."""
        return bool(_ffi.match_expr(self, _expr(expr, "match: expr"), _var2val(var2val)))

    def extract_matched_expr(self, expr, var2val: Optional[Dict[Var, Expr]] = None) -> Optional[Dict["DFPattern", Expr]]:
        """Each sub-pattern -> the expression it matched, or None when ``expr`` does not match."""
        return _ffi.extract_matched_expr(self, _expr(expr, "extract_matched_expr: expr"), _var2val(var2val))

    def used_by(self, other, index=-1) -> "PatternSeq":
        return PatternSeq([self]).used_by(other, index)

    def __xor__(self, other) -> "PatternSeq":
        return self.used_by(other)

    def only_used_by(self, other, index=-1) -> "PatternSeq":
        return PatternSeq([self]).only_used_by(other, index)

    def __rshift__(self, other) -> "PatternSeq":
        return self.only_used_by(other)

    def dup(self) -> "DFPattern":
        """A copy of this pattern node (a different node for graph matching)."""
        return _ffi.dup(self)

    def same_shape_as(self, *args) -> None:
        """Under a PatternContext: the vars this pattern and ``args`` match have provably equal shapes."""
        from .context import PatternContext  # pylint: disable=import-outside-toplevel
        ctx = PatternContext.current()
        if ctx is None:
            raise TVMValueError("same_shape_as is a graph constraint: use it inside `with PatternContext():`")
        ctx.add_same_shape([self] + [_pattern(a, f"same_shape_as: args[{i}]") for i, a in enumerate(args)])

    def fork_to(self, *args) -> None:
        for arg in args:
            self.used_by(arg)

    def __repr__(self):
        return _ffi.PatternText(self)


def _expr(value, what):
    if not isinstance(value, Expr):
        raise TVMTypeError(f"{what} must be a relax Expr, got {type(value).__name__}")
    return value


def _var2val(var2val):
    if var2val is None:
        return None
    if not isinstance(var2val, dict):
        var2val = dict(var2val.items()) if hasattr(var2val, "items") else var2val
    if not isinstance(var2val, dict):
        raise TVMTypeError(f"var2val must be a dict of relax Var -> Expr, got {type(var2val).__name__}")
    for k, v in var2val.items():
        if not isinstance(k, Var) or not isinstance(v, Expr):
            raise TVMTypeError(f"var2val must map relax Vars to relax Exprs, got {type(k).__name__} -> "
                            f"{type(v).__name__}")
    return var2val


@register_object("relax.dpl.ExprPattern")
class ExprPattern(DFPattern):
    """Matches an expression structurally equal to ``expr``."""

    def __init__(self, expr):
        self.__init_handle_by_constructor__(_ffi.ExprPattern, _expr(expr, "ExprPattern: expr"))


def _name(name, what):
    if not isinstance(name, str):
        raise TVMTypeError(f"{what}: name must be a str, got {type(name).__name__}")
    return name


@register_object("relax.dpl.VarPattern")
class VarPattern(DFPattern):
    """Matches a Var (a DataflowVar too) named ``name_hint`` ("" any)."""

    def __init__(self, name_hint: str = ""):
        self.__init_handle_by_constructor__(_ffi.VarPattern, _name(name_hint, "VarPattern"))


@register_object("relax.dpl.DataflowVarPattern")
class DataflowVarPattern(VarPattern):
    """Matches a DataflowVar named ``name_hint`` ("" any)."""

    def __init__(self, name_hint: str = ""):  # pylint: disable=super-init-not-called
        self.__init_handle_by_constructor__(_ffi.DataflowVarPattern, _name(name_hint, "DataflowVarPattern"))


@register_object("relax.dpl.GlobalVarPattern")
class GlobalVarPattern(DFPattern):
    """Matches a GlobalVar named ``name_hint`` ("" any)."""

    def __init__(self, name_hint: str = ""):
        self.__init_handle_by_constructor__(_ffi.GlobalVarPattern, _name(name_hint, "GlobalVarPattern"))


@register_object("relax.dpl.ExternFuncPattern")
class ExternFuncPattern(DFPattern):
    """Matches an ExternFunc of ``global_symbol`` ("" any)."""

    def __init__(self, global_symbol: str = ""):
        self.__init_handle_by_constructor__(_ffi.ExternFuncPattern, _name(global_symbol, "ExternFuncPattern"))


@register_object("relax.dpl.ConstantPattern")
class ConstantPattern(DFPattern):
    """Matches a constant tensor."""

    def __init__(self):
        self.__init_handle_by_constructor__(_ffi.ConstantPattern)


@register_object("relax.dpl.WildcardPattern")
class WildcardPattern(DFPattern):
    """Matches anything."""

    def __init__(self):
        self.__init_handle_by_constructor__(_ffi.WildcardPattern)


def _patterns(values, what):
    if isinstance(values, (DFPattern, Expr, str)) or not hasattr(values, "__iter__"):
        raise TVMTypeError(f"{what} must be a list of patterns, got {type(values).__name__}")
    return [_pattern(v, f"{what}[{i}]") for i, v in enumerate(values)]


@register_object("relax.dpl.CallPattern")
class CallPattern(DFPattern):
    """A call of ``op`` with ``args`` (None: any arguments); with
    ``varg_default_wildcard``, arguments past ``args`` match anything. Under
    a PatternContext, each argument pattern gets a ``used_by`` constraint
    (``add_constraint``)."""

    def __init__(self, op, args, varg_default_wildcard=False, add_constraint=True):
        op = _pattern(op, "CallPattern: op")
        if args is None:
            args, varg_default_wildcard = [], True
        args = _patterns(args, "CallPattern: args")
        self.__init_handle_by_constructor__(_ffi.CallPattern, op, args, bool(varg_default_wildcard))
        if add_constraint:
            for i, arg in enumerate(args):
                arg.used_by(self, i)


@register_object("relax.dpl.FunctionPattern")
class FunctionPattern(DFPattern):
    """A function whose params and body match."""

    def __init__(self, params, body):
        self.__init_handle_by_constructor__(_ffi.FunctionPattern, _patterns(params, "FunctionPattern: params"),
                                            _pattern(body, "FunctionPattern: body"))


@register_object("relax.dpl.TuplePattern")
class TuplePattern(DFPattern):
    """A tuple whose fields match, in order."""

    def __init__(self, fields):
        self.__init_handle_by_constructor__(_ffi.TuplePattern, _patterns(fields, "TuplePattern: fields"))

    def __getitem__(self, index: Optional[int]) -> "TupleGetItemPattern":
        if index is not None:
            if not -len(self) <= index < len(self):
                raise TVMIndexError(f"TuplePattern index {index} out of range for {len(self)} fields")
            index %= len(self)
        return TupleGetItemPattern(self, index)

    def __len__(self):
        return len(self.fields)


@register_object("relax.dpl.UnorderedTuplePattern")
class UnorderedTuplePattern(DFPattern):
    """A tuple whose fields match the patterns in some order."""

    def __init__(self, fields):
        self.__init_handle_by_constructor__(_ffi.UnorderedTuplePattern,
                                            _patterns(fields, "UnorderedTuplePattern: fields"))

    def __len__(self):
        return len(self.fields)


@register_object("relax.dpl.TupleGetItemPattern")
class TupleGetItemPattern(DFPattern):
    """``tuple[index]`` (index None: any index)."""

    def __init__(self, tuple_value, index: Optional[int] = None):
        if index is not None and (not isinstance(index, int) or index < 0):
            raise TVMIndexError(f"TupleGetItemPattern: index must be a non-negative int or None, got {index!r}")
        self.__init_handle_by_constructor__(_ffi.TupleGetItemPattern, _pattern(tuple_value, "TupleGetItemPattern: "
                                                                               "tuple_value"),
                                            -1 if index is None else index)


@register_object("relax.dpl.OrPattern")
class OrPattern(DFPattern):
    """Either pattern (left tried first)."""

    def __init__(self, left, right):
        self.__init_handle_by_constructor__(_ffi.OrPattern, _pattern(left, "OrPattern: left"),
                                            _pattern(right, "OrPattern: right"))


@register_object("relax.dpl.AndPattern")
class AndPattern(DFPattern):
    """Both patterns."""

    def __init__(self, left, right):
        self.__init_handle_by_constructor__(_ffi.AndPattern, _pattern(left, "AndPattern: left"),
                                            _pattern(right, "AndPattern: right"))


@register_object("relax.dpl.NotPattern")
class NotPattern(DFPattern):
    """Anything ``to_reject`` does not match."""

    def __init__(self, to_reject):
        self.__init_handle_by_constructor__(_ffi.NotPattern, _pattern(to_reject, "NotPattern: to_reject"))


@register_object("relax.dpl.StructInfoPattern")
class StructInfoPattern(DFPattern):
    """``pattern`` whose struct info is within ``struct_info``."""

    def __init__(self, pattern, struct_info):
        self.__init_handle_by_constructor__(_ffi.StructInfoPattern, _pattern(pattern, "StructInfoPattern: pattern"),
                                            struct_info)


@register_object("relax.dpl.TypePattern")
class TypePattern(DFPattern):
    """``pattern`` whose static type (that of its struct info) is ``ty``."""

    def __init__(self, pattern, ty):
        self.__init_handle_by_constructor__(_ffi.TypePattern, _pattern(pattern, "TypePattern: pattern"), ty)


@register_object("relax.dpl.DataTypePattern")
class DataTypePattern(DFPattern):
    """``pattern`` whose value is a tensor (or scalar) of ``dtype``."""

    def __init__(self, pattern, dtype):
        self.__init_handle_by_constructor__(_ffi.DataTypePattern, _pattern(pattern, "DataTypePattern: pattern"),
                                            _name(str(dtype) if not isinstance(dtype, str) else dtype,
                                                  "DataTypePattern"))


def _dims(shape, what):
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise TVMTypeError(f"{what}: shape must be a list of dims, got {type(shape).__name__}")
    return list(shape)


@register_object("relax.dpl.ShapePattern")
class ShapePattern(DFPattern):
    """``pattern`` whose value is a tensor of ``shape`` (dims compared by the arithmetic analyzer)."""

    def __init__(self, pattern, shape):
        self.__init_handle_by_constructor__(_ffi.ShapePattern, _pattern(pattern, "ShapePattern: pattern"),
                                            _dims(shape, "ShapePattern"))


@register_object("relax.dpl.PrimArrPattern")
class PrimArrPattern(DFPattern):
    """A shape value (``R.shape([...])``) with these dims."""

    def __init__(self, shape):
        self.__init_handle_by_constructor__(_ffi.PrimArrPattern, _dims(shape, "PrimArrPattern"))

    def __getitem__(self, index: int):
        return self.fields[index]

    def __len__(self):
        return len(self.fields)


@register_object("relax.dpl.AttrPattern")
class AttrPattern(DFPattern):
    """``pattern`` whose call (or function) attributes include ``attrs``."""

    def __init__(self, pattern, attrs):
        if not isinstance(attrs, dict):
            attrs = dict(attrs.items()) if hasattr(attrs, "items") else attrs
        if not isinstance(attrs, dict):
            raise TVMTypeError(f"AttrPattern: attrs must be a dict, got {type(attrs).__name__}")
        self.__init_handle_by_constructor__(_ffi.AttrPattern, _pattern(pattern, "AttrPattern: pattern"), attrs)


# ---- builders -------------------------------------------------------------------------------

def is_var(name: str = "") -> VarPattern:
    return VarPattern(name)


def is_gv(name: str = "") -> GlobalVarPattern:
    return GlobalVarPattern(name)


def is_dfv(name: str = "") -> DataflowVarPattern:
    return DataflowVarPattern(name)


def is_const() -> ConstantPattern:
    return ConstantPattern()


def is_expr(expr) -> ExprPattern:
    return ExprPattern(expr)


def is_op(op_name: str) -> ExprPattern:
    """The operator ``op_name`` (``is_op("relax.add")(x, y)`` is a call pattern);
    ValueError naming it when no such operator is registered."""
    if not isinstance(op_name, str):
        raise TVMTypeError(f"is_op: op_name must be a str, got {type(op_name).__name__}")
    try:
        op = Op.get(op_name)
    except (TVMError, ValueError) as err:
        raise TVMValueError(f"is_op: operator {op_name!r} is not registered") from err
    return ExprPattern(op)


def is_tuple(fields, unordered=False):
    return UnorderedTuplePattern(fields) if unordered else TuplePattern(fields)


def is_tuple_get_item(tuple_value, index: Optional[int] = None) -> TupleGetItemPattern:
    return TupleGetItemPattern(tuple_value, index)


def wildcard() -> WildcardPattern:
    return WildcardPattern()


def has_dtype(dtype: str, pattern=None) -> DataTypePattern:
    return DataTypePattern(wildcard() if pattern is None else pattern, dtype)


def has_shape(shape, pattern=None) -> ShapePattern:
    return ShapePattern(wildcard() if pattern is None else pattern, shape)


def is_shape(shape) -> PrimArrPattern:
    return PrimArrPattern(shape)


def has_attr(attrs, pattern=None) -> AttrPattern:
    return AttrPattern(wildcard() if pattern is None else pattern, attrs)


def reject(pattern) -> NotPattern:
    return NotPattern(pattern)


def _dps_call(op_name, func_pattern, args, tir_vars=None):
    if args is None:
        args_pattern = wildcard()
    elif isinstance(args, DFPattern):
        args_pattern = args
    else:
        args_pattern = TuplePattern(_patterns(args, f"{op_name}: args"))
    call_args = [func_pattern, args_pattern] + ([] if tir_vars is None else [_pattern(tir_vars, "tir_vars")])
    return CallPattern(is_op(op_name), call_args, add_constraint=False)


def is_call_tir(func_name: str, args=None, tir_vars=None) -> CallPattern:
    """``R.call_tir(func_name, args, ...)`` (args None: any)."""
    return _dps_call("relax.call_tir", GlobalVarPattern(_name(func_name, "is_call_tir")), args, tir_vars)


def is_call_dps_packed(func_name: str, args=None) -> CallPattern:
    """``R.call_dps_packed(func_name, args, ...)`` (args None: any)."""
    return _dps_call("relax.call_dps_packed", ExternFuncPattern(_name(func_name, "is_call_dps_packed")), args)


def is_call_packed(func_name: str, args=None) -> CallPattern:
    """``R.call_packed(func_name, *args)`` (args None: any)."""
    return CallPattern(ExternFuncPattern(_name(func_name, "is_call_packed")), args, add_constraint=False)


def make_fused_bias_activation_pattern(op_name, with_bias=False, activation=None):
    """``activation(bias_add(op(lhs, rhs)))`` with the optional parts left out
    (bias as ``relax.add``)."""
    out = is_op(op_name)(wildcard(), wildcard())
    if with_bias:
        out = is_op("relax.add")(out, wildcard())
    if activation:
        out = is_op(activation)(out)
    return out


# ---- graph constraints ------------------------------------------------------------------------

class PatternSeq:
    """A chain of patterns linked by used_by / only_used_by constraints."""

    def __init__(self, patterns: List[DFPattern], only_use=False):  # pylint: disable=unused-argument
        self.patterns = [_pattern(p, "PatternSeq: patterns") for p in patterns]

    def _link(self, other, index, only):
        from .context import PatternContext  # pylint: disable=import-outside-toplevel
        if not isinstance(index, int):
            raise TVMTypeError(f"used_by: index must be an int, got {type(index).__name__}")
        other_seq = other if isinstance(other, PatternSeq) else PatternSeq([_pattern(other, "used_by: other")])
        ctx = PatternContext.current()
        if ctx is not None:
            ctx.add_constraint(self.patterns[-1], other_seq.patterns[0], index, only)
        return PatternSeq(self.patterns + other_seq.patterns)

    def used_by(self, other, index=-1) -> "PatternSeq":
        return self._link(other, index, False)

    def only_used_by(self, other, index=-1) -> "PatternSeq":
        return self._link(other, index, True)

    def __getitem__(self, index: int) -> DFPattern:
        return self.patterns[index]

    def __xor__(self, other) -> "PatternSeq":
        return self.used_by(other)

    def __rshift__(self, other) -> "PatternSeq":
        return self.only_used_by(other)

    def dup(self) -> "PatternSeq":
        """A copy with new pattern nodes and the same constraints among them."""
        from .context import PatternContext  # pylint: disable=import-outside-toplevel
        copies = [p.dup() for p in self.patterns]
        ctx = PatternContext.current()
        if ctx is not None:
            ctx.copy_constraints(self.patterns, copies)
        return PatternSeq(copies)


__all__ = ["DFPattern", "ExprPattern", "VarPattern", "DataflowVarPattern", "GlobalVarPattern", "ExternFuncPattern",
           "ConstantPattern", "WildcardPattern", "CallPattern", "FunctionPattern", "TuplePattern",
           "UnorderedTuplePattern", "TupleGetItemPattern", "OrPattern", "AndPattern", "NotPattern",
           "StructInfoPattern", "TypePattern", "DataTypePattern", "ShapePattern", "PrimArrPattern", "AttrPattern", "PatternSeq",
           "is_var", "is_gv", "is_dfv", "is_const", "is_expr", "is_op", "is_tuple", "is_tuple_get_item", "wildcard",
           "has_dtype", "has_shape", "is_shape", "has_attr", "reject", "is_call_tir", "is_call_dps_packed",
           "is_call_packed", "make_fused_bias_activation_pattern"]
