"""Winograd convolution F(m x m, 3 x 3) for NCHW float32 data (stride 1, dilation 1,
groups 1): the form relax.nn.conv2d legalizes a 3x3 conv with a constant weight to
when PassContext config "relax.conv2d_winograd" allows it
(python/tessera/relax/op/nn/convolution.py). The weight is transformed once with
NumPy (``conv2d_winograd_weight_transform``); the kernel's stages are separate blocks
named "winograd_*" (pad, two data-transform passes, a batched GEMM the matmul rule of
DefaultCPUSchedule takes, two inverse-transform passes writing NCHW)."""
import numpy as np

from ... import te
from ...error import TVMValueError
from .conv2d import get_pad_tuple

# Interpolation points (alpha - 1 finite ones, plus infinity): the small
# integers first, then +-1/2, which keeps the transforms' entries small (fp32
# error of F(4,3) about 1e-6 relative; F(6,3) about 1e-5).
_POINTS = {2: (0.0, 1.0, -1.0), 4: (0.0, 1.0, -1.0, 2.0, -2.0), 6: (0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5)}
KERNEL = 3


def _evaluation(points, alpha, degree):
    """[alpha, degree]: row j evaluates a polynomial of ``degree`` coefficients at
    point j; the last row (the point at infinity) takes its leading coefficient."""
    e = np.zeros((alpha, degree))
    for j, x in enumerate(points):
        e[j] = [x ** k for k in range(degree)]
    e[alpha - 1, degree - 1] = 1.0
    return e


def winograd_matrices(m):
    """(A^T [m, alpha], G [alpha, 3], B^T [alpha, alpha]) in float64 with
    y = A^T [(G g) * (B^T d)] the correlation of a 3-tap g with alpha inputs d:
    G and A^T evaluate g and the output at the points, B^T is the transposed
    inverse of the full-degree evaluation (Toom-Cook, transposed for a
    correlation). Each row of B^T is scaled so its smallest entry is 1 (the
    inverse scale moves to G's row), which keeps B^T integer for F(2,3) and F(4,3)."""
    if m not in _POINTS:
        raise TVMValueError(f"topi.nn.conv2d_nchw_winograd: output tile m must be one of {sorted(_POINTS)}, got {m}")
    alpha = m + KERNEL - 1
    points = _POINTS[m]
    at = _evaluation(points, alpha, m).T
    g = _evaluation(points, alpha, KERNEL)
    bt = np.linalg.inv(_evaluation(points, alpha, alpha)).T
    for j in range(alpha):
        scale = np.min(np.abs(bt[j][np.abs(bt[j]) > 1e-12]))
        bt[j] /= scale
        g[j] *= scale
    return at, g, bt


