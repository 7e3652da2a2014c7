"""``tvm.contrib``: optional helpers beside the compiler proper --
``graph_executor`` (the Relay-style executor API over the Relax VM), the
model pictures ``relax_viz`` / ``relay_viz``, and ``utils`` (tempdir), ``cc``
(the system compiler) and ``popen_pool`` (a worker process). Each submodule is imported on
first use."""
import importlib as _importlib

_SUBMODULES = ("graph_executor", "nvcc", "relax_viz", "relay_viz", "utils", "cc", "popen_pool")


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
