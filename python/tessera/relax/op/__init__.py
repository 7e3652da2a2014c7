"""``tvm.relax.op``: Relax operators. The core ops (call_tir, call_dps_packed,
call_pure_packed, shape_of, null_value, print) and the allocation families
(builtin, memory, vm) are here, with the elementwise ops (binary.py, unary.py:
add, log, ...); the other tensor operators (matmul, nn.*...) raise
NotImplementedError until they are registered."""
from . import builtin, memory, vm
from . import nn
from . import image
from .binary import add, subtract, multiply, divide, maximum, minimum, floor_divide, power
from .binary import bitwise_and, bitwise_or, bitwise_xor, logical_and, logical_or, logical_xor
from .unary import exp, log, sqrt, rsqrt, tanh, sigmoid, negative, abs  # pylint: disable=redefined-builtin
from .unary import sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, clip
from .unary import (ceil, floor, round, trunc, sign, square, erf, isnan, isinf, isfinite,  # pylint: disable=redefined-builtin
                    bitwise_not, logical_not)
from .linear_algebra import matmul, linear
from .einsum import einsum
from .manipulate import permute_dims, reshape, expand_dims, squeeze, concat, split, flatten, broadcast_to
from .replicate import tile, repeat, flip
from .collapse_sum import collapse_sum_like, collapse_sum_to
from .index import take, strided_slice
from .datatype import astype
from .create import zeros, ones, full
from .ternary import ewise_fma
from .comparison import equal, not_equal, less, less_equal, greater, greater_equal
from .search import where, argmax, argmin
from .statistical import sum, mean, max, min, prod, cumsum, cumprod  # pylint: disable=redefined-builtin
from .create import tril, triu, arange
from .base import call_tir, call_dps_packed, call_pure_packed, shape_of, null_value, print, assert_op  # pylint: disable=redefined-builtin
from ...error import OpNotImplemented


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise OpNotImplemented(f"tessera.relax.op.{name} is not implemented yet (Relax tensor operators come with "
                              "the frontends issue [E])")
