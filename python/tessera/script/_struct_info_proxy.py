"""``R.Tensor``, ``R.Shape``, ``R.Tuple``, ``R.Object``, ``R.Prim`` and
``R.Callable`` as Python values (TVM's StructInfoProxy): in a TVMScript
annotation the C++ parser reads the source text, and Python only evaluates the
call when it defines the function, so a proxy just records its arguments and
never fails there. Used in plain Python (``relax.Var("x", R.Tensor((2, 3),
"float32"))``) it becomes the struct info it describes: ``as_struct_info()``,
``asobject()`` (the FFI's conversion hook), and every Relax constructor that
takes a struct info accepts a proxy (relax.struct_info.as_struct_info)."""


class StructInfoProxy:
    """Base of the proxies: ``as_struct_info(dict_globals=None)`` builds the
    StructInfo; string dimensions ("n") are only allowed while parsing."""

    def as_struct_info(self, dict_globals=None):
        from ..error import OpNotImplemented  # pylint: disable=import-outside-toplevel
        raise OpNotImplemented(f"{type(self).__name__}.as_struct_info")

    def get_symbolic_vars(self):
        """Names of the symbolic dimensions written as strings."""
        return set()

    def asobject(self):
        return self.as_struct_info(None)

    def __repr__(self):
        try:
            return f"{type(self).__name__}({self.as_struct_info()!r})"
        except Exception:  # noqa: BLE001 - a repr never raises
            return f"<{type(self).__name__}>"


def _struct_info_of(value, what):
    """A StructInfo from a StructInfo, a proxy, or an uncalled proxy maker
    (``R.Object`` / ``R.Tensor`` written without parentheses)."""
    from ..relax.struct_info import StructInfo  # pylint: disable=import-outside-toplevel
    from ..error import TVMTypeError  # pylint: disable=import-outside-toplevel

    if isinstance(value, StructInfo):
        return value
    if isinstance(value, StructInfoProxy):
        return value.as_struct_info()
    if callable(value) and getattr(value, "__tessera_struct_info_maker__", False):
        return value().as_struct_info()
    raise TVMTypeError(f"{what} must be a struct info (e.g. R.Tensor((2, 3), \"float32\")), got "
                       f"{type(value).__name__}")


def _eval_dim(dim, dict_globals, what):
    from ..error import TVMValueError  # pylint: disable=import-outside-toplevel

    if isinstance(dim, str):
        if dict_globals is None:
            raise TVMValueError(f"{what}: a dimension written as a string ({dim!r}) is only allowed in TVMScript "
                                "annotations; in Python use a tvm.tir.Var")
        return eval(compile(dim, "<string>", "eval"), dict(dict_globals))  # pylint: disable=eval-used
    return dim


class ObjectProxy(StructInfoProxy):
    def as_struct_info(self, dict_globals=None):
        from ..relax.struct_info import ObjectStructInfo  # pylint: disable=import-outside-toplevel
        return ObjectStructInfo()


class TensorProxy(StructInfoProxy):
    def __init__(self, shape=None, dtype=None, vdevice=None, ndim=-1):
        self.shape, self.dtype, self.vdevice, self.ndim = shape, dtype, vdevice, ndim

    def get_symbolic_vars(self):
        if self.shape is None or not isinstance(self.shape, (list, tuple)):
            return set()
        return {s for s in self.shape if isinstance(s, str) and s.isidentifier()}

    def as_struct_info(self, dict_globals=None):
        from ..relax.struct_info import TensorStructInfo  # pylint: disable=import-outside-toplevel
        from ..relax.expr import Expr  # pylint: disable=import-outside-toplevel
        from ..error import TVMValueError  # pylint: disable=import-outside-toplevel

        shape = self.shape
        if shape is not None and not isinstance(shape, Expr):
            if not isinstance(shape, (list, tuple)):
                raise TVMValueError(f"R.Tensor: shape must be a list/tuple or a relax Expr, got {type(shape).__name__}")
            shape = [_eval_dim(s, dict_globals, "R.Tensor") for s in shape]
        return TensorStructInfo(shape, self.dtype, self.vdevice, self.ndim)


