"""IR types beyond dtypes (``tvm.ir.PrimType``, ``tvm.ir.PointerType``): a handle
variable's ``type_annotation`` names the element dtype and the storage scope of
the memory it points to (``T.handle("float32", "shared")``)."""
from .._ffi.registry import register_object, get_global_func
from .base import Node


@register_object("PrimType")
class PrimType(Node):
    """The type of a scalar or vector value of ``dtype``."""

    def __init__(self, dtype):
        self.__init_handle_by_constructor__(get_global_func("ir.PrimType"), dtype)


@register_object("PointerType")
class PointerType(Node):
    """A pointer to ``element_type`` (a PrimType) in ``storage_scope``."""

    def __init__(self, element_type, storage_scope="global"):
        self.__init_handle_by_constructor__(get_global_func("ir.PointerType"), element_type, storage_scope)


__all__ = ["PrimType", "PointerType"]


def _relax_type_text(ty):
    """A type in TVMScript's Relax form (``R.Shape(ndim=3)``, ``R.Tuple(...)``, ``R.Callable(...)``)."""
    key = ty.type_key
    if key == "relax.ObjectType":
        return "R.Object"
    if key == "relax.PackedFuncType":
        return "R.PackedFunc"
    if key == "relax.ShapeType":
        return f"R.Shape(ndim={int(ty.ndim)})"
    if key == "relax.DynTensorType":
        dtype = str(ty.dtype)
        return f'R.Tensor(ndim={int(ty.ndim)}, dtype="{"" if dtype == "void" else dtype}")'
    if key == "TupleType":
        return "R.Tuple(" + ", ".join(_relax_type_text(f) for f in ty.fields) + ")"
    if key == "FuncType":
        params = ", ".join(_relax_type_text(a) for a in ty.arg_types)
        return f"R.Callable(({params}), {_relax_type_text(ty.ret_type)})"
    from ..error import TVMTypeError  # pylint: disable=import-outside-toplevel
    raise TVMTypeError(f"no TVMScript Relax form for a {key}")


class Type(Node):
    """Base of the types that compare (and hash) structurally, as TVM's ``ir.Type``:
    TupleType, FuncType and the relax types (relax/ty.py), which print in
    TVMScript's Relax form."""

    def _relax_script(self, **kwargs):
        from .base import _check_script_options  # pylint: disable=import-outside-toplevel
        _check_script_options(kwargs, self)
        return _relax_type_text(self)

    def script(self, **kwargs):
        if self.type_key.startswith("relax."):
            return self._relax_script(**kwargs)
        return super().script(**kwargs)

    def __eq__(self, other):
        from .structural import structural_equal  # pylint: disable=import-outside-toplevel
        return isinstance(other, Node) and bool(structural_equal(self, other))

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        from .structural import structural_hash  # pylint: disable=import-outside-toplevel
        return int(structural_hash(self))


@register_object("TupleType")
class TupleType(Type):
    """The type of a tuple of ``fields`` (types)."""

    def __init__(self, fields):
        self.__init_handle_by_constructor__(get_global_func("ir.TupleType"), list(fields))


@register_object("FuncType")
class FuncType(Type):
    """The type of a function from ``arg_types`` to ``ret_type``."""

    def __init__(self, arg_types, ret_type):
        self.__init_handle_by_constructor__(get_global_func("ir.FuncType"), list(arg_types), ret_type)


__all__ += ["Type", "TupleType", "FuncType"]
