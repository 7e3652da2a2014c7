"""``tvm.relax``: the graph-level IR (issue [D]). Delivered here: the
expressions and struct info, the core operators (``relax.op``) and the
BlockBuilder with its normalizer. Names not delivered yet raise
NotImplementedError naming what is missing."""
from . import op, analysis, transform
from .expr import (Expr, ExprWithOp, Var, DataflowVar, Constant, Tuple, TupleGetItem, Call, ShapeExpr, PrimValue,
                   StringImm, DataTypeImm, ExternFunc, extern, Binding, VarBinding, MatchCast, BindingBlock,
                   DataflowBlock, SeqExpr, If, Function, const, GlobalVar)
from .struct_info import (StructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo,
                          TupleStructInfo, FuncStructInfo)
from .block_builder import BlockBuilder
from .._unavailable import missing_attribute

__getattr__ = missing_attribute("relax")
