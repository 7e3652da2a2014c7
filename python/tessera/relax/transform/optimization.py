"""Relax graph rewrites outside relax.build's lowering pipeline, with TVM
v0.18's names and signatures: ``EliminateCommonSubexpr``, ``FoldConstant``,
``CanonicalizeBindings``, ``ConvertToDataflow``, ``RemoveUnusedParameters``,
``RemoveUnusedOutputs``, ``ExpandTupleArguments``, ``LambdaLift``. Each returns a registered C++ pass
(src/relax/transform/, declared in optimization.h)."""
from ..._ffi.registry import get_global_func, register_func
from ...error import TVMTypeError, TVMValueError


def EliminateCommonSubexpr(call_only=False):
    """Within each scope, a binding whose pure value equals an earlier
    binding's value (same op, attributes and operands) becomes a copy of the
    earlier var, and later uses read that var. Dataflow vars are not reused
    after their block (its output vars are); If branches do not share with
    each other; impure calls and allocations are never merged. With
    ``call_only``, only calls are merged."""
    if not isinstance(call_only, bool):
        raise TVMTypeError(f"EliminateCommonSubexpr: call_only must be a bool, got {type(call_only).__name__}")
    return get_global_func("relax.transform.EliminateCommonSubexprWith")(call_only)


def CanonicalizeBindings():
    """Removes bindings that only rename a value (``y = x``, a match_cast to
    the struct info the value already has, ``w = t[i]`` of a tuple literal)
    and renames their uses; an output var bound to a dataflow var of its
    block is bound directly to that var's value."""
    return get_global_func("relax.transform.CanonicalizeBindings")()


def FoldConstant():
    """Evaluates at compile time each ``call_tir`` whose arguments are all
    constants (the PrimFunc is built for llvm and run) and, in dataflow
    blocks, each high-level op whose inputs are constants (through its
    legalization); uses of the result read a ``relax.const``. Results over
    2**26 elements, and creation ops (no tensor input) over 1024 elements,
    are left as calls."""
    return get_global_func("relax.transform.FoldConstant")()


def FoldBatchnormToConv2d():
    """Folds inference ``batch_norm`` into the ``conv2d`` before it (an
    optional constant per-channel bias between them included) when the
    weight, bias and every batch_norm parameter are float constants: the
    result is ``conv2d(x, W * s) + ((b - mean) * s + beta)`` with
    ``s = gamma / sqrt(var + eps)`` computed at compile time. In
    ``relax.build``'s default pipeline before LegalizeOps (leave it out with
    ``PassContext(disabled_pass=["FoldBatchnormToConv2d"])``)."""
    return get_global_func("relax.transform.FoldBatchnormToConv2d")()


def ConvertToDataflow(min_size=2):
    """Each maximal run of side-effect-free bindings outside dataflow blocks
    with at least ``min_size`` bindings, or adjacent to a dataflow block,
    becomes (or joins) a dataflow block; vars not used after the block become
    DataflowVars. Impure calls and ``if`` end a run."""
    if isinstance(min_size, bool) or not isinstance(min_size, int):
        raise TVMTypeError(f"ConvertToDataflow: min_size must be an int, got {type(min_size).__name__}")
    if min_size < 1:
        raise TVMValueError(f"ConvertToDataflow: min_size must be at least 1, got {min_size}")
    return get_global_func("relax.transform.ConvertToDataflowWith")(min_size)


def RemoveUnusedParameters():
    """Private Relax functions (no ``global_symbol``) that are only called
    directly lose the parameters their body never reads, unless such a
    parameter alone defines a symbolic dim; every call site drops the
    matching arguments."""
    return get_global_func("relax.transform.RemoveUnusedParameters")()


def RemoveUnusedOutputs():
    """Private Relax functions returning a tuple, whose callers read the
    result only through ``result[i]``, return only the elements read (the
    element itself when one is left); callers' indices follow."""
    return get_global_func("relax.transform.RemoveUnusedOutputs")()


def ExpandTupleArguments():
    """Private Relax functions that are only called directly take each tuple
    parameter as one parameter per element (nested tuples flattened); the
    body rebuilds the tuple first and call sites pass the elements."""
    return get_global_func("relax.transform.ExpandTupleArguments")()


def LambdaLift():
    """Every local function becomes a private module function named
    ``<outer>_<name>`` (made unique) and its calls call it directly. Vars it
    captures become trailing parameters passed at each call, where TVM builds
    a closure; a capturing local function used other than as a callee raises
    NotImplementedError naming it."""
    return get_global_func("relax.transform.LambdaLift")()


# FoldConstant legalizes high-level ops through the registered
# "relax.transform.LegalizeOps" constructor; provide it while LegalizeOps is
# a Python pass (a C++ LegalizeOps registers it itself).
if get_global_func("relax.transform.LegalizeOps", allow_missing=True) is None:
    from .legalize_ops import LegalizeOps as _LegalizeOps  # pylint: disable=import-outside-toplevel

    register_func("relax.transform.LegalizeOps", _LegalizeOps)


__all__ = ["EliminateCommonSubexpr", "CanonicalizeBindings", "FoldConstant", "FoldBatchnormToConv2d", "ConvertToDataflow",
           "RemoveUnusedParameters", "RemoveUnusedOutputs", "ExpandTupleArguments",
           "LambdaLift"]
