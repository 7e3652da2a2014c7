"""Values the ONNX importer knows at import time: constants (initializers, Constant
nodes, anything computed from them) and shape values (Shape of a tensor, and the
Gather / Concat / arithmetic chains exporters build on it), whose elements are ints or,
for a symbolic dimension, tir PrimExprs. Shape computations are folded on these, and
a Reshape / Expand / ConstantOfShape given one gets a (possibly symbolic) Relax shape."""
import numpy as np

from ....ir import PrimExpr


class Known:
    """A host-side value: ``array`` is a NumPy array (dtype object when an element is a
    PrimExpr), ``dtype`` the ONNX-side dtype name ('int64', 'float32', ...)."""

    def __init__(self, array, dtype=None):
        array = np.asarray(array) if not isinstance(array, np.ndarray) else array
        self.array = array
        self.dtype = dtype or str(array.dtype)

    @property
    def symbolic(self):
        return self.array.dtype == object and any(isinstance(v, PrimExpr) for v in self.array.reshape(-1))

    @property
    def shape(self):
        return list(self.array.shape)

    def numeric(self):
        """The array with its dtype (only for a value without symbolic elements)."""
        if self.array.dtype == object:
            return np.array(self.array.tolist(), dtype=self.dtype)
        return self.array

    def tolist(self):
        return [v if isinstance(v, PrimExpr) else int(v) for v in self.array.reshape(-1)] \
            if self.dtype.startswith(("int", "uint")) else self.array.reshape(-1).tolist()

    def __repr__(self):
        return f"Known({self.array!r}, {self.dtype})"


def simplify(value):
    """An element: a Python int when a PrimExpr folds to a constant."""
    if isinstance(value, PrimExpr):
        from ....arith import Analyzer  # pylint: disable=import-outside-toplevel
        value = Analyzer().simplify(value)
        if hasattr(value, "value"):
            return int(value.value)
        return value
    if isinstance(value, (np.integer,)):
        return int(value)
    return value


def is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


__all__ = ["Known", "simplify", "is_int"]
