"""``relax.Executable``: the result of ``relax.build`` (and of
``ExecBuilder.get``), a wrapper of the C++ relax.Executable module with
``stats``, ``as_text``, ``export_library`` and ``jit``."""
import os

from .._ffi.registry import get_global_func
from ..runtime.module import Module


class Executable:
    """A VM executable: ``VirtualMachine(ex, dev)`` runs it."""

    def __init__(self, mod):
        if not isinstance(mod, Module) or mod.type_key != "relax.Executable":
            raise TypeError(f"Executable wraps a relax.Executable module, got {mod!r}")
        self.mod = mod

    def stats(self):
        """Counts of constants, functions and instructions."""
        return get_global_func("relax.ExecutableStats")(self.mod)

    def as_text(self):
        """The bytecode, one instruction per line."""
        return get_global_func("relax.ExecutableAsText")(self.mod)

    def jit(self, fcompile=None, addons=None, **kwargs):
        """The runnable module (already compiled in-process: no options)."""
        if fcompile is not None or addons is not None or kwargs:
            raise NotImplementedError("Executable.jit takes no options: the kernels are already compiled")
        return self.mod

    def export_library(self, file_name, fcompile=None, workspace_dir=None, **kwargs):
        """Writes one shared library with the compiled TIR functions and the
        bytecode; ``tvm.runtime.load_module(file_name)`` loads it back (with
        the runtime library only) for ``VirtualMachine``."""
        if fcompile is not None or workspace_dir is not None or kwargs:
            raise NotImplementedError("Executable.export_library takes no compiler options: Tessera links the "
                                      "library itself")
        get_global_func("relax.ExecutableExportLibrary")(self.mod, os.path.abspath(os.fspath(file_name)))

    def save_to_file(self, file_name):
        """Writes the bytecode and constants alone (no kernels) in the
        checksummed binary form; see ``load_executable``."""
        get_global_func("relax.ExecutableSaveToFile")(self.mod, os.fspath(file_name))

    def __getitem__(self, name):
        return self.mod[name]

    def __repr__(self):
        return f"Executable({', '.join(get_global_func('relax.ExecutableFunctionNames')(self.mod))})"


def load_executable(file_name, lib=None):
    """Loads an executable written by ``Executable.save_to_file``; ``lib``
    (a runtime Module) supplies its TIR functions. Raises ValueError for a
    truncated or corrupted file."""
    return Executable(get_global_func("relax.ExecutableLoadFromFile")(os.fspath(file_name), lib))


__all__ = ["Executable", "load_executable"]
