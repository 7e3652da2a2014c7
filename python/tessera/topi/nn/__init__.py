"""`tvm.topi.nn`: neural-network operators written in TE (relu, dense, matmul so far;
other names raise NotImplementedError)."""
from .elemwise import relu
from .dense import dense, matmul
from ..._unavailable import missing_attribute

__getattr__ = missing_attribute("topi.nn")
