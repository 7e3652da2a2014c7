"""conv2d with a 1x1 kernel, stride 1 and no padding (NCHW data, OIHW weight,
groups 1) as a GEMM: out[n, co, y, x] = sum_ci W[co, ci, 0, 0] * X[n, ci, y, x],
the form relax.nn.conv2d legalizes such convolutions to for the default CPU
schedule. Block "conv2d_nchw_1x1" is scheduled by
src/tir/transform/default_schedule_conv1x1.cc (height and width fused, vectorized
along them, register-blocked over output channels, NCHW written directly)."""
from ... import te
from ...error import TVMValueError


def conv2d_nchw_1x1(Input, Filter, out_dtype=None):
    """The 1x1 stride-1 unpadded NCHW convolution of Input by Filter (OIHW, H = W = 1)."""
    if len(Input.shape) != 4 or len(Filter.shape) != 4 or any(int(d) != 1 for d in Filter.shape[2:]):
        raise TVMValueError(f"conv2d_nchw_1x1: needs 4-d NCHW data and a 1x1 OIHW weight, got data "
                            f"{list(Input.shape)} and weight {list(Filter.shape)}")
    n, c, h, w = Input.shape
    k = Filter.shape[0]
    if int(Filter.shape[1]) != int(c):
        raise TVMValueError(f"conv2d_nchw_1x1: the weight's {Filter.shape[1]} input channels differ from the "
                            f"data's {c}")
    out_dtype = str(out_dtype) if out_dtype is not None else Input.dtype
    rc = te.reduce_axis((0, c), name="rc")
    return te.compute(
        (n, k, h, w),
        lambda b, f, y, x: te.sum(Input[b, rc, y, x].astype(out_dtype) * Filter[f, rc, 0, 0].astype(out_dtype),
                                  axis=rc),
        name="conv2d_nchw_1x1", tag="conv2d_nchw")


__all__ = ["conv2d_nchw_1x1"]
