"""Nearest-neighbour upsampling written in TE: ``topi.nn.upsampling`` (TVM's
signature; NCHW or NHWC). Output row y reads input row floor(y * in / out),
the asymmetric nearest-neighbour rule; other methods are not implemented."""
from ...error import OpNotImplemented, TVMTypeError, TVMValueError
from ...tir import op as _tir_op
from ...tir.expr import IntImm
from ... import te


def _static(d):
    if isinstance(d, IntImm):
        return d.value
    return d if isinstance(d, int) else None


def _axis(name, dim, scale):
    """(output extent, index function) of one spatial axis."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
        raise TVMValueError(f"topi.nn.upsampling: {name} must be a positive number, got {scale!r}")
    static = _static(dim)
    if static is not None:
        out = int(round(static * scale))
        if out < 1:
            raise TVMValueError(f"topi.nn.upsampling: {name}={scale} maps extent {static} to {out}")
        return out, lambda y: _tir_op.floordiv(y * static, out)
    if float(scale) != int(scale):
        raise TVMValueError(f"topi.nn.upsampling: a symbolic extent needs an integer {name}, got {scale}")
    k = int(scale)
    return dim * k, lambda y: _tir_op.floordiv(y, k)


def upsampling(data, scale_h, scale_w, layout="NCHW", method="nearest_neighbor", align_corners=False,
               output_shape=None):
    """``data`` (4-d) upsampled by ``scale_h`` x ``scale_w`` (nearest neighbour)."""
    if not isinstance(data, te.Tensor) or len(data.shape) != 4:
        raise TVMTypeError(f"topi.nn.upsampling: expected a 4-d te.Tensor, got {data!r}")
    if method != "nearest_neighbor" or align_corners or output_shape is not None:
        raise OpNotImplemented(f"topi.nn.upsampling: only method='nearest_neighbor' without align_corners or "
                               f"output_shape is implemented, got method={method!r}")
    if layout not in ("NCHW", "NHWC"):
        raise TVMValueError(f"topi.nn.upsampling: layout must be NCHW or NHWC, got {layout!r}")
    h_axis, w_axis = (2, 3) if layout == "NCHW" else (1, 2)
    out_h, index_h = _axis("scale_h", data.shape[h_axis], scale_h)
    out_w, index_w = _axis("scale_w", data.shape[w_axis], scale_w)
    shape = list(data.shape)
    shape[h_axis], shape[w_axis] = out_h, out_w

    def fcompute(*i):
        idx = list(i)
        idx[h_axis], idx[w_axis] = index_h(i[h_axis]), index_w(i[w_axis])
        return data(*idx)

    return te.compute(shape, fcompute, name="resize", tag="injective")
