"""``tvm.topi.testing``: NumPy reference implementations that tests compare
compiled operators against (one file per operator family)."""
from .strided_slice_python import strided_slice_python, strided_set_python

__all__ = ["strided_slice_python", "strided_set_python"]
