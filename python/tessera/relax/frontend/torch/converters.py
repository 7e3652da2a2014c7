"""The PyTorch -> Relax conversion table: one ``@OPS.register`` per operator, listing
every spelling (torch / torch.nn.functional / operator callables, Tensor methods,
nn.Module types with an adapter reading the module's attributes, aten op names of
exported programs) and emitting high-level relax.op calls through the translator's
BlockBuilder. Adding an operator is one entry here (see docs/frontend.md)."""
# pylint: disable=redefined-builtin,unused-argument,too-many-arguments
import collections
import operator

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ... import op as _op
from .... import tir
from ....ir.expr import PrimExpr
from ....error import OpNotImplemented, TVMIndexError, TVMTypeError, TVMValueError
from ...expr import Constant, Expr, Tuple as RelaxTuple, TupleGetItem, const
from ...struct_info import TupleStructInfo
from ..common import (add_channel_bias, emit_batch_norm, emit_clamp, emit_conv_transpose,
                      emit_leaky_relu, emit_softmax, resize_te)
from .aliasing import scatter_positions
from .base_translator import OPS, NotComputed, torch_dtype_to_str


def _relax():
    """tessera.relax.op (read at conversion time: the operator families register on import)."""
    return _op


def _pair(value, what, tr):
    if isinstance(value, int):
        return [value, value]
    value = list(value)
    if len(value) == 1:
        return [int(value[0])] * 2
    if len(value) != 2:
        raise TVMValueError(f"{tr.node_desc()}: {what} must be an int or a pair, got {value}")
    return [int(v) for v in value]


def _weight_or_none(tr, tensor):
    return tr.weight(tensor) if tensor is not None else None


def _is_int_dtype(dtype):
    return dtype.startswith(("int", "uint", "bool"))


# --------------------------------------------------------------------------------------
# elementwise arithmetic with torch's type promotion (Python numbers on both sides are
# computed in Python: sizes)
# --------------------------------------------------------------------------------------
def _result_dtype(tr, lhs, rhs):
    """torch's result dtype of a binary op on ``lhs`` and ``rhs`` (tensors and numbers):
    asked of torch itself on meta tensors of the operands' dtypes and ranks."""
    def probe(value):
        if isinstance(value, Expr):
            return torch.empty([1] * tr.ndim(value), dtype=getattr(torch, tr.dtype(value)), device="meta")
        if isinstance(value, (bool, int, float, np.number)):
            return value.item() if isinstance(value, np.number) else value
        raise TVMTypeError(f"{tr.node_desc()}: expected a tensor or a number, got {type(value).__name__}")
    return torch_dtype_to_str(torch.result_type(probe(lhs), probe(rhs)))


def _cast_to(tr, value, dtype):
    if isinstance(value, Expr):
        return value if tr.dtype(value) == dtype else tr.emit(_relax().astype(value, dtype))
    return const(value, dtype)


def _promoted(tr, lhs, rhs, what):
    """Both operands cast to their torch result dtype, and that dtype."""
    dtype = _result_dtype(tr, lhs, rhs)
    return _cast_to(tr, lhs, dtype), _cast_to(tr, rhs, dtype), dtype


def _arith(tr, name, lhs, rhs, py_op, alpha=1):
    """``lhs <name> alpha * rhs`` with torch's semantics: type promotion, and on bool
    results add is logical or, mul logical and, sub an error (as in torch)."""
    if not isinstance(lhs, Expr) and not isinstance(rhs, Expr):
        return py_op(lhs, rhs * alpha if alpha != 1 else rhs)
    lhs, rhs, dtype = _promoted(tr, lhs, rhs, name)
    if alpha != 1:
        if isinstance(alpha, float) and not dtype.startswith(("float", "bfloat")):
            raise TVMTypeError(f"{tr.node_desc()}: for {dtype} operands alpha must not be a float "
                               f"(got alpha={alpha}), as in torch")
        rhs = tr.emit(_relax().multiply(rhs, const(alpha, dtype)))
    if dtype == "bool":
        if name == "add":  # logical or
            return tr.emit(_relax().where(lhs, const(True, "bool"), rhs))
        if name == "multiply":  # logical and
            return tr.emit(_relax().where(lhs, rhs, const(False, "bool")))
        raise TVMTypeError(f"{tr.node_desc()}: {name} of bool tensors is not supported by torch (use logical ops "
                           "or ~ on masks)")
    return tr.emit(getattr(_relax(), name)(lhs, rhs))


@OPS.register("add", functions=[operator.add, operator.iadd, torch.add], methods=["add", "add_"],
              aten=["add.Tensor", "add.Scalar", "add_.Tensor"])
