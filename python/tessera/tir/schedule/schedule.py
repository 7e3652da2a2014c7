"""``tvm.tir.Schedule``: transforms TensorIR programs with primitives
(split, fuse, reorder, parallel, vectorize, ...) through block and loop
handles that stay valid across primitives. Every primitive is recorded in
``sch.trace``; a primitive that fails raises ``tvm.tir.ScheduleError`` and
leaves ``sch.mod`` unchanged."""
import functools
import inspect

from ..._ffi.registry import register_object
from ...error import OpNotImplemented, ScheduleError, TVMIndexError, TVMTypeError, TVMValueError
from ...ir.base import Node
from ...ir.module import IRModule
from ..function import PrimFunc
from . import _ffi_api


@register_object("tir.BlockRV")
class BlockRV(Node):
    """A handle to a block (``BlockRV()`` makes a fresh one, e.g. to build a Trace)."""

    def __init__(self):
        self.__init_handle_by_constructor__(_ffi_api.BlockRV)

    def __repr__(self):
        return f"BlockRV({self.handle:#x})"


@register_object("tir.LoopRV")
class LoopRV(Node):
    """A handle to a loop (``LoopRV()`` makes a fresh one, e.g. to build a Trace)."""

    def __init__(self):
        self.__init_handle_by_constructor__(_ffi_api.LoopRV)

    def __repr__(self):
        return f"LoopRV({self.handle:#x})"


# Storage scope ranks TVM knows (a tag may follow: "global.texture", "shared.dyn").
_SCOPE_RANKS = ("global", "shared", "warp", "local", "wmma", "metal", "texture", "mma", "m")


def _check_storage_scope(primitive, scope):
    if not isinstance(scope, str):
        raise TVMTypeError(f"{primitive}: storage_scope must be a str, got {type(scope).__name__}")
    rank = scope.split(".", 1)[0]
    if rank not in _SCOPE_RANKS or (rank in ("wmma", "metal", "mma", "m") and "." not in scope):
        raise tvm_schedule_error(f"{primitive}: \"{scope}\" is not a storage scope "
                                 "(global, shared, shared.dyn, local, warp, wmma.*, ...)")


def _pad_value_index_map(buffer, pad_value, ndim, index_dtype):
    """transform_layout's pad_value as TVM passes it on: an IndexMap of the
    ``ndim`` new indices (of ``index_dtype``) to one value. A Python int or
    float takes the buffer's dtype when it is an integer or float one (as in
    TVM); the checks (one value, the buffer's dtype, no other buffer read)
    are the primitive's."""
    from ..expr import PrimExpr  # pylint: disable=import-outside-toplevel
    from ..index_map import IndexMap  # pylint: disable=import-outside-toplevel
    from ... import tir  # pylint: disable=import-outside-toplevel

    if isinstance(pad_value, IndexMap):
        return pad_value
    if callable(pad_value) and not isinstance(pad_value, PrimExpr):
        return IndexMap.from_func(pad_value, ndim=ndim, index_dtype=index_dtype)
    if isinstance(pad_value, bool):
        value = tir.const(pad_value, "bool")
    elif isinstance(pad_value, int):
        value = tir.const(pad_value, str(buffer.dtype) if "int" in str(buffer.dtype) else "int32")
    elif isinstance(pad_value, float):
        value = tir.const(pad_value, str(buffer.dtype) if "float" in str(buffer.dtype) else "float32")
    elif isinstance(pad_value, PrimExpr):
        value = pad_value
    else:
        raise TVMTypeError(f"transform_layout: pad_value must be a number, a PrimExpr, an IndexMap or a function, "
                           f"got {type(pad_value).__name__}")
    return IndexMap.from_func(lambda *indices: value, ndim=ndim, index_dtype=index_dtype)


def _block_default_dtype(block):
    """The dtype TVM gives the indices of maps built for ``block``: its first
    iterator's, else its first access region's, else int64."""
    for iv in block.iter_vars:
        return str(iv.var.dtype)
    for region in list(block.reads) + list(block.writes):
        for rng in region.region:
            return str(rng.min.dtype)
    return "int64"


def tvm_schedule_error(msg):
    from ...error import ScheduleError  # pylint: disable=import-outside-toplevel

    return ScheduleError(msg)


