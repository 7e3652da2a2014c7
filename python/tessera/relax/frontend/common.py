"""Helpers shared by the Relax frontends (the PyTorch importer in torch/, the ONNX
importer in onnx/): ``detach_params`` (weights kept as function inputs -> a dict),
``GraphEmitter`` (a BlockBuilder with the shape / dtype queries and axis checks every
converter uses, errors naming the node being converted) and the builders of the ops
both importers emit the same way (conv2d + bias, inference batch-norm, layer-norm,
softmax). Nothing here imports PyTorch or onnx."""
import numpy as np

from ... import te, tir
from ...ir.module import IRModule
from ...runtime.ndarray import NDArray
from ...error import OpNotImplemented, TVMIndexError, TVMTypeError, TVMValueError
from ..block_builder import BlockBuilder
from ..expr import Expr, TupleGetItem, const
from ..struct_info import TensorStructInfo
from .. import op as _op
from ...topi.image import resize_te  # noqa: F401  (re-exported for the importers)


def detach_params(mod):
    """Returns ``(detached_mod, params)``: ``detached_mod`` is ``mod`` with the
    "params" attribute removed from its functions, ``params`` maps the name of
    each function that had one to its list of NDArrays (in the order of the
    function's weight parameters, which follow its ``num_input`` inputs)."""
    if not isinstance(mod, IRModule):
        raise TVMTypeError(f"detach_params: expected an IRModule, got {type(mod).__name__}")
    detached = IRModule(attrs=mod.attrs)
    params = {}
    for gvar, func in mod.functions_items():
        if "params" in func.attrs:
            values = list(func.attrs["params"])
            for i, value in enumerate(values):
                if not isinstance(value, NDArray):
                    raise TVMValueError(f"detach_params: function {gvar.name_hint!r}: its \"params\" attribute must "
                                        f"be a list of NDArrays, element {i} is a {type(value).__name__}")
            params[gvar.name_hint] = values
            func = func.without_attr("params")
        detached[gvar] = func
    return detached, params


class GraphEmitter:
    """The BlockBuilder of one import plus the queries converters ask of their operands.
    Subclasses say which node is being converted (``node_desc``) and which importer
    refuses (``importer_name``); every error names that node."""

    importer_name = "the importer"

    def __init__(self):
        self.bb = BlockBuilder()

    def node_desc(self, node=None):  # pylint: disable=unused-argument
        return "<no node>"

    def unsupported(self, what):
        """OpNotImplemented naming ``what`` and the current node."""
        return OpNotImplemented(f"{what} is not supported by {self.importer_name} ({self.node_desc()})")

    def emit(self, expr):
        return self.bb.emit(expr)

    def sinfo(self, x, what="operand"):
        if not isinstance(x, Expr):
            raise TVMTypeError(f"{self.node_desc()}: {what} must be a tensor, got {type(x).__name__}")
        return x.struct_info

    def dims(self, x, what="operand"):
        """The shape of tensor ``x``: Python ints for known dims, tir PrimExprs for symbolic ones."""
        sinfo = self.sinfo(x, what)
        if not isinstance(sinfo, TensorStructInfo) or sinfo.shape is None:
            raise TVMTypeError(f"{self.node_desc()}: {what} must be a tensor of known rank and shape, got {sinfo}")
        return [int(d.value) if hasattr(d, "value") else d for d in sinfo.shape.values]

    def shape(self, x, what="operand"):
        """The static shape of tensor ``x`` as Python ints (a symbolic dim is refused)."""
        dims = self.dims(x, what)
        for dim in dims:
            if not isinstance(dim, int):
                raise self.unsupported(f"the symbolic dimension {dim} of {what}")
        return dims

    def ndim(self, x, what="operand"):
        return len(self.dims(x, what))

    def dtype(self, x, what="operand"):
        sinfo = self.sinfo(x, what)
        if not isinstance(sinfo, TensorStructInfo):
            raise TVMTypeError(f"{self.node_desc()}: {what} must be a tensor, got {sinfo}")
        return str(sinfo.dtype)

    def normalize_axis(self, axis, ndim, what="dim"):
        if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
            raise TVMTypeError(f"{self.node_desc()}: {what} must be an int, got {axis!r}")
        if not -ndim <= axis < max(ndim, 1):
            raise TVMIndexError(f"{self.node_desc()}: {what}={axis} is out of range for a tensor of rank {ndim}")
        return int(axis) % max(ndim, 1)


# ----------------------------------------------------------------------------------------
# builders: the Relax form of ops that more than one frontend imports
# ----------------------------------------------------------------------------------------
def emit_conv2d(em, data, weight, bias, strides, padding, dilation, groups):
    """NCHW conv2d (``padding`` as [top, left, bottom, right]) plus a per-channel bias."""
    out = em.emit(_op.nn.conv2d(data, weight, strides=list(strides), padding=list(padding),
                                dilation=list(dilation), groups=int(groups)))
    return add_channel_bias(em, out, bias)


