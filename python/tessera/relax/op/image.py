"""``relax.op.image.resize2d`` (TVM v0.18's signature; struct-info inference in
src/relax/op/image.cc): an image (``layout``: any permutation of NCHW, packed sub-axes
included) resized to ``size`` by nearest-neighbour or linear interpolation, legalized to the
resize kernel the importers share (topi/image.py resize_te; other layouts through layout
transforms, nn/_layout.py)."""
from ...error import TVMTypeError
from ...ir.op import Op
from ..expr import Call
from ._legalize_registry import register_legalize
from ._op_attrs import call_attrs, check_expr, make_attrs
from .manipulate import _shape_arg
from .nn._layout import in_canonical_layouts


def resize2d(data, size, roi=None, layout="NCHW", method="linear", coordinate_transformation_mode="half_pixel",
             rounding_method="round", cubic_alpha=-0.5, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None):
    """``data`` (in ``layout``, e.g. NCHW or NHWC) resized to ``size`` ((h, w), one value for both, or a shape Expr);
    ``method`` "nearest_neighbor" or "linear"; the coordinate modes and rounding methods
    of ONNX Resize."""
    name = "relax.image.resize2d"
    check_expr(name, "data", data)
    if isinstance(size, int):
        size = (size, size)
    roi = [0.0] * 4 if roi is None else [float(v) for v in roi]
    for attr, value in (("layout", layout), ("method", method),
                        ("coordinate_transformation_mode", coordinate_transformation_mode),
                        ("rounding_method", rounding_method)):
        if not isinstance(value, str):
            raise TVMTypeError(f"{name}: attribute '{attr}' must be a str, got {type(value).__name__}")
    return Call(Op.get(name), [data, _shape_arg(name, size)], make_attrs(
        name, roi=roi, layout=layout, method=method, coordinate_transformation_mode=coordinate_transformation_mode,
        rounding_method=rounding_method, cubic_alpha=float(cubic_alpha), cubic_exclude=int(cubic_exclude),
        extrapolation_value=float(extrapolation_value), out_dtype="void" if out_dtype is None else str(out_dtype)))


_NEAREST = {"": "round_prefer_ceil", "round": "round_prefer_ceil", "floor": "floor", "ceil": "ceil",
            "round_prefer_floor": "round_prefer_floor", "round_prefer_ceil": "round_prefer_ceil"}


@register_legalize("relax.image.resize2d")
@in_canonical_layouts([("layout", 0)], "layout", {"layout": "NCHW"})
def _legalize_resize2d(bb, call):
    from ...topi.image import resize_te  # pylint: disable=import-outside-toplevel
    from ... import topi  # pylint: disable=import-outside-toplevel

    a = call_attrs(call)
    in_shape = [int(d) for d in call.args[0].struct_info.shape.values]
    out_shape = [int(d) for d in call.struct_info.shape.values]
    scales = [o / i for o, i in zip(out_shape, in_shape)]
    mode = "nearest" if a["method"] == "nearest_neighbor" else "linear"

    def compute(data):
        out = resize_te(data, out_shape, scales, mode, a["coordinate_transformation_mode"],
                        _NEAREST[a["rounding_method"]])
        return out if out.dtype == call.struct_info.dtype else topi.cast(out, call.struct_info.dtype)

    return bb.call_te(compute, call.args[0], primfunc_name_hint="resize2d")


__all__ = ["resize2d"]
