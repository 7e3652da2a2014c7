"""``tvm.relax.testing.nn``: a small PyTorch-like module API that builds
Relax through the current BlockBuilder -- ``Placeholder`` / ``Parameter``
(relax Vars of a tensor struct info), ``Module`` (collects its parameters),
``Linear``, ``ReLU``, ``LogSoftmax``, ``Sequential``, ``emit``/``emit_te``,
and ``init_params`` (random NumPy values for a function's parameters)."""
import numpy as np

from ... import topi
from ...error import OpNotImplemented, TVMTypeError, TVMValueError
from ...runtime import ndarray as _nd
from .. import op as _op
from ..block_builder import BlockBuilder
from ..expr import Var, ShapeExpr
from ..struct_info import TensorStructInfo


def _current_builder(what):
    bb = BlockBuilder.current()
    if bb is None:
        raise TVMValueError(f"relax.testing.nn.{what} needs a current BlockBuilder (inside `with bb.function(...)`)")
    return bb


def _tensor_var(cls, shape, dtype, name):
    if not isinstance(shape, (list, tuple)):
        raise TVMTypeError(f"relax.testing.nn.{cls}: shape must be a list or tuple, got {type(shape).__name__}")
    return name, TensorStructInfo(list(shape), dtype)


class Placeholder(Var):
    """An input of the function being built: ``Placeholder((n, 4), "float32", name="x")``."""

    def __init__(self, shape, dtype="float32", name="data"):
        super().__init__(*_tensor_var("Placeholder", shape, dtype, name))


class Parameter(Var):
    """A weight of a Module (a function parameter the caller supplies)."""

    def __init__(self, shape, dtype="float32", name="param"):
        super().__init__(*_tensor_var("Parameter", shape, dtype, name))


def emit(expr, name_hint=""):
    """Emits ``expr`` into the current BlockBuilder."""
    return _current_builder("emit").emit(expr, name_hint=name_hint)


def emit_te(func, *args, **kwargs):
    """Emits a call of the TE function ``func`` into the current BlockBuilder."""
    return _current_builder("emit_te").emit_te(func, *args, **kwargs)


def _unpack_params(value):
    if isinstance(value, Parameter):
        return [value]
    if isinstance(value, Module):
        return value.parameters()
    if isinstance(value, dict):
        return [p for v in value.values() for p in _unpack_params(v)]
    if isinstance(value, (list, tuple)):
        return [p for v in value for p in _unpack_params(v)]
    return []


class Module:
    """Base of the modules: ``parameters()`` lists the Parameters of its attributes, in order."""

    def parameters(self):
        return _unpack_params(self.__dict__)

    def forward(self, *args):
        raise OpNotImplemented(f"{type(self).__name__}.forward is not defined")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)


class Sequential(Module):
    """Applies its modules one after another."""

    def __init__(self, *modules):
        self.modules = list(modules)

    def forward(self, value):
        for module in self.modules:
            value = module(value)
        return value


class ReLU(Module):
    def forward(self, value):
        return emit(_op.nn.relu(value))


class LogSoftmax(Module):
    def forward(self, value):
        return emit(_op.nn.log_softmax(value))


class Linear(Module):
    """``y = x @ weight (+ bias)`` with weight of shape (in_features, out_features)."""

    def __init__(self, in_features, out_features, dtype="float32", bias=True):
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter((in_features, out_features), dtype, name="linear_weight")
        self.bias = Parameter((out_features,), dtype, name="linear_bias") if bias else None

    def forward(self, value):
        y = emit_te(topi.matmul, value, self.weight)
        if self.bias is not None:
            y = emit_te(topi.add, y, self.bias)
        return y


def init_params(mod):
    """Random NDArrays (uniform in [0, 1)) for the parameters of ``mod["main"]``
    after those named ``data*`` (the inputs); shapes must be static."""
    params = []
    for var in mod["main"].params:
        if var.name_hint.startswith("data"):
            continue
        sinfo = var.struct_info
        if not isinstance(sinfo, TensorStructInfo) or not isinstance(sinfo.shape, ShapeExpr):
            raise TVMValueError(f"init_params: parameter '{var.name_hint}' has no static tensor shape")
        try:
            shape = [int(dim) for dim in sinfo.shape.values]
        except (TypeError, ValueError) as err:
            raise TVMValueError(f"init_params: parameter '{var.name_hint}' has a symbolic shape") from err
        params.append(_nd.array(np.random.rand(*shape).astype(sinfo.dtype or "float32")))
    return params


__all__ = ["Placeholder", "Parameter", "Module", "Sequential", "ReLU", "LogSoftmax", "Linear", "emit", "emit_te",
           "init_params"]