def emit_batch_norm(em, data, gamma, beta, mean, var, epsilon, axis=1):
    """Inference batch-norm (running statistics); a missing scale / shift is 1 / 0."""
    dtype = em.dtype(data, "input")
    channels = em.shape(mean, "running mean")[0]
    gamma = gamma if gamma is not None else const(np.ones(channels, dtype), dtype)
    beta = beta if beta is not None else const(np.zeros(channels, dtype), dtype)
    result = em.emit(_op.nn.batch_norm(data, gamma, beta, mean, var, axis=axis, epsilon=float(epsilon)))
    return em.emit(TupleGetItem(result, 0))


def emit_layer_norm(em, data, gamma, beta, begin_axis, epsilon):
    """Layer-norm over the axes from ``begin_axis`` to the last; a missing scale / shift is 1 / 0."""
    dims = em.dims(data, "input")
    axes = list(range(begin_axis, len(dims)))
    norm_shape = dims[begin_axis:]
    dtype = em.dtype(data, "input")
    if gamma is None or beta is None:
        if any(not isinstance(d, int) for d in norm_shape):
            raise em.unsupported("layer-norm without scale or bias over a symbolic dimension")
        gamma = gamma if gamma is not None else const(np.ones(norm_shape, dtype), dtype)
        beta = beta if beta is not None else const(np.zeros(norm_shape, dtype), dtype)
    return em.emit(_op.nn.layer_norm(data, gamma, beta, axes=axes, epsilon=float(epsilon)))


def emit_softmax(em, data, axis, log=False):
    """softmax or log_softmax of ``data`` along ``axis`` (normalized against its rank)."""
    axis = em.normalize_axis(axis, em.ndim(data, "input"), "axis")
    return em.emit((_op.nn.log_softmax if log else _op.nn.softmax)(data, axis=axis))


def add_channel_bias(em, out, bias):
    """``out`` (N, C, spatial...) plus a per-channel ``bias`` (None: ``out`` itself)."""
    if bias is None:
        return out
    rank = em.ndim(out) - 2
    return em.emit(_op.add(out, em.emit(_op.reshape(bias, [1, em.shape(bias, "bias")[0]] + [1] * rank))))


def emit_conv(em, data, weight, bias, strides, begins, ends, dilation, groups):
    """N-d convolution, NC<spatial>: 2-d through R.nn.conv2d, 1-d as 2-d over a unit
    width, higher ranks as a TE kernel; ``begins`` / ``ends`` pad each spatial axis."""
    rank = em.ndim(data, "input") - 2
    if rank == 2:
        return emit_conv2d(em, data, weight, bias, strides, list(begins) + list(ends), dilation, groups)
    if rank > 2:
        kernel = em.shape(weight, "weight")[2:]
        out = [(i + b + e - (k - 1) * d - 1) // s + 1
               for i, k, s, d, b, e in zip(em.shape(data, "input")[2:], kernel, strides, dilation, begins, ends)]
        y = em.bb.emit_te(conv_nd_te, data, weight, list(strides), list(dilation), list(begins), out, int(groups),
                          primfunc_name_hint="conv_nd")
        return add_channel_bias(em, y, bias)
    data, weight = em.emit(_op.expand_dims(data, 3)), em.emit(_op.expand_dims(weight, 3))
    out = emit_conv2d(em, data, weight, bias, list(strides) + [1], [begins[0], 0, ends[0], 0],
                      list(dilation) + [1], groups)
    return em.emit(_op.squeeze(out, [3]))


def _scalar(value, dtype):
    return const(np.asarray(value, dtype=dtype), dtype)


def emit_clamp(em, x, lo, hi):
    """``x`` clamped to [lo, hi]; a bound is a Relax Expr, a number or None."""
    dtype = em.dtype(x)
    if lo is not None:
        x = em.emit(_op.maximum(x, lo if isinstance(lo, Expr) else _scalar(lo, dtype)))
    if hi is not None:
        x = em.emit(_op.minimum(x, hi if isinstance(hi, Expr) else _scalar(hi, dtype)))
    return x


def emit_leaky_relu(em, x, slope):
    """``x`` where x >= 0, else ``x * slope`` (a number, or a tensor broadcasting against x: PReLU)."""
    dtype = em.dtype(x)
    scaled = em.emit(_op.multiply(x, slope if isinstance(slope, Expr) else _scalar(slope, dtype)))
    return em.emit(_op.where(em.emit(_op.less(x, _scalar(0, dtype))), scaled, x))


