"""``tvm.script.parser``: TVM's module path of the TVMScript dialects, which
TVM's tests import (``from tvm.script.parser import ir as I, relax as R, tir as
T``). The same modules as ``tvm.script.ir/relax/tir`` (the parser itself is
C++); ``tvm.script.parser.relax.entry`` holds the struct info proxies."""
import sys as _sys

from .. import ir, relax, tir  # noqa: F401
from .. import _struct_info_proxy

relax.entry = _struct_info_proxy
for _name, _module in (("ir", ir), ("relax", relax), ("tir", tir), ("relax.entry", _struct_info_proxy)):
    _sys.modules[f"{__name__}.{_name}"] = _module

__all__ = ["ir", "relax", "tir"]
