"""Tensors and operations of tensor expressions (``tvm.te.Tensor``,
``PlaceholderOp``, ``ComputeOp``) and ``ProducerLoad``, the element access
``A[i, j]`` / ``A(i, j)`` that builds compute bodies. Nodes live in C++ (src/te)."""
from .. import _core
from .._ffi.registry import register_object
from ..error import TVMTypeError
from ..ir.base import Node
from ..ir.expr import PrimExpr
from ..tir.expr import PrimExprWithOp, IterVar
from . import _ffi_api


@register_object("tir.ProducerLoad")
class ProducerLoad(PrimExprWithOp):
    """One element ``producer[indices]`` of a tensor, inside a compute body."""

    def __repr__(self):
        return f"{self.producer.name}[{', '.join(str(i) for i in self.indices)}]"

    __str__ = __repr__


@register_object("te.Operation")
class Operation(Node):
    """Base of the operations producing tensors."""

    def output(self, index):
        """The ``index``-th output tensor of this operation."""
        return _ffi_api.OpOutput(self, int(index))

    @property
    def num_outputs(self):
        return 1

    @property
    def input_tensors(self):
        """Tensors this operation reads, first use first."""
        return list(_ffi_api.OpInputTensors(self))


@register_object("te.PlaceholderOp")
class PlaceholderOp(Operation):
    """The operation of ``te.placeholder``."""


@register_object("te.ComputeOp")
class ComputeOp(Operation):
    """The operation of ``te.compute``: ``axis``, ``reduce_axis``, ``body``."""


def _index(i, tensor, pos):
    if isinstance(i, IterVar):
        return i.var
    if isinstance(i, bool) or not isinstance(i, (int, PrimExpr)):
        if isinstance(i, slice):
            raise TVMTypeError(f"tensor {tensor.name}: slicing (index {pos}) is not supported; index with "
                               "integer expressions")
        raise TVMTypeError(f"tensor {tensor.name}: index {pos} must be an integer expression, got "
                           f"{type(i).__name__}")
    return i


@register_object("te.Tensor")
class Tensor(Node):
    """A tensor produced by an operation: ``shape``, ``dtype``, ``op``,
    ``value_index``; ``A[i, j]`` and ``A(i, j)`` read one element."""

    def __call__(self, *indices):
        if len(indices) == 1 and isinstance(indices[0], (list, tuple)):
            indices = tuple(indices[0])
        return _ffi_api.ProducerLoad(self, [_index(i, self, k) for k, i in enumerate(indices)])

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        return self(*indices)

    def __eq__(self, other):
        if not isinstance(other, Tensor):
            return False
        return bool(_ffi_api.TensorEqual(self, other))

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = _core.Object.__hash__

    def __bool__(self):
        return True

    def __len__(self):
        return len(self.shape)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def name(self):
        op = self.op
        return op.name if self.value_index == 0 else f"{op.name}.v{self.value_index}"

    def __repr__(self):
        return f"Tensor(shape={[s for s in self.shape]}, op.name={self.op.name})"


__all__ = ["Tensor", "Operation", "PlaceholderOp", "ComputeOp", "ProducerLoad"]
