"""``relax.op.vm``: VM-level allocation and calls (src/relax/op/memory.cc)."""
from ...ir.op import Op
from ..expr import Call, Expr, StringImm, Tuple
from .builtin import _dtype, _prim, _shape


def alloc_storage(size, runtime_device_index, dtype, storage_scope="global"):
    return Call(Op.get("relax.vm.alloc_storage"),
                [_shape(size), _prim(runtime_device_index), _dtype(dtype),
                 storage_scope if isinstance(storage_scope, Expr) else StringImm(storage_scope)])


def alloc_tensor(storage, offset, shape, dtype):
    return Call(Op.get("relax.vm.alloc_tensor"), [storage, _prim(offset), _shape(shape), _dtype(dtype)])


def kill_object(obj):
    return Call(Op.get("relax.vm.kill_object"), [obj])


def call_tir_dyn(func, args):
    return Call(Op.get("relax.vm.call_tir_dyn"), [func, args if isinstance(args, Expr) else Tuple(list(args))])


__all__ = ["alloc_storage", "alloc_tensor", "kill_object", "call_tir_dyn"]
