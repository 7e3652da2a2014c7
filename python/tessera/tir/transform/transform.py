"""Constructors of the TIR lowering passes (``tvm.tir.transform.X()``), in
the order of the default pipeline (``tvm.tir.get_default_tir_pipeline()``).
Each returns a registered C++ pass (src/tir/transform/)."""
from . import _ffi_api
from ...error import TVMTypeError, TVMValueError


def LowerCrossThreadReduction():
    """Reduction blocks whose reduction loops are bound to threadIdx become
    ``T.tvm_thread_allreduce`` over those threads (plus an in-thread reduction
    and a write-back by the first thread)."""
    return _ffi_api.LowerCrossThreadReduction()


def LowerInitBlock():
    """Reduction blocks' ``T.init()`` becomes a guarded store at the start of their body."""
    return _ffi_api.LowerInitBlock()


def ConvertBlocksToOpaque():
    """Block iteration variables are replaced by their bound values; blocks keep no iter_vars."""
    return _ffi_api.ConvertBlocksToOpaque()


def LowerOpaqueBlock():
    """Blocks are removed: predicates become ``if``, alloc_buffers Allocate + DeclBuffer."""
    return _ffi_api.LowerOpaqueBlock()


def CompactBufferAllocation():
    """Intermediate buffers shrink to the region accessed, allocated at the innermost enclosing loop."""
    return _ffi_api.CompactBufferAllocation()


def LoopPartition():
    """Loops whose conditions hold on a prefix are split into an unchecked prefix and a checked rest."""
    return _ffi_api.LoopPartition()


def FlattenBuffer():
    """Every buffer access and allocation becomes one-dimensional."""
    return _ffi_api.FlattenBuffer()


def VectorizeLoop(enable_vectorize=True):
    """``T.vectorized`` loops become vector statements (serial loops when
    ``enable_vectorize`` is False or config ``tir.disable_vectorize`` is set)."""
    if not isinstance(enable_vectorize, bool):
        raise TVMTypeError(f"VectorizeLoop: enable_vectorize must be a bool, got {type(enable_vectorize).__name__}")
    return _ffi_api.VectorizeLoopWith(enable_vectorize)


def HoistNestPredicates():
    """Tessera pass: in a perfect loop nest guarded by one predicate, each clause
    moves to the innermost loop whose variable it reads (see the C++ header)."""
    return _ffi_api.HoistNestPredicates()


def UnrollLoop():
    """``T.unroll`` loops of constant extent (<= 256) are replicated."""
    return _ffi_api.UnrollLoop()


def MakePackedAPI():
    """Validates each PrimFunc's signature against the packed calling convention
    and records it: ``"calling_conv"`` = 1 (kCPackedFunc) and
    ``"tessera.packed_args"``, the argument slots (parameters, then symbolic
    shape variables) that code generation reads. Last pass of the default pipeline."""
    return _ffi_api.MakePackedAPI()


def BindTarget(target):
    """Sets the ``"target"`` attribute of every PrimFunc that has none."""
    from ...target import Target  # pylint: disable=import-outside-toplevel

    return _ffi_api.BindTarget(target if isinstance(target, Target) else Target(target))


def SplitHostDevice():
    """Loop nests bound to GPU thread axes become kernel PrimFuncs called from
    the host function (functions need a ``"target"``: see BindTarget); CPU
    targets refuse thread-bound loops naming the function and the loop."""
    return _ffi_api.SplitHostDevice()


def ThreadSync(storage_scope):
    """Inserts ``T.tvm_storage_sync(storage_scope)`` into GPU kernels where threads of a block could see each
    other's accesses to memory of that scope ("shared", "shared.dyn", "warp") out of order: before a read of
    data written earlier with no barrier between (and before a write over data read earlier), and at the end of
    a loop body whose next iteration would race with this one. Never inside a branch on the thread index."""
    if not isinstance(storage_scope, str):
        raise TVMTypeError(f"ThreadSync: storage_scope must be a str, got {type(storage_scope).__name__}")
    return _ffi_api.ThreadSync(storage_scope)


