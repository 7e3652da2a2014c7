"""`tvm.topi`: tensor operators written in tensor expressions (tvm.te), one
file per operator family. Delivered so far: broadcast arithmetic, transpose,
nn.relu, nn.dense, nn.matmul; the rest of TVM's TOPI is not implemented yet."""
from .broadcast import add, subtract, multiply, divide, maximum, minimum
from .transform import transpose
from . import nn
from .._unavailable import missing_attribute

__getattr__ = missing_attribute("topi")