class ShapeProxy(StructInfoProxy):
    def __init__(self, values=None, ndim=-1):
        self.values, self.ndim = values, ndim

    def get_symbolic_vars(self):
        return {s for s in (self.values or []) if isinstance(s, str) and s.isidentifier()}

    def as_struct_info(self, dict_globals=None):
        from ..relax.struct_info import ShapeStructInfo  # pylint: disable=import-outside-toplevel
        values = None if self.values is None else [_eval_dim(v, dict_globals, "R.Shape") for v in self.values]
        return ShapeStructInfo(values, self.ndim)


class TupleProxy(StructInfoProxy):
    def __init__(self, *fields):
        if len(fields) == 1 and isinstance(fields[0], (list, tuple)):
            fields = tuple(fields[0])
        self.fields = fields

    def get_symbolic_vars(self):
        out = set()
        for f in self.fields:
            if isinstance(f, StructInfoProxy):
                out |= f.get_symbolic_vars()
        return out

    def as_struct_info(self, dict_globals=None):
        from ..relax.struct_info import TupleStructInfo  # pylint: disable=import-outside-toplevel
        return TupleStructInfo([f.as_struct_info(dict_globals) if isinstance(f, StructInfoProxy)
                                else _struct_info_of(f, f"R.Tuple field {i}") for i, f in enumerate(self.fields)])


class PrimProxy(StructInfoProxy):
    def __init__(self, dtype=None, value=None):
        self.dtype, self.value = dtype, value

    def get_symbolic_vars(self):
        return {self.value} if isinstance(self.value, str) and self.value.isidentifier() else set()

    def as_struct_info(self, dict_globals=None):
        from ..relax.struct_info import PrimStructInfo  # pylint: disable=import-outside-toplevel
        value = None if self.value is None else _eval_dim(self.value, dict_globals, "R.Prim")
        return PrimStructInfo(self.dtype, value)


class CallableProxy(StructInfoProxy):
    def __init__(self, params=None, ret=None, purity=True, derive_func=None):
        self.params, self.ret, self.purity, self.derive_func = params, ret, purity, derive_func

    def as_struct_info(self, dict_globals=None):
        from ..relax.struct_info import FuncStructInfo, ObjectStructInfo  # pylint: disable=import-outside-toplevel

        def sinfo(v, what):
            return v.as_struct_info(dict_globals) if isinstance(v, StructInfoProxy) else _struct_info_of(v, what)
        ret = ObjectStructInfo() if self.ret is None else sinfo(self.ret, "R.Callable ret")
        if self.params is None:
            return FuncStructInfo.opaque_func(ret=ret, derive_func=self.derive_func, purity=self.purity)
        params = self.params if isinstance(self.params, (list, tuple)) else [self.params]
        return FuncStructInfo([sinfo(p, f"R.Callable parameter {i}") for i, p in enumerate(params)], ret,
                              purity=self.purity)


def _maker(fn):
    fn.__tessera_struct_info_maker__ = True
    fn.__tessera_script_path__ = "R." + fn.__name__  # the parser resolves an imported `Tensor` to R.Tensor
    return fn


@_maker
def Tensor(shape=None, dtype=None, vdevice=None, ndim=-1):  # pylint: disable=invalid-name
    """``R.Tensor((2, "n"), "float32")``, ``R.Tensor("float32", ndim=2)``, ``R.Tensor(ndim=3)``."""
    if isinstance(shape, str) and dtype is None:
        shape, dtype = None, shape
    return TensorProxy(shape, dtype, vdevice, ndim)


@_maker
def Shape(values=None, ndim=-1):  # pylint: disable=invalid-name
    """``R.Shape([2, "n"])``, ``R.Shape(ndim=2)``."""
    return ShapeProxy(values, ndim)


@_maker
def Tuple(*fields):  # pylint: disable=invalid-name
    """``R.Tuple(R.Tensor(...), R.Object)``."""
    return TupleProxy(*fields)


@_maker
def Object():  # pylint: disable=invalid-name
    """``R.Object``: any value."""
    return ObjectProxy()


@_maker
def Prim(dtype=None, value=None):  # pylint: disable=invalid-name
    """``R.Prim("int64")``, ``R.Prim(value="n")``."""
    return PrimProxy(dtype, value)


@_maker
def Callable(params=None, ret=None, purity=True, derive_func=None):  # pylint: disable=invalid-name
    """``R.Callable([R.Tensor(...)], R.Tensor(...))``."""
    return CallableProxy(params, ret, purity, derive_func)
