"""PackedFunc: a callable crossing the C++/Python boundary (``tvm.runtime.PackedFunc``)."""
from .. import _core
from .._ffi.registry import register_object


@register_object("runtime.PackedFunc")
class PackedFunc(_core.PackedFuncBase):
    """A function from the global registry or any C++ function object.

    Call it like a Python function; arguments convert to the runtime's value
    types (int, float, bool, str, NDArray, objects, lists, callables).
    """

    def __repr__(self):
        return f"<PackedFunc {self.name or 'anonymous'}>"