def _add(tr, input, other, *, alpha=1, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    return _arith(tr, "add", input, other, operator.add, alpha)


@OPS.register("sub", functions=[operator.sub, operator.isub, torch.sub], methods=["sub", "sub_"],
              aten=["sub.Tensor", "sub.Scalar", "sub_.Tensor"])
def _sub(tr, input, other, *, alpha=1, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    return _arith(tr, "subtract", input, other, operator.sub, alpha)


@OPS.register("rsub", aten=["rsub.Scalar", "rsub.Tensor"])
def _rsub(tr, input, other, alpha=1):
    if alpha != 1:
        input = _arith(tr, "multiply", input, alpha, operator.mul)
    return _arith(tr, "subtract", other, input, operator.sub)


@OPS.register("mul", functions=[operator.mul, operator.imul, torch.mul], methods=["mul", "mul_"],
              aten=["mul.Tensor", "mul.Scalar", "mul_.Tensor"])
def _mul(tr, input, other, *, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    return _arith(tr, "multiply", input, other, operator.mul)


@OPS.register("div", functions=[operator.truediv, operator.itruediv, torch.div, torch.true_divide],
              methods=["div", "div_", "true_divide"], aten=["div.Tensor", "div.Scalar", "div.Tensor_mode", "div_.Tensor"])
def _div(tr, input, other, *, rounding_mode=None, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    if not isinstance(input, Expr) and not isinstance(other, Expr):
        if rounding_mode == "floor":
            return input // other
        if rounding_mode == "trunc":
            return int(input / other)
        return input / other
    if rounding_mode is None:
        # True division: integer and bool operands give torch's default float dtype.
        dtype = _result_dtype(tr, input, other)
        if not dtype.startswith(("float", "bfloat")):
            dtype = torch_dtype_to_str(torch.get_default_dtype())
        return tr.emit(_relax().divide(_cast_to(tr, input, dtype), _cast_to(tr, other, dtype)))
    if rounding_mode == "floor":
        return _floordiv(tr, input, other)
    raise tr.unsupported(f"rounding_mode={rounding_mode!r}")


@OPS.register("floordiv", functions=[operator.floordiv, torch.floor_divide], methods=["floor_divide"],
              aten=["floor_divide.default", "floor_divide.Scalar"])
def _floordiv(tr, input, other):
    if not isinstance(input, Expr) and not isinstance(other, Expr):
        return input // other
    lhs, rhs, dtype = _promoted(tr, input, other, "floor_divide")
    if dtype == "bool":
        raise TVMTypeError(f"{tr.node_desc()}: floor_divide of bool tensors is not supported by torch")
    return tr.emit(_relax().floor_divide(lhs, rhs))


@OPS.register("pow", functions=[operator.pow, torch.pow], methods=["pow"],
              aten=["pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar"])
def _pow(tr, input, exponent):
    if not isinstance(input, Expr) and not isinstance(exponent, Expr):
        return input ** exponent
    base, exponent, dtype = _promoted(tr, input, exponent, "pow")
    if dtype == "bool":
        raise tr.unsupported("pow of bool tensors")
    return tr.emit(_relax().power(base, exponent))


@OPS.register("neg", functions=[operator.neg, torch.neg, torch.negative], methods=["neg", "negative"],
              aten=["neg.default"])
def _neg(tr, input):
    if not isinstance(input, Expr):
        return -input
    if tr.dtype(input) == "bool":
        raise TVMTypeError(f"{tr.node_desc()}: negation of a bool tensor is not supported by torch (use ~ or "
                           "logical_not)")
    return tr.emit(_relax().negative(input))


def _register_unary(name, relax_name, functions=(), methods=(), modules=(), aten=()):
    def convert(tr, input):
        return tr.emit(getattr(_relax(), relax_name)(input))
    convert.__name__ = f"_{name}"
    OPS.register(name, functions=functions, methods=methods, aten=aten,
                 modules={m: (lambda tr, module: {}) for m in modules})(convert)


_register_unary("exp", "exp", [torch.exp], ["exp"], aten=["exp.default"])
_register_unary("log", "log", [torch.log], ["log"], aten=["log.default"])
_register_unary("sqrt", "sqrt", [torch.sqrt], ["sqrt"], aten=["sqrt.default"])
_register_unary("rsqrt", "rsqrt", [torch.rsqrt], ["rsqrt"], aten=["rsqrt.default"])
_register_unary("tanh", "tanh", [torch.tanh, F.tanh], ["tanh"], [nn.Tanh], ["tanh.default"])
_register_unary("sigmoid", "sigmoid", [torch.sigmoid, F.sigmoid], ["sigmoid"], [nn.Sigmoid], ["sigmoid.default"])
_register_unary("abs", "abs", [torch.abs, operator.abs], ["abs"], aten=["abs.default"])


def _extremum(tr, name, input, other):
    if not isinstance(input, Expr) and not isinstance(other, Expr):
        return (max if name == "maximum" else min)(input, other)
    lhs, rhs, _ = _promoted(tr, input, other, name)
    return tr.emit(getattr(_relax(), name)(lhs, rhs))


@OPS.register("maximum", functions=[torch.maximum], methods=["maximum"], aten=["maximum.default", "max.other"])
def _maximum(tr, input, other, *, out=None):
    return _extremum(tr, "maximum", input, other)


@OPS.register("minimum", functions=[torch.minimum], methods=["minimum"], aten=["minimum.default", "min.other"])
def _minimum(tr, input, other, *, out=None):
    return _extremum(tr, "minimum", input, other)


def _register_float_unary(name):
    """A transcendental function: an integer or bool input is first cast to torch's
    default float dtype (as torch computes it)."""
    def convert(tr, input):
        if _is_int_dtype(tr.dtype(input, "input")):
            input = _astype(tr, input, torch.get_default_dtype())
        return tr.emit(getattr(_relax(), name)(input))
    convert.__name__ = f"_{name}"
    OPS.register(name, functions=[getattr(torch, name)], methods=[name], aten=[f"{name}.default"])(convert)


for _name in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh", "tan"):
    _register_float_unary(_name)


@OPS.register("round", functions=[torch.round], methods=["round"], aten=["round.default", "round.decimals"])
def _round(tr, input, *, decimals=0):
    if decimals != 0:
        raise tr.unsupported(f"round with decimals={decimals}")
    return input if _is_int_dtype(tr.dtype(input, "input")) else tr.emit(_relax().round(input))


def _tril_triu(tr, name, input, diagonal):
    if tr.ndim(input, "input") < 2:
        raise TVMValueError(f"{tr.node_desc()}: {name} expects a tensor of rank >= 2, got rank {tr.ndim(input)}")
    return tr.emit(getattr(_relax(), name)(input, int(diagonal)))


@OPS.register("tril", functions=[torch.tril], methods=["tril", "tril_"], aten=["tril.default", "tril_.default"])
def _tril(tr, input, diagonal=0, *, out=None):
    return _tril_triu(tr, "tril", input, diagonal)


@OPS.register("triu", functions=[torch.triu], methods=["triu", "triu_"], aten=["triu.default", "triu_.default"])
def _triu(tr, input, diagonal=0, *, out=None):
    return _tril_triu(tr, "triu", input, diagonal)


def _arg_extreme(tr, name, input, dim, keepdim):
    if dim is not None:
        tr.normalize_axis(dim, tr.ndim(input, "input"), "dim")
        dim = int(dim)
    return tr.emit(getattr(_relax(), name)(input, dim, bool(keepdim)))


@OPS.register("argmax", functions=[torch.argmax], methods=["argmax"], aten=["argmax.default"])
def _argmax(tr, input, dim=None, keepdim=False, *, out=None):
    return _arg_extreme(tr, "argmax", input, dim, keepdim)


@OPS.register("argmin", functions=[torch.argmin], methods=["argmin"], aten=["argmin.default"])
def _argmin(tr, input, dim=None, keepdim=False, *, out=None):
    return _arg_extreme(tr, "argmin", input, dim, keepdim)


# --------------------------------------------------------------------------------------
# activations
# --------------------------------------------------------------------------------------
@OPS.register("relu", functions=[torch.relu, F.relu, torch.relu_], methods=["relu", "relu_"],
              modules={nn.ReLU: lambda tr, m: {"inplace": m.inplace}}, aten=["relu.default", "relu_.default"])
def _relu(tr, input, inplace=False):
    return tr.emit(_relax().nn.relu(input))


@OPS.register("gelu", functions=[F.gelu],
              modules={nn.GELU: lambda tr, m: {"approximate": m.approximate}}, aten=["gelu.default"])
def _gelu(tr, input, approximate="none"):
    if approximate == "none":
        return tr.emit(_relax().nn.gelu(input))
    if approximate == "tanh":
        return tr.emit(_relax().nn.gelu_tanh(input))
    raise TVMValueError(f"{tr.node_desc()}: gelu approximate must be 'none' or 'tanh', got {approximate!r}")


@OPS.register("silu", functions=[F.silu], modules={nn.SiLU: lambda tr, m: {"inplace": m.inplace}},
              aten=["silu.default", "silu_.default"])
def _silu(tr, input, inplace=False):
    return tr.emit(_relax().nn.silu(input))


def _softmax_impl(tr, relax_name, input, dim, dtype):
    if dim is None:
        raise tr.unsupported("softmax without dim (torch's implicit dim choice)")
    if dtype is not None:
        input = tr.emit(_relax().astype(input, torch_dtype_to_str(dtype)))
    tr.normalize_axis(dim, tr.ndim(input), "dim")
    return emit_softmax(tr, input, dim, log=relax_name == "log_softmax")


@OPS.register("softmax", functions=[F.softmax, torch.softmax], methods=["softmax"],
              modules={nn.Softmax: lambda tr, m: {"dim": m.dim}}, aten=["softmax.int"])
def _softmax(tr, input, dim=None, _stacklevel=3, dtype=None):
    return _softmax_impl(tr, "softmax", input, dim, dtype)


@OPS.register("log_softmax", functions=[F.log_softmax, torch.log_softmax], methods=["log_softmax"],
              modules={nn.LogSoftmax: lambda tr, m: {"dim": m.dim}}, aten=["log_softmax.int"])
def _log_softmax(tr, input, dim=None, _stacklevel=3, dtype=None):
    return _softmax_impl(tr, "log_softmax", input, dim, dtype)


@OPS.register("aten_softmax", aten=["_softmax.default"])
def _aten_softmax(tr, input, dim, half_to_float=False):
    if half_to_float:
        raise tr.unsupported("_softmax with half_to_float=True")
    return _softmax_impl(tr, "softmax", input, dim, None)


@OPS.register("aten_log_softmax", aten=["_log_softmax.default"])
def _aten_log_softmax(tr, input, dim, half_to_float=False):
    if half_to_float:
        raise tr.unsupported("_log_softmax with half_to_float=True")
    return _softmax_impl(tr, "log_softmax", input, dim, None)


# --------------------------------------------------------------------------------------
# linear algebra
# --------------------------------------------------------------------------------------
@OPS.register("linear", functions=[F.linear],
              modules={nn.Linear: lambda tr, m: {"weight": tr.weight(m.weight), "bias": _weight_or_none(tr, m.bias)}},
              aten=["linear.default"])
def _linear(tr, input, weight, bias=None):
    # TVM's form: the result dtype spelled out (out_dtype), as for matmul and conv.
    return tr.emit(_relax().linear(input, weight, bias, out_dtype=tr.dtype(input, "input")))


@OPS.register("matmul", functions=[operator.matmul, torch.matmul, torch.bmm, torch.mm], methods=["matmul", "bmm", "mm"],
              aten=["matmul.default", "bmm.default", "mm.default"])
def _matmul(tr, input, other, *, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    return tr.emit(_relax().matmul(input, other, out_dtype=tr.dtype(input, "input")))


def _scaled_product_plus(tr, input, product, beta, alpha, bias_first):
    """``beta * input + alpha * product`` (addmm / baddbmm); the operand order of the
    add follows TVM's importer (``bias_first``: input + product)."""
    if alpha != 1:
        product = _arith(tr, "multiply", product, alpha, operator.mul)
    if beta == 0:
        return product
    if beta != 1:
        input = _arith(tr, "multiply", input, beta, operator.mul)
    if bias_first:
        return _arith(tr, "add", input, product, operator.add)
    return _arith(tr, "add", product, input, operator.add)


@OPS.register("addmm", functions=[torch.addmm], methods=["addmm"], aten=["addmm.default"])
def _addmm(tr, input, mat1, mat2, *, beta=1, alpha=1):
    product = tr.emit(_relax().matmul(mat1, mat2, out_dtype=tr.dtype(mat1, "mat1")))
    return _scaled_product_plus(tr, input, product, beta, alpha, bias_first=True)


# --------------------------------------------------------------------------------------
# convolution, normalization, pooling, dropout
# --------------------------------------------------------------------------------------
def _conv2d_impl(tr, input, weight, bias, stride, padding, dilation, groups):
    if tr.ndim(input, "input") != 4:
        raise tr.unsupported(f"conv2d on a rank-{tr.ndim(input)} input (only batched NCHW, rank 4)")
    stride = _pair(stride, "stride", tr)
    dilation = _pair(dilation, "dilation", tr)
    if isinstance(padding, str):
        if padding == "valid":
            padding = [0, 0, 0, 0]
        elif padding == "same":
            kernel = tr.shape(weight, "weight")[2:]
            totals = [d * (k - 1) for d, k in zip(dilation, kernel)]
            padding = [totals[0] // 2, totals[1] // 2, totals[0] - totals[0] // 2, totals[1] - totals[1] // 2]
        else:
            raise TVMValueError(f"{tr.node_desc()}: padding must be 'valid', 'same' or ints, got {padding!r}")
    else:
        padding = _pair(padding, "padding", tr)
    return _emit_conv(tr, _relax().nn.conv2d, input, weight, bias, stride, padding, dilation, groups)


def _emit_conv(tr, relax_conv, input, weight, bias, stride, padding, dilation, groups):
    """R.nn.conv1d / conv2d with the result dtype spelled out (TVM's importer form), then
    the per-channel bias."""
    out = tr.emit(relax_conv(input, weight, strides=list(stride), padding=list(padding), dilation=list(dilation),
                             groups=int(groups), out_dtype=tr.dtype(input, "input")))
    return add_channel_bias(tr, out, bias)


def _conv_module(tr, module):
    """The arguments an nn.Conv1d / Conv2d / Conv3d holds."""
    if module.padding_mode != "zeros":
        raise tr.unsupported(f"{type(module).__name__} padding_mode={module.padding_mode!r}")
    return {"weight": tr.weight(module.weight), "bias": _weight_or_none(tr, module.bias), "stride": module.stride,
            "padding": module.padding, "dilation": module.dilation, "groups": module.groups}


@OPS.register("conv2d", functions=[F.conv2d, torch.conv2d], modules={nn.Conv2d: _conv_module},
              aten=["conv2d.default"])
def _conv2d(tr, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv2d_impl(tr, input, weight, bias, stride, padding, dilation, groups)


@OPS.register("convolution", aten=["convolution.default"])
def _convolution(tr, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    if transposed:
        return _conv_transpose_impl(tr, input, weight, bias, stride, padding, output_padding, groups, dilation)
    if tr.ndim(weight, "weight") == 3:
        return _conv1d(tr, input, weight, bias, stride, padding, dilation, groups)
    if tr.ndim(weight) == 5:
        return _conv3d(tr, input, weight, bias, stride, padding, dilation, groups)
    if tr.ndim(weight) != 4:
        raise tr.unsupported(f"a {tr.ndim(weight) - 2}-d convolution (1-d, 2-d and 3-d are)")
    return _conv2d_impl(tr, input, weight, bias, stride, padding, dilation, groups)


def _batch_norm_impl(tr, input, weight, bias, running_mean, running_var, training, eps):
    if training:
        raise tr.unsupported("batch_norm in training mode (call model.eval() before importing)")
    if running_mean is None or running_var is None:
        raise tr.unsupported("batch_norm without running statistics")
    return emit_batch_norm(tr, input, weight, bias, running_mean, running_var, eps, axis=1)


def _batch_norm_module(tr, module):
    if module.training:
        raise tr.unsupported(f"{type(module).__name__} in training mode (call model.eval() before importing)")
    if module.running_mean is None:
        raise tr.unsupported(f"{type(module).__name__}(track_running_stats=False)")
    return {"running_mean": tr.weight(module.running_mean), "running_var": tr.weight(module.running_var),
            "weight": _weight_or_none(tr, module.weight), "bias": _weight_or_none(tr, module.bias),
            "training": False, "momentum": module.momentum, "eps": module.eps}


@OPS.register("batch_norm", functions=[F.batch_norm],
              modules={nn.BatchNorm1d: _batch_norm_module, nn.BatchNorm2d: _batch_norm_module})
def _batch_norm(tr, input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
                eps=1e-5):
    return _batch_norm_impl(tr, input, weight, bias, running_mean, running_var, training, eps)


@OPS.register("aten_batch_norm", aten=["batch_norm.default"])
def _aten_batch_norm(tr, input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return _batch_norm_impl(tr, input, weight, bias, running_mean, running_var, training, eps)


@OPS.register("batch_norm_no_training", aten=["_native_batch_norm_legit_no_training.default"])
def _batch_norm_no_training(tr, input, weight, bias, running_mean, running_var, momentum, eps):
    out = _batch_norm_impl(tr, input, weight, bias, running_mean, running_var, False, eps)
    return (out, NotComputed("the saved mean", tr.node), NotComputed("the saved inverse std", tr.node))


def _layer_norm_impl(tr, input, normalized_shape, weight, bias, eps):
    shape = tr.dims(input, "input")  # the leading dims may be symbolic
    normalized_shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    count = len(normalized_shape)
    if count == 0 or count > len(shape) or list(shape[len(shape) - count:]) != [int(d) for d in normalized_shape]:
        raise TVMValueError(f"{tr.node_desc()}: normalized_shape {normalized_shape} does not match the trailing "
                            f"dims of the input shape {shape}")
    # TVM's form: the normalized axes counted from the end.
    if weight is None or bias is None:
        dtype, norm_shape = tr.dtype(input, "input"), [int(d) for d in normalized_shape]
        weight = weight if weight is not None else const(np.ones(norm_shape, dtype), dtype)
        bias = bias if bias is not None else const(np.zeros(norm_shape, dtype), dtype)
    return tr.emit(_relax().nn.layer_norm(input, weight, bias, axes=list(range(-count, 0)), epsilon=float(eps)))


@OPS.register("layer_norm", functions=[F.layer_norm],
              modules={nn.LayerNorm: lambda tr, m: {"normalized_shape": m.normalized_shape,
                                                    "weight": _weight_or_none(tr, m.weight),
                                                    "bias": _weight_or_none(tr, m.bias), "eps": m.eps}},
              aten=["layer_norm.default"])
def _layer_norm(tr, input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return _layer_norm_impl(tr, input, normalized_shape, weight, bias, eps)


@OPS.register("native_layer_norm", aten=["native_layer_norm.default"])
def _native_layer_norm(tr, input, normalized_shape, weight, bias, eps):
    out = _layer_norm_impl(tr, input, normalized_shape, weight, bias, eps)
    return (out, NotComputed("the saved mean", tr.node), NotComputed("the saved rstd", tr.node))


def _pool_input(tr, input, what):
    if tr.ndim(input, "input") != 4:
        raise tr.unsupported(f"{what} on a rank-{tr.ndim(input)} input (only batched NCHW, rank 4)")


def _max_pool2d_impl(tr, input, kernel_size, stride, padding, dilation, ceil_mode):
    _pool_input(tr, input, "max_pool2d")
    kernel = _pair(kernel_size, "kernel_size", tr)
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else _pair(stride, "stride", tr)
    return tr.emit(_relax().nn.max_pool2d(input, pool_size=kernel, strides=stride,
                                          padding=_pair(padding, "padding", tr),
                                          dilation=_pair(dilation, "dilation", tr), ceil_mode=bool(ceil_mode)))


@OPS.register("max_pool2d", functions=[F.max_pool2d, torch.max_pool2d],
              modules={nn.MaxPool2d: lambda tr, m: {"kernel_size": m.kernel_size, "stride": m.stride,
                                                    "padding": m.padding, "dilation": m.dilation,
                                                    "ceil_mode": m.ceil_mode, "return_indices": m.return_indices}},
              aten=["max_pool2d.default"])
def _max_pool2d(tr, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        raise tr.unsupported("max_pool2d with return_indices=True")
    return _max_pool2d_impl(tr, input, kernel_size, stride, padding, dilation, ceil_mode)


@OPS.register("max_pool2d_with_indices", aten=["max_pool2d_with_indices.default"])
def _max_pool2d_with_indices(tr, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    out = _max_pool2d_impl(tr, input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, NotComputed("the max_pool2d indices", tr.node))


@OPS.register("avg_pool2d", functions=[F.avg_pool2d],
              modules={nn.AvgPool2d: lambda tr, m: {"kernel_size": m.kernel_size, "stride": m.stride,
                                                    "padding": m.padding, "ceil_mode": m.ceil_mode,
                                                    "count_include_pad": m.count_include_pad,
                                                    "divisor_override": m.divisor_override}},
              aten=["avg_pool2d.default"])
def _avg_pool2d(tr, input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    if divisor_override is not None:
        raise tr.unsupported("avg_pool2d with divisor_override")
    _pool_input(tr, input, "avg_pool2d")
    kernel = _pair(kernel_size, "kernel_size", tr)
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else _pair(stride, "stride", tr)
    return tr.emit(_relax().nn.avg_pool2d(input, pool_size=kernel, strides=stride,
                                          padding=_pair(padding, "padding", tr), ceil_mode=bool(ceil_mode),
                                          count_include_pad=bool(count_include_pad)))


@OPS.register("adaptive_avg_pool2d", functions=[F.adaptive_avg_pool2d],
              modules={nn.AdaptiveAvgPool2d: lambda tr, m: {"output_size": m.output_size}},
              aten=["adaptive_avg_pool2d.default", "_adaptive_avg_pool2d.default"])
def _adaptive_avg_pool2d(tr, input, output_size):
    _pool_input(tr, input, "adaptive_avg_pool2d")
    shape = tr.dims(input, "input")  # the batch may be symbolic
    sizes = [output_size, output_size] if isinstance(output_size, int) or output_size is None else list(output_size)
    if len(sizes) != 2:
        raise TVMValueError(f"{tr.node_desc()}: output_size must be an int or a pair, got {output_size!r}")
    sizes = [shape[2 + i] if s is None else int(s) for i, s in enumerate(sizes)]
    return tr.emit(_relax().nn.adaptive_avg_pool2d(input, output_size=sizes))


def _dropout_module(tr, module):
    return {"p": module.p, "training": module.training}


@OPS.register("dropout", functions=[F.dropout, torch.dropout],
              modules={nn.Dropout: _dropout_module}, aten=["dropout.default"])
def _dropout(tr, input, p=0.5, training=True, inplace=False, train=None):
    if train is not None:  # aten / torch.dropout spell it 'train'
        training = train
    if training and p > 0:
        raise tr.unsupported("dropout in training mode (call model.eval() before importing)")
    return input


# --------------------------------------------------------------------------------------
# identity-like
# --------------------------------------------------------------------------------------
@OPS.register("identity", functions=[torch.clone], methods=["contiguous", "clone", "detach"],
              modules={nn.Identity: lambda tr, m: {}},
              aten=["clone.default", "alias.default", "detach.default", "contiguous.default", "lift_fresh_copy.default"])
def _identity(tr, input, *args, memory_format=None, **kwargs):
    if args or kwargs:
        raise TVMTypeError(f"{tr.node_desc()}: unexpected arguments {args or ''}{kwargs or ''}")
    return input


# --------------------------------------------------------------------------------------
# shapes: reshape, flatten, permute, squeeze, concat, broadcast
# --------------------------------------------------------------------------------------
def _dim_value(value):
    """A size as an int, or the tir PrimExpr of a symbolic one (a dynamic dim of torch.export)."""
    return value if isinstance(value, PrimExpr) else int(value)


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple, torch.Size)):
        return [_dim_value(s) for s in shape[0]]
    return [_dim_value(s) for s in shape]


def _symbolic_reshape(tr, input, dims, new_shape):
    """reshape where a size is symbolic: a -1 becomes the element count over the known
    sizes (relax checks the rest when the shapes are known at run time)."""
    unknown = [i for i, d in enumerate(new_shape) if isinstance(d, int) and d == -1]
    if len(unknown) > 1:
        raise TVMValueError(f"{tr.node_desc()}: only one dimension can be -1 in shape {new_shape}")
    if unknown:
        # The extent torch's symbolic shapes computed for the result, else the element
        # count over the known sizes.
        result = tr.result_dims()
        new_shape = list(new_shape)
        if result is not None and len(result) == len(new_shape):
            new_shape[unknown[0]] = result[unknown[0]]
        else:
            total, known = 1, 1
            for dim in dims:
                total = total * dim
            for dim in new_shape:
                if not (isinstance(dim, int) and dim == -1):
                    known = known * dim
            new_shape[unknown[0]] = tir.floordiv(total, known)
    return tr.emit(_relax().reshape(input, list(new_shape)))


def _reshape_to(tr, input, new_shape):
    dims = tr.dims(input, "input")
    if any(not isinstance(d, int) for d in list(dims) + list(new_shape)):
        return _symbolic_reshape(tr, input, dims, new_shape)
    shape = tr.shape(input, "input")
    total = 1
    for dim in shape:
        total *= dim
    known = 1
    unknown = [i for i, d in enumerate(new_shape) if d == -1]
    for dim in new_shape:
        if dim != -1:
            if dim < 0:
                raise TVMValueError(f"{tr.node_desc()}: invalid dimension {dim} in shape {new_shape}")
            known *= dim
    if len(unknown) > 1:
        raise TVMValueError(f"{tr.node_desc()}: only one dimension can be -1 in shape {new_shape}")
    if unknown:
        if known == 0 or total % known:
            raise TVMValueError(f"{tr.node_desc()}: shape {new_shape} is invalid for an input of shape {shape}")
        new_shape = list(new_shape)
        new_shape[unknown[0]] = total // known
    elif known != total:
        raise TVMValueError(f"{tr.node_desc()}: shape {new_shape} is invalid for an input of shape {shape}")
    if list(new_shape) == shape:
        return input
    return tr.emit(_relax().reshape(input, list(new_shape)))


@OPS.register("reshape", functions=[torch.reshape], methods=["view", "reshape"],
              aten=["view.default", "reshape.default", "_unsafe_view.default"])
def _reshape(tr, input, *shape):
    if len(shape) == 1 and isinstance(shape[0], torch.dtype):
        raise tr.unsupported("view(dtype) (reinterpreting the bytes)")
    return _reshape_to(tr, input, _shape_arg(shape))


def _flatten_impl(tr, input, start_dim, end_dim):
    shape = tr.dims(input, "input")  # symbolic dims multiply as PrimExprs
    if not shape:
        return _reshape_to(tr, input, [1])
    start = tr.normalize_axis(start_dim, len(shape), "start_dim")
    end = tr.normalize_axis(end_dim, len(shape), "end_dim")
    if start > end:
        raise TVMValueError(f"{tr.node_desc()}: flatten start_dim {start_dim} comes after end_dim {end_dim}")
    middle = 1
    for dim in shape[start:end + 1]:
        middle *= dim
    return _reshape_to(tr, input, shape[:start] + [middle] + shape[end + 1:])


@OPS.register("flatten", functions=[torch.flatten], methods=["flatten"],
              modules={nn.Flatten: lambda tr, m: {"start_dim": m.start_dim, "end_dim": m.end_dim}},
              aten=["flatten.using_ints"])
def _flatten(tr, input, start_dim=0, end_dim=-1):
    return _flatten_impl(tr, input, start_dim, end_dim)


@OPS.register("unflatten", functions=[torch.unflatten], methods=["unflatten"], aten=["unflatten.int"])
def _unflatten(tr, input, dim, sizes):
    """Dim ``dim`` split into ``sizes`` (one may be -1): a reshape."""
    dims = tr.dims(input, "input")
    axis = tr.normalize_axis(dim, len(dims), "dim")
    return _reshape_to(tr, input, list(dims[:axis]) + _shape_arg([sizes]) + list(dims[axis + 1:]))


@OPS.register("permute", functions=[torch.permute], methods=["permute"], aten=["permute.default"])
def _permute(tr, input, *dims):
    ndim = tr.ndim(input, "input")
    axes = [tr.normalize_axis(d, ndim, "dims") for d in _shape_arg(dims)]
    if sorted(axes) != list(range(ndim)):
        raise TVMValueError(f"{tr.node_desc()}: dims {list(dims)} are not a permutation of the {ndim} axes")
    return tr.emit(_relax().permute_dims(input, axes))


@OPS.register("transpose", functions=[torch.transpose, torch.swapaxes], methods=["transpose", "swapaxes"],
              aten=["transpose.int"])
def _transpose(tr, input, dim0, dim1):
    ndim = tr.ndim(input, "input")
    axes = list(range(ndim))
    d0, d1 = tr.normalize_axis(dim0, ndim, "dim0"), tr.normalize_axis(dim1, ndim, "dim1")
    axes[d0], axes[d1] = axes[d1], axes[d0]
    return tr.emit(_relax().permute_dims(input, axes))


@OPS.register("t", functions=[torch.t], methods=["t"], aten=["t.default"])
def _t(tr, input):
    ndim = tr.ndim(input, "input")
    if ndim > 2:
        raise TVMValueError(f"{tr.node_desc()}: t() expects a tensor of rank <= 2, got rank {ndim}")
    return input if ndim < 2 else tr.emit(_relax().permute_dims(input, [1, 0]))


@OPS.register("unsqueeze", functions=[torch.unsqueeze], methods=["unsqueeze"], aten=["unsqueeze.default"])
def _unsqueeze(tr, input, dim):
    tr.normalize_axis(dim, tr.ndim(input, "input") + 1, "dim")  # checked; the op normalizes it
    return tr.emit(_relax().expand_dims(input, int(dim)))


@OPS.register("squeeze", functions=[torch.squeeze], methods=["squeeze"],
              aten=["squeeze.dim", "squeeze.dims", "squeeze.default"])
def _squeeze(tr, input, dim=None):
    shape = tr.dims(input, "input")
    unit = [isinstance(d, int) and d == 1 for d in shape]  # a symbolic dim is not known to be 1: kept
    if dim is None:  # every unit dim: TVM's form is axis=None
        if any(not isinstance(d, int) for d in shape):
            axes = [a for a, u in enumerate(unit) if u]
        else:
            return tr.emit(_relax().squeeze(input, None)) if any(unit) else input
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
        # torch leaves dims that are not 1 alone
        axes = [a for a in (tr.normalize_axis(d, len(shape), "dim") for d in dims) if unit[a]]
    if not axes:
        return input
    return tr.emit(_relax().squeeze(input, axes))


@OPS.register("cat", functions=[torch.cat, torch.concat, torch.concatenate], aten=["cat.default", "concat.default"])
def _cat(tr, tensors, dim=0, *, axis=None, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    if axis is not None:
        dim = axis
    tensors = list(tensors)
    if not tensors:
        raise TVMValueError(f"{tr.node_desc()}: cat of an empty list")
    axis = tr.normalize_axis(dim, tr.ndim(tensors[0], "tensors[0]"), "dim")
    return tr.emit(_relax().concat(tensors, axis=axis))


@OPS.register("expand", methods=["expand"], aten=["expand.default"])
def _expand(tr, input, *sizes, implicit=False):
    shape = tr.shape(input, "input")
    sizes = _shape_arg(sizes)
    lead = len(sizes) - len(shape)
    if lead < 0:
        raise TVMValueError(f"{tr.node_desc()}: expand to {sizes} has fewer dims than the input shape {shape}")
    target = [shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(sizes)]
    if target == shape:
        return input
    return tr.emit(_relax().broadcast_to(input, target))


# --------------------------------------------------------------------------------------
# indexing and slicing
# --------------------------------------------------------------------------------------
def _take_indices(tr, input, indices, axis, negative_from_end=True):
    """``input`` indexed along ``axis`` by an integer tensor with torch's semantics: a
    negative index counts from the end (once; ``negative_from_end=False``, as
    index_select and embedding: an error); an index outside the axis is an IndexError
    naming the index and the size, never clipped or wrapped: refused here for
    constant indices, else raised at run time by the kernel (relax.take's checked
    modes "raise" / "raise_nonnegative")."""
    dtype = tr.dtype(indices, "index")
    if dtype in ("bool", "uint8"):
        raise tr.unsupported("indexing with a boolean mask (its result shape depends on the data)")
    if not _is_int_dtype(dtype):
        raise TVMTypeError(f"{tr.node_desc()}: tensors used as indices must be integer or bool, got {dtype}")
    size = tr.shape(input, "input")[axis]
    if isinstance(indices, Constant):
        values = indices.data.numpy()
        bad = values[(values < (-size if negative_from_end else 0)) | (values >= size)]
        if bad.size:
            raise TVMIndexError(f"{tr.node_desc()}: index {int(bad.reshape(-1)[0])} is out of bounds for dimension "
                                f"{axis} with size {size}")
    if dtype != "int64":
        indices = tr.emit(_relax().astype(indices, "int64"))
    mode = "raise" if negative_from_end else "raise_nonnegative"
    return tr.emit(_relax().take(input, indices, axis=axis, mode=mode))


def _slice_tensor(tr, input, index):
    shape = tr.shape(input, "input")
    index = list(index) if isinstance(index, tuple) else [index]
    if sum(1 for i in index if i is Ellipsis) > 1:
        raise TVMValueError(f"{tr.node_desc()}: an index can only have one Ellipsis")
    consumed = sum(1 for i in index if i is not None and i is not Ellipsis)
    if consumed > len(shape):
        raise TVMIndexError(f"{tr.node_desc()}: too many indices ({consumed}) for a tensor of rank {len(shape)}")
    if Ellipsis in index:
        pos = index.index(Ellipsis)
        index = index[:pos] + [slice(None)] * (len(shape) - consumed) + index[pos + 1:]
    else:
        index = index + [slice(None)] * (len(shape) - consumed)
    tensor_indices = [i for i in index if isinstance(i, Expr)]
    if tensor_indices:
        if len(tensor_indices) > 1 or any(i is None or isinstance(i, int) for i in index):
            raise tr.unsupported("advanced indexing with more than one tensor index or mixed with ints/None")
        axis = next(k for k, i in enumerate(index) if isinstance(i, Expr))
        if any(i != slice(None) for i in index if not isinstance(i, Expr)):
            raise tr.unsupported("advanced indexing combined with slices")
        return _take_indices(tr, input, index[axis], axis)
    axes, begin, end, strides, out_shape = [], [], [], [], []
    dim = 0
    for item in index:
        if item is None:
            out_shape.append(1)
            continue
        size = shape[dim]
        if isinstance(item, bool) or not isinstance(item, (int, slice)):
            raise tr.unsupported(f"indexing with {type(item).__name__}")
        if isinstance(item, int):
            if not -size <= item < size:
                raise TVMIndexError(f"{tr.node_desc()}: index {item} is out of range for dim {dim} of size {size}")
            start = item % size
            axes.append(dim), begin.append(start), end.append(start + 1), strides.append(1)
        else:
            if item.step is not None and item.step <= 0:
                raise TVMValueError(f"{tr.node_desc()}: slice step must be positive, got {item.step}")
            start, stop, step = item.indices(size)
            length = len(range(start, stop, step))
            if (start, stop, step) != (0, size, 1):
                axes.append(dim), begin.append(start), end.append(max(stop, start)), strides.append(step)
            out_shape.append(length)
        dim += 1
    result = input
    if axes:
        result = tr.emit(_relax().strided_slice(input, axes=axes, begin=begin, end=end, strides=strides))
    if out_shape != tr.shape(result):
        result = tr.emit(_relax().reshape(result, out_shape))
    return result


@OPS.register("getitem", functions=[operator.getitem])
def _getitem(tr, input, index):
    if isinstance(input, (tuple, list, torch.Size)):
        return input[index]
    if isinstance(input, Expr) and isinstance(input.struct_info, TupleStructInfo):
        count = len(input.struct_info.fields)
        if isinstance(index, slice):
            return tuple(tr.emit(TupleGetItem(input, i)) for i in range(count)[index])
        if isinstance(index, bool) or not isinstance(index, int):
            raise TVMTypeError(f"{tr.node_desc()}: a tuple index must be an int, got {type(index).__name__}")
        if not -count <= index < count:
            raise TVMIndexError(f"{tr.node_desc()}: index {index} is out of range for a tuple of {count} tensors")
        return tr.emit(TupleGetItem(input, index % count))
    return _slice_tensor(tr, input, index)


@OPS.register("index", aten=["index.Tensor"])
def _aten_index(tr, input, indices):
    """aten.index (``x[idx]`` in an exported program): one tensor index, after Nones."""
    indices = list(indices)
    tensors = [k for k, i in enumerate(indices) if i is not None]
    if len(tensors) != 1:
        raise tr.unsupported("aten.index with more than one tensor index")
    return _take_indices(tr, input, indices[tensors[0]], tensors[0])


@OPS.register("index_select", functions=[torch.index_select], methods=["index_select"],
              aten=["index_select.default"])
def _index_select(tr, input, dim, index, *, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    if tr.ndim(index, "index") > 1:
        raise TVMValueError(f"{tr.node_desc()}: index_select's index must be 0-D or 1-D, got {tr.ndim(index)}-D")
    axis = tr.normalize_axis(dim, tr.ndim(input, "input"), "dim")
    result = _take_indices(tr, input, index, axis, negative_from_end=False)
    if tr.ndim(index) == 0:  # torch keeps the axis (of length 1)
        shape = tr.shape(input)
        result = tr.emit(_relax().reshape(result, shape[:axis] + [1] + shape[axis + 1:]))
    return result


@OPS.register("embedding", functions=[F.embedding],
              modules={nn.Embedding: lambda tr, m: {"weight": tr.weight(m.weight), "padding_idx": m.padding_idx,
                                                    "max_norm": m.max_norm}})
def _embedding(tr, input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
               sparse=False):
    if max_norm is not None:
        raise tr.unsupported("embedding with max_norm (it renormalizes the weight in place)")
    return _take_indices(tr, weight, input, 0, negative_from_end=False)


@OPS.register("aten_embedding", aten=["embedding.default"])
def _aten_embedding(tr, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _take_indices(tr, weight, indices, 0, negative_from_end=False)


@OPS.register("gather", functions=[torch.gather], methods=["gather"], aten=["gather.default"])
def _gather(tr, input, dim, index, *, sparse_grad=False, out=None):
    """out[..., i_dim, ...] = input[..., index[...], ...]: each index is checked against
    the size of ``dim`` (a checked take from 0..size-1), then one flat gather."""
    if out is not None:
        raise tr.unsupported("the out= argument")
    shape, ishape = tr.shape(input, "input"), tr.shape(index, "index")
    axis = tr.normalize_axis(dim, len(shape), "dim")
    if len(ishape) != len(shape) or any(ishape[d] > shape[d] for d in range(len(shape)) if d != axis):
        raise TVMValueError(f"{tr.node_desc()}: gather's index {ishape} must have the rank of input {shape} and no "
                            f"larger size outside dim {axis}")
    checked = _take_indices(tr, const(np.arange(shape[axis], dtype="int64")), index, 0, negative_from_end=False)
    strides = np.cumprod([1] + shape[::-1][:-1], dtype=np.int64)[::-1]
    grid = np.indices(ishape, dtype=np.int64)
    base = sum(grid[d] * strides[d] for d in range(len(shape)) if d != axis) + np.zeros(ishape, dtype=np.int64)
    flat = tr.emit(_relax().add(tr.emit(_relax().multiply(checked, const(np.int64(strides[axis])))), const(base)))
    values = tr.emit(_relax().take(tr.emit(_relax().reshape(input, [-1])), tr.emit(_relax().reshape(flat, [-1])),
                                   axis=0))
    return tr.emit(_relax().reshape(values, ishape))


@OPS.register("slice", aten=["slice.Tensor"])
def _aten_slice(tr, input, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * tr.ndim(input, "input")
    index[tr.normalize_axis(dim, len(index), "dim")] = slice(start, end, step)
    return _slice_tensor(tr, input, tuple(index))


@OPS.register("select", functions=[torch.select], methods=["select"], aten=["select.int"])
def _select(tr, input, dim, index):
    idx = [slice(None)] * tr.ndim(input, "input")
    idx[tr.normalize_axis(dim, len(idx), "dim")] = int(index)
    return _slice_tensor(tr, input, tuple(idx))


def _static_positions(tr, input, what):
    """Flat position of each element of ``input`` (a NumPy array of its shape)."""
    shape = tr.shape(input, what)
    return np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)


@OPS.register("slice_scatter", functions=[torch.slice_scatter], aten=["slice_scatter.default"])
def _slice_scatter(tr, input, src, dim=0, start=None, end=None, step=1):
    """``input`` with its slice ``start:end:step`` along ``dim`` replaced by ``src`` (the
    functional form of a write through a slice, as in functionalized programs)."""
    positions = _static_positions(tr, input, "input")
    index = [slice(None)] * positions.ndim
    if step is not None and step <= 0:
        raise TVMValueError(f"{tr.node_desc()}: slice step must be positive, got {step}")
    index[tr.normalize_axis(dim, positions.ndim, "dim")] = slice(start, end, step)
    return _scatter_into(tr, input, src, positions[tuple(index)])


@OPS.register("select_scatter", functions=[torch.select_scatter], aten=["select_scatter.default"])
def _select_scatter(tr, input, src, dim, index):
    positions = _static_positions(tr, input, "input")
    axis = tr.normalize_axis(dim, positions.ndim, "dim")
    size = positions.shape[axis]
    if not -size <= index < size:
        raise TVMIndexError(f"{tr.node_desc()}: index {index} is out of range for dim {axis} of size {size}")
    return _scatter_into(tr, input, src, np.take(positions, index % size, axis=axis))


def _scatter_into(tr, input, src, positions):
    if list(positions.shape) != tr.shape(src, "src"):
        raise TVMValueError(f"{tr.node_desc()}: src has shape {tr.shape(src)}, the slice it replaces has shape "
                            f"{list(positions.shape)}")
    return scatter_positions(tr, input, tr.shape(input), positions, _cast_to(tr, src, tr.dtype(input)))


@OPS.register("arange", functions=[torch.arange], aten=["arange.default", "arange.start", "arange.start_step"])
def _arange(tr, *args, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False, out=None):
    """R.arange(start, end, step) (TVM's form) with torch's dtype rules: int64 for integer
    bounds, else the default float dtype; ``dtype=`` wins."""
    if out is not None:
        raise tr.unsupported("the out= argument")
    if any(isinstance(a, Expr) for a in args):
        raise tr.unsupported("arange with tensor bounds")
    if not 1 <= len(args) <= 3:
        raise TVMTypeError(f"{tr.node_desc()}: arange takes 1 to 3 bounds, got {len(args)}")
    if any(isinstance(a, PrimExpr) for a in args):
        return _symbolic_arange(tr, args, dtype)
    # torch checks the bounds (a zero step, a step of the wrong sign) and gives the dtype.
    dtype = torch_dtype_to_str(torch.arange(*args, dtype=dtype, device="meta").dtype)
    start, end, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
    return tr.emit(_relax().arange(start, end, step, dtype=dtype))


def _symbolic_arange(tr, args, dtype):
    """arange with a bound that is a dynamic size (arange(seq)): integer bounds, the length
    from the program's symbolic shapes, a TE kernel start + i * step."""
    from .... import te  # pylint: disable=import-outside-toplevel
    if any(not isinstance(a, (int, PrimExpr)) or isinstance(a, bool) for a in args):
        raise tr.unsupported("arange mixing a symbolic bound with non-integer bounds")
    result = tr.result_dims()
    if result is None or len(result) != 1:
        raise tr.unsupported("arange with a symbolic bound whose length the program does not record")
    start, _, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
    dtype = torch_dtype_to_str(dtype or torch.int64)

    def compute(length, begin, stride):
        return te.compute((length,), lambda i: tir.Cast(dtype, begin + i * stride), name="T_arange")

    return tr.bb.emit_te(compute, result[0], tir.IntImm("int64", start) if isinstance(start, int) else start,
                         tir.IntImm("int64", step) if isinstance(step, int) else step, primfunc_name_hint="arange")


def _register_compare(name, relax_name, py_op):
    def convert(tr, input, other):
        if not isinstance(input, Expr) and not isinstance(other, Expr):
            return py_op(input, other)
        lhs, rhs, _ = _promoted(tr, input, other, name)
        return tr.emit(getattr(_relax(), relax_name)(lhs, rhs))
    convert.__name__ = f"_{name}"
    OPS.register(name, functions=[py_op, getattr(torch, name)], methods=[name],
                 aten=[f"{name}.Tensor", f"{name}.Scalar"])(convert)


for _name, _relax_name, _py_op in (("eq", "equal", operator.eq), ("ne", "not_equal", operator.ne),
                                   ("lt", "less", operator.lt), ("le", "less_equal", operator.le),
                                   ("gt", "greater", operator.gt), ("ge", "greater_equal", operator.ge)):
    _register_compare(_name, _relax_name, _py_op)


@OPS.register("where", functions=[torch.where], methods=["where"], aten=["where.self", "where.ScalarOther",
                                                                            "where.ScalarSelf", "where.Scalar"])
def _where(tr, condition, input, other):
    if tr.dtype(condition, "condition") != "bool":
        raise TVMTypeError(f"{tr.node_desc()}: where expects a bool condition, got {tr.dtype(condition)}")
    if not isinstance(input, Expr) and not isinstance(other, Expr):
        dtype = torch_dtype_to_str(torch.result_type(input, other))
        input, other = const(input, dtype), const(other, dtype)
    else:
        input, other, _ = _promoted(tr, input, other, "where")
    return tr.emit(_relax().where(condition, input, other))


# --------------------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------------------
def _reduce(tr, relax_fn, input, dim, keepdim, dtype):
    if dtype is not None:
        input = tr.emit(_relax().astype(input, torch_dtype_to_str(dtype)))
    ndim = tr.ndim(input, "input")
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        axes = None
    else:
        # The dims as written (TVM's form); checked here, normalized by the Relax op.
        axes = [int(dim)] if isinstance(dim, int) else [int(d) for d in dim]
        if len({tr.normalize_axis(d, ndim, "dim") for d in axes}) != len(axes):
            raise TVMValueError(f"{tr.node_desc()}: dim {list(axes)} names an axis twice")
    return tr.emit(relax_fn(input, axis=axes, keepdims=bool(keepdim)))


@OPS.register("mean", functions=[torch.mean], methods=["mean"], aten=["mean.dim", "mean.default"])
def _mean(tr, input, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    if isinstance(dim, torch.dtype):  # torch.mean(x, torch.float32)
        dim, dtype = None, dim
    result = torch_dtype_to_str(dtype) if dtype is not None else tr.dtype(input, "input")
    if not result.startswith(("float", "bfloat")):
        raise TVMTypeError(f"{tr.node_desc()}: mean of a {result} tensor; torch needs a floating-point input or "
                           "dtype= (it cannot infer the output dtype)")
    return _reduce(tr, _relax().mean, input, dim, keepdim, dtype)


@OPS.register("sum", functions=[torch.sum], methods=["sum"], aten=["sum.dim_IntList", "sum.default"])
def _sum(tr, input, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    if isinstance(dim, torch.dtype):
        dim, dtype = None, dim
    if dtype is None and _is_int_dtype(tr.dtype(input, "input")):
        dtype = torch.int64  # torch sums integer and bool tensors in int64
    return _reduce(tr, _relax().sum, input, dim, keepdim, dtype)


# --------------------------------------------------------------------------------------
# sizes, dtypes
# --------------------------------------------------------------------------------------
@OPS.register("size", methods=["size"], aten=["sym_size.int"])
def _size(tr, input, dim=None):
    shape = tr.shape(input, "input")
    if dim is None:
        return torch.Size(shape)
    return shape[tr.normalize_axis(dim, len(shape), "dim")]


@OPS.register("getattr", functions=[getattr], methods=["getattr"])
def _getattr(tr, input, name):
    if isinstance(input, Expr):
        if name == "shape":
            return torch.Size(tr.shape(input, "input"))
        if name == "ndim":
            return tr.ndim(input, "input")
        if name == "dtype":
            return getattr(torch, tr.dtype(input))
        raise tr.unsupported(f"tensor attribute '{name}'")
    return getattr(input, name)


@OPS.register("dim", methods=["dim"])
def _dim(tr, input):
    return tr.ndim(input, "input")


def _astype(tr, input, dtype, always=False):
    """``input`` cast to ``dtype``; an explicit cast of the model (``x.float()``,
    ``x.to(dtype)``, ``x.type(dtype)``: ``always``) is an astype even to the same dtype
    (TVM's form), an implicit one only where the dtype changes."""
    dtype = torch_dtype_to_str(dtype)
    if tr.dtype(input) == dtype and not always:
        return input
    return tr.emit(_relax().astype(input, dtype))


@OPS.register("assert_tensor_metadata", aten=["_assert_tensor_metadata.default"])
def _assert_tensor_metadata(tr, input, size=None, stride=None, dtype=None, *, device=None, layout=None):
    """torch.export's run-time metadata check, done here at import time (no value)."""
    if dtype is not None and tr.dtype(input) != torch_dtype_to_str(dtype):
        raise TVMTypeError(f"{tr.node_desc()}: the tensor is {tr.dtype(input)}, the program expects "
                           f"{torch_dtype_to_str(dtype)}")
    if size is not None and list(size) != tr.shape(input):
        raise TVMValueError(f"{tr.node_desc()}: the tensor has shape {tr.shape(input)}, the program expects "
                            f"{list(size)}")
    return None


@OPS.register("float", methods=["float"])
def _float(tr, input, memory_format=None):
    return _astype(tr, input, "float32", always=True)


@OPS.register("half", methods=["half"])
def _half(tr, input, memory_format=None):
    return _astype(tr, input, "float16", always=True)


@OPS.register("to", methods=["to", "type", "astype"], aten=["to.dtype"])
def _to(tr, input, *args, **kwargs):
    """Tensor.to(dtype) / to(device) / to(device, dtype) / to(other): a device move is
    the identity here; only the dtype matters."""
    dtype = kwargs.pop("dtype", None)
    for key in ("device", "non_blocking", "copy", "memory_format", "layout", "pin_memory"):
        kwargs.pop(key, None)
    if kwargs:
        raise TVMTypeError(f"{tr.node_desc()}: unexpected keyword arguments {sorted(kwargs)}")
    like = False  # to(other): other's dtype, cast only where it differs (TVM: no cast)
    for arg in args:
        if isinstance(arg, torch.dtype):
            dtype = arg
        elif isinstance(arg, Expr):
            dtype, like = tr.dtype(arg), True
        elif isinstance(arg, str) and arg.replace("torch.", "") in ("float32", "float16", "int32", "int64"):
            dtype = arg
        elif not isinstance(arg, (str, torch.device, bool)):
            raise TVMTypeError(f"{tr.node_desc()}: unexpected argument {arg!r} to to()")
    return input if dtype is None else _astype(tr, input, dtype, always=not like)


@OPS.register("to_copy", aten=["_to_copy.default"])
def _to_copy(tr, input, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    """An exported program's copy with a dtype: an astype even to the same dtype (TVM's form)."""
    if dtype is None:
        return input
    return tr.emit(_relax().astype(input, torch_dtype_to_str(dtype)))


# --------------------------------------------------------------------------------------
# splitting: chunk, split, unbind
# --------------------------------------------------------------------------------------
def _split_sizes(tr, input, sizes, dim):
    """``input`` cut along ``dim`` into pieces of ``sizes`` (a tuple of tensors); the
    other dims may be symbolic."""
    shape = tr.dims(input, "input")
    axis = tr.normalize_axis(dim, len(shape), "dim")
    _static_extent(tr, input, axis)
    if sum(sizes) != shape[axis] or any(s < 0 for s in sizes):
        raise TVMValueError(f"{tr.node_desc()}: split sizes {sizes} do not sum to dim {dim}'s size {shape[axis]}")
    if len(sizes) == 1:
        return (input,)
    if len(set(sizes)) == 1:  # equal pieces: a number of sections (TVM's form)
        sections = len(sizes)
    else:
        sections = [int(b) for b in np.cumsum(sizes)[:-1]]
    # The tuple bound to one var (TVM's form); getitem on it binds each piece used.
    return tr.emit(_relax().split(input, sections, axis=axis))


def _static_extent(tr, input, axis):
    """The extent of ``axis`` of ``input``, which must be known (not a dynamic dim)."""
    size = tr.dims(input, "input")[axis]
    if not isinstance(size, int):
        raise tr.unsupported(f"splitting along the symbolic dimension {size}")
    return size


@OPS.register("chunk", functions=[torch.chunk], methods=["chunk"], aten=["chunk.default"])
def _chunk(tr, input, chunks, dim=0):
    size = _static_extent(tr, input, tr.normalize_axis(dim, tr.ndim(input), "dim"))
    if chunks <= 0:
        raise TVMValueError(f"{tr.node_desc()}: chunk expects a positive number of chunks, got {chunks}")
    step = -(-size // chunks) if size else 1
    sizes = [min(step, size - i) for i in range(0, size, step)] or [0]
    return _split_sizes(tr, input, sizes, dim)


@OPS.register("split", functions=[torch.split], methods=["split"],
              aten=["split.Tensor", "split_with_sizes.default", "split.sizes"])
def _split(tr, input, split_size_or_sections=None, dim=0, split_size=None, split_sizes=None):
    arg = next(a for a in (split_size_or_sections, split_size, split_sizes) if a is not None)
    if isinstance(arg, int):
        size = _static_extent(tr, input, tr.normalize_axis(dim, tr.ndim(input), "dim"))
        if arg <= 0:
            raise TVMValueError(f"{tr.node_desc()}: split_size must be positive, got {arg}")
        sizes = [min(arg, size - i) for i in range(0, size, arg)] or [0]
    else:
        sizes = [int(s) for s in arg]
    return _split_sizes(tr, input, sizes, dim)


@OPS.register("unbind", functions=[torch.unbind], methods=["unbind"], aten=["unbind.int"])
def _unbind(tr, input, dim=0):
    axis = tr.normalize_axis(dim, tr.ndim(input, "input"), "dim")
    size = tr.shape(input)[axis]
    # TVM's form: split before every index 1..size (the last piece is empty), each piece
    # squeezed, the tuple bound to one var (its users index it).
    parts = tr.emit(_relax().split(input, list(range(1, size + 1)), axis=axis))
    pieces = [tr.emit(_relax().squeeze(tr.emit(TupleGetItem(parts, i)), [axis])) for i in range(size)]
    return tr.emit(RelaxTuple(pieces))


# --------------------------------------------------------------------------------------
# masked_fill, cumsum (embedding is with the other indexing ops above)
# --------------------------------------------------------------------------------------
@OPS.register("masked_fill", methods=["masked_fill", "masked_fill_"],
              aten=["masked_fill.Scalar", "masked_fill.Tensor", "masked_fill_.Scalar"])
def _masked_fill(tr, input, mask, value):
    if tr.dtype(mask, "mask") != "bool":
        raise TVMTypeError(f"{tr.node_desc()}: masked_fill expects a bool mask, got {tr.dtype(mask)}")
    return tr.emit(_relax().where(mask, _cast_to(tr, value, tr.dtype(input)), input))


@OPS.register("cumsum", functions=[torch.cumsum], methods=["cumsum"], aten=["cumsum.default"])
def _cumsum(tr, input, dim, *, dtype=None, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    if dtype is not None:
        dtype = torch_dtype_to_str(dtype)
    elif _is_int_dtype(tr.dtype(input)):
        dtype = "int64"  # torch accumulates integers and bools in int64
    tr.normalize_axis(dim, tr.ndim(input, "input"), "dim")
    return tr.emit(_relax().cumsum(input, axis=int(dim), dtype=dtype))


# --------------------------------------------------------------------------------------
# more activations: clamp, hardtanh / relu6, hardswish, hardsigmoid, leaky_relu, prelu
# --------------------------------------------------------------------------------------
@OPS.register("clamp", functions=[torch.clamp, torch.clip], methods=["clamp", "clip", "clamp_", "clip_"],
              aten=["clamp.default", "clamp.Tensor", "clip.default", "clamp_.default"])
def _clamp(tr, input, min=None, max=None, *, out=None):
    if out is not None:
        raise tr.unsupported("the out= argument")
    if min is None and max is None:
        raise TVMValueError(f"{tr.node_desc()}: clamp needs min or max")
    dtype = tr.dtype(input)
    bounds = [_cast_to(tr, b, dtype) if isinstance(b, Expr) else b for b in (min, max)]
    if _is_int_dtype(dtype) and any(isinstance(b, float) for b in bounds):
        raise tr.unsupported("clamp of an integer tensor with a float bound (torch promotes it to float)")
    if all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds):
        return _clip(tr, input, *bounds)
    return emit_clamp(tr, input, *bounds)


def _clip(tr, input, lo, hi):
    """R.clip with number bounds (TVM's form of clamp / hardtanh)."""
    return tr.emit(_relax().clip(input, lo, hi))


@OPS.register("hardtanh", functions=[F.hardtanh],
              modules={nn.Hardtanh: lambda tr, m: {"min_val": m.min_val, "max_val": m.max_val}},
              aten=["hardtanh.default", "hardtanh_.default"])
def _hardtanh(tr, input, min_val=-1.0, max_val=1.0, inplace=False):
    if _is_int_dtype(tr.dtype(input, "input")):
        return emit_clamp(tr, input, min_val, max_val)
    return _clip(tr, input, float(min_val), float(max_val))


@OPS.register("relu6", functions=[F.relu6], modules={nn.ReLU6: lambda tr, m: {}}, aten=["relu6.default"])
def _relu6(tr, input, inplace=False):
    return _clip(tr, input, 0, 6)


@OPS.register("hardswish", functions=[F.hardswish], modules={nn.Hardswish: lambda tr, m: {}},
              aten=["hardswish.default", "hardswish_.default"])
def _hardswish(tr, input, inplace=False):
    return tr.emit(_relax().multiply(input, _hard_sigmoid(tr, input)))


def _hard_sigmoid(tr, input):
    """clip(x + 3, 0, 6) / 6 (TVM's form)."""
    dtype = tr.dtype(input, "input")
    shifted = tr.emit(_relax().add(input, const(3, dtype)))
    return tr.emit(_relax().divide(_clip(tr, shifted, 0, 6), const(6, dtype)))


@OPS.register("hardsigmoid", functions=[F.hardsigmoid], modules={nn.Hardsigmoid: lambda tr, m: {}},
              aten=["hardsigmoid.default", "hardsigmoid_.default"])
def _hardsigmoid(tr, input, inplace=False):
    return _hard_sigmoid(tr, input)


@OPS.register("leaky_relu", functions=[F.leaky_relu],
              modules={nn.LeakyReLU: lambda tr, m: {"negative_slope": m.negative_slope, "inplace": m.inplace}},
              aten=["leaky_relu.default", "leaky_relu_.default"])
def _leaky_relu(tr, input, negative_slope=0.01, inplace=False):
    return tr.emit(_relax().nn.leakyrelu(input, float(negative_slope)))


@OPS.register("prelu", functions=[F.prelu, torch.prelu], modules={nn.PReLU: lambda tr, m: {"weight": tr.weight(m.weight)}},
              aten=["prelu.default", "_prelu_kernel.default"])
def _prelu(tr, input, weight):
    ndim = tr.ndim(input, "input")
    channels = tr.shape(weight, "weight")[0]
    if channels != 1 and ndim >= 2:
        weight = tr.emit(_relax().reshape(weight, [channels] + [1] * (ndim - 2)))
    return emit_leaky_relu(tr, input, weight)


# --------------------------------------------------------------------------------------
# batched linear algebra, attention
# --------------------------------------------------------------------------------------
@OPS.register("baddbmm", functions=[torch.baddbmm], methods=["baddbmm"], aten=["baddbmm.default"])
def _baddbmm(tr, input, batch1, batch2, *, beta=1, alpha=1):
    product = tr.emit(_relax().matmul(batch1, batch2))
    return _scaled_product_plus(tr, input, product, beta, alpha, bias_first=False)


def _attention_form_fits(tr, query, key, value, attn_mask):
    """Whether R.nn.attention computes this scaled_dot_product_attention: 4-D query, key and
    value (batch, heads, seq, head_dim) of one float dtype, no mask or a float 4-D additive one
    (a bool mask, or one of another rank, takes the decomposed form)."""
    tensors = [query, key, value] + ([attn_mask] if attn_mask is not None else [])
    dtype = tr.dtype(query, "query")
    return (dtype.startswith("float") and all(tr.ndim(t) == 4 and tr.dtype(t) == dtype for t in tensors))


@OPS.register("sdpa", functions=[F.scaled_dot_product_attention], aten=["scaled_dot_product_attention.default"])
def _sdpa(tr, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False):
    if dropout_p:
        raise tr.unsupported("scaled_dot_product_attention with dropout_p > 0")
    if enable_gqa:
        raise tr.unsupported("scaled_dot_product_attention with enable_gqa=True")
    q_shape, k_shape = tr.shape(query, "query"), tr.shape(key, "key")
    dtype = tr.dtype(query)
    if _attention_form_fits(tr, query, key, value, attn_mask):
        # TVM's form: R.nn.attention over (batch, seq, heads, head_dim), the mask as its bias.
        to_bsnh = [0, 2, 1, 3]
        q, k, v = (tr.emit(_relax().permute_dims(t, to_bsnh)) for t in (query, key, value))
        out = tr.emit(_relax().nn.attention(q, k, v, attn_mask, scale=scale,
                                            causal_mask="TopLeft" if is_causal else None))
        return tr.emit(_relax().permute_dims(out, to_bsnh))
    scale = 1.0 / float(np.sqrt(q_shape[-1])) if scale is None else float(scale)
    axes = list(range(len(k_shape)))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    scores = tr.emit(_relax().matmul(query, tr.emit(_relax().permute_dims(key, axes))))
    scores = tr.emit(_relax().multiply(scores, const(np.asarray(scale, dtype), dtype)))
    neg_inf = const(np.asarray(-np.inf, dtype), dtype)
    if is_causal:
        length, kv = q_shape[-2], k_shape[-2]
        causal = np.tril(np.ones((length, kv), dtype=bool))
        scores = tr.emit(_relax().where(const(causal, "bool"), scores, neg_inf))
    if attn_mask is not None:
        if tr.dtype(attn_mask, "attn_mask") == "bool":
            scores = tr.emit(_relax().where(attn_mask, scores, neg_inf))
        else:
            scores = tr.emit(_relax().add(scores, attn_mask))
    weights = emit_softmax(tr, scores, -1)
    return tr.emit(_relax().matmul(weights, value))


# --------------------------------------------------------------------------------------
# conv1d, conv_transpose2d, group_norm, interpolate
# --------------------------------------------------------------------------------------
def _single(value, what, tr):
    value = [value] if isinstance(value, int) else list(value)
    if len(value) != 1:
        raise TVMValueError(f"{tr.node_desc()}: {what} must be an int or a 1-tuple, got {value}")
    return [int(value[0])]


def _conv_nd(tr, nd, input, weight, bias, stride, padding, dilation, groups):
    """An nd-D convolution (1: NCL, 3: NCDHW): per-dim stride / dilation / padding (ints or
    'valid' / 'same'), R.nn.conv1d / conv3d with the bias added per channel."""
    name = f"conv{nd}d"
    if tr.ndim(input, "input") != nd + 2:
        raise tr.unsupported(f"{name} on a rank-{tr.ndim(input)} input (only batched, rank {nd + 2})")
    stride, dilation = _ntuple(stride, nd, "stride", tr), _ntuple(dilation, nd, "dilation", tr)
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise TVMValueError(f"{tr.node_desc()}: padding must be 'valid', 'same' or ints, got {padding!r}")
        totals = [d * (k - 1) if padding == "same" else 0 for d, k in zip(dilation, tr.shape(weight, "weight")[2:])]
        begins, ends = [t // 2 for t in totals], [t - t // 2 for t in totals]
    else:
        begins = ends = _ntuple(padding, nd, "padding", tr)
    return _emit_conv(tr, getattr(_relax().nn, name), input, weight, bias, stride, begins + ends, dilation, groups)


def _ntuple(value, n, what, tr):
    """``n`` per-dim ints from an int, one value or ``n`` values."""
    value = [value] if isinstance(value, int) else [int(v) for v in value]
    if len(value) == 1:
        value = value * n
    if len(value) != n:
        raise TVMValueError(f"{tr.node_desc()}: {what} must be an int or a {n}-tuple, got {value}")
    return value


@OPS.register("conv1d", functions=[F.conv1d, torch.conv1d], modules={nn.Conv1d: _conv_module},
              aten=["conv1d.default", "conv1d.padding"])
def _conv1d(tr, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd(tr, 1, input, weight, bias, stride, padding, dilation, groups)


@OPS.register("conv3d", functions=[F.conv3d, torch.conv3d], modules={nn.Conv3d: _conv_module},
              aten=["conv3d.default", "conv3d.padding"])
def _conv3d(tr, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd(tr, 3, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose_impl(tr, input, weight, bias, stride, padding, output_padding, groups, dilation):
    rank = tr.ndim(input, "input") - 2
    if rank not in (1, 2):
        raise tr.unsupported(f"a {rank}-d transposed convolution (1-d and 2-d are)")
    expand = _single if rank == 1 else _pair
    stride, padding = expand(stride, "stride", tr), expand(padding, "padding", tr)
    output_padding, dilation = expand(output_padding, "output_padding", tr), expand(dilation, "dilation", tr)
    in_spatial, kernel = tr.shape(input)[2:], tr.shape(weight, "weight")[2:]
    out = [(i - 1) * s - 2 * p + d * (k - 1) + op + 1
           for i, s, p, d, k, op in zip(in_spatial, stride, padding, dilation, kernel, output_padding)]
    return emit_conv_transpose(tr, input, weight, bias, stride, dilation, padding, out, groups)


def _conv_transpose_module(tr, module):
    if module.padding_mode != "zeros":
        raise tr.unsupported(f"{type(module).__name__} padding_mode={module.padding_mode!r}")
    return {"weight": tr.weight(module.weight), "bias": _weight_or_none(tr, module.bias), "stride": module.stride,
            "padding": module.padding, "output_padding": module.output_padding, "groups": module.groups,
            "dilation": module.dilation}


@OPS.register("conv_transpose", functions=[F.conv_transpose2d, F.conv_transpose1d],
              modules={nn.ConvTranspose2d: _conv_transpose_module, nn.ConvTranspose1d: _conv_transpose_module},
              aten=["conv_transpose2d.input", "conv_transpose1d.default"])
def _conv_transpose(tr, input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose_impl(tr, input, weight, bias, stride, padding, output_padding, groups, dilation)


def _group_norm_impl(tr, input, num_groups, weight, bias, eps):
    shape = tr.shape(input, "input")
    channels = shape[1]
    if channels % num_groups:
        raise TVMValueError(f"{tr.node_desc()}: {channels} channels do not split into {num_groups} groups")
    dtype = tr.dtype(input, "input")
    weight = weight if weight is not None else const(np.ones(channels, dtype), dtype)
    bias = bias if bias is not None else const(np.zeros(channels, dtype), dtype)
    return tr.emit(_relax().nn.group_norm(input, weight, bias, num_groups=int(num_groups), channel_axis=1,
                                          axes=list(range(2, len(shape))), epsilon=float(eps)))


@OPS.register("native_group_norm", aten=["native_group_norm.default"])
def _native_group_norm(tr, input, weight, bias, N, C, HxW, group, eps):
    out = _group_norm_impl(tr, input, group, weight, bias, eps)
    return (out, NotComputed("the saved mean", tr.node), NotComputed("the saved rstd", tr.node))


@OPS.register("group_norm", functions=[F.group_norm],
              modules={nn.GroupNorm: lambda tr, m: {"num_groups": m.num_groups, "weight": _weight_or_none(tr, m.weight),
                                                    "bias": _weight_or_none(tr, m.bias), "eps": m.eps}},
              aten=["group_norm.default"])
def _group_norm(tr, input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return _group_norm_impl(tr, input, num_groups, weight, bias, eps)


def _interpolate_impl(tr, input, size, scale_factor, mode, align_corners, aten=False):
    shape = tr.shape(input, "input")
    spatial = len(shape) - 2
    if mode not in ("nearest", "bilinear", "linear"):
        raise tr.unsupported(f"interpolate mode={mode!r} (nearest, linear and bilinear are)")
    if size is not None:
        out = [int(v) for v in ([size] * spatial if isinstance(size, int) else size)]
        scales = [o / i for o, i in zip(out, shape[2:])]
    elif scale_factor is not None:
        factors = [float(scale_factor)] * spatial if isinstance(scale_factor, (int, float)) else list(scale_factor)
        out = [int(np.floor(i * f)) for i, f in zip(shape[2:], factors)]
        scales = [float(f) for f in factors]
    else:
        raise TVMValueError(f"{tr.node_desc()}: interpolate needs size or scale_factor")
    coord = "asymmetric" if mode == "nearest" else ("align_corners" if align_corners else "half_pixel")
    if spatial == 2 and all(abs(o / i - f) < 1e-12 for o, i, f in zip(out, shape[2:], scales)):
        # TVM's form R.image.resize2d, whose scale is out / in (here torch's scale_factor too).
        # Nearest is torch's floor; TVM's "round" is the same where every source index is exact.
        # TVM's exported-program form of an integer upsampling, half_pixel, rounds to the same index too.
        exact = all(i % o == 0 for o, i in zip(out, shape[2:]))
        rounding = "round" if mode != "nearest" or exact else "floor"
        if mode == "nearest" and aten and all(o % i == 0 for o, i in zip(out, shape[2:])):
            coord, rounding = "half_pixel", "round"
        return tr.emit(_relax().image.resize2d(
            input, out, layout="NCHW", method="nearest_neighbor" if mode == "nearest" else "linear",
            coordinate_transformation_mode=coord, rounding_method=rounding,
            cubic_alpha=-0.5, cubic_exclude=0, extrapolation_value=0.0))
    return tr.bb.emit_te(resize_te, input, shape[:2] + out, [1.0, 1.0] + scales,
                         "nearest" if mode == "nearest" else "linear", coord, "floor", primfunc_name_hint="resize")


@OPS.register("interpolate", functions=[F.interpolate],
              modules={nn.Upsample: lambda tr, m: {"size": m.size, "scale_factor": m.scale_factor, "mode": m.mode,
                                                   "align_corners": m.align_corners}})
def _interpolate(tr, input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None, antialias=False):
    if antialias:
        raise tr.unsupported("interpolate with antialias=True")
    if recompute_scale_factor and scale_factor is not None:
        size, scale_factor = [int(np.floor(i * f)) for i, f in zip(
            tr.shape(input)[2:], [scale_factor] * (tr.ndim(input) - 2) if isinstance(scale_factor, (int, float))
            else scale_factor)], None
    return _interpolate_impl(tr, input, size, scale_factor, mode, align_corners)


@OPS.register("upsample_nearest", aten=["upsample_nearest2d.vec", "upsample_nearest1d.vec"])
def _upsample_nearest(tr, input, output_size, scale_factors):
    return _interpolate_impl(tr, input, output_size, scale_factors, "nearest", None, aten=True)


@OPS.register("upsample_bilinear", aten=["upsample_bilinear2d.vec"])
def _upsample_bilinear(tr, input, output_size, align_corners, scale_factors):
    return _interpolate_impl(tr, input, output_size, scale_factors, "bilinear", align_corners, aten=True)


# --------------------------------------------------------------------------------------
# logic on bool tensors, constants the decompositions create
# --------------------------------------------------------------------------------------
@OPS.register("logical_not", functions=[torch.logical_not, operator.invert], methods=["logical_not"],
              aten=["logical_not.default", "bitwise_not.default"])
def _logical_not(tr, input):
    if tr.dtype(input) != "bool":
        raise tr.unsupported(f"logical/bitwise not of a {tr.dtype(input)} tensor (bool tensors are)")
    return tr.emit(_relax().equal(input, const(False, "bool")))


def _bool_binary(tr, input, other, name):
    for v in (input, other):
        if not isinstance(v, Expr) or tr.dtype(v) != "bool":
            raise tr.unsupported(f"{name} of non-bool operands (bool tensors are)")
    if name == "and":
        return tr.emit(_relax().where(input, other, const(False, "bool")))
    if name == "or":
        return tr.emit(_relax().where(input, const(True, "bool"), other))
    return tr.emit(_relax().not_equal(input, other))


@OPS.register("logical_and", functions=[torch.logical_and, operator.and_], methods=["logical_and"],
              aten=["logical_and.default", "bitwise_and.Tensor", "__and__.Tensor"])
def _logical_and(tr, input, other):
    return _bool_binary(tr, input, other, "and")


@OPS.register("logical_or", functions=[torch.logical_or, operator.or_], methods=["logical_or"],
              aten=["logical_or.default", "bitwise_or.Tensor", "__or__.Tensor"])
def _logical_or(tr, input, other):
    return _bool_binary(tr, input, other, "or")


def _any_all(tr, input, dim, keepdim, is_any):
    as_int = tr.emit(_relax().astype(input, "int32"))
    reduced = _reduce(tr, _relax().max if is_any else _relax().min, as_int, dim, keepdim, None)
    return tr.emit(_relax().greater(reduced, const(np.asarray(0, "int32"), "int32")))


@OPS.register("any", functions=[torch.any], methods=["any"], aten=["any.dim", "any.default", "any.dims"])
def _any(tr, input, dim=None, keepdim=False, *, out=None):
    return _any_all(tr, input, dim, keepdim, True)


@OPS.register("all", functions=[torch.all], methods=["all"], aten=["all.dim", "all.default", "all.dims"])
def _all(tr, input, dim=None, keepdim=False, *, out=None):
    return _any_all(tr, input, dim, keepdim, False)


@OPS.register("scalar_tensor", aten=["scalar_tensor.default"])
def _scalar_tensor(tr, s, *, dtype=None, layout=None, device=None, pin_memory=None):
    return const(torch.scalar_tensor(s, dtype=dtype).numpy(), torch_dtype_to_str(dtype or torch.get_default_dtype()))


@OPS.register("empty", functions=[torch.empty], aten=["empty.memory_format"])
def _empty(tr, *size, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False,
           memory_format=None, out=None):
    """An uninitialized tensor: R.zeros of the size (TVM's form; any value is valid)."""
    if out is not None:
        raise tr.unsupported("the out= argument")
    shape = _shape_arg(size)
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise TVMValueError(f"{tr.node_desc()}: empty of a negative size {shape}")
    dtype = torch_dtype_to_str(dtype or torch.get_default_dtype())
    return tr.emit(_relax().zeros(shape, dtype))


@OPS.register("full", functions=[torch.full], aten=["full.default"])
def _full(tr, size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    value = torch.full(list(size), fill_value, dtype=dtype)
    return const(value.numpy(), torch_dtype_to_str(value.dtype))


@OPS.register("full_like", functions=[torch.zeros_like, torch.ones_like, torch.full_like],
              aten=["zeros_like.default", "ones_like.default", "full_like.default"])
def _full_like(tr, input, fill_value=None, *, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None, requires_grad=False):
    if fill_value is None:  # zeros_like / ones_like: which one is the node's target
        fill_value = 1 if "ones" in str(getattr(tr.node.target, "__name__", tr.node.target)) else 0
    dtype = torch_dtype_to_str(dtype) if dtype is not None else tr.dtype(input)
    value = np.full(tr.shape(input, "input"), fill_value, dtype="bool" if dtype == "bool" else dtype)
    return const(value, dtype)


# --------------------------------------------------------------------------------------
# fill_ / new_ones (R.full), tile / repeat (R.tile), max / min (binary, full and per-dim
# reductions), cross_entropy (log_softmax + nll_loss): TVM v0.18's forms
# --------------------------------------------------------------------------------------
def _fill_value(tr, value, dtype, what):
    """``value`` (a number or a 0-d tensor) as the 0-d tensor R.full reads; a number is
    converted to ``dtype`` as torch converts it (1.5 into int32 is 1)."""
    if isinstance(value, Expr):
        if tr.ndim(value, what) != 0:
            raise TVMValueError(f"{tr.node_desc()}: {what} must be a number or a 0-d tensor, got a tensor of "
                                f"shape {tr.shape(value)}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TVMTypeError(f"{tr.node_desc()}: {what} must be a number or a 0-d tensor, got {type(value).__name__}")
    return const(torch.tensor(value).to(getattr(torch, dtype)).item(), dtype)


@OPS.register("fill", functions=[torch.fill], methods=["fill_"], aten=["fill.Scalar", "fill.Tensor", "fill_.Scalar",
                                                                        "fill_.Tensor"])
def _fill(tr, input, value):
    dtype = tr.dtype(input, "input")
    return tr.emit(_relax().full(tr.dims(input), _fill_value(tr, value, dtype, "value"), dtype))


@OPS.register("new_ones", methods=["new_ones"], aten=["new_ones.default"])
def _new_ones(tr, input, *size, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    dtype = torch_dtype_to_str(dtype) if dtype is not None else tr.dtype(input, "input")
    shape = _shape_arg(size)
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise TVMValueError(f"{tr.node_desc()}: new_ones of a negative size {shape}")
    return tr.emit(_relax().full(shape, _fill_value(tr, 1, dtype, "1"), dtype))


def _repeats(tr, dims, what):
    dims = _shape_arg(dims)
    if not dims or any(not isinstance(d, int) or d < 0 for d in dims):
        raise TVMValueError(f"{tr.node_desc()}: {what} must be non-negative ints, got {dims}")
    return dims


@OPS.register("tile", functions=[torch.tile], methods=["tile"], aten=["tile.default"])
def _tile(tr, input, *dims):
    """torch.tile: fewer dims than the rank repeat the trailing dimensions (as R.tile)."""
    return tr.emit(_relax().tile(input, _repeats(tr, dims, "dims")))


@OPS.register("repeat", methods=["repeat"], aten=["repeat.default"])
def _repeat(tr, input, *repeats):
    """Tensor.repeat: one count per dimension (more add leading ones), R.tile in TVM's form."""
    repeats = _repeats(tr, repeats, "repeats")
    if len(repeats) < tr.ndim(input, "input"):
        raise TVMValueError(f"{tr.node_desc()}: repeat needs at least one count per dimension ({tr.ndim(input)}), "
                            f"got {repeats}")
    return tr.emit(_relax().tile(input, repeats))


_ValuesIndices = collections.namedtuple("_ValuesIndices", ["values", "indices"])  # torch.return_types.max


def _max_min(tr, name, input, dim_or_other, keepdim, out):
    """torch.max / torch.min: of two tensors elementwise; of one tensor its extremum; with
    an int ``dim`` the (values, indices) pair along it."""
    if out is not None:
        raise tr.unsupported("the out= argument")
    if isinstance(dim_or_other, Expr):
        return _extremum(tr, "maximum" if name == "max" else "minimum", input, dim_or_other)
    if dim_or_other is None:
        if keepdim:
            raise TVMTypeError(f"{tr.node_desc()}: {name}() without dim takes no keepdim")
        return tr.emit(getattr(_relax(), name)(input))
    if isinstance(dim_or_other, bool) or not isinstance(dim_or_other, int):
        raise TVMTypeError(f"{tr.node_desc()}: {name}'s second argument must be a tensor or an int dim, got "
                           f"{type(dim_or_other).__name__}")
    axis = tr.normalize_axis(dim_or_other, tr.ndim(input, "input"), "dim")
    values = tr.emit(getattr(_relax(), name)(input, [axis], bool(keepdim)))
    indices = tr.emit(getattr(_relax(), "arg" + name)(input, axis, bool(keepdim)))
    return _ValuesIndices(values, indices)


@OPS.register("max", functions=[torch.max], methods=["max"], aten=["max.default", "max.dim"])
def _max(tr, input, dim=None, keepdim=False, *, other=None, out=None):
    return _max_min(tr, "max", input, other if other is not None else dim, keepdim, out)


@OPS.register("min", functions=[torch.min], methods=["min"], aten=["min.default", "min.dim"])
def _min(tr, input, dim=None, keepdim=False, *, other=None, out=None):
    return _max_min(tr, "min", input, other if other is not None else dim, keepdim, out)


def _cross_entropy_module(tr, module):
    return {"weight": module.weight, "ignore_index": module.ignore_index, "reduction": module.reduction,
            "label_smoothing": module.label_smoothing}


@OPS.register("cross_entropy", functions=[F.cross_entropy], modules={nn.CrossEntropyLoss: _cross_entropy_module})
def _cross_entropy(tr, input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                   reduction="mean", label_smoothing=0.0):
    """log_softmax over the class dim, then nll_loss (class-index targets)."""
    if size_average is not None or reduce is not None:
        raise tr.unsupported("the deprecated size_average= / reduce= arguments (use reduction=)")
    if label_smoothing != 0.0:
        raise tr.unsupported(f"label_smoothing={label_smoothing} (only 0.0)")
    if reduction not in ("mean", "sum", "none"):
        raise TVMValueError(f"{tr.node_desc()}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if not _is_int_dtype(tr.dtype(target, "target")) or tr.dtype(target) == "bool":
        raise tr.unsupported(f"class-probability targets (a {tr.dtype(target)} target; only class indices)")
    ndim = tr.ndim(input, "input")
    # The class dim is 1 (0 for an unbatched input); TVM writes -1, the same dim up to rank 2.
    logp = tr.emit(_relax().nn.log_softmax(input, axis=-1 if ndim <= 2 else 1))
    if isinstance(weight, torch.Tensor):
        weight = tr.weight(weight)
    return tr.emit(_relax().nn.nll_loss(logp, target, weight, reduction=reduction, ignore_index=int(ignore_index)))



@OPS.register("einsum", functions=[torch.einsum], aten=["einsum.default"])
def _einsum(tr, equation, *operands, path=None):
    """torch.einsum(equation, *operands) or (equation, [operands]): R.einsum (TVM's form)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    if not isinstance(equation, str):
        raise TVMTypeError(f"{tr.node_desc()}: the equation must be a str, got {type(equation).__name__}")
    if "..." in equation:
        raise tr.unsupported(f"einsum with an ellipsis (equation {equation!r})")
    for i, operand in enumerate(operands):
        if not isinstance(operand, Expr):
            raise TVMTypeError(f"{tr.node_desc()}: einsum operand {i} must be a tensor, got {type(operand).__name__}")
    return tr.emit(_relax().einsum(list(operands), equation))


__all__ = []
