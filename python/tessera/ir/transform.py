"""The pass infrastructure (``tvm.transform`` / ``tvm.ir.transform``).

A :class:`Pass` maps an IRModule to an IRModule and carries a
:class:`PassInfo` (name, opt level, required passes). :class:`Sequential`
runs passes in order under the current :class:`PassContext` (opt level,
required/disabled passes, typed ``config``, instruments). ``module_pass``
turns a Python function or class into a pass that runs inside C++
Sequentials too. The objects live in C++ (src/ir/transform.h).
"""
import functools
import inspect

from .._ffi.registry import register_object
from ..runtime import Object
from . import _ffi_transform_api
from ..error import OpNotImplemented, TVMTypeError, TVMValueError


def _name_list(value, what):
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, (list, tuple, set)):
        raise TVMTypeError(f"{what} is expected to be a list/tuple/set of pass names, got {type(value).__name__}")
    return list(value)


@register_object("transform.PassInfo")
class PassInfo(Object):
    """The meta data of a pass: ``opt_level``, ``name``, ``required`` (names of
    passes a Sequential runs before it) and ``traceable``."""

    def __init__(self, opt_level, name, required=None, traceable=False):
        self.__init_handle_by_constructor__(_ffi_transform_api.PassInfo, opt_level, name,
                                            _name_list(required, "PassInfo required"), traceable)

    def __str__(self):
        return (f"The meta data of the pass - pass name: {self.name}, opt_level: {self.opt_level}, "
                f"required passes: {list(self.required)}")

    __repr__ = __str__


@register_object("transform.PassContext")
class PassContext(Object):
    """The context passes run under (``with PassContext(...):``).

    ``opt_level`` (default 2): a Sequential skips passes whose opt_level is
    higher; ``required_pass`` names passes that run anyway, ``disabled_pass``
    passes that never do; ``instruments``: PassInstrument objects whose hooks
    run around contexts and passes; ``config``: a dict of registered options
    (``PassContext.list_configs()``); an unknown key raises AttributeError,
    a value of the wrong type TypeError.
    """

    def __init__(self, opt_level=2, required_pass=None, disabled_pass=None, instruments=None, config=None):
        required = _name_list(required_pass, "required_pass")
        disabled = _name_list(disabled_pass, "disabled_pass")
        if instruments is not None and not isinstance(instruments, (list, tuple)):
            raise TVMTypeError("instruments is expected to be a list of PassInstrument, got "
                               f"{type(instruments).__name__}")
        if config is not None and not isinstance(config, dict):
            raise TVMTypeError(f"config is expected to be a dict, got {type(config).__name__}")
        self.__init_handle_by_constructor__(_ffi_transform_api.PassContext, opt_level, required, disabled,
                                            list(instruments) if instruments else [], config or {})

    def __enter__(self):
        _ffi_transform_api.EnterPassContext(self)
        return self

    def __exit__(self, ptype, value, trace):
        _ffi_transform_api.ExitPassContext(self)

    def override_instruments(self, instruments):
        """Replaces the instruments (exit hooks of the old ones, enter hooks of the new ones run)."""
        _ffi_transform_api.OverrideInstruments(self, list(instruments))

    def pass_enabled(self, info):
        """Whether a Sequential would run a pass with PassInfo ``info`` under this context."""
        return _ffi_transform_api.PassContextPassEnabled(self, info)

    @staticmethod
    def current():
        """The innermost entered PassContext of this thread (a default one outside any ``with``)."""
        return _ffi_transform_api.GetCurrentPassContext()

    @staticmethod
    def list_configs():
        """The registered config options: ``{key: {"type": type name}}``."""
        return _ffi_transform_api.ListConfigs()


@register_object("transform.Pass")
class Pass(Object):
    """Base class of passes: ``pass(mod)`` runs it under the current PassContext."""

    @property
    def info(self):
        """The pass's PassInfo."""
        return _ffi_transform_api.Info(self)

    def __call__(self, mod):
        return _ffi_transform_api.RunPass(self, mod)

    def __repr__(self):
        info = self.info
        return f"{self.type_key}({info.name}, opt_level={info.opt_level})"

    __str__ = __repr__


@register_object("transform.ModulePass")
class ModulePass(Pass):
    """A pass working on the whole module (see :func:`module_pass`)."""