def emit_hard_sigmoid(em, x, alpha=1.0 / 6, beta=0.5):
    """clamp(alpha * x + beta, 0, 1)."""
    dtype = em.dtype(x)
    y = em.emit(_op.add(em.emit(_op.multiply(x, _scalar(alpha, dtype))), _scalar(beta, dtype)))
    return emit_clamp(em, y, 0, 1)


def emit_hard_swish(em, x):
    return em.emit(_op.multiply(x, emit_hard_sigmoid(em, x)))


# ----------------------------------------------------------------------------------------
# TE kernels for ops Relax has no operator for (emitted with bb.emit_te)
# ----------------------------------------------------------------------------------------
def _window_axes(weight, cin_g):
    """The reduce axes of a grouped convolution: input channel within the group, then
    one per kernel dim."""
    return (te.reduce_axis((0, cin_g), name="ric"),
            [te.reduce_axis((0, int(k)), name=f"k{i}") for i, k in enumerate(weight.shape[2:])])


def conv_nd_te(data, weight, strides, dilations, begins, out_spatial, groups):
    """N-d grouped convolution, NC<spatial> (for ranks R.nn has no operator for)."""
    cout, cin_g = int(weight.shape[0]), int(weight.shape[1])
    cout_g = cout // groups
    in_spatial = [int(d) for d in data.shape[2:]]
    ric, ks = _window_axes(weight, cin_g)

    def compute(n, oc, *pos):
        ic = tir.floordiv(oc, cout_g) * cin_g + ric.var
        conds, idx = [], []
        for p, k, s, d, b, size in zip(pos, ks, strides, dilations, begins, in_spatial):
            i = p * s + k.var * d - b
            conds += [i >= 0, i < size]
            idx.append(tir.max(tir.min(i, size - 1), 0))
        value = data[(n, ic, *idx)] * weight[(oc, ric.var, *[k.var for k in ks])]
        return te.sum(tir.if_then_else(tir.all(*conds), value, tir.const(0, data.dtype)), axis=[ric] + ks)

    return te.compute([data.shape[0], cout] + list(out_spatial), compute, name="conv_nd")


def conv_transpose_te(data, weight, strides, dilations, begins, out_spatial, groups):
    """N-d transposed convolution, NC<spatial>; ``weight`` is (C_in, C_out / groups, k...),
    ``begins`` the padding removed before each spatial axis."""
    cout_g = int(weight.shape[1])
    cin_g = int(weight.shape[0]) // groups
    in_spatial = list(data.shape[2:])
    ric, ks = _window_axes(weight, cin_g)

    def compute(n, oc, *pos):
        ic = tir.floordiv(oc, cout_g) * cin_g + ric.var
        conds, idx = [], []
        for p, k, s, d, b, size in zip(pos, ks, strides, dilations, begins, in_spatial):
            num = p + b - k.var * d
            conds += [num >= 0, tir.floormod(num, s) == 0, tir.floordiv(num, s) < size]
            idx.append(tir.max(tir.min(tir.floordiv(num, s), size - 1), 0))
        value = data[(n, ic, *idx)] * weight[(ic, tir.floormod(oc, cout_g), *[k.var for k in ks])]
        return te.sum(tir.if_then_else(tir.all(*conds), value, tir.const(0, data.dtype)), axis=[ric] + ks)

    return te.compute([data.shape[0], cout_g * groups] + list(out_spatial), compute, name="conv_transpose")


def emit_conv_transpose(em, data, weight, bias, strides, dilations, begins, out_spatial, groups):
    out = em.bb.emit_te(conv_transpose_te, data, weight, list(strides), list(dilations), list(begins),
                        list(out_spatial), int(groups), primfunc_name_hint="conv_transpose")
    return add_channel_bias(em, out, bias)


def cumsum_te(data, axis, exclusive, reverse):
    """Inclusive / exclusive, forward / reverse running sum along ``axis``."""
    n = data.shape[axis]
    j = te.reduce_axis((0, n), name="j")

    def compute(*idx):
        i = idx[axis]
        if reverse:
            keep = (j.var > i) if exclusive else (j.var >= i)
        else:
            keep = (j.var < i) if exclusive else (j.var <= i)
        src = tuple(j.var if d == axis else v for d, v in enumerate(idx))
        return te.sum(tir.if_then_else(keep, data[src], tir.const(0, data.dtype)), axis=j)
    return te.compute(data.shape, compute, name="cumsum")


__all__ = ["detach_params", "GraphEmitter", "emit_conv2d", "emit_conv", "add_channel_bias", "conv_nd_te", "emit_batch_norm", "emit_layer_norm",
           "emit_softmax", "emit_clamp", "emit_leaky_relu", "emit_hard_sigmoid", "emit_hard_swish",
           "emit_conv_transpose", "conv_transpose_te", "cumsum_te", "resize_te"]
