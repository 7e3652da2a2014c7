"""``tvm.relax.dpl``: the dataflow pattern language (TVM v0.18's names):
patterns (pattern.py), graph constraints (context.py) and rewriting
(rewrite.py). The matcher and rewriters are C++ (src/relax/dpl)."""
from .pattern import *  # noqa: F401,F403
from .pattern import __all__ as _pattern_all
from .context import PatternContext
from .rewrite import rewrite_call, rewrite_bindings

__all__ = list(_pattern_all) + ["PatternContext", "rewrite_call", "rewrite_bindings"]
