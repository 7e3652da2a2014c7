"""Argument information of a tuned PrimFunc (``tvm.meta_schedule.arg_info``): the
shape and dtype of each buffer parameter, stored with tuning records and used to
make the random inputs a candidate is measured and checked on."""
from ..tir import PrimFunc
from ..error import TVMTypeError, TVMValueError


class ArgInfo:
    @staticmethod
    def from_prim_func(func):
        if not isinstance(func, PrimFunc):
            raise TVMTypeError(f"ArgInfo.from_prim_func expects a PrimFunc, got {type(func).__name__}")
        out = []
        for param in func.params:
            if param not in func.buffer_map:
                raise TVMValueError(f"parameter {param.name} of the tuned PrimFunc is not a buffer; "
                                    "only buffer parameters can be tuned")
            buf = func.buffer_map[param]
            try:
                shape = [int(s) for s in buf.shape]
            except (TypeError, ValueError):
                raise TVMValueError(f"buffer {buf.name} has a symbolic shape {list(buf.shape)}; "
                                    "tuning needs static shapes") from None
            out.append(TensorInfo(str(buf.dtype), shape))
        return out

    @staticmethod
    def from_entry_func(mod, remove_preproc=True):
        return ArgInfo.from_prim_func(mod["main"])

    @staticmethod
    def from_json(obj):
        kind, dtype, shape = obj
        if kind != "TENSOR":
            raise TVMValueError(f"unknown ArgInfo kind {kind!r}")
        return TensorInfo(dtype, shape)


class TensorInfo(ArgInfo):
    def __init__(self, dtype, shape):
        self.dtype = str(dtype)
        self.shape = [int(s) for s in shape]

    def as_json(self):
        return ["TENSOR", self.dtype, self.shape]

    def __eq__(self, other):
        return isinstance(other, TensorInfo) and (self.dtype, self.shape) == (other.dtype, other.shape)

    def __repr__(self):
        return f'Tensor("{self.dtype}", {self.shape})'


__all__ = ["ArgInfo", "TensorInfo"]
