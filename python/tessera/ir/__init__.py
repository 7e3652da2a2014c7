"""The IR layer's Python API (``tvm.ir``): nodes shared by TIR and Relax,
IRModule, operators and structural comparison."""
from .base import Node, Span, save_json, load_json
from .expr import BaseExpr, PrimExpr, RelaxExpr, RelayExpr, GlobalVar, Range
from .op import Op, register_op_attr
from .type import PrimType, PointerType, TupleType, FuncType
from .global_info import VDevice, GlobalInfo, DummyGlobalInfo
from .function import BaseFunc
from .module import IRModule
from . import module
from . import transform, instrument
from .transform import PassContext
from .structural import structural_equal, structural_hash, assert_structural_equal, get_first_structural_mismatch

__all__ = ["Node", "Span", "save_json", "load_json", "BaseExpr", "PrimExpr", "RelaxExpr", "RelayExpr", "GlobalVar", "Range",
           "Op", "BaseFunc", "IRModule", "module", "structural_equal", "structural_hash", "assert_structural_equal",
           "get_first_structural_mismatch", "transform", "instrument", "PassContext", "PrimType", "PointerType",
           "VDevice", "GlobalInfo", "DummyGlobalInfo", "TupleType", "FuncType"]
