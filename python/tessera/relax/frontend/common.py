"""Helpers shared by the Relax frontends (the PyTorch importer in torch/, the ONNX
importer in onnx/): ``detach_params`` (weights kept as function inputs -> a dict),
``GraphEmitter`` (a BlockBuilder with the shape / dtype queries and axis checks every
converter uses, errors naming the node being converted) and the builders of the ops
both importers emit the same way (conv2d + bias, inference batch-norm, layer-norm,
softmax). Nothing here imports PyTorch or onnx."""
import numpy as np

from ...ir.module import IRModule
from ...runtime.ndarray import NDArray
from ...error import OpNotImplemented, TVMIndexError, TVMTypeError, TVMValueError
from ..block_builder import BlockBuilder
from ..expr import Expr, TupleGetItem, const
from ..struct_info import TensorStructInfo
from .. import op as _op


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
    if bias is None:
        return out
    channels = em.shape(bias, "bias")[0]
    return em.emit(_op.add(out, em.emit(_op.reshape(bias, [1, channels, 1, 1]))))


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


__all__ = ["detach_params", "GraphEmitter", "emit_conv2d", "emit_batch_norm", "emit_layer_norm", "emit_softmax"]
