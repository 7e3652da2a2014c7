"""Operator-level tests of the ONNX importer: for each supported op, small one-node
models made with onnx.helper over several attribute combinations and opsets, run
through from_onnx + relax.build and compared with ONNX Runtime."""
import numpy as np
import pytest

from .onnx_helpers import check, check_model, make_model, helper

R = np.random.default_rng(0)


def f32(*shape, lo=None):
    x = R.standard_normal(shape).astype("float32")
    return np.abs(x) + lo if lo is not None else x


def i64(values):
    return np.asarray(values, dtype="int64")


# -- elementwise --------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "Erf", "Floor", "Ceil", "Round",
                                "Softplus", "Sin", "Cos", "Tan", "Sinh", "Cosh", "Atan", "Asinh", "Sign", "Softsign",
                                "Elu", "Selu", "Celu", "Mish", "ThresholdedRelu", "Shrink", "IsNaN"])
def test_unary(op):
    check(op, {"x": f32(2, 3, 4)}, opset=13 if op != "Mish" else 18, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["Asin", "Acos", "Atanh"])
def test_unary_unit_interval(op):
    check(op, {"x": (R.random((3, 4)) * 1.8 - 0.9).astype("float32")}, rtol=1e-5, atol=1e-5)


def test_unary_attrs_and_isinf():
    check("Acosh", {"x": f32(3, 4, lo=1.0)})
    check("Elu", {"x": f32(3, 4)}, {"alpha": 0.5})
    check("Shrink", {"x": f32(3, 4)}, {"lambd": 0.3, "bias": 0.1})
    x = np.array([[1.0, np.inf, -np.inf, np.nan]], "float32")
    for attrs in ({}, {"detect_negative": 0}, {"detect_positive": 0}):
        check("IsInf", {"x": x}, attrs, opset=13)


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_space(mode):
    check("DepthToSpace", {"x": f32(1, 8, 2, 3)}, {"blocksize": 2, "mode": mode}, opset=13)
    check("SpaceToDepth", {"x": f32(1, 2, 4, 6)}, {"blocksize": 2})


@pytest.mark.parametrize("op", ["Sqrt", "Log", "Reciprocal"])
def test_unary_positive(op):
    check(op, {"x": f32(3, 4, lo=0.5)})


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3, 4), (4,)), ((3, 1), (1, 5))])
def test_binary_broadcast(op, shapes):
    check(op, {"a": f32(*shapes[0]), "b": f32(*shapes[1], lo=0.5)})


@pytest.mark.parametrize("opset", [11, 13])
def test_binary_with_initializer(opset):
    check("Mul", {"a": f32(2, 3)}, initializers={"b": f32(3)}, opset=opset)


def test_int_add():
    check("Add", {"a": i64([[1, 2], [3, 4]])}, initializers={"b": i64([10, 20])})


def test_pow():
    check("Pow", {"a": f32(3, 4, lo=0.5)}, initializers={"b": np.float32(2.0)})
    check("Pow", {"a": f32(3, 4, lo=0.5), "b": f32(3, 4)})


