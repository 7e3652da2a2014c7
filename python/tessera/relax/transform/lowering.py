"""Constructors of the Relax lowering passes that ``relax.build`` runs before
VM code generation (``relax.get_pipeline("default_build")``), in pipeline
order. Each returns a registered C++ pass (src/relax/transform/)."""
from ..._ffi.registry import get_global_func
from ...error import TVMTypeError


def _ctor(name):
    return get_global_func("relax.transform." + name)()


def ToNonDataflow():
    """Dataflow blocks become binding blocks; DataflowVars become Vars."""
    return _ctor("ToNonDataflow")


def RemovePurityChecking():
    """Pure functions get ``"relax.force_pure"``; ``R.call_pure_packed(f, ...)``
    becomes a plain call of ``f`` and ``R.invoke_pure_closure`` ``R.invoke_closure``."""
    return _ctor("RemovePurityChecking")


def CallTIRRewrite():
    """``R.call_tir`` / ``R.call_dps_packed`` become ``R.builtin.alloc_tensor`` of
    each output plus a call of the callee with the outputs appended."""
    return _ctor("CallTIRRewrite")


def StaticPlanBlockMemory():
    """Intermediate tensors whose lifetimes do not overlap share storage
    (``R.memory.alloc_storage`` + ``R.memory.alloc_tensor``); symbolic sizes use the
    ``"tir_var_upper_bound"`` function attribute when present."""
    return _ctor("StaticPlanBlockMemory")


def LowerAllocTensor():
    """Remaining ``R.builtin.alloc_tensor`` become one storage and one tensor each."""
    return _ctor("LowerAllocTensor")


def VMBuiltinLower():
    """Memory and runtime ops become VM builtins (``R.vm.*``, ``vm.builtin.*``)."""
    return _ctor("VMBuiltinLower")


def LowerRuntimeBuiltin():
    """TVM v0.18's newer name of :func:`VMBuiltinLower` (the same pass)."""
    return _ctor("VMBuiltinLower")


def VMShapeLower(*, emit_err_ctx=True):
    """Symbolic shapes become shape-heap builtins: every parameter is checked
    (error contexts name the function and parameter unless ``emit_err_ctx`` is
    False), derived dims are computed by a generated TIR ``shape_func``."""
    if not isinstance(emit_err_ctx, bool):
        raise TVMTypeError(f"VMShapeLower: emit_err_ctx must be a bool, got {type(emit_err_ctx).__name__}")
    return get_global_func("relax.transform.VMShapeLowerWith")(emit_err_ctx)


def AttachGlobalSymbol():
    """Every PrimFunc and Relax function gets ``"global_symbol"`` = its name."""
    return _ctor("AttachGlobalSymbol")


def DeadCodeElimination(entry_functions=None):
    """Removes unused bindings without side effects from every Relax function,
    then the functions not reachable from the entries: those with a
    ``"global_symbol"`` plus the names in ``entry_functions``."""
    if entry_functions is None:
        entry_functions = []
    if isinstance(entry_functions, str) or not all(isinstance(n, str) for n in entry_functions):
        raise TVMTypeError("DeadCodeElimination: entry_functions must be a list of function names")
    return get_global_func("relax.transform.DeadCodeEliminationWith")(list(entry_functions))


__all__ = [
    "ToNonDataflow",
    "RemovePurityChecking",
    "CallTIRRewrite",
    "StaticPlanBlockMemory",
    "LowerAllocTensor",
    "VMBuiltinLower",
    "LowerRuntimeBuiltin",
    "VMShapeLower",
    "AttachGlobalSymbol",
    "DeadCodeElimination",
]
