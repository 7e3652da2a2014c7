"""`tvm.topi`: tensor operators written in tensor expressions (tvm.te), one
file per operator family. Delivered so far: broadcast arithmetic (with power,
floor_divide, left/right shifts) and comparisons, where, unary math, clip, cast,
sum/max/min/prod/mean, argmax/argmin, transpose, reshape, expand_dims,
squeeze, broadcast_to, concatenate, take, split, strided_slice, matmul (NumPy
broadcasting), nn.relu, nn.dense, nn.matmul; the rest of TVM's TOPI is not
implemented yet."""
from .broadcast import (add, subtract, multiply, divide, maximum, minimum, power, floor_divide, equal, not_equal,
                        less, less_equal, greater, greater_equal, where, left_shift, right_shift, bitwise_and,
                        bitwise_or, bitwise_xor, logical_and, logical_or, logical_xor)
from .elemwise import exp, log, sqrt, rsqrt, tanh, sigmoid, erf, abs, negative, clip, cast
from .scan import cumsum, cumprod
from .trilu import trilu
from .elemwise import (ceil, floor, round, trunc, sign, square, isnan, isinf, isfinite,  # pylint: disable=redefined-builtin
                       bitwise_not, logical_not)
from .elemwise import sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh
from .reduction import sum, max, min, prod, mean, argmax, argmin
from .transform import transpose, reshape, expand_dims, squeeze, broadcast_to, concatenate, take, split, strided_slice
from .matmul import matmul
from .matmul_packed import matmul_panel_width, matmul_pack_weight, matmul_packed
from . import nn
from .._unavailable import missing_attribute

__getattr__ = missing_attribute("topi")
