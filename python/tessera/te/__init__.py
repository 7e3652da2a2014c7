"""`tvm.te`: tensor expressions. Declare inputs with ``placeholder``, define
tensors elementwise with ``compute`` (reductions with ``sum``/``max``/``min``
over ``reduce_axis``), and lower them to TensorIR with ``create_prim_func``.
Core nodes live in C++ (src/te)."""
from ..tir.op import (const, if_then_else, all, any, exp, log, sqrt, rsqrt, tanh, sigmoid, erf,  # noqa: F401
                      abs, floor, ceil, round, power, sin, cos, exp2, log2, log10, nearbyint, trunc, isnan, fabs, floordiv, floormod, truncdiv, truncmod, div)
from .tensor import Tensor, Operation, PlaceholderOp, ComputeOp, ProducerLoad
from .reduction import CommReducer, Reduce, comm_reducer, sum, min, max
from .operation import placeholder, compute, reduce_axis, var, size_var, create_prim_func
from ..tir.index_map import IndexMap as _IndexMap

AXIS_SEPARATOR = _IndexMap.AXIS_SEPARATOR