def conv2d_winograd_weight_transform(weight_np, m):
    """U = G w G^T for each (K, C) of an OIHW 3x3 weight, computed in float64,
    returned as float32 in panels of winograd_panel_width(K) output channels:
    [alpha, alpha, K / width, C, width]."""
    w = np.asarray(weight_np)
    if w.ndim != 4 or w.shape[2:] != (KERNEL, KERNEL):
        raise TVMValueError(f"topi.nn.conv2d_winograd_weight_transform: needs an OIHW 3x3 weight, got shape {w.shape}")
    _, g, _ = winograd_matrices(m)
    u = np.einsum("ea,kcab,nb->enck", g, w.astype(np.float64), g)
    k = w.shape[0]
    width = winograd_panel_width(k)
    u = u.reshape(u.shape[0], u.shape[1], u.shape[2], k // width, width).transpose(0, 1, 3, 2, 4)
    return np.ascontiguousarray(u.astype(np.float32))


def winograd_transform_constants(m):
    """(B^T, A^T) as float32 arrays: the kernel's two transform inputs."""
    at, _, bt = winograd_matrices(m)
    return bt.astype(np.float32), at.astype(np.float32)


def conv2d_nchw_winograd(data, U, Bt, At, padding, out_dtype=None):
    """NCHW 3x3 stride-1 convolution of ``data`` [N, C, H, W] by the transformed
    weight ``U`` [alpha, alpha, K / width, C, width] (conv2d_winograd_weight_transform), with
    the transform matrices ``Bt`` [alpha, alpha] and ``At`` [m, alpha]
    (winograd_transform_constants) as inputs, so every stage reads them from a
    buffer instead of branching on the indices. Output [N, K, OH, OW]; the
    partial edge tiles are computed on zero padding and cropped."""
    name = "conv2d_nchw_winograd"
    if len(data.shape) != 4 or len(U.shape) != 5 or len(Bt.shape) != 2 or len(At.shape) != 2:
        raise TVMValueError(f"topi.nn.{name}: needs 4-d data, 5-d U and 2-d Bt and At, got {list(data.shape)}, "
                            f"{list(U.shape)}, {list(Bt.shape)}, {list(At.shape)}")
    alpha = int(U.shape[0])
    m = alpha - KERNEL + 1
    c, h, w = [int(d) for d in data.shape[1:]]
    if [int(U.shape[1]), int(U.shape[3])] != [alpha, c] or [int(d) for d in Bt.shape] != [alpha, alpha] or \
            [int(d) for d in At.shape] != [m, alpha]:
        raise TVMValueError(f"topi.nn.{name}: U {list(U.shape)}, Bt {list(Bt.shape)}, At {list(At.shape)} do not "
                            f"fit alpha {alpha} and the data's {c} channels")
    pt, pl, pb, pr = get_pad_tuple(name, padding)
    oh, ow = h + pt + pb - KERNEL + 1, w + pl + pr - KERNEL + 1
    if oh < 1 or ow < 1:
        raise TVMValueError(f"topi.nn.{name}: a {h}x{w} input with padding {padding} has no 3x3 output")
    n, k = data.shape[0], int(U.shape[2]) * int(U.shape[4])
    nh, nw = -(-oh // m), -(-ow // m)
    out_dtype = str(out_dtype) if out_dtype is not None else data.dtype
    width = winograd_panel_width(k)
    # The padded input covers every tile (nh * m + 2 rows, nw * m + 2 columns), its
    # channels in blocks of cw innermost ([n, c / cw, rows, columns, cw]), so both
    # transform passes are vector operations over cw channels without gathers.
    cw = winograd_channel_block(c)
    hp, wp = nh * m + 2, nw * m + 2
    zero = te.const(0.0, data.dtype)
    d = te.compute((n, c // cw, hp, wp, cw),
                   lambda b, cb, y, x, ci: te.if_then_else(
                       te.all(y >= pt, y < h + pt, x >= pl, x < w + pl),
                       data[b, cb * cw + ci, y - pt, x - pl], zero),
                   name="winograd_data_pad")
    # The stages are spatial with their short sums unrolled (DefaultCPUSchedule keeps
    # "winograd_" stages apart instead of inlining them: default_schedule_winograd.h).
    # B^T along the rows of each tile: T[n, c / cw, ty, tx, eps, s, cw] (the tile's column s).
    rows = te.compute((n, c // cw, nh, nw, alpha, alpha, cw),
                      lambda b, cb, ty, tx, e, j, ci: _dot(
                          alpha, lambda r: Bt[e, r] * d[b, cb, ty * m + r, tx * m + j, ci]),
                      name="winograd_data_pack_rows")
    # ... then along the columns: V[eps, nu, c / cw, n * nh + ty, tx, cw] (tiles p = (n * nh + ty) * nw + tx).
    packed = te.compute((alpha, alpha, c // cw, n * nh, nw, cw),
                        lambda e, nu, cb, t, tx, ci: _dot(
                            alpha, lambda j: Bt[nu, j] * rows[t // nh, cb, t % nh, tx, e, j, ci]),
                        name="winograd_data_pack")
    # M[eps, nu, ko, p, ki] = sum_c V[eps, nu, c, p] U[eps, nu, ko, c, ki]: alpha^2 GEMMs over panels
    # of `width` output channels (read in place by the matmul rule, as topi.matmul_packed's).
    rc = te.reduce_axis((0, c), name="rc")
    bgemm = te.compute((alpha, alpha, k // width, n * nh * nw, width),
                       lambda e, nu, ko, p, ki: te.sum(packed[e, nu, rc // cw, p // nw, p % nw, rc % cw].astype(out_dtype)
                                                       * U[e, nu, ko, rc, ki].astype(out_dtype), axis=rc),
                       name="winograd_bgemm")
    # A^T along nu: Z[eps, i, ko, p, ki] (ki contiguous).
    inverse = te.compute((alpha, m, k // width, n * nh * nw, width),
                         lambda e, i, ko, p, ki: _dot(alpha, lambda q: At[i, q].astype(out_dtype) * bgemm[e, q, ko, p, ki]),
                         name="winograd_inverse")

    # A^T along eps, written as NCHW (the partial edge tiles cropped): DefaultCPUSchedule
    # inlines it into a fused epilogue's write.
    def output(b, co, y, x):
        p = (b * nh + y // m) * nw + x // m
        return _dot(alpha, lambda e: At[y % m, e].astype(out_dtype) * inverse[e, x % m, co // width, p, co % width])

    return te.compute((n, k, oh, ow), output, name="winograd_output", tag="conv2d_nchw")


def _dot(count, term):
    """term(0) + ... + term(count - 1), unrolled."""
    total = term(0)
    for i in range(1, count):
        total = total + term(i)
    return total


def winograd_channel_block(c):
    """Input channels per vector of the data transform: 16 or 8 when one divides
    ``c``, else 1 (scalar)."""
    for block in (16, 8):
        if c % block == 0:
            return block
    return 1


def winograd_panel_width(k):
    """Output channels per panel of the transformed weight: 32 or 16 when one
    divides ``k``, else ``k`` itself (one panel)."""
    for width in (32, 16):
        if k % width == 0:
            return width
    return k


__all__ = ["conv2d_nchw_winograd", "conv2d_winograd_weight_transform", "winograd_matrices",
           "winograd_transform_constants"]
