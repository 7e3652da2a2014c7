"""``relax.op.builtin``: allocation builtins (src/relax/op/memory.cc)."""
from ...ir.op import Op
from ..expr import Call, DataTypeImm, PrimValue, ShapeExpr, StringImm, Expr


def _shape(shape):
    return shape if isinstance(shape, Expr) else ShapeExpr(list(shape))


def _prim(value):
    return value if isinstance(value, Expr) else PrimValue(value)


def _dtype(dtype):
    return dtype if isinstance(dtype, Expr) else DataTypeImm(dtype)


def alloc_tensor(shape, dtype, runtime_device_index, storage_scope=None):
    """A new tensor (impure)."""
    args = [_shape(shape), _dtype(dtype), _prim(runtime_device_index)]
    if storage_scope is not None:
        args.append(storage_scope if isinstance(storage_scope, Expr) else StringImm(storage_scope))
    return Call(Op.get("relax.builtin.alloc_tensor"), args)


__all__ = ["alloc_tensor"]
