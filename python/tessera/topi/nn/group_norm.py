"""Group normalization written in TE: ``topi.nn.group_norm``. The channels
along channel_axis split into num_groups groups; each group is normalized over
its channels and ``axes`` (accumulating in float32), then scaled by gamma and
shifted by beta per channel."""
from ...error import TVMValueError
from ...tir import op as _tir_op
from ... import te


def group_norm(data, gamma, beta, num_groups, channel_axis, axes, epsilon=1e-5):
    ndim = len(data.shape)
    ca = channel_axis % ndim
    axes = sorted(a % ndim for a in axes)
    channels = int(data.shape[ca])
    if channels % num_groups:
        raise TVMValueError(f"topi.nn.group_norm: {channels} channels are not divisible by num_groups={num_groups}")
    cpg = channels // num_groups
    count = cpg
    for a in axes:
        count *= int(data.shape[a])
    stat_shape = [num_groups if d == ca else (1 if d in axes else data.shape[d]) for d in range(ndim)]
    rc = te.reduce_axis((0, cpg), name="rc")

    def src(i, c, rvs):
        idx = list(i)
        idx[ca] = c
        for a, r in zip(axes, rvs):
            idx[a] = r
        return data(*idx).astype("float32")

    def stat_index(i):
        j = list(i)
        j[ca] = i[ca] // cpg
        for a in axes:
            j[a] = 0
        return j

    def reduce_axes():
        return [te.reduce_axis((0, data.shape[a]), name=f"r{a}") for a in axes]

    inv_count = _tir_op.const(1.0 / count, "float32")

    def fsum(*g):
        rvs = reduce_axes()
        return te.sum(src(g, g[ca] * cpg + rc, rvs), axis=[rc] + rvs)

    total = te.compute(stat_shape, fsum, name="T_group_sum")
    mean = te.compute(stat_shape, lambda *g: total(*g) * inv_count, name="T_group_mean")
    rc2 = te.reduce_axis((0, cpg), name="rc2")

    def fvar(*g):
        rvs = reduce_axes()
        d = src(g, g[ca] * cpg + rc2, rvs) - mean(*g)
        return te.sum(d * d, axis=[rc2] + rvs)

    sq = te.compute(stat_shape, fvar, name="T_group_sq")
    var = te.compute(stat_shape, lambda *g: sq(*g) * inv_count, name="T_group_var")
    eps = _tir_op.const(float(epsilon), "float32")

    def fout(*i):
        j = stat_index(i)
        v = (data(*i).astype("float32") - mean(*j)) * _tir_op.rsqrt(var(*j) + eps)
        if gamma is not None:
            v = v * gamma[i[ca]].astype("float32")
        if beta is not None:
            v = v + beta[i[ca]].astype("float32")
        return v.astype(data.dtype)

    return te.compute(data.shape, fout, name="T_group_norm", tag="group_norm")


__all__ = ["group_norm"]
