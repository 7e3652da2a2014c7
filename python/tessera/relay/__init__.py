"""``tvm.relay``: the Relay-style entry points that TVM tutorials use --
``frontend.from_onnx`` -> ``(mod, params)``, ``build`` -> a factory module
for ``contrib.graph_executor.GraphModule`` and ``testing`` workloads -- as a
thin layer over Relax and its VM. The modules are Relax; Relay's own IR and
operator namespace (``relay.nn``, ``relay.var``...) are not provided."""
import importlib as _importlib

from . import frontend
from .build_module import build
from ..error import OpNotImplemented as _OpNotImplemented


def __getattr__(name):
    if name == "testing":
        return _importlib.import_module(__name__ + ".testing")
    if name.startswith("__"):
        raise AttributeError(name)
    raise _OpNotImplemented(f"tessera.relay.{name} is not provided: Tessera's graph IR is Relax, and tessera.relay "
                            "holds only the Relay-style build/executor entry points (relay.frontend, relay.build, "
                            "relay.testing); write the graph with tvm.relax (BlockBuilder, relax.op) instead")


__all__ = ["frontend", "build"]
