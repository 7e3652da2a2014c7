"""Pass instruments (``tvm.ir.instrument``): hooks a PassContext calls around
itself and around each pass (enter_pass_ctx, exit_pass_ctx, should_run,
run_before_pass, run_after_pass), and the ready-made ones: PassTimingInstrument,
PrintBeforeAll, PrintAfterAll and PassPrintingInstrument (IR dumps around named passes).
"""
import functools
import inspect

from .._ffi.registry import register_object
from ..runtime import Object
from . import _ffi_instrument_api
from ..error import TVMTypeError

_HOOKS = ("enter_pass_ctx", "exit_pass_ctx", "should_run", "run_before_pass", "run_after_pass")


@register_object("instrument.PassInstrument")
class PassInstrument(Object):
    """Base class of instruments. Subclass it (or decorate a class with
    :func:`pass_instrument`) and define any of the hooks; only the hooks the
    subclass defines are called."""

    def __init__(self):
        cls = type(self)

        def child_method(name):
            if getattr(cls, name, None) is getattr(PassInstrument, name):
                return None
            return getattr(self, name)

        self.__init_handle_by_constructor__(_ffi_instrument_api.PassInstrument, cls.__name__,
                                            *[child_method(h) for h in _HOOKS])

    def enter_pass_ctx(self):
        """Called when a PassContext holding this instrument is entered."""

    def exit_pass_ctx(self):
        """Called when that PassContext is exited."""

    def should_run(self, mod, info):
        """Whether the pass with PassInfo ``info`` runs (False skips it)."""
        return True

    def run_before_pass(self, mod, info):
        """Called before each pass that runs."""

    def run_after_pass(self, mod, info):
        """Called after each pass that ran, with its result."""


def _wrap_class_pass_instrument(pi_cls):
    class PyPassInstrument(pi_cls, PassInstrument):
        def __init__(self, *args, **kwargs):
            pi_cls.__init__(self, *args, **kwargs)
            PassInstrument.__init__(self)

    functools.update_wrapper(PyPassInstrument.__init__, pi_cls.__init__)
    PyPassInstrument.__name__ = pi_cls.__name__
    PyPassInstrument.__qualname__ = pi_cls.__qualname__
    PyPassInstrument.__doc__ = pi_cls.__doc__
    PyPassInstrument.__module__ = pi_cls.__module__
    return PyPassInstrument


def pass_instrument(pi_cls=None):
    """Class decorator: instances of the class become PassInstruments whose
    hooks are the class's methods of the same names (as TVM)."""

    def create_pass_instrument(cls):
        if not inspect.isclass(cls):
            raise TVMTypeError(f"pass_instrument decorates a class, got {type(cls).__name__}")
        if not any(hasattr(cls, h) for h in _HOOKS):
            raise TVMTypeError(f"{cls.__name__} defines none of the instrument hooks {', '.join(_HOOKS)}")
        return _wrap_class_pass_instrument(cls)

    if pi_cls:
        return create_pass_instrument(pi_cls)
    return create_pass_instrument


class PassTimingInstrument(PassInstrument):
    """Times every pass run under its PassContext (C++). Call
    :meth:`render` before leaving the context: the record is cleared on exit."""

    def __init__(self):  # pylint: disable=super-init-not-called
        self.__init_handle_by_constructor__(_ffi_instrument_api.MakePassTimingInstrument)

    @staticmethod
    def render():
        """One line per pass, nested passes indented:
        ``name: total_us [self_us] (% of all; % of parent)``."""
        return _ffi_instrument_api.RenderTimePassProfiles()


def _module_text(mod):
    return mod.script() if hasattr(mod, "script") else str(mod)


@pass_instrument
class PrintBeforeAll:
    """Prints the module before every pass."""

    def run_before_pass(self, mod, info):
        print(f"Before Running Pass: {info}")
        print(_module_text(mod))


@pass_instrument
class PrintAfterAll:
    """Prints the module after every pass."""

    def run_after_pass(self, mod, info):
        print(f"After Running Pass: {info}")
        print(_module_text(mod))


@pass_instrument
class PassPrintingInstrument:
    """Prints the module before the passes named in ``print_before_pass_names``
    and after those named in ``print_after_pass_names``."""

    def __init__(self, print_before_pass_names, print_after_pass_names):
        for what, names in (("print_before_pass_names", print_before_pass_names),
                            ("print_after_pass_names", print_after_pass_names)):
            if isinstance(names, str) or not isinstance(names, (list, tuple, set)):
                raise TVMTypeError(f"PassPrintingInstrument: {what} must be a list of pass names")
        self.print_before_pass_names = list(print_before_pass_names)
        self.print_after_pass_names = list(print_after_pass_names)

    def run_before_pass(self, mod, info):
        if info.name in self.print_before_pass_names:
            print(f"Print IR before: {info.name}\n{_module_text(mod)}\n\n")

    def run_after_pass(self, mod, info):
        if info.name in self.print_after_pass_names:
            print(f"Print IR after: {info.name}\n{_module_text(mod)}\n\n")


__all__ = ["PassInstrument", "pass_instrument", "PassTimingInstrument", "PrintBeforeAll", "PrintAfterAll",
           "PassPrintingInstrument"]
