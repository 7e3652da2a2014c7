"""Building tensor expressions: ``te.placeholder``, ``te.compute``,
``te.reduce_axis``, ``te.var`` / ``te.size_var`` (symbolic sizes) and
``te.create_prim_func`` (lowering to a TensorIR PrimFunc)."""
import inspect

from ..error import OpNotImplemented, TVMTypeError, TVMValueError
from ..ir.expr import PrimExpr, Range
from ..tir import op as _tir_op
from ..tir.expr import IterVar, Var, SizeVar
from . import _ffi_api
from .tensor import Tensor


def _shape(shape, what):
    if isinstance(shape, (int, PrimExpr)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (list, tuple)) and type(shape).__name__ != "Array":
        raise TVMTypeError(f"{what}: shape must be a tuple or list of integer expressions, got {shape!r}")
    dims = []
    for k, d in enumerate(shape):
        if isinstance(d, IterVar):
            d = d.var
        if isinstance(d, bool) or not isinstance(d, (int, PrimExpr)):
            raise TVMTypeError(f"{what}: dimension {k} must be an int or an integer expression, got {d!r}")
        if isinstance(d, int):
            if d < 0:
                raise TVMValueError(f"{what}: dimension {k} is negative ({d})")
            d = _tir_op.const(d, "int32" if d < 2**31 else "int64")
        dims.append(d)
    return dims


def placeholder(shape, dtype=None, name="placeholder"):
    """An input tensor of the given shape and dtype (default float32)."""
    if not isinstance(name, str):
        raise TVMTypeError(f"te.placeholder: name must be a str, got {name!r}")
    dtype = "float32" if dtype is None else str(dtype)
    return _ffi_api.Placeholder(_shape(shape, f"placeholder {name}"), dtype, name)


def _axis_names(fcompute, ndim, name):
    try:
        sig = inspect.signature(fcompute)
    except (TypeError, ValueError) as err:
        raise TVMTypeError(f"compute {name}: fcompute must be a Python function, got {fcompute!r}") from err
    positional, varargs = [], False
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positional.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            varargs = True
        elif p.kind == p.KEYWORD_ONLY and p.default is p.empty:
            raise TVMValueError(f"compute {name}: fcompute has a required keyword-only argument {p.name!r}")
    if varargs:
        if len(positional) > ndim:
            raise TVMValueError(f"compute {name}: fcompute takes at least {len(positional)} index arguments but "
                                f"the shape has {ndim} dimensions")
        return positional + [f"i{k}" for k in range(len(positional), ndim)], len(positional)
    if len(positional) != ndim:
        raise TVMValueError(f"compute {name}: fcompute takes {len(positional)} index arguments "
                            f"({', '.join(positional)}) but the shape has {ndim} dimensions")
    return positional, ndim


def compute(shape, fcompute, name="compute", tag="", attrs=None, varargs_names=None):
    """A tensor whose element at index ``(i, j, ...)`` is ``fcompute(i, j, ...)``."""
    if not isinstance(name, str):
        raise TVMTypeError(f"te.compute: name must be a str, got {name!r}")
    if not callable(fcompute):
        raise TVMTypeError(f"compute {name}: fcompute must be callable, got {fcompute!r}")
    if attrs is not None and not isinstance(attrs, dict):
        raise TVMTypeError(f"compute {name}: attrs must be a dict, got {attrs!r}")
    dims = _shape(shape, f"compute {name}")
    names, _ = _axis_names(fcompute, len(dims), name)
    if varargs_names is not None:
        if len(varargs_names) != len(dims):
            raise TVMValueError(f"compute {name}: varargs_names has {len(varargs_names)} names for "
                                f"{len(dims)} dimensions")
        names = list(varargs_names)
    axis = [IterVar(Range(0, d), Var(n, d.dtype), IterVar.DataPar) for n, d in zip(names, dims)]
    body = fcompute(*[iv.var for iv in axis])
    if isinstance(body, (list, tuple)):
        if len(body) != 1:
            raise OpNotImplemented(f"compute {name}: fcompute returned {len(body)} values; multi-output "
                                      "computes are not supported")
        body = body[0]
    if isinstance(body, Tensor):
        raise TVMTypeError(f"compute {name}: fcompute returned the tensor {body.name}; return an element "
                           f"such as {body.name}[i, ...]")
    if hasattr(body, "asobject"):
        body = body.asobject()
    if isinstance(body, bool):
        body = _tir_op.const(body, "bool")
    elif isinstance(body, (int, float)):
        body = _tir_op.const(body)
    if not isinstance(body, PrimExpr):
        raise TVMTypeError(f"compute {name}: fcompute must return an expression, got {type(body).__name__}")
    op = _ffi_api.ComputeOp(name, tag, dict(attrs or {}), axis, [body])
    return op.output(0)


def reduce_axis(dom, name="rv", thread_tag="", span=None):  # pylint: disable=unused-argument
    """A reduction axis over ``dom`` (a Range or a ``(begin, end)`` pair)."""
    if not isinstance(dom, Range):
        if not (isinstance(dom, (list, tuple)) and len(dom) == 2):
            raise TVMTypeError(f"te.reduce_axis {name}: dom must be a Range or a (begin, end) pair, got {dom!r}")
        begin, end = dom
        for what, v in (("begin", begin), ("end", end)):
            if isinstance(v, bool) or not isinstance(v, (int, PrimExpr)):
                raise TVMTypeError(f"te.reduce_axis {name}: {what} must be an integer expression, got {v!r}")
        dom = Range(begin, end)
    return IterVar(dom, Var(name, dom.extent.dtype), IterVar.CommReduce, thread_tag)


def var(name="tindex", dtype="int32", span=None):  # pylint: disable=unused-argument
    """A symbolic scalar variable (e.g. a dimension of a placeholder)."""
    return Var(name, dtype)


def size_var(name="size", dtype="int32", span=None):  # pylint: disable=unused-argument
    """A symbolic size, known to be non-negative."""
    return SizeVar(name, dtype)


def create_prim_func(ops, index_dtype_override=None):
    """Lowers the tensor-expression program producing ``ops`` to a PrimFunc.

    The listed tensors become parameters (in order), scalar tir.Vars among
    them scalar parameters; every compute becomes a block named after it;
    computes not listed become intermediate buffers."""
    if isinstance(ops, Tensor):
        ops = [ops]
    if not isinstance(ops, (list, tuple)):
        raise TVMTypeError(f"te.create_prim_func: expected a list of te.Tensor, got {type(ops).__name__}")
    from ..tir.expr import Var as _TIRVar  # pylint: disable=import-outside-toplevel
    for k, t in enumerate(ops):
        if not isinstance(t, (Tensor, _TIRVar)):
            raise TVMTypeError(f"te.create_prim_func: argument {k} is a {type(t).__name__}, not a te.Tensor "
                               "or a scalar tir.Var")
    if index_dtype_override is not None:
        index_dtype_override = str(index_dtype_override)
    return _ffi_api.CreatePrimFunc(list(ops), index_dtype_override)


__all__ = ["placeholder", "compute", "reduce_axis", "var", "size_var", "create_prim_func"]
