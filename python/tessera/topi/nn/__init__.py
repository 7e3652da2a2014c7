"""`tvm.topi.nn`: neural-network operators written in TE (relu, silu, gelu, softmax,
log_softmax, dense, matmul, layer_norm, flatten so far;
other names raise NotImplementedError)."""
from .elemwise import relu, silu, gelu
from .softmax import softmax, log_softmax
from .dense import dense, matmul
from .layer_norm import layer_norm, flatten
from ..._unavailable import missing_attribute

__getattr__ = missing_attribute("topi.nn")
