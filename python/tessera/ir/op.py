"""Primitive operators (``tvm.ir.Op``)."""
from .._ffi.registry import register_object
from .expr import RelaxExpr
from . import _ffi_api


@register_object("ir.Op")
class Op(RelaxExpr):
    """A registered primitive operator (``Op.get("tir.exp")``)."""

    @staticmethod
    def get(op_name):
        """The operator named ``op_name``; raises ValueError when unknown."""
        return _ffi_api.GetOp(op_name)

    def get_attr(self, attr_name):
        """Attribute ``attr_name`` of this operator, or None."""
        return _ffi_api.OpGetAttr(self, attr_name)

    def reset_attr(self, attr_name):
        """Removes this operator's attribute ``attr_name``, so that it can be registered anew
        at any level (as TVM's ``Op.reset_attr``)."""
        _ffi_api.OpResetAttr(self, attr_name)

    @staticmethod
    def list_op_names():
        return _ffi_api.ListOpNames()

    def __repr__(self):
        return f'Op("{self.name}")'


def register_op_attr(op_name, attr_key, value=None, level=10):
    """Sets attribute ``attr_key`` of op ``op_name`` to ``value`` (as TVM's
    ``tvm.ir.register_op_attr``); without ``value``, returns a decorator."""
    def _register(v):
        _ffi_api.RegisterOpAttr(op_name, attr_key, v, level)
        return v
    return _register(value) if value is not None else _register


__all__ = ["Op", "register_op_attr"]
