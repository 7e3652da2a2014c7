"""``relax.op.memory``: storage-level allocation (src/relax/op/memory.cc)."""
from ...ir.op import Op
from ..expr import Call, Expr, StringImm
from .builtin import _dtype, _prim, _shape


def alloc_storage(size, virtual_device_index, storage_scope, dtype):
    return Call(Op.get("relax.memory.alloc_storage"),
                [_shape(size), _prim(virtual_device_index),
                 storage_scope if isinstance(storage_scope, Expr) else StringImm(storage_scope), _dtype(dtype)])


def alloc_tensor(storage, offset, shape, dtype):
    return Call(Op.get("relax.memory.alloc_tensor"), [storage, _prim(offset), _shape(shape), _dtype(dtype)])


def kill_storage(storage):
    return Call(Op.get("relax.memory.kill_storage"), [storage])


def kill_tensor(tensor):
    return Call(Op.get("relax.memory.kill_tensor"), [tensor])


__all__ = ["alloc_storage", "alloc_tensor", "kill_storage", "kill_tensor"]
