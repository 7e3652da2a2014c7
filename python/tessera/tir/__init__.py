"""The TensorIR layer's Python API (``tvm.tir``): expressions, buffers,
statements, PrimFunc and operator functions."""
from ..error import ScheduleError
from ..ir.expr import PrimExpr  # tvm.tir.PrimExpr, as in TVM
from .expr import (ExprOp, PrimExprWithOp, EqualOp, NotEqualOp, Var, SizeVar, IntImm, FloatImm, StringImm, Cast,
                   Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max, EQ, NE, LT, LE, GT, GE, And, Or, Not, Select,
                   Let, Ramp, Broadcast, Call, BufferLoad, IterVar, CommReducer)
from .buffer import Buffer, decl_buffer, BufferRegion, MatchBufferRegion
from .stmt import (ForKind, Stmt, BufferStore, For, IfThenElse, SeqStmt, Evaluate, LetStmt, AttrStmt, Allocate,
                   DeclBuffer, While, Block, BlockRealize, stmt_seq)
from .function import PrimFunc
from .index_map import IndexMap
from .op import *  # noqa: F401,F403
from . import op
from . import _ffi_api
from . import schedule
from .schedule import Schedule, BlockRV, LoopRV, Trace, Instruction, ScheduleState
from . import stmt_functor
from .tensor_intrin import TensorIntrin


def post_order_visit(stmt, fvisit):
    """Calls ``fvisit`` on every node of ``stmt``, children first."""
    _ffi_api.PostOrderVisit(stmt, fvisit)


def substitute(node, vmap):
    """Replaces variables in an expression or statement by ``vmap`` (Var -> PrimExpr)."""
    return _ffi_api.Substitute(node, dict(vmap))
from . import transform
from . import analysis
from .pipeline import get_default_tir_pipeline
