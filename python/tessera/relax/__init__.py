"""``tvm.relax``: the graph-level IR (issue [D]). Delivered here: the
expressions and struct info, the core operators (``relax.op``), the
BlockBuilder with its normalizer, the lowering passes and pipeline, and the
virtual machine (``build``, ``VirtualMachine``, ``ExecBuilder``,
``Executable``). Names not delivered yet raise NotImplementedError naming
what is missing."""
from . import op, analysis, transform, frontend, dpl
from .expr import (Expr, ExprWithOp, Var, DataflowVar, Constant, Tuple, TupleGetItem, Call, ShapeExpr, PrimValue,
                   StringImm, DataTypeImm, ExternFunc, extern, Binding, VarBinding, MatchCast, BindingBlock,
                   DataflowBlock, SeqExpr, If, Function, const, GlobalVar)
from .struct_info import (StructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo,
                          TupleStructInfo, FuncStructInfo)
from .block_builder import BlockBuilder
from .ty import ObjectType, PackedFuncType, ShapeType, DynTensorType, TensorType, TupleType, FuncType
from .expr import get_shape_of
from .op.base import call_tir, call_dps_packed, call_pure_packed
from . import expr_functor
from .expr_functor import ExprFunctor, PyExprVisitor, PyExprMutator
from .pipeline import get_pipeline, register_pipeline
from . import exec_builder, vm_build
from .exec_builder import ExecBuilder
from .vm_build import Executable, build
from . import vm
from ..runtime.relax_vm import VirtualMachine
from .._unavailable import missing_attribute

__getattr__ = missing_attribute("relax")
