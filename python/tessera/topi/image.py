"""Resizing in TE: ``resize_te``, nearest (ONNX's nearest modes) or N-linear resize of the
axes whose size or scale changes, with ONNX's / TVM's coordinate transformation modes. Used by
relax.image.resize2d's legalization (relax/op/image.py) and the ONNX and PyTorch importers'
Resize / interpolate converters (relax/frontend)."""
from .. import te, tir


def _source_coord(x_out, in_size, out_size, scale, mode):
    """The input coordinate (float32) of output index ``x_out`` under ONNX's
    coordinate_transformation_mode ``mode``; ``scale`` = output / input size."""
    xf = tir.Cast("float32", x_out)
    if mode == "asymmetric":
        return xf / tir.const(scale, "float32")
    if mode == "align_corners":
        if out_size == 1:
            return tir.const(0.0, "float32")
        return xf * tir.const((in_size - 1) / (out_size - 1), "float32")
    if mode == "pytorch_half_pixel" and out_size == 1:
        return tir.const(0.0, "float32")
    return (xf + tir.const(0.5, "float32")) / tir.const(scale, "float32") - tir.const(0.5, "float32")


def resize_te(data, out_shape, scales, mode, coord_mode, nearest_mode):
    """Nearest (ONNX's nearest modes) or N-linear resize of the axes whose size or scale
    changes."""
    in_shape = [int(d) for d in data.shape]
    resized = [a for a in range(len(in_shape)) if in_shape[a] != out_shape[a] or scales[a] != 1.0]

    def clampi(v, size):
        return tir.max(tir.min(v, size - 1), 0)

    def nearest(idx):
        src = list(idx)
        for a in resized:
            x = _source_coord(idx[a], in_shape[a], out_shape[a], scales[a], coord_mode)
            if nearest_mode == "floor":
                r = tir.floor(x)
            elif nearest_mode == "ceil":
                r = tir.ceil(x)
            elif nearest_mode == "round_prefer_ceil":
                r = tir.floor(x + tir.const(0.5, "float32"))
            else:
                r = tir.ceil(x - tir.const(0.5, "float32"))
            src[a] = clampi(tir.Cast("int64", r), in_shape[a])
        return data[tuple(src)]

    def linear(idx):  # a weighted sum over the 2^k corners of the resized axes
        lows, fracs = {}, {}
        for a in resized:
            x = tir.max(_source_coord(idx[a], in_shape[a], out_shape[a], scales[a], coord_mode),
                        tir.const(0.0, "float32"))
            low = tir.Cast("int64", tir.floor(x))
            lows[a] = clampi(low, in_shape[a])
            fracs[a] = x - tir.Cast("float32", low)
        total = None
        for corner in range(1 << len(resized)):
            src, weight = list(idx), tir.const(1.0, "float32")
            for bit, a in enumerate(resized):
                if corner >> bit & 1:
                    src[a] = clampi(lows[a] + 1, in_shape[a])
                    weight = weight * fracs[a]
                else:
                    src[a] = lows[a]
                    weight = weight * (tir.const(1.0, "float32") - fracs[a])
            term = tir.Cast("float32", data[tuple(src)]) * weight
            total = term if total is None else total + term
        return tir.Cast(data.dtype, total)

    return te.compute(out_shape, lambda *idx: nearest(idx) if mode == "nearest" else linear(idx),
                      name=f"resize_{mode}")
