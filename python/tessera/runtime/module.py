"""Runtime modules (``tvm.runtime.Module``): compiled functions by name,
timing, source and export; ``tvm.runtime.load_module`` loads an exported
library with only the runtime."""
import os

import numpy as np

from .. import _core
from .._ffi.registry import register_object, get_global_func
from .object import Object
from ..error import OpNotImplemented, TVMAttributeError, TVMFileNotFoundError, TVMTypeError


class BenchmarkResult:
    """Timings of repeated runs, in seconds: ``results``, ``mean``, ``median``,
    ``std``, ``min``, ``max``."""

    def __init__(self, results):
        self.results = tuple(float(r) for r in results)
        arr = np.array(self.results)
        self.mean = float(arr.mean())
        self.median = float(np.median(arr))
        self.std = float(arr.std())
        self.min = float(arr.min())
        self.max = float(arr.max())

    def __repr__(self):
        return (f"BenchmarkResult(mean={self.mean * 1e3:.4f} ms, median={self.median * 1e3:.4f} ms, "
                f"std={self.std * 1e3:.4f} ms, repeats={len(self.results)})")


@register_object("runtime.Module")
class Module(Object):
    """A compiled module: ``mod["f"](*args)`` calls function ``f``."""

    @property
    def type_key(self):
        return get_global_func("runtime.ModuleTypeKey")(self)

    def get_function(self, name, query_imports=False):
        """The function ``name``; raises AttributeError when absent (as TVM)."""
        f = get_global_func("runtime.ModuleGetFunction")(self, name, query_imports)
        if f is None and name == "default" and self.type_key == "relax.Executable":
            # A library exported from relay.build: "default" makes its graph executor.
            from ..contrib.graph_executor import VMGraphExecutor  # pylint: disable=import-outside-toplevel

            return lambda device: VMGraphExecutor(self, device)
        if f is None:
            names = ", ".join(get_global_func("runtime.ModuleListFunctions")(self)) or "nothing"
            raise TVMAttributeError(f"Module has no function '{name}' (it has: {names})")
        return f

    def __getitem__(self, name):
        if not isinstance(name, str):
            raise TVMTypeError("function names are strings")
        return self.get_function(name, query_imports=True)

    def __contains__(self, name):
        return get_global_func("runtime.ModuleGetFunction")(self, name, True) is not None

    def __call__(self, *args):
        return self.get_function(self.entry_name, True)(*args)

    @property
    def entry_name(self):
        names = get_global_func("runtime.ModuleListFunctions")(self)
        if "main" in names or len(names) != 1:
            return "main"
        return names[0]

    @property
    def imported_modules(self):
        return get_global_func("runtime.ModuleImports")(self)

    def get_source(self, fmt=""):
        """Source code: "ll" (LLVM IR) or "asm" for CPU modules."""
        return get_global_func("runtime.ModuleGetSource")(self, fmt)

    def list_functions(self):
        return get_global_func("runtime.ModuleListFunctions")(self)

    def time_evaluator(self, func_name, dev, number=10, repeat=1, min_repeat_ms=0, limit_zero_time_iterations=100,
                       cooldown_interval_ms=0, repeats_to_cooldown=1, f_preproc=""):
        """A function that runs ``func_name`` ``number`` times per repeat,
        ``repeat`` times, and returns a BenchmarkResult (seconds per call).
        ``limit_zero_time_iterations``, ``cooldown_interval_ms``,
        ``repeats_to_cooldown`` and ``f_preproc`` are accepted only at their
        defaults (the timer has no cooldown or preprocessing step)."""
        for key, value, default in (("limit_zero_time_iterations", limit_zero_time_iterations, 100),
                                    ("cooldown_interval_ms", cooldown_interval_ms, 0),
                                    ("repeats_to_cooldown", repeats_to_cooldown, 1), ("f_preproc", f_preproc, "")):
            if value != default:
                raise OpNotImplemented(f"time_evaluator({key}={value!r}) is not supported; "
                                          f"leave it at its default {default!r}")
        func = self.get_function(func_name, query_imports=True)
        timer = get_global_func("runtime.TimeEvaluate")

        def evaluator(*args):
            return BenchmarkResult(timer(func, dev, int(number), int(repeat), int(min_repeat_ms), *args))

        return evaluator

    def export_library(self, file_name, fcompile=None, **kwargs):
        """Writes a shared library that ``tvm.runtime.load_module`` loads back
        (linked by Tessera itself: ``fcompile`` and its options are refused)."""
        if fcompile is not None or kwargs:
            given = ["fcompile"] * (fcompile is not None) + sorted(kwargs)
            raise OpNotImplemented(f"export_library({', '.join(given)}=...) is not supported: "
                                      "Tessera links the library itself")
        get_global_func("runtime.ModuleExportLibrary")(self, os.fspath(file_name))

    def __repr__(self):
        return f"Module({self.type_key}, functions={self.list_functions()})"


def load_module(path, fmt=""):
    """Loads a library written by ``Module.export_library`` (``fmt`` may
    only be "" or "so")."""
    if fmt not in ("", "so"):
        raise OpNotImplemented(f"load_module(fmt={fmt!r}) is not supported; only shared libraries (\"so\") load")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise TVMFileNotFoundError(f"no such module file: {path}")
    return get_global_func("runtime.ModuleLoadFromFile")(os.path.abspath(path))


__all__ = ["Module", "load_module", "BenchmarkResult"]
