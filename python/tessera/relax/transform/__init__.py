"""``tvm.relax.transform``: Relax passes. The lowering passes of relax.build
(lowering.py) are here; each is a registered C++ pass."""
from .lowering import *  # noqa: F401,F403
from .lowering import __all__ as _lowering_all

__all__ = list(_lowering_all)
