"""Runtime containers (``tvm.runtime.container``): ``ShapeTuple``, the
value of a Relax shape (``R.Shape``) in the virtual machine, and ``AttrMap``,
the Python form of a string-keyed Map (call and function attrs)."""
from .._ffi.registry import register_object, get_global_func
from .object import Object


@register_object("runtime.ShapeTuple")
class ShapeTuple(Object):
    """An immutable tuple of int64 dimensions; compares equal to a Python
    tuple or list of the same integers."""

    def __init__(self, shape):
        dims = [int(d) for d in shape]
        self.__init_handle_by_constructor__(get_global_func("runtime.ShapeTuple"), *dims)

    def __len__(self):
        return get_global_func("runtime.GetShapeTupleSize")(self)

    def __getitem__(self, idx):
        dims = self._dims()
        return dims[idx]

    def __iter__(self):
        return iter(self._dims())

    def _dims(self):
        return tuple(get_global_func("runtime.ShapeTupleToList")(self))

    def __eq__(self, other):
        if isinstance(other, ShapeTuple):
            return self._dims() == other._dims()
        if isinstance(other, (tuple, list)):
            return self._dims() == tuple(other)
        return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._dims())

    def __repr__(self):
        return repr(self._dims())


class AttrMap(dict):
    """A string-keyed Map from C++ (a Relax call's or a function's attrs): a
    dict whose keys also read as attributes, ``call.attrs.axes``, as TVM's
    Attrs objects do. A missing name raises AttributeError naming it."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"attrs have no field {name!r} (fields: {', '.join(sorted(self)) or 'none'})") \
                from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self))


__all__ = ["ShapeTuple", "AttrMap"]