def LowerThreadAllreduce():
    """``T.tvm_thread_allreduce`` in GPU kernels becomes warp shuffles and
    shared-memory staging (run on kernels, after SplitHostDevice)."""
    return _ffi_api.LowerThreadAllreduce()


def NarrowIndexType():
    """int64 index arithmetic that provably fits in int32 computed in int32 (as
    TVM's ``NarrowDataType(32)``); functions with int64 data, int64 scalar
    parameters or indices that may leave int32 are unchanged. Run by the CUDA
    build on its kernels."""
    return _ffi_api.NarrowIndexType()


def VerifyGPUCode(constraints):
    """A pass raising ValueError (naming the function and the limit) when a GPU kernel exceeds `constraints`
    (the keys of ``tvm.tir.analysis.verify_gpu_code``)."""
    return _ffi_api.VerifyGPUCode(dict(constraints))


def DefaultCPUSchedule(target=None):
    """A fixed, untuned schedule for CPU PrimFuncs nobody scheduled (the TOPI
    functions LegalizeOps makes; relax.build runs it): elementwise producers
    inlined, outer spatial loops fused and parallel (when the nest runs at
    least 32768 iterations and the target has more than one core), the
    innermost contiguous spatial loop split by the target's vector width and
    vectorized, reductions tiled around that vector loop (init decomposed).
    Functions with ``"tir.is_scheduled"`` or any non-serial loop are left
    alone; the others get ``"tir.is_scheduled"``. ``target`` (a CPU Target or
    string): vector width and ``-num-cores``; None: each function's
    ``"target"`` attribute, else the host. Not in TVM (which leaves CPU
    PrimFuncs unscheduled); see docs/pipeline.md."""
    if target is None:
        return _ffi_api.DefaultCPUSchedule()
    from ...target import Target  # pylint: disable=import-outside-toplevel

    target = target if isinstance(target, Target) else Target(target)
    if "cpu" not in [str(k) for k in target.keys]:
        raise TVMValueError(f"DefaultCPUSchedule: target {target.str!r} is not a CPU target")
    return _ffi_api.DefaultCPUScheduleFor(target)


__all__ = ["DefaultCPUSchedule", "LowerInitBlock", "ConvertBlocksToOpaque", "LowerOpaqueBlock", "CompactBufferAllocation",
           "HoistNestPredicates", "LoopPartition",
           "FlattenBuffer", "VectorizeLoop", "UnrollLoop", "MakePackedAPI", "BindTarget", "SplitHostDevice"]


def DefaultGPUSchedule(target=None):
    """A fixed, untuned schedule for GPU PrimFuncs nobody scheduled, as TVM's
    dlight rules give (the "cuda" kind's default schedule; relax.build runs
    it for target "cuda"): elementwise producers inlined; softmax/layer_norm
    style functions one thread per row; matmul/dense/batch_matmul with tiles
    dividing their extents shared-memory tiled with a per-thread register
    tile; everything else one thread per output element (reductions serial in
    the thread); epilogues computed in their producer's threads. Every block
    ends bound to blockIdx/threadIdx (ValueError naming the block otherwise).
    Functions with ``"tir.is_scheduled"`` or any non-serial loop are left
    alone. ``target`` (a GPU Target or string): its thread limit; None: each
    function's ``"target"`` attribute, else 256 threads per block."""
    if target is None:
        return _ffi_api.DefaultGPUSchedule(None)
    from ...target import Target  # pylint: disable=import-outside-toplevel

    target = target if isinstance(target, Target) else Target(target)
    if "gpu" not in [str(k) for k in target.keys]:
        raise TVMValueError(f"DefaultGPUSchedule: target {target.str!r} is not a GPU target")
    return _ffi_api.DefaultGPUSchedule(target)


__all__ = ["DefaultCPUSchedule", "DefaultGPUSchedule", "ThreadSync", "VerifyGPUCode", "LowerCrossThreadReduction",
           "LowerThreadAllreduce", "NarrowIndexType", "LowerInitBlock", "ConvertBlocksToOpaque", "LowerOpaqueBlock", "CompactBufferAllocation",
           "HoistNestPredicates", "LoopPartition",
           "FlattenBuffer", "VectorizeLoop", "UnrollLoop", "MakePackedAPI", "BindTarget", "SplitHostDevice"]
