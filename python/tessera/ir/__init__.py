"""The IR layer's Python API (``tvm.ir``): nodes shared by TIR and Relax,
IRModule, operators and structural comparison."""
from .base import Node, Span
from .expr import BaseExpr, PrimExpr, GlobalVar, Range
from .op import Op
from .function import BaseFunc
from .module import IRModule
from . import module

__all__ = ["Node", "Span", "BaseExpr", "PrimExpr", "GlobalVar", "Range", "Op", "BaseFunc", "IRModule", "module"]
