"""What ``relay.build`` returns: ``GraphExecutorFactoryModule``, holding the
Relax VM executable that ``relax.build`` made. ``lib["default"](dev)``
makes the graph executor (contrib/graph_executor.py) and
``lib.export_library(path)`` writes the one shared library that
``tvm.runtime.load_module`` loads back (its "default" works the same)."""
from ..error import OpNotImplemented, TVMValueError


class GraphExecutorFactoryModule:
    """The compiled model of ``relay.build``: ``lib[mod_name](dev)`` is its
    executor on ``dev``; ``export_library`` saves it."""

    def __init__(self, executable, ir_mod, target, libmod_name="default", num_outputs=None):
        self.executable = executable
        self.ir_mod = ir_mod
        self.target = target
        self.libmod_name = libmod_name
        self.num_outputs = num_outputs

    def _create(self, device):
        from ..contrib.graph_executor import VMGraphExecutor  # pylint: disable=import-outside-toplevel

        return VMGraphExecutor(self.executable, device, self.num_outputs)

    def __getitem__(self, name):
        if name != self.libmod_name:
            raise TVMValueError(f"the built module is named {self.libmod_name!r} (relay.build's mod_name), "
                                f"not {name!r}")
        return self._create

    def export_library(self, file_name, fcompile=None, **kwargs):
        """Writes the kernels and the VM bytecode to one shared library."""
        self.executable.export_library(file_name, fcompile, **kwargs)

    def get_lib(self):
        """The runtime module (the VM executable)."""
        return self.executable.mod

    def get_params(self):
        """{}: relay.build binds the params into the executable as constants."""
        return {}

    def get_graph_json(self):
        raise OpNotImplemented("get_graph_json: Tessera's relay.build produces a Relax VM executable, which has "
                               "no graph JSON")

    @property
    def lib(self):
        return self.executable.mod

    def __repr__(self):
        return f"GraphExecutorFactoryModule({self.libmod_name!r}, target={self.target})"


__all__ = ["GraphExecutorFactoryModule"]
