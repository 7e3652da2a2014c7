"""TIR passes (``tvm.tir.transform``): the lowering passes' constructors and
the ``prim_func_pass`` decorator."""
from .function_pass import PrimFuncPass, prim_func_pass
from .transform import *  # noqa: F401,F403
from .transform import __all__ as _pass_names

__all__ = ["PrimFuncPass", "prim_func_pass"] + list(_pass_names)
