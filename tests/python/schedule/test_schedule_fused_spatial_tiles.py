"""A reduction whose height and width loops are fused and split into tiles (the
1x1-conv GEMM's y*W + x pixel tiles, read back through // and %): decompose_reduction
accepts the bindings (one-to-one over all the loops, though not over the tile's
inner loops alone), vectorize accepts a tile with a guarded tail (the bindings are
checked under the block's predicate), and the lowered tile reads X as whole vectors
(VectorizeLoop folds (f // W) * W + f % W to f). NumPy oracle."""
import numpy as np
import pytest

import tessera as tvm
from tessera import te, tir


def _schedule(ci, co, h, w, cb, lanes, blocks=None):
    X = te.placeholder((1, ci, h, w), name="X")
    W = te.placeholder((co, ci), name="W")
    k = te.reduce_axis((0, ci), name="k")
    out = te.compute((1, co, h, w), lambda n, c, y, x: te.sum(W[c, k] * X[n, k, y, x], axis=k), name="conv")
    sch = tir.Schedule(te.create_prim_func([X, W, out]))
    b = sch.get_block("conv")
    n, c, y, x, kk = sch.get_loops(b)
    p = sch.fuse(y, x)
    c0, c1 = sch.split(c, [None, cb])
    if blocks is None:
        p0, p1 = sch.split(p, [None, lanes])
        sch.reorder(n, c0, p0, kk, c1, p1)
    else:  # blocks of tiles outside the channel tiles (conv1x1's pixel blocks)
        pb, p0, p1 = sch.split(p, [None, blocks, lanes])
        sch.reorder(n, pb, c0, p0, kk, c1, p1)
    wb = sch.cache_write(b, 0, "local")
    sch.transform_layout(b, ("write", 0), lambda n, c, y, x: (n, c, y * w + x))
    sch.transform_block_layout(wb, lambda n, c, y, x: (n, c, y * w + x))
    sch.reverse_compute_at(wb, p0)
    init = sch.decompose_reduction(b, kk)
    sch.unroll(c1)
    sch.vectorize(p1)
    sch.vectorize(sch.get_loops(init)[-1])
    sch.vectorize(sch.get_loops(wb)[-1])
    return sch.mod


def _matches_numpy(mod, ci, co, h, w):
    lib = tvm.build(mod, target="llvm")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, ci, h, w)).astype("float32")
    wt = rng.standard_normal((co, ci)).astype("float32")
    out = tvm.nd.array(np.zeros((1, co, h, w), "float32"))
    lib["main"](tvm.nd.array(x), tvm.nd.array(wt), out)
    np.testing.assert_allclose(out.numpy(), np.einsum("ck,nkyx->ncyx", wt, x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ci,co,h,w", [(5, 16, 8, 8), (7, 8, 7, 7), (3, 12, 5, 9)])
def test_fused_pixel_tiles_match_numpy(ci, co, h, w):
    mod = _schedule(ci, co, h, w, 4, 16)  # 7x7 = 49 and 5x9 = 45 pixels: a guarded tail
    lowered = tvm.lower(mod).script()
    assert "T.Ramp" not in lowered  # contiguous vectors, no gathers
    assert "T.allocate([T.int64(64)]" in lowered or "T.allocate([64]" in lowered  # the 4 x 16 tile
    _matches_numpy(mod, ci, co, h, w)


@pytest.mark.parametrize("blocks", [1, 7])
def test_pixel_blocks_of_one_tile_decompose(blocks):
    # A block of one tile: the unit loop above the reduction stays a variable of the
    # bindings ((pb * 16 + p0 * 16 + p1) // 7); decompose_reduction's one-to-one check
    # reads it as its constant (it refused it, which rejected tuner samples of 1x1 convs).
    _matches_numpy(_schedule(3, 8, 16, 7, 4, 16, blocks=blocks), 3, 8, 16, 7)
