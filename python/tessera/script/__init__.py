"""TVMScript: write IR as Python (``tvm.script``).

    from tessera.script import tir as T, ir as I, relax as R

``@T.prim_func`` and ``@I.ir_module`` (also ``tvm.script.ir_module``) hand
the decorated source to the C++ parser; ``from_source`` parses text such as
``mod.script()`` prints.
"""
from . import tir, ir, relax
from . import parser  # tvm.script.parser.{ir,relax,tir}, as TVM imports it with tvm.script
from ._parser import from_source
from .ir import ir_module

__all__ = ["tir", "ir", "relax", "parser", "from_source", "ir_module"]
