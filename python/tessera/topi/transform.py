"""Layout transforms written in TE: ``topi.transpose``."""
from ..error import TVMTypeError, TVMValueError
from .. import te


def transpose(a, axes=None):
    """Permutes the dimensions of ``a`` (reverses them when ``axes`` is None);
    negative axes count from the end."""
    if not isinstance(a, te.Tensor):
        raise TVMTypeError(f"topi.transpose: expected a te.Tensor, got {type(a).__name__}")
    ndim = len(a.shape)
    if axes is None:
        axes = list(range(ndim - 1, -1, -1))
    axes = [int(x) for x in axes]
    norm = [x + ndim if x < 0 else x for x in axes]
    if sorted(norm) != list(range(ndim)):
        raise TVMValueError(f"topi.transpose: axes {axes} are not a permutation of the {ndim} dimensions of "
                            f"{a.name}")
    shape = [a.shape[x] for x in norm]

    def fcompute(*i):
        idx = [None] * ndim
        for out_dim, in_dim in enumerate(norm):
            idx[in_dim] = i[out_dim]
        return a(*idx)

    return te.compute(shape, fcompute, name="T_transpose", tag="injective")


__all__ = ["transpose"]