@pytest.mark.parametrize("op", ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"])
def test_compare(op):
    a = R.integers(0, 3, (3, 4)).astype("float32")
    check(op, {"a": a, "b": R.integers(0, 3, (4,)).astype("float32")})


@pytest.mark.parametrize("op", ["And", "Or", "Xor"])
def test_logic(op):
    check(op, {"a": R.random((3, 4)) > 0.5, "b": R.random((3, 4)) > 0.5})


def test_not_where():
    check("Not", {"a": R.random((3, 4)) > 0.5})
    check("Where", {"c": R.random((3, 4)) > 0.5, "x": f32(3, 4), "y": f32(4)})


@pytest.mark.parametrize("op,attrs", [("LeakyRelu", {}), ("LeakyRelu", {"alpha": 0.3}),
                                      ("HardSigmoid", {}), ("HardSigmoid", {"alpha": 0.5, "beta": 0.1}),
                                      ("HardSwish", {})])
def test_activations(op, attrs):
    check(op, {"x": f32(2, 3, 4) * 4}, attrs, opset=14)


@pytest.mark.parametrize("slope_shape", [(3, 1, 1), (1,), (5,)])
def test_prelu(slope_shape):
    check("PRelu", {"x": f32(2, 3, 4, 5)}, initializers={"slope": f32(*slope_shape)})


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_opset20(approximate):
    check("Gelu", {"x": f32(3, 8)}, {"approximate": approximate}, opset=20, rtol=1e-5, atol=1e-5)


def test_clip():
    check("Clip", {"x": f32(3, 4)}, {"min": -0.5, "max": 0.5}, opset=6)
    check("Clip", {"x": f32(3, 4)}, initializers={"lo": np.float32(-0.2), "hi": np.float32(0.3)}, opset=13)
    check("Clip", {"x": f32(3, 4)}, initializers={"lo": np.float32(0.1)}, opset=11)
    check("Clip", {"x": f32(3, 4)}, opset=12, input_names=["x", "", ""])


@pytest.mark.parametrize("op", ["Max", "Min", "Sum", "Mean"])
def test_variadic(op):
    check(op, {"a": f32(3, 4), "b": f32(4), "c": f32(3, 1)})


@pytest.mark.parametrize("to,src", [(6, "float32"), (1, "int64"), (9, "float32"), (7, "float32")])
def test_cast(to, src):
    x = (f32(3, 4) * 3).astype(src)
    check("Cast", {"x": x}, {"to": to})


def test_castlike_identity_dropout():
    check("CastLike", {"x": f32(3, 4) * 3, "y": i64([1])}, opset=15)
    check("Identity", {"x": f32(3, 4)})
    check("Dropout", {"x": f32(3, 4)}, opset=12)
    check("Dropout", {"x": f32(3, 4)}, {"ratio": 0.3}, opset=9)


def test_constant():
    nodes = [helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", 1, [3], [1.0, 2.0, 3.0])),
             helper.make_node("Constant", [], ["d"], value_float=2.0),
             helper.make_node("Mul", ["c", "d"], ["cd"]), helper.make_node("Add", ["x", "cd"], ["out"])]
    model = make_model(nodes, {"x": f32(2, 3)}, ["out"])
    check_model(model, {"x": f32(2, 3)})


# -- nn ------------------------------------------------------------------------------------
@pytest.mark.parametrize("attrs,wshape", [
    ({}, (4, 3, 3, 3)),
    ({"pads": [1, 1, 1, 1], "strides": [2, 2]}, (4, 3, 3, 3)),
    ({"pads": [0, 1, 2, 1], "dilations": [2, 1]}, (4, 3, 3, 3)),
    ({"group": 3, "pads": [1, 1, 1, 1]}, (6, 1, 3, 3)),
    ({"auto_pad": "SAME_UPPER", "strides": [2, 2]}, (4, 3, 3, 3)),
    ({"auto_pad": "SAME_LOWER"}, (4, 3, 2, 2)),
    ({"auto_pad": "VALID", "strides": [2, 1]}, (4, 3, 3, 3)),
])
@pytest.mark.parametrize("bias", [False, True])
def test_conv2d(attrs, wshape, bias):
    inits = {"w": f32(*wshape)}
    if bias:
        inits["b"] = f32(wshape[0])
    check("Conv", {"x": f32(1, 3, 9, 8)}, attrs, initializers=inits, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("attrs", [{}, {"pads": [1, 2], "strides": [2]}, {"group": 2, "dilations": [2]}])
def test_conv1d(attrs):
    check("Conv", {"x": f32(2, 4, 10)}, attrs, initializers={"w": f32(6, 4 // attrs.get("group", 1), 3)},
          rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("attrs,wshape", [
    ({}, (3, 4, 3, 3)),
    ({"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]}, (3, 4, 3, 3)),
    ({"group": 3, "strides": [2, 1]}, (3, 2, 2, 3)),
    ({"dilations": [2, 2], "pads": [0, 1, 1, 0]}, (3, 2, 3, 3)),
    ({"strides": [2, 2], "output_shape": [10, 9]}, (3, 2, 3, 3)),
    ({"strides": [2, 2], "auto_pad": "SAME_UPPER"}, (3, 2, 3, 3)),
    ({"strides": [2, 2], "auto_pad": "SAME_LOWER"}, (3, 2, 3, 3)),
    ({"strides": [2, 2], "output_shape": [10, 8], "auto_pad": "SAME_UPPER"}, (3, 2, 3, 3)),
])
def test_conv_transpose(attrs, wshape):
    check("ConvTranspose", {"x": f32(1, 3, 5, 4)}, attrs, initializers={"w": f32(*wshape), "b": f32(wshape[1] *
                                                                                                  attrs.get("group", 1))},
          rtol=1e-4, atol=1e-4)


def test_conv_transpose_1d():
    check("ConvTranspose", {"x": f32(2, 3, 6)}, {"strides": [2]}, initializers={"w": f32(3, 2, 3)},
          rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("opset", [9, 15])
def test_batch_norm(opset):
    check("BatchNormalization", {"x": f32(2, 3, 4, 5)},
          {"epsilon": 1e-3}, initializers={"s": f32(3), "b": f32(3), "m": f32(3), "v": f32(3, lo=0.5)},
          opset=opset, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("axis,shapes", [(-1, (8,)), (1, (4, 8)), (-2, (4, 8))])
@pytest.mark.parametrize("bias", [False, True])
def test_layer_norm(axis, shapes, bias):
    inits = {"s": f32(*shapes)}
    if bias:
        inits["b"] = f32(*shapes)
    check("LayerNormalization", {"x": f32(2, 4, 8)}, {"axis": axis, "epsilon": 1e-5}, initializers=inits, opset=17,
          rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("opset,attrs", [(11, {}), (11, {"axis": 2}), (11, {"axis": 0}), (13, {}),
                                         (13, {"axis": 1})])
def test_softmax(op, opset, attrs):
    check(op, {"x": f32(2, 3, 4)}, attrs, opset=opset, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize("attrs", [
    {"kernel_shape": [2, 2]},
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
    {"kernel_shape": [3, 2], "strides": [2, 1], "ceil_mode": 1},
    {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER", "strides": [2, 2]},
    {"kernel_shape": [2, 2], "auto_pad": "VALID"},
])
def test_pool(op, attrs):
    check(op, {"x": f32(1, 2, 7, 6)}, attrs, opset=12)


def test_pool_extras():
    check("AveragePool", {"x": f32(1, 2, 7, 6)}, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1],
                                                  "count_include_pad": 1})
    check("MaxPool", {"x": f32(1, 2, 9, 9)}, {"kernel_shape": [2, 2], "dilations": [2, 2]}, opset=12)
    check("MaxPool", {"x": f32(2, 3, 9)}, {"kernel_shape": [3], "strides": [2]})


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
def test_global_pool(op):
    check(op, {"x": f32(2, 3, 5, 4)})


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((4,), (4, 3)),
                                    ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul(shapes):
    check("MatMul", {"a": f32(*shapes[0]), "b": f32(*shapes[1])}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("attrs", [{}, {"transA": 1}, {"transB": 1, "alpha": 0.5, "beta": 2.0}, {"beta": 0.0}])
def test_gemm(attrs):
    a = f32(4, 3) if attrs.get("transA") else f32(3, 4)
    b = f32(5, 4) if attrs.get("transB") else f32(4, 5)
    check("Gemm", {"a": a}, attrs, initializers={"b": b, "c": f32(5)}, rtol=1e-4, atol=1e-5)
    check("Gemm", {"a": a, "b": b}, attrs, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("eq,shapes", [("ij,jk->ik", ((3, 4), (4, 5))), ("bij,bjk->bik", ((2, 3, 4), (2, 4, 5))),
                                       ("ij->ji", ((3, 4),)), ("ii->i", ((3, 3),)), ("ij,ij", ((3, 4), (3, 4))),
                                       ("bhqd,bhkd->bhqk", ((1, 2, 3, 4), (1, 2, 5, 4)))])
def test_einsum(eq, shapes):
    check("Einsum", {f"x{i}": f32(*s) for i, s in enumerate(shapes)}, {"equation": eq}, opset=12, rtol=1e-4,
          atol=1e-5)


# -- tensor manipulation -------------------------------------------------------------------
@pytest.mark.parametrize("shape", [[4, 6], [-1, 3], [0, -1], [0, 3, -1]])
def test_reshape(shape):
    check("Reshape", {"x": f32(2, 12)}, initializers={"s": i64(shape)})


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_flatten(axis):
    check("Flatten", {"x": f32(2, 3, 4)}, {"axis": axis})


@pytest.mark.parametrize("perm", [None, [0, 2, 1], [2, 0, 1]])
def test_transpose(perm):
    check("Transpose", {"x": f32(2, 3, 4)}, {"perm": perm} if perm else {})


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(axis):
    check("Concat", {"a": f32(2, 3, 4), "b": f32(2, 3, 4)}, {"axis": axis}, initializers={"c": f32(2, 3, 4)})


@pytest.mark.parametrize("opset,attrs,split,n_out", [
    (11, {"axis": 1}, None, 3), (11, {"axis": 1, "split": [1, 2, 3]}, None, 3), (13, {"axis": -1}, [2, 2], 2),
    (18, {"axis": 1, "num_outputs": 4}, None, 4), (13, {}, None, 2)])
def test_split(opset, attrs, split, n_out):
    inits = {"split": i64(split)} if split is not None else {}
    check("Split", {"x": f32(4, 6, 4)}, attrs, initializers=inits, opset=opset, n_out=n_out)


@pytest.mark.parametrize("starts,ends,axes,steps", [
    ([1], [3], [0], None), ([0, 1], [2, -1], [1, 2], None), ([-1], [-10**18], [2], [-1]),
    ([0, 4], [9, 0], [1, 2], [2, -2]), ([1], [10**18], [-1], [1])])
def test_slice(starts, ends, axes, steps):
    inits = {"st": i64(starts), "en": i64(ends), "ax": i64(axes)}
    if steps is not None:
        inits["sp"] = i64(steps)
    check("Slice", {"x": f32(3, 4, 5)}, initializers=inits)


def test_slice_opset9():
    check("Slice", {"x": f32(3, 4, 5)}, {"starts": [0, 1], "ends": [2, 3], "axes": [0, 2]}, opset=9)


@pytest.mark.parametrize("axis,indices", [(0, [0, 2, -1]), (1, [[0, 1], [3, -4]]), (2, 1), (-1, [4, 0])])
def test_gather(axis, indices):
    check("Gather", {"x": f32(3, 4, 5)}, {"axis": axis}, initializers={"i": i64(indices)})


def test_gather_runtime_indices():
    check("Gather", {"x": f32(10, 4), "i": i64([[1, -2], [9, 0]])}, {"axis": 0})


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_elements(axis):
    idx = R.integers(-3, 3, (3, 2, 4))
    check("GatherElements", {"x": f32(3, 3, 4), "i": idx.astype("int64")}, {"axis": axis})


@pytest.mark.parametrize("opset", [11, 13])
def test_unsqueeze_squeeze(opset):
    if opset < 13:
        check("Unsqueeze", {"x": f32(3, 4)}, {"axes": [0, 3]}, opset=opset)
        check("Squeeze", {"x": f32(1, 3, 1, 4)}, {"axes": [0, -2]}, opset=opset)
    else:
        check("Unsqueeze", {"x": f32(3, 4)}, initializers={"a": i64([0, -1])}, opset=opset)
        check("Squeeze", {"x": f32(1, 3, 1, 4)}, initializers={"a": i64([2])}, opset=opset)
    check("Squeeze", {"x": f32(1, 3, 1, 4)}, opset=opset)


@pytest.mark.parametrize("shape", [[2, 3, 4], [3, 1], [1, 1, 4], [2, 1, 1]])
def test_expand(shape):
    check("Expand", {"x": f32(3, 1)}, initializers={"s": i64(shape)})


def test_tile():
    check("Tile", {"x": f32(2, 3)}, initializers={"r": i64([2, 3])})
    check("Tile", {"x": f32(2, 3, 1)}, initializers={"r": i64([1, 1, 4])})


def test_shape_size():
    check("Shape", {"x": f32(2, 3, 4)})
    check("Shape", {"x": f32(2, 3, 4)}, {"start": 1}, opset=15)
    check("Shape", {"x": f32(2, 3, 4)}, {"start": -2, "end": -1}, opset=15)
    check("Size", {"x": f32(2, 3, 4)})


def test_constant_of_shape_range():
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("ConstantOfShape", ["s"], ["c"], value=helper.make_tensor("v", 1, [1], [2.5])),
             helper.make_node("Add", ["x", "c"], ["out0"]),
             helper.make_node("Range", ["r0", "r1", "r2"], ["out1"])]
    model = make_model(nodes, {"x": f32(2, 3)}, ["out0", "out1"],
                       {"r0": np.float32(1), "r1": np.float32(4), "r2": np.float32(0.5)})
    check_model(model, {"x": f32(2, 3)})


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
@pytest.mark.parametrize("opset", [11, 18])
def test_pad(mode, opset):
    inits = {"p": i64([1, 2, 0, 2]), "v": np.float32(1.5)}
    names = ["x", "p", "v" if mode == "constant" else ""]
    if opset >= 18:
        inits["a"] = i64([1, 2])
        names.append("a")
        inits["p"] = i64([0, 2, 1, 1])
    else:
        inits["p"] = i64([0, 1, 2, 0, 1, 1])
    check("Pad", {"x": f32(2, 3, 4)}, {"mode": mode}, initializers=inits, opset=opset, input_names=names)


def test_pad_opset2():
    check("Pad", {"x": f32(2, 3)}, {"pads": [1, 0, 0, 2], "value": -1.0}, opset=2)


@pytest.mark.parametrize("mode,coord,nearest", [
    ("nearest", "asymmetric", "floor"), ("nearest", "half_pixel", "round_prefer_floor"),
    ("nearest", "align_corners", "round_prefer_ceil"), ("linear", "half_pixel", None),
    ("linear", "align_corners", None), ("linear", "asymmetric", None), ("linear", "pytorch_half_pixel", None)])
@pytest.mark.parametrize("use_sizes", [False, True])
def test_resize(mode, coord, nearest, use_sizes):
    attrs = {"mode": mode, "coordinate_transformation_mode": coord}
    if nearest:
        attrs["nearest_mode"] = nearest
    if use_sizes:
        inits = {"roi": np.zeros(0, "float32"), "scales": np.zeros(0, "float32"), "sizes": i64([1, 2, 7, 10])}
        names = ["x", "", "", "sizes"]
        inits.pop("roi"), inits.pop("scales")
    else:
        inits = {"scales": np.asarray([1, 1, 2, 1.5], "float32")}
        names = ["x", "", "scales"]
    check("Resize", {"x": f32(1, 2, 4, 4)}, attrs, initializers=inits, opset=13, input_names=names,
          rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("k", [None, -1, 2])
def test_trilu(upper, k):
    inits = {} if k is None else {"k": i64(k)}
    check("Trilu", {"x": f32(2, 4, 5)}, {"upper": upper}, initializers=inits, opset=14)


# -- reductions ----------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                                "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"])
@pytest.mark.parametrize("axes,keepdims", [([1], 1), ([0, -1], 0), (None, 1)])
@pytest.mark.parametrize("opset", [13, 18])
def test_reduce(op, axes, keepdims, opset):
    x = f32(2, 3, 4) * 0.5 + 1
    axes_as_input = opset >= 18 or (op == "ReduceSum" and opset >= 13)
    if axes is None:
        check(op, {"x": x}, {"keepdims": keepdims}, opset=opset, rtol=1e-5)
    elif axes_as_input:
        check(op, {"x": x}, {"keepdims": keepdims}, initializers={"a": i64(axes)}, opset=opset, rtol=1e-5)
    else:
        check(op, {"x": x}, {"keepdims": keepdims, "axes": axes}, opset=opset, rtol=1e-5)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("axis,keepdims", [(0, 1), (1, 0), (-1, 1)])
def test_argmax(op, axis, keepdims):
    check(op, {"x": f32(3, 4, 5)}, {"axis": axis, "keepdims": keepdims})


@pytest.mark.parametrize("axis,largest,k", [(-1, 1, 3), (0, 1, 2), (1, 0, 4)])
def test_topk(axis, largest, k):
    x = R.permutation(60).reshape(3, 4, 5).astype("float32")
    check("TopK", {"x": x}, {"axis": axis, "largest": largest}, initializers={"k": i64([k])}, n_out=2)


@pytest.mark.parametrize("exclusive,reverse", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("axis", [0, -1])
def test_cumsum(exclusive, reverse, axis):
    check("CumSum", {"x": f32(3, 4)}, {"exclusive": exclusive, "reverse": reverse}, initializers={"a": i64(axis)},
          rtol=1e-5, atol=1e-5)


# -- shape computations --------------------------------------------------------------------
def _shape_chain_model():
    """Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])) and Expand /
    ConstantOfShape / Range on shape values, over a symbolic batch N."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
             helper.make_node("Unsqueeze", ["n", "zero1"], ["n1"]),
             helper.make_node("Concat", ["n1", "minus1"], ["target"], axis=0),
             helper.make_node("Reshape", ["x", "target"], ["flat"]),
             helper.make_node("Range", ["zero", "n", "one"], ["r"]),
             helper.make_node("Concat", ["n1", "three"], ["s2"], axis=0),
             helper.make_node("ConstantOfShape", ["s2"], ["ones"], value=helper.make_tensor("v", 1, [1], [1.0])),
             helper.make_node("Add", ["ones", "bias"], ["ob"]),
             helper.make_node("Shape", ["flat"], ["fs"]),
             helper.make_node("Expand", ["bias", "s2"], ["eb"])]
    inits = {"zero": i64(0), "one": i64(1), "zero1": i64([0]), "minus1": i64([-1]), "three": i64([3]),
             "bias": f32(3)}
    return make_model(nodes, {"x": (1, ["N", 3, 4])}, ["flat", "r", "ob", "fs", "eb"], inits)


def test_shape_chain_symbolic_batch():
    from .onnx_helpers import run_ort, run_tessera, from_onnx
    model = _shape_chain_model()
    mod = from_onnx(model)
    assert str(mod["main"].params[0].struct_info.shape.values[0]) == "N"
    out_sinfo = mod["main"].ret_struct_info.fields[0]
    assert str(out_sinfo.shape.values[0]) == "N" and int(out_sinfo.shape.values[1]) == 12
    for n in (1, 4):
        x = f32(n, 3, 4)
        for g, e in zip(run_tessera(model, {"x": x}), run_ort(model, {"x": x})):
            np.testing.assert_allclose(g, e, rtol=1e-6)


def test_shape_chain_folds_with_static_shape():
    """With shape_dict giving N, the chain folds: no shape ops remain in main."""
    from .onnx_helpers import run_ort, run_tessera, from_onnx
    model = _shape_chain_model()
    mod = from_onnx(model, shape_dict={"x": (2, 3, 4)})
    text = mod["main"].script()
    assert "shape_of" not in text and "R.reshape(x, R.shape([2, 12]))" in text
    x = f32(2, 3, 4)
    for g, e in zip(run_tessera(model, {"x": x}, shape_dict={"x": (2, 3, 4)}), run_ort(model, {"x": x})):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_onnx_importer_does_not_import_torch():
    """Importing and running the ONNX frontend leaves PyTorch unloaded (the helpers it
    shares with the PyTorch importer live in frontend/common.py)."""
    import os
    import subprocess
    import sys
    code = ("import sys, numpy as np\n"
            "from onnx import helper\n"
            "from tessera.relax.frontend.onnx import from_onnx\n"
            "g = helper.make_graph([helper.make_node('Conv', ['x', 'w'], ['y'])], 'g',\n"
            "    [helper.make_tensor_value_info('x', 1, [1, 1, 4, 4]), helper.make_tensor_value_info('w', 1, [1, 1, 3, 3])],\n"
            "    [helper.make_empty_tensor_value_info('y')])\n"
            "from_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]))\n"
            "print('torch' in sys.modules)\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(os.path.dirname(__file__), "..", "..", "..", "python")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "False"


# -- more normalizations, scatter, one-hot, com.microsoft fusions ---------------------------
def test_instance_mvn_lp_pool():
    check("InstanceNormalization", {"x": f32(2, 3, 4, 5)}, {"epsilon": 1e-4},
          initializers={"s": f32(3), "b": f32(3)}, rtol=1e-4, atol=1e-5)
    check("MeanVarianceNormalization", {"x": f32(2, 3, 4, 5)}, rtol=1e-4, atol=1e-5)
    check("MeanVarianceNormalization", {"x": f32(2, 3, 4)}, {"axes": [1, 2]}, rtol=1e-4, atol=1e-5)
    check("GlobalLpPool", {"x": f32(2, 3, 4, 5)}, {"p": 3}, rtol=1e-4, atol=1e-5)
    check("GlobalLpPool", {"x": f32(2, 3, 4, 5)}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis):
    check("OneHot", {"i": i64([[1, 9], [2, -1]])}, {"axis": axis},
          initializers={"depth": i64(10), "values": np.asarray([3, 1], "float32")})


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_elements(axis, reduction):
    idx = R.integers(-4, 4, (2, 3, 3)).astype("int64")
    attrs = {"axis": axis} if reduction == "none" else {"axis": axis, "reduction": reduction}
    check("ScatterElements", {"x": f32(4, 4, 4), "i": idx, "u": f32(2, 3, 3)}, attrs, opset=18)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("ishape,ushape", [((2, 1), (2, 4, 5)), ((3, 2), (3, 5)), ((2, 2, 3), (2, 2))])
def test_scatter_nd(reduction, ishape, ushape):
    # distinct targets (ONNX leaves the order of duplicates undefined), negative ones included
    k, count = ishape[-1], int(np.prod(ishape[:-1]))
    positions = np.array(list(np.ndindex(*(3, 4, 5)[:k])), "int64")
    idx = positions[np.random.default_rng(1).permutation(len(positions))[:count]].reshape(ishape)
    idx[..., 0] -= 3 * (idx[..., 0] % 2)  # odd first coordinates counted from the end
    attrs = {} if reduction == "none" else {"reduction": reduction}
    check("ScatterND", {"x": f32(3, 4, 5), "i": idx, "u": f32(*ushape)}, attrs, opset=18)


def test_microsoft_fusions():
    check("Gelu", {"x": f32(3, 8)}, domain="com.microsoft", rtol=1e-5, atol=1e-5)
    check("BiasGelu", {"x": f32(3, 8)}, initializers={"b": f32(8)}, domain="com.microsoft", rtol=1e-5, atol=1e-5)
    check("SkipLayerNormalization", {"x": f32(2, 3, 8), "skip": f32(2, 3, 8)},
          {"epsilon": 1e-5}, initializers={"g": f32(8), "b": f32(8), "bias": f32(8)}, domain="com.microsoft",
          rtol=1e-4, atol=1e-5)


def test_pad_runtime_constant_value():
    check("Pad", {"x": f32(2, 3), "v": np.asarray(2.5, "float32")}, initializers={"p": i64([1, 0, 0, 2])},
          input_names=["x", "p", "v"], opset=13)


def test_input_names_sanitized_and_unknown_dims_distinct():
    from .onnx_helpers import from_onnx
    nodes = [helper.make_node("Add", [".", "_"], ["s"]), helper.make_node("Add", ["s", "1x"], ["out"])]
    model = make_model(nodes, {".": (1, [2, 3]), "_": (1, [2, 3]), "1x": (1, ["?", "?"])}, ["out"])
    params = from_onnx(model)["main"].params
    assert [p.name_hint for p in params] == ["_", "__1", "input_1x"]
    dims = [str(d) for d in params[2].struct_info.shape.values]
    assert dims[0] != dims[1]  # each "?" is a dimension of its own


@pytest.mark.parametrize("attrs", [{}, {"pads": [1, 0, 1, 1, 2, 0], "strides": [2, 1, 2], "group": 2},
                                   {"dilations": [2, 1, 1]}, {"auto_pad": "SAME_UPPER", "strides": [1, 2, 2]}])
def test_conv3d(attrs):
    check("Conv", {"x": f32(1, 4, 6, 5, 7)}, attrs, initializers={"w": f32(6, 4 // attrs.get("group", 1), 3, 2, 3),
                                                                  "b": f32(6)}, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize("attrs", [{"kernel_shape": [2, 2, 2]},
                                   {"kernel_shape": [3, 2, 3], "strides": [2, 1, 2], "pads": [1, 0, 1, 1, 1, 0]},
                                   {"kernel_shape": [3, 3, 2], "strides": [2, 2, 2], "ceil_mode": 1},
                                   {"kernel_shape": [3, 3, 3], "pads": [1, 1, 1, 1, 1, 1], "count_include_pad": 1}])
def test_pool3d(op, attrs):
    if op == "MaxPool" and "count_include_pad" in attrs:
        attrs = {k: v for k, v in attrs.items() if k != "count_include_pad"}
    check(op, {"x": f32(1, 2, 6, 5, 7)}, attrs, opset=12)


@pytest.mark.parametrize("op,bad", [("Gather", [[1, 10]]), ("Gather", [[-11, 0]]),
                                    ("GatherElements", None)])
def test_gather_out_of_range_runtime_index_raises(op, bad):
    """An index outside [-size, size) fed at run time: ONNX Runtime refuses it, and so does
    Tessera (IndexError naming the axis), instead of clamping to a wrong element."""
    import tessera as tvm
    from .onnx_helpers import run_ort, run_tessera
    x = f32(10, 4)
    idx = i64(bad) if bad is not None else i64([[0, 1, 2, 3], [1, 1, 1, 7]])  # column index 7 >= 4
    attrs = {"axis": 0} if op == "Gather" else {"axis": 1}
    model = make_model([helper.make_node(op, ["x", "i"], ["out0"], **attrs)], {"x": x, "i": idx}, ["out0"])
    with pytest.raises(Exception):
        run_ort(model, {"x": x, "i": idx})
    with pytest.raises(tvm.error.TVMError) as info:
        run_tessera(model, {"x": x, "i": idx})
    assert isinstance(info.value, IndexError) and "out of bounds" in str(info.value), info.value
    # In range (negative counts from the end): matches ONNX Runtime.
    ok = np.where(idx >= 10, 9, np.where(idx < -10, -10, idx)) if op == "Gather" else np.minimum(idx, 3)
    check_model(make_model([helper.make_node(op, ["x", "i"], ["out0"], **attrs)], {"x": x, "i": ok}, ["out0"]),
                {"x": x, "i": ok})
