"""Program features for the cost model (first feature set, computed in Python).

TVM extracts per-store features in C++ from the lowered program; Tessera does not have
that extractor yet. This module walks the *scheduled* TensorIR (loops, blocks and their
bindings, before lowering) and, for every BufferStore, computes: iteration count, float
operations, loop depth, the innermost loop's extent and kind, the vectorized / parallel /
unrolled extents around it, buffer access counts, how each access moves with the
innermost loop (absent = reused, in the last index = contiguous, else strided), the reuse
(product of enclosing extents the access does not depend on) and a footprint proxy of the
innermost loops. Per-store vectors are aggregated by sum and max into one fixed-length
vector per candidate (``extract_features``); ``estimate_flops`` counts float operations."""
import math

import numpy as np

from .. import tir

_ARITH = (tir.Add, tir.Sub, tir.Mul, tir.Div, tir.FloorDiv, tir.Min, tir.Max)
PER_STORE = 19
FEATURE_LEN = 2 * PER_STORE + 3


def _log(x):
    return math.log2(1.0 + float(x))


class _Store:
    __slots__ = ("loops", "store", "vmap")

    def __init__(self, loops, store, vmap):
        self.loops = loops      # [(loop var name, extent, kind int)]
        self.store = store
        self.vmap = vmap        # block var name -> set of loop var names it depends on


def _var_names(expr):
    names = set()

    def visit(node):
        if isinstance(node, tir.Var):
            names.add(node.name_hint)
    tir.stmt_functor.post_order_visit(expr, visit)
    return names


def _collect(stmt, loops, vmap, out, allocs):
    if isinstance(stmt, tir.For):
        try:
            extent = int(stmt.extent)
        except (TypeError, ValueError):
            extent = 1
        _collect(stmt.body, loops + [(stmt.loop_var.name_hint, extent, int(stmt.kind))], vmap, out, allocs)
    elif isinstance(stmt, tir.SeqStmt):
        for s in stmt.seq:
            _collect(s, loops, vmap, out, allocs)
    elif isinstance(stmt, tir.BlockRealize):
        block = stmt.block
        inner = dict(vmap)
        for iv, value in zip(block.iter_vars, stmt.iter_values):
            deps = set()
            for name in _var_names(value):
                deps |= vmap.get(name, {name})
            inner[iv.var.name_hint] = deps
        for buf in block.alloc_buffers:
            allocs.append(buf)
        if block.init is not None:
            _collect(block.init, loops, inner, out, allocs)
        _collect(block.body, loops, inner, out, allocs)
    elif isinstance(stmt, tir.BufferStore):
        out.append(_Store(loops, stmt, vmap))
    elif isinstance(stmt, tir.IfThenElse):
        _collect(stmt.then_case, loops, vmap, out, allocs)
        if stmt.else_case is not None:
            _collect(stmt.else_case, loops, vmap, out, allocs)
    elif hasattr(stmt, "body"):
        _collect(stmt.body, loops, vmap, out, allocs)


def _stores(func):
    out, allocs = [], []
    _collect(func.body, [], {}, out, allocs)
    return out, allocs


def _float_ops(expr):
    count = [0]

    def visit(node):
        if isinstance(node, _ARITH) and str(node.dtype).startswith("float"):
            count[0] += 1
    tir.stmt_functor.post_order_visit(expr, visit)
    return count[0]


def _loads(expr):
    loads = []
    tir.stmt_functor.post_order_visit(expr, lambda n: loads.append(n) if isinstance(n, tir.BufferLoad) else None)
    return loads


def _deps(indices, vmap):
    deps = set()
    for idx in indices:
        for name in _var_names(idx):
            deps |= vmap.get(name, {name})
    return deps


def _store_features(st):
    loops = st.loops
    n_iter = 1
    for _, ext, _ in loops:
        n_iter *= ext
    flops = _float_ops(st.store.value)
    f = [_log(n_iter), _log(n_iter * flops), float(len(loops))]
    inner_ext = loops[-1][1] if loops else 1
    inner_kind = loops[-1][2] if loops else 0
    f.append(_log(inner_ext))
    f.extend(1.0 if inner_kind == k else 0.0 for k in range(4))
    for kind in (2, 1, 3):   # vectorized, parallel, unrolled
        prod = 1
        for _, ext, k in loops:
            if k == kind:
                prod *= ext
        f.append(_log(prod) if prod > 1 else 0.0)
    accesses = [(st.store.buffer, list(st.store.indices))] + [(ld.buffer, list(ld.indices))
                                                              for ld in _loads(st.store.value)]
    f.append(float(len(accesses)))
    cats = [0.0, 0.0, 0.0]
    reuse, foot2, foot3 = [], [], []
    inner_name = loops[-1][0] if loops else None
    for _, indices in accesses:
        deps = _deps(indices, st.vmap)
        last = _deps(indices[-1:], st.vmap) if indices else set()
        if inner_name is None or inner_name not in deps:
            cats[0] += 1
        elif inner_name in last:
            cats[1] += 1
        else:
            cats[2] += 1
        r = 1
        for name, ext, _ in loops:
            if name not in deps:
                r *= ext
        reuse.append(_log(r))
        for depth, acc in ((2, foot2), (3, foot3)):
            fp = 1
            for name, ext, _ in loops[-depth:]:
                if name in deps:
                    fp *= ext
            acc.append(_log(fp))
    f.extend(cats)
    f.extend([sum(reuse), max(reuse), sum(foot2) / len(foot2), sum(foot3) / len(foot3)])
    return f


def extract_features(mod):
    """One feature vector (numpy float32, length FEATURE_LEN) for the "main" PrimFunc of ``mod``."""
    func = mod["main"]
    stores, allocs = _stores(func)
    per = np.array([_store_features(s) for s in stores], dtype="float64") if stores else np.zeros((1, PER_STORE))
    alloc_elems = 0
    for buf in allocs:
        n = 1
        for s in buf.shape:
            try:
                n *= int(s)
            except (TypeError, ValueError):
                pass
        alloc_elems += n
    extra = [float(len(stores)), float(len(allocs)), _log(alloc_elems)]
    return np.concatenate([per.sum(axis=0), per.max(axis=0), extra]).astype("float32")


def estimate_flops(mod):
    """Float operations of one call of ``mod["main"]`` (stores' arithmetic times iterations)."""
    total = 0
    for st in _stores(mod["main"])[0]:
        n = 1
        for _, ext, _ in st.loops:
            n *= ext
        total += n * _float_ops(st.store.value)
    return total


__all__ = ["FEATURE_LEN", "extract_features", "estimate_flops"]