class StmtSRef:
    """What ``Schedule.get_sref`` returns: the block or loop a handle stands
    for now (``stmt``). Tessera keeps no sref tree (no ``parent``); two srefs
    are the same when they come from the same schedule and stand for the
    same statement."""

    def __init__(self, schedule, stmt):
        self._schedule = schedule
        self.stmt = stmt

    def same_as(self, other):
        return (isinstance(other, StmtSRef) and self._schedule.same_as(other._schedule)
                and self.stmt.same_as(other.stmt))

    def __repr__(self):
        return f"StmtSRef({type(self.stmt).__name__})"


class ScheduleStateView:
    """What ``Schedule.state`` returns: the current ``mod`` and ``get_sref``
    of a statement of it. TVM's ScheduleState (``replace``, the sref tree,
    ``block_info``) is not provided."""

    def __init__(self, schedule):
        self._schedule = schedule

    @property
    def mod(self):
        return self._schedule.mod

    def get_sref(self, stmt):
        return self._schedule.get_sref(stmt)


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
                raise TVMValueError(f"Schedule(debug_mask=...) must be \"all\", \"none\" or an int, got {debug_mask!r}")
        elif not isinstance(debug_mask, int) or isinstance(debug_mask, bool) or not -1 <= debug_mask <= 3:
            raise TVMValueError("Schedule(debug_mask=...) must be \"all\", \"none\" or an int in [-1, 3], got "
                                f"{debug_mask!r}")
        if error_render_level not in ("detail", "fast", "none"):
            raise TVMValueError(f"Schedule(error_render_level=...) must be \"detail\", \"fast\" or \"none\", "
                                f"got {error_render_level!r}")
        if error_render_level != "detail":
            raise OpNotImplemented(f"Schedule(error_render_level={error_render_level!r}) is not supported: "
                                      "Tessera always renders schedule errors in detail")
        if enable_check is not True:
            raise OpNotImplemented("Schedule(enable_check=False) is not supported: Tessera's primitives always "
                                      "check their preconditions")
        if isinstance(mod, PrimFunc):
            mod = IRModule({"main": mod})
        if not isinstance(mod, IRModule):
            raise TVMTypeError(f"Schedule expects an IRModule or a PrimFunc, got {type(mod).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.Schedule, mod, -1 if seed is None else int(seed))
        mask = {"all": 3, "none": 0}.get(debug_mask, debug_mask)
        _ffi_api.ScheduleSetDebugMask(self, 3 if mask == -1 else int(mask))

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
        """The GlobalVar of the function get_block looks in by default (None
        when the module has several PrimFuncs, none "main", until work_on)."""
        name = _ffi_api.ScheduleFuncName(self)
        return self.mod.get_global_var(name) if name else None

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
        """The Block, For or sampled integer a handle stands for (IndexError,
        as in TVM, for a handle this schedule does not know)."""
        from ...error import ScheduleError  # pylint: disable=import-outside-toplevel

        try:
            return _ffi_api.ScheduleGet(self, rv)
        except ScheduleError as err:
            if "does not belong to this schedule" in str(err):
                raise TVMIndexError(str(err)) from err
            raise

    def remove_rv(self, rv):
        """Forgets the handle ``rv`` (a BlockRV, LoopRV or sampled value); using
        it afterwards raises IndexError. Not recorded in the trace (as TVM)."""
        _ffi_api.ScheduleRemoveRV(self, rv)

    @property
    def state(self):
        """The schedule's state as TVM exposes it: ``mod`` and ``get_sref``
        (Tessera keeps no sref tree; see ScheduleStateView)."""
        return ScheduleStateView(self)

    def get_sref(self, rv_or_stmt):
        """A StmtSRef of the block or loop a handle (or the statement itself) stands for."""
        from ..stmt import Block, For  # pylint: disable=import-outside-toplevel

        from ...error import ScheduleError  # pylint: disable=import-outside-toplevel

        if isinstance(rv_or_stmt, (BlockRV, LoopRV)):
            try:
                return StmtSRef(self, self.get(rv_or_stmt))
            except ScheduleError as err:  # TVM: IndexError for a handle this schedule does not know
                if "does not belong to this schedule" in str(err):
                    raise TVMIndexError(str(err)) from err
                raise
        if isinstance(rv_or_stmt, (Block, For)):
            return StmtSRef(self, rv_or_stmt)
        raise TVMTypeError(f"get_sref expects a BlockRV, a LoopRV, a Block or a For, got {type(rv_or_stmt).__name__}")

    def show(self, *args, **kwargs):
        self.mod.show(*args, **kwargs)

    def enter_postproc(self):
        """Marks where postprocessing begins in the trace (changes nothing)."""
        _ffi_api.EnterPostproc(self)

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

    def get_output_blocks(self, scope_block):
        """The blocks under ``scope_block`` (a handle, a block name, or "root"
        for the whole function) that write a buffer the function does not
        allocate, in program order, nested blocks included."""
        if isinstance(scope_block, str) and scope_block != "root":
            scope_block = self.get_block(scope_block)
        return _ffi_api.GetOutputBlocks(self, scope_block)

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

    def reorder_block_iter_var(self, block, new_order):
        """Permutes ``block``'s iteration variables: position k gets the old
        variable ``new_order[k]`` (a permutation of range(#iter vars))."""
        return _ffi_api.ReorderBlockIterVar(self, block, [int(k) for k in new_order])

    def unsafe_set_dtype(self, block, buffer_index, dtype):
        """Stores the intermediate buffer ``buffer_index`` written by ``block``
        as ``dtype``: writes cast to it, reads cast back (values may lose
        precision, hence "unsafe")."""
        return _ffi_api.UnsafeSetDType(self, block, int(buffer_index), str(dtype))

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

    def _consumer_list(self, consumer_blocks):
        if consumer_blocks is None:
            return []
        if isinstance(consumer_blocks, (BlockRV, str)):
            consumer_blocks = [consumer_blocks]
        return [self.get_block(b) if isinstance(b, str) else b for b in consumer_blocks]

    def _buffer_index(self, block, index, regions, primitive):
        """``index`` as given, or (a buffer name or a Buffer, as TVM accepts)
        its position among ``block``'s reads / writes."""
        if isinstance(index, bool) or isinstance(index, int):
            return index
        from ..buffer import Buffer  # pylint: disable=import-outside-toplevel

        if not isinstance(index, (str, Buffer)):
            return index  # int() in the caller reports the type
        node = self.get(self.get_block(block) if isinstance(block, str) else block)
        buffers = [r.buffer for r in getattr(node, regions)]
        for k, b in enumerate(buffers):
            if (b.name == index) if isinstance(index, str) else b.same_as(index):
                return k
        name = index if isinstance(index, str) else index.name
        raise tvm_schedule_error(f"{primitive}: block {node.name_hint} {regions} no buffer named {name} "
                                 f"(it {regions} {[b.name for b in buffers]})")

    def cache_read(self, block, read_buffer_index, storage_scope, consumer_blocks=None):
        """Reads buffer ``read_buffer_index`` of ``block`` through a copy in
        ``storage_scope``; returns the copy block (named "<buffer>_<scope>").
        ``consumer_blocks`` (handles or names): the blocks that read the copy
        instead of ``block`` (which then only names the buffer); the copy is
        placed before the first of them."""
        _check_storage_scope("cache_read", storage_scope)
        read_buffer_index = self._buffer_index(block, read_buffer_index, "reads", "cache_read")
        return _ffi_api.CacheRead(self, block, int(read_buffer_index), storage_scope,
                                  self._consumer_list(consumer_blocks))

    def cache_write(self, block, write_buffer_index, storage_scope, consumer_blocks=None):
        """Writes buffer ``write_buffer_index`` of ``block`` into a copy in
        ``storage_scope``, then copies it back; returns the write-back block.
        ``consumer_blocks`` (handles or names, after ``block``) read the copy
        directly instead of the written-back buffer."""
        _check_storage_scope("cache_write", storage_scope)
        write_buffer_index = self._buffer_index(block, write_buffer_index, "writes", "cache_write")
        return _ffi_api.CacheWrite(self, block, int(write_buffer_index), storage_scope,
                                   self._consumer_list(consumer_blocks))

    def set_scope(self, block, buffer_index, storage_scope):
        """Changes the storage scope of the buffer ``block`` writes
        (``buffer_index``: its index among the block's writes, or its name)."""
        _check_storage_scope("set_scope", storage_scope)
        buffer_index = self._buffer_index(block, buffer_index, "writes", "set_scope")
        _ffi_api.SetScope(self, block, int(buffer_index), storage_scope)

    def cache_inplace(self, block, read_buffer_index, storage_scope):
        """Stages buffer ``read_buffer_index`` of ``block``'s reads, which the
        block also writes, through a copy in ``storage_scope``: the copy is
        filled right before the block and written back right after it.
        Returns the two copy blocks [copy-in, copy-out], both named
        "<buffer>_<scope>"; their handles tell them apart."""
        _check_storage_scope("cache_inplace", storage_scope)
        if isinstance(block, str):
            block = self.get_block(block)
        read_buffer_index = self._buffer_index(block, read_buffer_index, "reads", "cache_inplace")
        if not isinstance(read_buffer_index, int) or isinstance(read_buffer_index, bool):
            raise TVMTypeError("cache_inplace: read_buffer_index must be an int, a buffer name or a Buffer, "
                               f"got {read_buffer_index!r}")
        return list(_ffi_api.CacheInplace(self, block, int(read_buffer_index), storage_scope))

    def cache_index(self, block, storage_scope, cse_thresh=0):
        """Precomputes the index expressions of ``block`` (those occurring at
        least ``cse_thresh`` times) into buffers "index_var_<k>" in
        ``storage_scope``, each filled by a new block "index_<k>" placed
        before the block; the block reads them instead. Returns those blocks."""
        _check_storage_scope("cache_index", storage_scope)
        if isinstance(block, str):
            block = self.get_block(block)
        if not isinstance(cse_thresh, int) or isinstance(cse_thresh, bool) or cse_thresh < 0:
            raise TVMValueError(f"cache_index: cse_thresh must be a non-negative int, got {cse_thresh!r}")
        return list(_ffi_api.CacheIndex(self, block, storage_scope, int(cse_thresh)))

    def storage_align(self, block, buffer_index, axis, factor, offset):
        """Pads the stride of ``axis`` of the buffer ``block`` writes so that
        ``stride % factor == offset`` (applied when the buffer is allocated)."""
        if isinstance(block, str):
            block = self.get_block(block)
        _ffi_api.StorageAlign(self, block, int(buffer_index), int(axis), int(factor), int(offset))
    def transform_layout(self, block, buffer, index_map, pad_value=None, *, assume_injective_transform=False):
        """Re-lays out an intermediate buffer of ``block``: ``buffer`` is
        ("read"|"write", index) or the buffer's name; ``index_map`` (an
        IndexMap or a function of the indices) maps old indices to new ones,
        e.g. ``lambda i, j: (i // 4, j, i % 4)``."""
        from ..index_map import IndexMap  # pylint: disable=import-outside-toplevel

        # pad_value fills the padding when the map pads the buffer (14 -> 4x4):
        # see layout_padding.h for where the padding is written.
        # assume_injective_transform skips the padding analysis (the padded
        # buffer is used but its padding is not written), as TVM.
        if not isinstance(assume_injective_transform, bool):
            raise TVMTypeError("transform_layout: assume_injective_transform must be a bool")
        if isinstance(block, str):
            block = self.get_block(block)
        node = self.get(block)
        if isinstance(buffer, int) and not isinstance(buffer, bool):
            buffer = ("write", buffer)
        kind, index = _buffer_arg(self, block, buffer, "transform_layout")
        regions = node.writes if kind == "write" else node.reads
        if not 0 <= index < len(regions):
            raise tvm_schedule_error(f"block {node.name_hint} has no {kind} buffer {index}")
        if not isinstance(index_map, IndexMap):
            if not callable(index_map):
                raise TVMTypeError(f"index_map must be an IndexMap or a function, got {type(index_map).__name__}")
            # The indices take the dtypes of the buffer's shape (an arity
            # mismatch is reported by the primitive, naming the buffer).
            import inspect  # pylint: disable=import-outside-toplevel

            shape = regions[index].buffer.shape
            params = inspect.signature(index_map).parameters.values()
            if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
                index_map, axis_separators = IndexMap.from_func_with_separators(
                    index_map, ndim=len(shape), index_dtype=[str(e.dtype) for e in shape])
            else:
                dtypes = [str(shape[k].dtype) if k < len(shape) else "int32" for k in range(len(params))]
                index_map, axis_separators = IndexMap.from_func_with_separators(index_map, index_dtype=dtypes)
        else:
            axis_separators = []
        if pad_value is not None:
            pad_value = _pad_value_index_map(regions[index].buffer, pad_value, len(index_map.final_indices),
                                             _block_default_dtype(node))
        _ffi_api.TransformLayout(self, block, kind == "write", int(index), index_map, pad_value,
                                 assume_injective_transform)
        # As TVM: separators in the mapping function's result become the
        # transformed buffer's axis separators (a SetAxisSeparator step).
        if axis_separators:
            self.set_axis_separator(block, (kind, int(index)), axis_separators)

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
        if isinstance(loop, (list, tuple)):
            raise OpNotImplemented("blockize of a list of blocks (TVM v0.18's second form) is not supported yet; "
                                      "blockize the loop above them")
        return _ffi_api.Blockize(self, loop, bool(preserve_unit_iters))

    def tensorize(self, block_or_loop, tensor_intrin, preserve_unit_iters=True):
        """Replaces the computation of a block (or of the loops under a loop)
        by the registered TensorIntrin ``tensor_intrin``'s implementation;
        ``preserve_unit_iters`` is passed to the blockize of a loop."""
        _ffi_api.Tensorize(self, block_or_loop, tensor_intrin, bool(preserve_unit_iters))
    def sample_compute_location(self, block, decision=None):
        """A location for ``block``, sampled among TVM's candidates: "inline"
        (decision -2, when compute_inline would succeed: compute_at at it
        inlines the block), "root" (-1: compute_at leaves the block in place),
        and the loops of its first consumer down to the consumers' common
        loop where compute_at is legal (decision: the loop's position),
        skipping unit loops, spatial loops after a reduction loop and
        trailing reduction loops. A replayed decision that is no longer a
        candidate falls back to the candidate before it."""
        if isinstance(block, str):
            block = self.get_block(block)
        return _ffi_api.SampleComputeLocation(self, block, decision)


    # ---- TVM v0.18 primitives added with issue [T] -------------------------------------
    def reindex(self, block, buffer):
        """Stages the buffer ``block`` reads or writes (("read"|"write", index),
        a buffer name or a Buffer) through a new buffer "<name>_reindex"
        indexed by the block's iteration variables that the access uses; a
        copy block before (read) or after (write) the block's loops moves the
        data. Returns the copy block."""
        kind, index = _buffer_arg(self, block, buffer, "reindex")
        return _ffi_api.ReIndex(self, block, index, kind == "write")

    def transform_block_layout(self, block, index_map):
        """Re-lays out the iteration space of ``block`` (its loops must hold
        only it and bind its iteration variables in order) by a bijective
        affine ``index_map`` (an IndexMap or a function of the block's
        iteration variables): one new loop and iteration variable per output."""
        from ..index_map import IndexMap  # pylint: disable=import-outside-toplevel

        if not isinstance(index_map, IndexMap):
            if not callable(index_map):
                raise TVMTypeError("transform_block_layout: index_map must be an IndexMap or a function, "
                                   f"got {type(index_map).__name__}")
            iters = self.get(block).iter_vars
            params = inspect.signature(index_map).parameters.values()
            if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
                index_map = IndexMap.from_func(index_map, ndim=len(iters),
                                               index_dtype=[str(iv.var.dtype) for iv in iters])
            else:
                dtypes = [str(iters[k].var.dtype) if k < len(iters) else "int32" for k in range(len(params))]
                index_map = IndexMap.from_func(index_map, index_dtype=dtypes)
        _ffi_api.TransformBlockLayout(self, block, index_map)

    def pad_einsum(self, block, padding):
        """Pads the iteration space of the einsum ``block`` (each buffer
        accessed once, at iteration variables) to multiples of ``padding``
        (one positive int per iteration variable): inputs indexed by a padded
        variable are copied into zero-padded "<name>_pad" buffers, the block
        computes into a padded output, and a block after it copies the valid
        part back."""
        if isinstance(padding, int) or not all(isinstance(p, int) or hasattr(p, "value") for p in padding):
            raise TVMTypeError(f"pad_einsum: padding must be a list of ints, got {padding!r}")
        _ffi_api.PadEinsum(self, block, [int(p) for p in padding])

    def merge(self, *loops):
        """Merges loop nests side by side into one: the given loops (one per
        nest, at the same depth) and the loops above them become one chain
        of loops "<name>_m" running each nest's body in turn. Returns the
        merged loop at the given loops' level."""
        if len(loops) == 1 and isinstance(loops[0], (list, tuple)):
            loops = tuple(loops[0])
        return _ffi_api.Merge(self, list(loops))

    def sample_partitioned_tile(self, loop, n, partition_pos=0, innerpart_factor=1, decision=None):
        """Samples ``n`` perfect tile factors of ``loop`` whose factors from
        ``partition_pos`` on multiply to a multiple of ``innerpart_factor``;
        returns them as sampled values (usable as split factors)."""
        if decision is not None:
            decision = [int(d) for d in decision]
        return list(_ffi_api.SamplePartitionedTile(self, loop, int(n), int(partition_pos), int(innerpart_factor),
                                                   decision))

    def loop_partition(self, loop, factors, preserve_unit_iters=True):
        """Cuts ``loop`` (constant extent) into consecutive ranges of the
        sizes in ``factors`` (ints or sampled values, at most one None for
        the rest; a remainder gets a range of its own), each a copy of the
        loop and its body in its own opaque block. Returns the new loops.
        Without ``preserve_unit_iters``, ranges of one iteration bind the
        constant in the copied body."""
        if not isinstance(factors, (list, tuple)):
            raise TVMTypeError(f"loop_partition: factors must be a list, got {type(factors).__name__}")
        return list(_ffi_api.LoopPartition(self, loop, list(factors), bool(preserve_unit_iters)))

    def set_axis_separator(self, block, buffer, axis_separators):
        """Gives the buffer ``block`` reads or writes (("read"|"write", index),
        a buffer name or a Buffer) ``axis_separators``: positions at which
        FlattenBuffer splits its axes into separately flattened groups (N-d
        physical memory). The buffer is replaced throughout the function."""
        kind, index = _buffer_arg(self, block, buffer, "set_axis_separator")
        regions = self.get(block).reads if kind == "read" else self.get(block).writes
        # An index out of range is an AssertionError, as TVM's Python side raises.
        assert 0 <= index < len(regions), (
            f"set_axis_separator: block {self.get(block).name_hint} has {len(regions)} {kind} buffers, "
            f"index {index} is out of range")
        if isinstance(axis_separators, int) or not isinstance(axis_separators, (list, tuple)):
            raise TVMTypeError(f"set_axis_separator: axis_separators must be a list of ints, got {axis_separators!r}")
        _ffi_api.SetAxisSeparator(self, block, index, 0 if kind == "read" else 1,
                                  [int(k) for k in axis_separators])

    def decompose_padding(self, block, loop):
        """Splits the padding ``block`` (its value ``T.if_then_else(in_bounds,
        value, pad)``) at ``loop``: a block "<name>_pad_const" filling the
        whole region with the pad value, in a copy of the loops from ``loop``
        down placed before it, and ``block`` restricted to the in-bound
        region. Returns the pad-const block."""
        return _ffi_api.DecomposePadding(self, block, loop)

    def can_decompose_padding(self, block, loop):
        """Whether decompose_padding(block, loop) would succeed (the schedule
        is not changed)."""
        return bool(_ffi_api.CanDecomposePadding(self, block, loop))

    def _block_index_map(self, block, index_map, primitive):
        from ..index_map import IndexMap  # pylint: disable=import-outside-toplevel

        if isinstance(index_map, IndexMap):
            return index_map
        if not callable(index_map):
            raise TVMTypeError(f"{primitive}: index_map must be an IndexMap or a function, "
                               f"got {type(index_map).__name__}")
        iters = self.get(block).iter_vars
        params = inspect.signature(index_map).parameters.values()
        if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
            return IndexMap.from_func(index_map, ndim=len(iters), index_dtype=[str(iv.var.dtype) for iv in iters])
        dtypes = [str(iters[k].var.dtype) if k < len(iters) else "int32" for k in range(len(params))]
        return IndexMap.from_func(index_map, index_dtype=dtypes)

    def reindex_cache_read(self, block, read_buffer_index, storage_scope, index_map):
        """Caches the buffer ``block`` reads (at one point) in a new buffer
        "<name>_<scope>" indexed by ``index_map`` (an IndexMap or a function of
        the block's iteration variables); a copy block of that name runs just
        before the block's subtree below the lowest loop holding it and the
        buffer's producers. Returns the copy block."""
        _check_storage_scope("reindex_cache_read", storage_scope)
        if not isinstance(read_buffer_index, int):
            raise TVMTypeError(f"reindex_cache_read: read_buffer_index must be an int, got {read_buffer_index!r}")
        index_map = self._block_index_map(block, index_map, "reindex_cache_read")
        return _ffi_api.ReindexCacheRead(self, block, read_buffer_index, storage_scope, index_map)

    def reindex_cache_write(self, block, write_buffer_index, storage_scope, index_map):
        """Like reindex_cache_read for a buffer ``block`` writes: the block
        writes the new buffer and a copy block runs just after its subtree
        below the lowest loop holding it and the buffer's other readers.
        Returns the copy block."""
        _check_storage_scope("reindex_cache_write", storage_scope)
        if not isinstance(write_buffer_index, int):
            raise TVMTypeError(f"reindex_cache_write: write_buffer_index must be an int, got {write_buffer_index!r}")
        index_map = self._block_index_map(block, index_map, "reindex_cache_write")
        return _ffi_api.ReindexCacheWrite(self, block, write_buffer_index, storage_scope, index_map)

    def rolling_buffer(self, block, write_buffer_index):
        """Makes the intermediate buffer ``block`` writes (``write_buffer_index``
        of its writes), computed tile by tile under a loop of its consumers
        (after compute_at), a circular buffer along the outermost loop whose
        consecutive tiles overlap: that dimension shrinks to one tile, its
        accesses become ``index % extent`` and the block's predicate skips the
        overlap the previous iteration computed (TVM's rolling_buffer)."""
        if isinstance(write_buffer_index, bool) or not isinstance(write_buffer_index, int):
            raise TVMTypeError(f"rolling_buffer: write_buffer_index must be an int, got {write_buffer_index!r}")
        _ffi_api.RollingBuffer(self, block, write_buffer_index)


def _buffer_arg(sch, block, buffer, primitive):
    """("read"|"write", index) of ``buffer`` among the regions of ``block``:
    given as such a pair, as a buffer name or as a Buffer (a buffer both read
    and written counts as written, as TVM resolves it)."""
    from ..buffer import Buffer  # pylint: disable=import-outside-toplevel

    node = sch.get(block)
    if isinstance(buffer, (tuple, list)):
        if len(buffer) != 2 or buffer[0] not in ("read", "write") or not isinstance(buffer[1], int):
            raise TVMValueError(f"{primitive}: buffer must be (\"read\"|\"write\", index), got {buffer!r}")
        return buffer[0], int(buffer[1])
    if isinstance(buffer, (str, Buffer)):
        found = {}
        for kind, regions in (("read", node.reads), ("write", node.writes)):
            for i, region in enumerate(regions):
                if (region.buffer.name == buffer) if isinstance(buffer, str) else region.buffer.same_as(buffer):
                    found[region.buffer] = (kind, i)
        name = buffer if isinstance(buffer, str) else buffer.name
        if not found:
            raise tvm_schedule_error(f"{primitive}: block {node.name_hint} does not access a buffer named {name}")
        if len(found) > 1:
            raise tvm_schedule_error(f"{primitive}: block {node.name_hint} accesses several buffers named {name}")
        return next(iter(found.values()))
    raise TVMTypeError(f"{primitive}: buffer must be (\"read\"|\"write\", index), a name or a Buffer, "
                       f"got {type(buffer).__name__}")


def _refuse_none_arguments(method):
    """Wraps a Schedule method so that None given for a required parameter
    (or inside ``*loops``-style varargs) raises TypeError naming the method
    and the parameter, before anything reaches the core (which refuses None
    where an object is expected too, naming only the argument position).
    A block given by name (a str for a parameter named ``block``) is looked
    up with get_block first, as TVM does."""
    sig = inspect.signature(method)
    required = [name for name, p in sig.parameters.items()
                if name != "self" and p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    varargs = [name for name, p in sig.parameters.items() if p.kind == p.VAR_POSITIONAL]
    takes_block = "block" in sig.parameters and method.__name__ != "get_block"

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
            if takes_block and isinstance(bound.arguments.get("block"), str):
                bound.arguments["block"] = self.get_block(bound.arguments["block"])
                return method(*bound.args, **bound.kwargs)
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
