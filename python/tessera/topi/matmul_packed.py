"""``a @ w`` for a 2-D weight packed in panels of columns, the form
relax.matmul legalizes to when its weight is computed from constants:
``matmul_pack_weight`` turns (K, N) into (N/c, K, c) (folded into a constant
by FoldConstant) and ``matmul_packed`` computes block "matmul_packed" over
(batch..., N/c, M, c), which DefaultCPUSchedule's matmul rule reads in place
(src/tir/transform/default_schedule_matmul.cc), then writes (batch..., M, N)."""
from .. import te


def matmul_panel_width(n):
    """The panel width for ``n`` columns (32, else 16), or None when neither divides it."""
    for width in (32, 16):
        if n % width == 0:
            return width
    return None


def matmul_pack_weight(w, width):
    """(K, N) -> (N/width, K, width)."""
    k, n = [int(d) for d in w.shape]
    return te.compute((n // width, k, width), lambda jo, r, ji: w[r, jo * width + ji], name="matmul_weight_pack")


def matmul_packed(a, packed, out_dtype=None):
    """``a`` (batch..., M, K) times the weight packed by matmul_pack_weight."""
    dtype = str(out_dtype) if out_dtype is not None else a.dtype
    lead, m = list(a.shape[:-2]), a.shape[-2]
    panels, k, width = [int(d) for d in packed.shape]
    r = te.reduce_axis((0, k), name="k")
    tile = te.compute(lead + [panels, m, width],
                      lambda *idx: te.sum(a(*idx[:-3], idx[-2], r).astype(dtype)
                                          * packed[idx[-3], r, idx[-1]].astype(dtype), axis=r),
                      name="matmul_packed")
    return te.compute(lead + [m, panels * width],
                      lambda *idx: tile(*idx[:-2], idx[-1] // width, idx[-2], idx[-1] % width),
                      name="matmul_unpack", tag="matmul")


__all__ = ["matmul_panel_width", "matmul_pack_weight", "matmul_packed"]
