"""Tensor-creation Relax ops: ``relax.op.zeros`` / ``relax.op.ones``
(registered in src/relax/op/create.cc) and their legalization to a constant
``te.compute`` over the result's shape."""
from ...ir.op import Op
from ...error import TVMTypeError
from ..expr import Call
from ._legalize_registry import register_legalize
from ._op_attrs import make_attrs
from .manipulate import _shape_arg


def _filled(op_name, shape, dtype):
    if dtype is None:
        raise TVMTypeError(f"{op_name}: attribute 'dtype' is required")
    return Call(Op.get(op_name), [_shape_arg(op_name, shape)], make_attrs(op_name, dtype=str(dtype)))


def zeros(shape, dtype):
    """A tensor of ``shape`` (a list of dims, a ShapeExpr or a shape var) and ``dtype`` filled with 0."""
    return _filled("relax.zeros", shape, dtype)


def ones(shape, dtype):
    """A tensor of ``shape`` (a list of dims, a ShapeExpr or a shape var) and ``dtype`` filled with 1."""
    return _filled("relax.ones", shape, dtype)


def _legalize_filled(value, name):
    def legalize(bb, call):
        from ... import te, tir  # pylint: disable=import-outside-toplevel

        dtype = call.struct_info.dtype

        def fill(shape):
            return te.compute(shape, lambda *i: tir.const(value, dtype), name=f"T_{name}")

        return bb.call_te(fill, list(call.struct_info.shape.values), primfunc_name_hint=name)
    return legalize


register_legalize("relax.zeros")(_legalize_filled(0, "zeros"))
register_legalize("relax.ones")(_legalize_filled(1, "ones"))


__all__ = ["zeros", "ones"]
