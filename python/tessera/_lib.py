"""Loads the C++ core (``tessera._core``).

By default the extension built into this package directory is used.  Set
``TESSERA_LIBRARY_PATH`` to a directory holding another build of
``_core*.so`` (and its libraries) to use that one instead, as TVM's
``TVM_LIBRARY_PATH`` does.
"""
import glob
import importlib.util
import os
import sys

_libdir = os.environ.get("TESSERA_LIBRARY_PATH")
if _libdir:
    _candidates = sorted(glob.glob(os.path.join(_libdir, "_core*.so")))
    if not _candidates:
        raise ImportError(f"TESSERA_LIBRARY_PATH={_libdir} holds no _core*.so (build it, or unset the variable)")
    _spec = importlib.util.spec_from_file_location("tessera._core", _candidates[0])
    _core = importlib.util.module_from_spec(_spec)
    sys.modules["tessera._core"] = _core
    _spec.loader.exec_module(_core)
else:
    try:
        from . import _core  # noqa: F401
    except ImportError as err:
        raise ImportError(
            "the Tessera C++ core is not built: run `make build` (or `pip install -e .`) first") from err

__all__ = ["_core"]
