"""``tvm.tir.Schedule``: transforms TensorIR programs with primitives
(split, fuse, reorder, parallel, vectorize, ...) through block and loop
handles that stay valid across primitives. Every primitive is recorded in
``sch.trace``; a primitive that fails raises ``tvm.tir.ScheduleError`` and
leaves ``sch.mod`` unchanged."""
import functools
import inspect

from ..._ffi.registry import register_object
from ...ir.base import Node
from ...ir.module import IRModule
from ..function import PrimFunc
from . import _ffi_api


@register_object("tir.BlockRV")
class BlockRV(Node):
    """A handle to a block."""

    def __repr__(self):
        return f"BlockRV({self.handle:#x})"


@register_object("tir.LoopRV")
class LoopRV(Node):
    """A handle to a loop."""

    def __repr__(self):
        return f"LoopRV({self.handle:#x})"


def tvm_schedule_error(msg):
    from ...error import ScheduleError  # pylint: disable=import-outside-toplevel

    return ScheduleError(msg)


@register_object("tir.Schedule")
class Schedule(Node):
    """A schedule over an IRModule (or a PrimFunc, wrapped as "main")."""

    def __init__(self, mod, *, seed=None, debug_mask="none", error_render_level="detail", enable_check=True):
        # debug_mask (TVM's default "none"): bit 2 (or "all" / -1) re-derives the
        # cached per-function ScheduleIndex after every primitive and checks it
        # equals the incrementally maintained one (an InternalError otherwise);
        # bit 1 (TVM's sref-tree check) has nothing further to verify: Tessera
        # keeps no sref tree apart from that index.
        if isinstance(debug_mask, str):
            if debug_mask not in ("all", "none"):
                raise ValueError(f"Schedule(debug_mask=...) must be \"all\", \"none\" or an int, got {debug_mask!r}")
        elif not isinstance(debug_mask, int) or isinstance(debug_mask, bool) or not -1 <= debug_mask <= 3:
            raise ValueError(f"Schedule(debug_mask=...) must be \"all\", \"none\" or an int in [-1, 3], got {debug_mask!r}")
        if error_render_level not in ("detail", "fast", "none"):
            raise ValueError(f"Schedule(error_render_level=...) must be \"detail\", \"fast\" or \"none\", "
                             f"got {error_render_level!r}")
        if error_render_level != "detail":
            raise NotImplementedError(f"Schedule(error_render_level={error_render_level!r}) is not supported: "
                                      "Tessera always renders schedule errors in detail")
        if enable_check is not True:
            raise NotImplementedError("Schedule(enable_check=False) is not supported: Tessera's primitives always "
                                      "check their preconditions")
        if isinstance(mod, PrimFunc):
            mod = IRModule({"main": mod})
        if not isinstance(mod, IRModule):
            raise TypeError(f"Schedule expects an IRModule or a PrimFunc, got {type(mod).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.Schedule, mod, -1 if seed is None else int(seed))
        mask = {"all": 3, "none": 0}.get(debug_mask, debug_mask)
        _ffi_api.ScheduleSetDebugMask(self, 3 if mask == -1 else mask)

    # ---- state -------------------------------------------------------------
    @property
    def mod(self):
        """The module as currently scheduled."""
        return _ffi_api.ScheduleMod(self)

    @property
    def trace(self):
        """Every primitive applied so far, with sampling decisions."""
        return _ffi_api.ScheduleTrace(self)

    @property
    def func_working_on(self):
        return _ffi_api.ScheduleFuncName(self)

    def work_on(self, func_name):
        """Makes ``func_name`` the function get_block looks in by default."""
        _ffi_api.ScheduleWorkOn(self, func_name)

    def copy(self):
        """An independent copy; handles stay valid in both."""
        return _ffi_api.ScheduleCopy(self)

    def seed(self, seed):
        _ffi_api.ScheduleSeed(self, int(seed))

    def fork_seed(self):
        return _ffi_api.ScheduleForkSeed(self)

    def get(self, rv):
        """The Block, For or sampled integer a handle stands for."""
        return _ffi_api.ScheduleGet(self, rv)

    def show(self, *args, **kwargs):
        self.mod.show(*args, **kwargs)

    # ---- lookup ---------------------------------------------------------------
    def get_block(self, name, func_name=None):
        """The block named ``name`` (in ``func_name``, default the current function)."""
        return _ffi_api.GetBlock(self, name, func_name)

    def get_loops(self, block):
        """The loops above ``block`` (a handle or a block name) up to its
        enclosing block, outermost first."""
        if isinstance(block, str):
            block = self.get_block(block)
        return _ffi_api.GetLoops(self, block)

    def get_child_blocks(self, block_or_loop):
        return _ffi_api.GetChildBlocks(self, block_or_loop)

    def get_producers(self, block):
        return _ffi_api.GetProducers(self, block)

    def get_consumers(self, block):
        return _ffi_api.GetConsumers(self, block)

    # ---- loops ------------------------------------------------------------------
    def split(self, loop, factors, preserve_unit_iters=True, disable_predication=False):
        """Splits ``loop`` by ``factors`` (ints, sampled values, at most one None).
        When the factors' product exceeds the extent, the block gets a predicate
        guarding the extra iterations, unless ``disable_predication`` (the
        caller's promise that those iterations are harmless; they are not
        guarded, so a wrong promise reads and writes out of bounds)."""
        return _ffi_api.Split(self, loop, list(factors), bool(preserve_unit_iters), bool(disable_predication))

    def fuse(self, *loops, preserve_unit_iters=True):
        """Fuses directly nested loops (outermost first) into one. Without
        ``preserve_unit_iters``, the fused loops of extent 1 are bound as 0."""
        if len(loops) == 1 and isinstance(loops[0], (list, tuple)):
            loops = loops[0]
        return _ffi_api.Fuse(self, list(loops), bool(preserve_unit_iters))

    def reorder(self, *ordered_loops):
        """Puts loops of one nest into the given order."""
        if len(ordered_loops) == 1 and isinstance(ordered_loops[0], (list, tuple)):
            ordered_loops = ordered_loops[0]
        _ffi_api.Reorder(self, list(ordered_loops))

    def add_unit_loop(self, block_or_loop):
        return _ffi_api.AddUnitLoop(self, block_or_loop)

    def parallel(self, loop):
        _ffi_api.Parallel(self, loop)

    def vectorize(self, loop):
        _ffi_api.Vectorize(self, loop)

    def unroll(self, loop):
        _ffi_api.Unroll(self, loop)

    def bind(self, loop, thread_axis):
        """Binds ``loop`` to a GPU thread axis ("threadIdx.x", "blockIdx.x", ...)."""
        _ffi_api.Bind(self, loop, thread_axis)

    def annotate(self, block_or_loop, ann_key, ann_val):
        _ffi_api.Annotate(self, block_or_loop, ann_key, ann_val)

    def unannotate(self, block_or_loop, ann_key):
        _ffi_api.Unannotate(self, block_or_loop, ann_key)

    # ---- blocks -------------------------------------------------------------------
    def decompose_reduction(self, block, loop):
        """Moves ``block``'s init into a "<name>_init" block before ``loop``;
        the block becomes "<name>_update". Returns the init block."""
        return _ffi_api.DecomposeReduction(self, block, loop)

    # ---- sampling -------------------------------------------------------------------
    def sample_perfect_tile(self, loop, n, max_innermost_factor=16, decision=None):
        """n factors whose product is the loop's extent (innermost <= max_innermost_factor)."""
        return _ffi_api.SamplePerfectTile(self, loop, int(n), int(max_innermost_factor),
                                          None if decision is None else list(decision))

    def sample_categorical(self, candidates, probs, decision=None):
        """One of ``candidates`` with probabilities ``probs``."""
        return _ffi_api.SampleCategorical(self, list(candidates), [float(p) for p in probs], decision)

    def compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        """Moves producer ``block`` under ``loop``, computing only what the
        consumers there need (new loops ax0, ax1, ...)."""
        _ffi_api.ComputeAt(self, block, loop, bool(preserve_unit_loops), int(index))

    def reverse_compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        """Moves consumer ``block`` under ``loop``, computing what its producers there produce."""
        _ffi_api.ReverseComputeAt(self, block, loop, bool(preserve_unit_loops), int(index))

    def compute_inline(self, block):
        """Inlines a single-store block into its consumers and removes it."""
        _ffi_api.ComputeInline(self, block)

    def reverse_compute_inline(self, block):
        """Inlines a consumer block into its producer and removes it."""
        _ffi_api.ReverseComputeInline(self, block)

    def cache_read(self, block, read_buffer_index, storage_scope, consumer_blocks=None):
        """Reads buffer ``read_buffer_index`` of ``block`` through a copy in
        ``storage_scope``; returns the copy block (named "<buffer>_<scope>")."""
        if consumer_blocks:
            raise NotImplementedError("cache_read(consumer_blocks=...) is not supported yet")
        return _ffi_api.CacheRead(self, block, int(read_buffer_index), storage_scope)

    def cache_write(self, block, write_buffer_index, storage_scope, consumer_blocks=None):
        """Writes buffer ``write_buffer_index`` of ``block`` into a copy in
        ``storage_scope``, then copies it back; returns the write-back block."""
        if consumer_blocks:
            raise NotImplementedError("cache_write(consumer_blocks=...) is not supported yet")
        return _ffi_api.CacheWrite(self, block, int(write_buffer_index), storage_scope)

    def set_scope(self, block, buffer_index, storage_scope):
        """Changes the storage scope of the buffer ``block`` writes."""
        _ffi_api.SetScope(self, block, int(buffer_index), storage_scope)
    def storage_align(self, block, buffer_index, axis, factor, offset):
        """Pads the stride of ``axis`` of the buffer ``block`` writes so that
        ``stride % factor == offset`` (applied when the buffer is allocated)."""
        if isinstance(block, str):
            block = self.get_block(block)
        _ffi_api.StorageAlign(self, block, int(buffer_index), int(axis), int(factor), int(offset))
    def transform_layout(self, block, buffer, index_map, pad_value=None):
        """Re-lays out an intermediate buffer of ``block``: ``buffer`` is
        ("read"|"write", index) or the buffer's name; ``index_map`` (an
        IndexMap or a function of the indices) maps old indices to new ones,
        e.g. ``lambda i, j: (i // 4, j, i % 4)``."""
        from ..index_map import IndexMap  # pylint: disable=import-outside-toplevel

        if pad_value is not None:
            raise NotImplementedError("transform_layout(pad_value=...) is not supported yet")
        if isinstance(block, str):
            block = self.get_block(block)
        node = self.get(block)
        if isinstance(buffer, str):
            for kind, regions in (("write", node.writes), ("read", node.reads)):
                names = [r.buffer.name for r in regions]
                if buffer in names:
                    buffer = (kind, names.index(buffer))
                    break
            else:
                raise ValueError(f"block {node.name_hint} does not access a buffer named {buffer}")
        if isinstance(buffer, int):
            buffer = ("write", buffer)
        kind, index = buffer
        if kind not in ("read", "write"):
            raise ValueError(f"buffer must be ('read'|'write', index), got {buffer!r}")
        regions = node.writes if kind == "write" else node.reads
        if not 0 <= index < len(regions):
            raise tvm_schedule_error(f"block {node.name_hint} has no {kind} buffer {index}")
        if not isinstance(index_map, IndexMap):
            if not callable(index_map):
                raise TypeError(f"index_map must be an IndexMap or a function, got {type(index_map).__name__}")
            # The indices take the dtypes of the buffer's shape (an arity
            # mismatch is reported by the primitive, naming the buffer).
            import inspect  # pylint: disable=import-outside-toplevel

            shape = regions[index].buffer.shape
            params = inspect.signature(index_map).parameters.values()
            if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
                index_map = IndexMap.from_func(index_map, ndim=len(shape), index_dtype=[str(e.dtype) for e in shape])
            else:
                dtypes = [str(shape[k].dtype) if k < len(shape) else "int32" for k in range(len(params))]
                index_map = IndexMap.from_func(index_map, index_dtype=dtypes)
        _ffi_api.TransformLayout(self, block, kind == "write", int(index), index_map)

    def rfactor(self, loop, factor_axis):
        """Factors the reduction over ``loop`` into a "<block>_rf" block
        writing partial results to a new buffer (``loop``'s extent inserted
        at ``factor_axis``); the block then reduces that buffer. Returns the
        rf block."""
        return _ffi_api.RFactor(self, loop, int(factor_axis))
    def blockize(self, loop, preserve_unit_iters=True):
        """Turns the loops under ``loop`` and their block into an outer block
        "<name>_o" over tiles; returns it. Without ``preserve_unit_iters``,
        loops of extent 1 are bound as 0 in both blocks' bindings."""
        return _ffi_api.Blockize(self, loop, bool(preserve_unit_iters))

    def tensorize(self, block_or_loop, tensor_intrin, preserve_unit_iters=True):
        """Replaces the computation of a block (or of the loops under a loop)
        by the registered TensorIntrin ``tensor_intrin``'s implementation;
        ``preserve_unit_iters`` is passed to the blockize of a loop."""
        _ffi_api.Tensorize(self, block_or_loop, tensor_intrin, bool(preserve_unit_iters))
    def sample_compute_location(self, block, decision=None):
        """A loop where ``compute_at(block, loop)`` is legal, sampled; the
        "root" choice (decision -1) makes compute_at leave the block in place."""
        if isinstance(block, str):
            block = self.get_block(block)
        return _ffi_api.SampleComputeLocation(self, block, decision)


def _refuse_none_arguments(method):
    """Wraps a Schedule method so that None given for a required parameter
    (or inside ``*loops``-style varargs) raises TypeError naming the method
    and the parameter, before anything reaches the core (which refuses None
    where an object is expected too, naming only the argument position)."""
    sig = inspect.signature(method)
    required = [name for name, p in sig.parameters.items()
                if name != "self" and p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    varargs = [name for name, p in sig.parameters.items() if p.kind == p.VAR_POSITIONAL]

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        from ...error import TVMTypeError, as_tvm_error  # pylint: disable=import-outside-toplevel

        try:
            bound = sig.bind(self, *args, **kwargs)
        except TypeError as e:  # Python's own message for a wrong call, as a TVMTypeError
            raise as_tvm_error(e, f"Schedule.{method.__name__}") from None
        for name in required:
            if name in bound.arguments and bound.arguments[name] is None:
                raise TVMTypeError(f"Schedule.{method.__name__}: parameter '{name}' is None; "
                                   "expected a block/loop handle or a value")
        for name in varargs:
            values = bound.arguments.get(name, ())
            if len(values) == 1 and isinstance(values[0], (list, tuple)):
                values = values[0]
            for i, v in enumerate(values):
                if v is None:
                    raise TVMTypeError(f"Schedule.{method.__name__}: parameter '{name}'[{i}] is None; "
                                       "expected a loop handle")
        try:
            return method(self, *args, **kwargs)
        except Exception as e:  # pylint: disable=broad-except
            # Argument conversions in the wrapper (int(n), list(factors), str -> UTF-8)
            # raise builtin errors: give them their TVMError twin, naming the method.
            converted = as_tvm_error(e, f"Schedule.{method.__name__}")
            if converted is e:
                raise
            raise converted from e

    return wrapper


for _name, _attr in list(vars(Schedule).items()):
    if not _name.startswith("_") and inspect.isfunction(_attr):
        setattr(Schedule, _name, _refuse_none_arguments(_attr))


__all__ = ["Schedule", "BlockRV", "LoopRV"]
