"""compute_at above a block whose own compute_at loops have an extent that depends on a
loop in between (a consumer's tile reads a varying number of rows, as Winograd's row
transform under a tile loop crossing a tile row): the region the moved producer must
cover is relaxed through that extent too, as TVM's EvalSet relaxes a domain's bounds. It
kept the inner loop's variable in the producer's loop extent, out of its scope (a free
variable in the function; the tuner's DisallowDynamicLoop happened to reject it). The
varying extent itself becomes its largest value with a predicate (TVM keeps it varying,
and DisallowDynamicLoop rejected 2-23% of the Winograd convs' samples). NumPy oracle."""
import numpy as np

import tessera as tvm
from tessera import te, tir


def _schedule():
    a = te.placeholder((16,), name="A")
    pad = te.compute((16,), lambda y: a[y] + 1.0, name="pad")
    rows = te.compute((16,), lambda y: pad[y] * 2.0, name="rows")
    # Tile p reads rows (4p) // 14 .. (4p + 3) // 14: one or two rows.
    out = te.compute((49,), lambda p: rows[(p * 4) // 14] + rows[(p * 4 + 3) // 14], name="out")
    sch = tir.Schedule(te.create_prim_func([a, out]))
    (p,) = sch.get_loops(sch.get_block("out"))
    po, pi = sch.split(p, [7, 7])
    sch.compute_at(sch.get_block("rows"), pi)
    sch.compute_at(sch.get_block("pad"), po)
    return sch.mod


def _free_vars(func):
    defined, used = set(func.params), set()
    for p in func.params:
        if p in func.buffer_map:
            defined.update(v for v in func.buffer_map[p].shape if isinstance(v, tir.Var))

    def visit(node):
        if isinstance(node, tir.For):
            defined.add(node.loop_var)
        elif isinstance(node, tir.Block):
            defined.update(iv.var for iv in node.iter_vars)
        elif isinstance(node, tir.Var):
            used.add(node)
    tir.stmt_functor.post_order_visit(func.body, visit)
    return {v.name for v in used - defined}


def _loop_extents(func):
    out = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: out.append(n.extent) if isinstance(n, tir.For) else None)
    return out


def test_producer_region_relaxed_through_a_dependent_extent():
    mod = _schedule()
    assert not _free_vars(mod["main"]), mod["main"].script()
    # Static loops: the rows of a tile (1 or 2) run under a loop of 2 with a predicate.
    assert all(isinstance(e, tir.IntImm) for e in _loop_extents(mod["main"])), mod["main"].script()
    x = np.random.default_rng(0).standard_normal(16).astype("float32")
    rows = (x + 1) * 2
    p = np.arange(49)
    out = tvm.nd.array(np.zeros(49, "float32"))
    tvm.build(mod, target="llvm")["main"](tvm.nd.array(x), out)
    np.testing.assert_allclose(out.numpy(), rows[(p * 4) // 14] + rows[(p * 4 + 3) // 14], rtol=1e-6)


def test_unit_loop_dropped_under_a_varying_bound_builds():
    # The nest compute_at now makes: a loop of the largest extent (2) under
    # `a < (varying) and a < 1` (the block's domain). HoistNestPredicates shrinks the
    # loop to one iteration by the second clause and drops it; the first, kept before,
    # read the dropped variable out of its scope ("a is used but never defined").
    from tessera.script import tir as T

    @T.prim_func
    def func(A: T.Buffer((12,), "float32"), B: T.Buffer((12,), "float32")):
        for p, a, b in T.grid(3, 2, 4):
            with T.block("B"):
                vp, vb = T.axis.remap("SS", [p, b])
                T.where(a < (p + 1) // 3 + 1 and a < 1)
                B[vp * 4 + vb] = A[vp * 4 + vb] * T.float32(2)

    x = np.random.default_rng(1).standard_normal(12).astype("float32")
    out = tvm.nd.array(np.zeros(12, "float32"))
    tvm.build(func, target="llvm")(tvm.nd.array(x), out)
    np.testing.assert_allclose(out.numpy(), x * 2, rtol=1e-6)
