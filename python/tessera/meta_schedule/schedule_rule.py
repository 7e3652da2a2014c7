"""Tessera's default CPU schedule rules (the PostOrderApply space), applied in Python to
each block, consumers first:
- MultiLevelTiling for blocks with spatial and reduction iterators bound one-to-one to a
  perfect loop nest: spatial loops tiled 4 ways and reduction loops 2 ways with
  sample_perfect_tile, reordered S0 S1 R0 S2 R1 S3 ("SSRSRS"); in half of the samples the
  output goes through a cache_write block placed at the last S1 loop; the reduction is
  decomposed at the first R0 loop; the innermost loops of the update, init and write-back
  blocks are vectorized; with more than one core the S0 loops are fused and parallel.
- AutoInline: a spatial-only block writing an intermediate buffer is inlined when it can be.
- Other blocks are left as they are. Not done yet (TVM has them): unroll annotations,
  AddRFactor, RandomComputeLocation, epilogue fusion of spatial consumers into the tiles.
A primitive that fails on an unusual block leaves the schedule as it was (atomic
primitives), and the remaining rules go on."""
import random

from .. import tir


def _realizes(func):
    found = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: found.append(n)
                                      if isinstance(n, tir.BlockRealize) and n.block.name_hint != "root" else None)
    return found


def _param_buffers(func):
    return {func.buffer_map[p].name for p in func.params if p in func.buffer_map}


def _iter_kinds(realize, loops_nodes):
    """For each loop, the iter_type (0 spatial, 2 reduce) of the block iterator bound
    exactly to its variable, or None if the binding is not one-to-one."""
    kinds = []
    block = realize.block
    if len(block.iter_vars) != len(loops_nodes):
        return None
    for loop in loops_nodes:
        kind = None
        for iv, value in zip(block.iter_vars, realize.iter_values):
            if isinstance(value, tir.Var) and value.name_hint == loop.loop_var.name_hint:
                if int(iv.dom.extent) != int(loop.extent):
                    return None
                kind = int(iv.iter_type)
        if kind not in (0, 2):
            return None
        kinds.append(kind)
    return kinds


def multi_level_tiling(sch, block, kinds, use_cache_write, num_cores):
    loops = sch.get_loops(block)
    s_tiles, r_tiles = [], []
    for loop, kind in zip(loops, kinds):
        if kind == 0:
            factors = sch.sample_perfect_tile(loop, n=4, max_innermost_factor=64)
            s_tiles.append(sch.split(loop, factors=factors))
        else:
            factors = sch.sample_perfect_tile(loop, n=2, max_innermost_factor=64)
            r_tiles.append(sch.split(loop, factors=factors))
    order = ([t[0] for t in s_tiles] + [t[1] for t in s_tiles] + [t[0] for t in r_tiles]
             + [t[2] for t in s_tiles] + [t[1] for t in r_tiles] + [t[3] for t in s_tiles])
    sch.reorder(*order)
    write_back = None
    if use_cache_write:
        write_back = sch.cache_write(block, 0, "global")
        sch.reverse_compute_at(write_back, s_tiles[-1][1], preserve_unit_loops=True)
    init = sch.decompose_reduction(block, r_tiles[0][0]) if r_tiles else None
    for b in (block, init, write_back):
        if b is not None:
            sch.vectorize(sch.get_loops(b)[-1])
    if num_cores > 1:
        outer = [t[0] for t in s_tiles]
        sch.parallel(sch.fuse(*outer) if len(outer) > 1 else outer[0])


def _panel_read_index(node, spatial_outer_var):
    """Index in ``node.reads`` of the operand that does not depend on ``spatial_outer_var``
    and is not the output (the "B" of C[i, j] += A[i, k] * B[k, j]), or None."""
    writes = {w.buffer.name for w in node.writes}
    for idx, region in enumerate(node.reads):
        if region.buffer.name in writes:
            continue
        names = set()
        for rng in region.region:
            tir.stmt_functor.post_order_visit(
                rng.min, lambda n: names.add(n.name_hint) if isinstance(n, tir.Var) else None)
        if spatial_outer_var not in names:
            return idx
    return None


def packed_panel_tiling(sch, block, kinds, num_cores):
    """For a block with two spatial loops (i, j) and one reduction loop (k): tiles i, j, k
    in two (i1 at most 8, j1 at most 64, k1 at most 512), orders j0 i0 k0 k1 i1 j1, copies
    the column panel of the operand not indexed by i into a compact buffer once per j0
    (cache_read + compute_at: B "packing"), accumulates an i1 x j1 register tile
    (cache_write "local" at i0), unrolls i1 and vectorizes j1 and the copies."""
    loops = sch.get_loops(block)
    node = sch.get(block)
    s_iters = [iv for iv in node.iter_vars if int(iv.iter_type) == 0]
    panel = _panel_read_index(node, s_iters[0].var.name_hint)
    if panel is None:
        raise tir.ScheduleError("packed_panel_tiling: no operand independent of the outer spatial iterator")
    (i, j), (k,) = [l for l, t in zip(loops, kinds) if t == 0], [l for l, t in zip(loops, kinds) if t == 2]
    i0, i1 = sch.split(i, sch.sample_perfect_tile(i, n=2, max_innermost_factor=8))
    j0, j1 = sch.split(j, sch.sample_perfect_tile(j, n=2, max_innermost_factor=64))
    k0, k1 = sch.split(k, sch.sample_perfect_tile(k, n=2, max_innermost_factor=512))
    sch.reorder(j0, i0, k0, k1, i1, j1)
    packed = sch.cache_read(block, panel, "global")
    sch.compute_at(packed, j0)
    acc = sch.cache_write(block, 0, "local")
    sch.reverse_compute_at(acc, i0)
    sch.decompose_reduction(block, k0)
    sch.vectorize(j1)
    sch.unroll(i1)
    sch.vectorize(sch.get_loops(acc)[-1])
    sch.vectorize(sch.get_loops(packed)[-1])
    if num_cores > 1:
        sch.parallel(j0)


def apply_default_cpu_rules(sch, num_cores=1, f_block_filter=None):
    """Applies the rules to every block of ``sch``'s "main" function (see the module doc)."""
    rng = random.Random(int(sch.fork_seed()) if hasattr(sch, "fork_seed") else 0)
    func = sch.mod["main"]
    params = _param_buffers(func)
    names = [r.block.name_hint for r in _realizes(func)]
    for name in reversed(names):   # post-order visit lists producers first; consumers go first
        block = sch.get_block(name, "main")
        node = sch.get(block)
        if f_block_filter is not None and not f_block_filter(node):
            continue
        realize = next((r for r in _realizes(sch.mod["main"]) if r.block.name_hint == name), None)
        if realize is None:
            continue
        iter_types = {int(iv.iter_type) for iv in node.iter_vars}
        if 2 in iter_types and 0 in iter_types:
            kinds = _iter_kinds(realize, [sch.get(l) for l in sch.get_loops(block)])
            if kinds is None:
                continue
            variant = rng.randrange(3) if sorted(kinds) == [0, 0, 2] and kinds[-1] == 2 else rng.randrange(2)
            try:
                if variant == 2:
                    packed_panel_tiling(sch, block, kinds, num_cores)
                else:
                    multi_level_tiling(sch, block, kinds, variant == 1, num_cores)
            except tir.ScheduleError:
                continue
        elif iter_types == {0} and all(w.buffer.name not in params for w in node.writes):
            try:
                sch.compute_inline(block)
            except tir.ScheduleError:
                pass
    return sch


__all__ = ["apply_default_cpu_rules", "multi_level_tiling"]