@register_object("transform.Sequential")
class Sequential(Pass):
    """Runs ``passes`` in order. A pass the PassContext does not enable is
    skipped; the passes named in an enabled pass's ``required`` run before it."""

    def __init__(self, passes=None, opt_level=0, name="sequential", required=None, traceable=False):
        passes = passes if passes is not None else []
        if not isinstance(passes, (list, tuple)):
            raise TVMTypeError(f"Sequential expects a list of passes, got {type(passes).__name__}")
        for i, p in enumerate(passes):
            if not isinstance(p, Pass):
                raise TVMTypeError(f"Sequential: item #{i} is a {type(p).__name__}, not a Pass")
        if traceable:
            raise OpNotImplemented("Sequential(traceable=True): pass tracing is not supported")
        self.__init_handle_by_constructor__(_ffi_transform_api.Sequential, list(passes), opt_level, name,
                                            _name_list(required, "Sequential required"))

    def __repr__(self):
        """The pipeline with its passes in order, one per line (nested Sequentials indented)."""
        info = self.info
        lines = [f"{self.type_key}({info.name}, opt_level={info.opt_level}) ["]
        for p in self.passes:
            lines += ["  " + line for line in repr(p).splitlines()]
        return "\n".join(lines + ["]"]) if len(lines) > 1 else lines[0] + "]"

    __str__ = __repr__


def _wrap_class_pass(pass_cls, method, pass_class, make):
    """A ``pass_class`` subclass whose instances run
    ``pass_cls(*args, **kwargs).<method>`` (``make(self, bound_method)``
    builds the C++ pass); other attributes are looked up on that instance."""
    if not hasattr(pass_cls, method):
        raise TVMTypeError(f"{pass_cls.__name__} has no {method} method: it cannot be made into a pass")

    class PyPass(pass_class):
        def __init__(self, *args, **kwargs):
            inst = pass_cls(*args, **kwargs)
            object.__setattr__(self, "_inst", inst)
            make(self, getattr(inst, method))

        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                inst = self.__dict__.get("_inst")
                if inst is None:
                    raise
                return getattr(inst, name)

    functools.update_wrapper(PyPass.__init__, pass_cls.__init__)
    PyPass.__name__ = pass_cls.__name__
    PyPass.__qualname__ = pass_cls.__qualname__
    PyPass.__doc__ = pass_cls.__doc__
    PyPass.__module__ = pass_cls.__module__
    return PyPass


def make_pass_decorator(what, method, pass_class, ffi_ctor, pass_func, opt_level, name, required, traceable):
    """The body of every pass decorator (``module_pass``, ``prim_func_pass``,
    later Relax's ``function_pass``): ``what`` names the decorator in errors,
    a class argument must define ``method`` and becomes a ``pass_class``
    subclass, a function becomes ``ffi_ctor(function, PassInfo)``. As TVM,
    ``opt_level`` is required and the decorator works with and without
    arguments; ``name`` defaults to the function's or class's name."""
    if opt_level is None:
        raise TVMValueError(f"{what}: please provide opt_level, e.g. @{what}(opt_level=0)")
    required = _name_list(required, f"{what} required")
    if traceable:
        raise OpNotImplemented(f"{what}(traceable=True): pass tracing is not supported")

    def create(pass_arg):
        fname = name if name else getattr(pass_arg, "__name__", None)
        if not fname:
            raise TVMTypeError(f"{what}: give the pass a name (name=...)")
        info = PassInfo(opt_level, fname, required)
        if inspect.isclass(pass_arg):
            return _wrap_class_pass(pass_arg, method, pass_class,
                                    lambda self, bound: self.__init_handle_by_constructor__(ffi_ctor, bound, info))
        if not callable(pass_arg):
            raise TVMTypeError(f"{what} expects a function or a class, got {type(pass_arg).__name__}")
        return ffi_ctor(pass_arg, info)

    return create(pass_func) if pass_func else create


def module_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Makes a module pass of a function ``f(mod, ctx) -> IRModule`` or of a
    class with ``transform_module(self, mod, ctx)`` (its instances are passes).

    As TVM: ``opt_level`` is required; usable as ``module_pass(f, opt_level=0)``
    or as a decorator ``@module_pass(opt_level=0, name="X")``; ``name``
    defaults to the function's or class's name.
    """
    return make_pass_decorator("tvm.transform.module_pass", "transform_module", ModulePass,
                               _ffi_transform_api.MakeModulePass, pass_func, opt_level, name, required, traceable)


__all__ = ["PassInfo", "PassContext", "Pass", "ModulePass", "Sequential", "module_pass"]
