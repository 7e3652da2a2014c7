"""``a @ w`` for a 2-D weight packed in panels of columns, the form
relax.matmul legalizes to when its weight is computed from constants:
``matmul_pack_weight`` turns (K, N) into (ceil(N/c), K, c), the last panel
padded with zeros when c does not divide N (folded into a constant by
FoldConstant), and ``matmul_packed`` computes block "matmul_packed" over
(batch..., panels, M, c), which DefaultCPUSchedule's matmul rule reads in place
(src/tir/transform/default_schedule_matmul.cc), then writes (batch..., M, N)."""
from .. import te, tir
from ..error import TVMValueError


def matmul_panel_width(n):
    """The panel width for ``n`` columns: 32 or 16 when it divides ``n``, else
    32 (16 below 64 columns) with the last panel padded (1000 classes: 1024
    columns computed, 2.4% more, against a generic kernel many times slower)."""
    for width in (32, 16):
        if n % width == 0:
            return width
    return 32 if n >= 64 else 16


def matmul_pack_weight(w, width):
    """(K, N) -> (ceil(N/width), K, width); columns past N are zero."""
    k, n = [int(d) for d in w.shape]
    panels = (n + width - 1) // width
    if panels * width == n:
        return te.compute((panels, k, width), lambda jo, r, ji: w[r, jo * width + ji], name="matmul_weight_pack")
    zero = tir.const(0, w.dtype)
    return te.compute((panels, k, width),
                      lambda jo, r, ji: tir.if_then_else(jo * width + ji < n,
                                                         w[r, tir.min(jo * width + ji, n - 1)], zero),
                      name="matmul_weight_pack")


def matmul_packed(a, packed, out_dtype=None, columns=None):
    """``a`` (batch..., M, K) times the weight packed by matmul_pack_weight;
    ``columns``: the weight's N before padding (default: all packed columns)."""
    dtype = str(out_dtype) if out_dtype is not None else a.dtype
    lead, m = list(a.shape[:-2]), a.shape[-2]
    panels, k, width = [int(d) for d in packed.shape]
    columns = panels * width if columns is None else int(columns)
    if not (panels - 1) * width < columns <= panels * width:
        raise TVMValueError(f"topi.matmul_packed: columns={columns} does not fit {panels} panels of width {width} "
                            f"(expected {(panels - 1) * width + 1}..{panels * width})")
    r = te.reduce_axis((0, k), name="k")
    tile = te.compute(lead + [panels, m, width],
                      lambda *idx: te.sum(a(*idx[:-3], idx[-2], r).astype(dtype)
                                          * packed[idx[-3], r, idx[-1]].astype(dtype), axis=r),
                      name="matmul_packed")
    return te.compute(lead + [m, columns],
                      lambda *idx: tile(*idx[:-2], idx[-1] // width, idx[-2], idx[-1] % width),
                      name="matmul_unpack", tag="matmul")


__all__ = ["matmul_panel_width", "matmul_pack_weight", "matmul_packed"]
