"""Relax nn operators (relax.op.nn.* / R.nn.*): every op built through
relax.build (LegalizeOps to TOPI) and run on the VM against PyTorch, in
float32 and float16; struct-info inference (symbolic batch, unknown shapes);
errors naming the op and the operand/attribute; the TVMScript round trip."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I

torch = pytest.importorskip("torch")
F = torch.nn.functional
nn = relax.op.nn


def _var(name, shape, dtype="float32"):
    return relax.Var(name, relax.TensorStructInfo(shape, dtype))


def _module(make, arrays):
    params = [_var(f"x{i}", a.shape, str(a.dtype)) for i, a in enumerate(arrays)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            gv = bb.emit_output(make(*params))
        bb.emit_func_output(gv)
    return bb.get()


def _run(make, *arrays):
    vm = relax.VirtualMachine(relax.build(_module(make, arrays), target="llvm"), tvm.cpu())
    out = vm["main"](*[tvm.nd.array(a) for a in arrays])
    return [o.numpy() for o in out] if isinstance(out, (list, tuple)) else out.numpy()


def _torch(fn, *arrays):
    """PyTorch's result in float32 on the same (possibly float16-rounded) inputs."""
    return fn(*[torch.from_numpy(a.astype("float32")) for a in arrays]).numpy()


def _rand(shape, dtype="float32", lo=None, seed=[0]):  # pylint: disable=dangerous-default-value
    seed[0] += 1
    rng = np.random.default_rng(seed[0])
    a = rng.uniform(lo, 2.0, shape) if lo is not None else rng.standard_normal(shape)
    return a.astype(dtype)


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-2, atol=1e-2)


ACTIVATIONS = [
    (nn.relu, F.relu),
    (nn.gelu, F.gelu),
    (nn.gelu_tanh, lambda t: F.gelu(t, approximate="tanh")),
    (nn.silu, F.silu),
]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape", [(7,), (2, 3, 5)])
@pytest.mark.parametrize("op,ref", ACTIVATIONS, ids=["relu", "gelu", "gelu_tanh", "silu"])
def test_activations(op, ref, shape, dtype):
    x = _rand(shape, dtype)
    np.testing.assert_allclose(_run(op, x), _torch(ref, x), **_tol(dtype))


def test_relu_int32():
    x = np.arange(-6, 6, dtype="int32").reshape(3, 4)
    np.testing.assert_array_equal(_run(nn.relu, x), np.maximum(x, 0))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape,axis", [((4, 10), -1), ((2, 3, 5), 1), ((3, 4), 0)])
def test_softmax_and_log_softmax(shape, axis, dtype):
    x = _rand(shape, dtype)
    np.testing.assert_allclose(_run(lambda v: nn.softmax(v, axis), x), _torch(lambda t: F.softmax(t, axis), x),
                               **_tol(dtype))
    np.testing.assert_allclose(_run(lambda v: nn.log_softmax(v, axis=axis), x),
                               _torch(lambda t: F.log_softmax(t, axis), x), **_tol(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape,axes,center,scale", [((4, 16), [-1], True, True), ((2, 3, 4, 5), [2, 3], True, True),
                                                     ((3, 8), [1], False, True), ((3, 8), [1], True, False)])
def test_layer_norm(shape, axes, center, scale, dtype):
    x = _rand(shape, dtype)
    norm = [shape[a] for a in axes]
    g, b = _rand(norm, dtype), _rand(norm, dtype)
    out = _run(lambda v, gg, bb: nn.layer_norm(v, gg, bb, axes, epsilon=1e-5, center=center, scale=scale), x, g, b)
    ref = _torch(lambda t, gg, bb: F.layer_norm(t, norm, gg if scale else None, bb if center else None, 1e-5), x, g, b)
    np.testing.assert_allclose(out, ref, **_tol(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape,axis", [((2, 3, 4, 5), 1), ((4, 6), 1), ((2, 5, 3), -1)])
def test_batch_norm_uses_moving_stats(shape, axis, dtype):
    c = shape[axis]
    x, g, b, mean = _rand(shape, dtype), _rand((c,), dtype), _rand((c,), dtype), _rand((c,), dtype)
    var = _rand((c,), dtype, lo=0.5)
    out, m2, v2 = _run(lambda *a: nn.batch_norm(*a, axis=axis, epsilon=1e-3), x, g, b, mean, var)
    moved = np.moveaxis(x, axis, 1)
    ref = _torch(lambda t, gg, bb, mm, vv: F.batch_norm(t, mm, vv, gg, bb, False, 0.1, 1e-3), moved, g, b, mean, var)
    np.testing.assert_allclose(out, np.moveaxis(ref, 1, axis), **_tol(dtype))
    np.testing.assert_array_equal(m2, mean)
    np.testing.assert_array_equal(v2, var)


def test_batch_norm_without_center_and_scale():
    x, g, b, mean = _rand((2, 3, 4)), _rand((3,)), _rand((3,)), _rand((3,))
    var = _rand((3,), lo=0.5)
    out = _run(lambda *a: nn.batch_norm(*a, axis=1, center=False, scale=False), x, g, b, mean, var)[0]
    np.testing.assert_allclose(out, _torch(lambda t, mm, vv: F.batch_norm(t, mm, vv), x, mean, var), rtol=1e-5,
                               atol=1e-5)


def test_dropout_is_identity_in_inference():
    x = _rand((3, 4))
    out, mask = _run(lambda v: nn.dropout(v, rate=0.25), x)
    np.testing.assert_array_equal(out, _torch(lambda t: F.dropout(t, 0.25, training=False), x))
    np.testing.assert_array_equal(mask, np.ones_like(x))


CONV_CASES = [  # data shape, weight shape, strides, padding, dilation, groups
    ((2, 3, 8, 8), (4, 3, 3, 3), 1, 0, 1, 1),
    ((1, 4, 9, 7), (6, 4, 3, 3), 2, 1, 1, 1),
    ((1, 4, 10, 9), (4, 2, 3, 2), (1, 2), (1, 2), (2, 1), 2),
    ((2, 6, 7, 7), (6, 1, 3, 3), 1, (0, 1, 2, 1), 1, 6),  # depthwise, asymmetric padding
    ((1, 8, 6, 6), (16, 2, 1, 1), 1, 0, 1, 4),
]


def _torch_conv(x, w, strides, padding, dilation, groups):
    p = [padding] * 4 if isinstance(padding, int) else list(padding) * (2 if len(padding) == 2 else 1)
    x = F.pad(x, (p[1], p[3], p[0], p[2]))
    return F.conv2d(x, w, stride=strides, dilation=dilation, groups=groups)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("dshape,wshape,strides,padding,dilation,groups", CONV_CASES)
def test_conv2d(dshape, wshape, strides, padding, dilation, groups, dtype):
    x, w = _rand(dshape, dtype), _rand(wshape, dtype)
    out = _run(lambda a, b: nn.conv2d(a, b, strides, padding, dilation, groups), x, w)
    ref = _torch(lambda a, b: _torch_conv(a, b, strides, padding, dilation, groups), x, w)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=2e-2, atol=5e-2)
    np.testing.assert_allclose(out, ref, **tol)


def test_conv2d_out_dtype():
    x, w = _rand((1, 2, 5, 5), "float16"), _rand((3, 2, 3, 3), "float16")
    out = _run(lambda a, b: nn.conv2d(a, b, out_dtype="float32"), x, w)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, _torch(F.conv2d, x, w), rtol=1e-4, atol=1e-4)


POOL_CASES = [  # pool_size, strides, padding, dilation, ceil_mode, count_include_pad
    (2, 2, 0, 1, False, False),
    (3, 2, 1, 1, False, True),
    (3, 2, 1, 1, True, True),
    (3, 2, 1, 1, True, False),
    (2, 2, 1, 1, True, True),  # ceil_mode drops the window that would start in the padding (PyTorch's rule)
    ((3, 2), (2, 1), (1, 0), 1, False, False),
]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape", [(2, 3, 7, 8), (1, 2, 5, 5)])
@pytest.mark.parametrize("k,s,p,d,ceil,include_pad", POOL_CASES)
def test_pool2d(k, s, p, d, ceil, include_pad, shape, dtype):
    x = _rand(shape, dtype)
    out = _run(lambda v: nn.max_pool2d(v, k, s, p, d, ceil_mode=ceil), x)
    ref = _torch(lambda t: F.max_pool2d(t, k, s, p, d, ceil_mode=ceil), x)
    np.testing.assert_allclose(out, ref, **_tol(dtype))
    out = _run(lambda v: nn.avg_pool2d(v, k, s, p, ceil_mode=ceil, count_include_pad=include_pad), x)
    ref = _torch(lambda t: F.avg_pool2d(t, k, s, p, ceil_mode=ceil, count_include_pad=include_pad), x)
    np.testing.assert_allclose(out, ref, **_tol(dtype))


def test_max_pool2d_dilation():
    x = _rand((1, 2, 9, 9))
    out = _run(lambda v: nn.max_pool2d(v, pool_size=3, strides=1, padding=1, dilation=2), x)
    np.testing.assert_allclose(out, _torch(lambda t: F.max_pool2d(t, 3, 1, 1, 2), x), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape,size", [((2, 3, 7, 9), (3, 4)), ((1, 2, 8, 8), 1), ((1, 2, 5, 6), (5, 6)),
                                        ((1, 1, 4, 10), (3, 7))])
def test_adaptive_avg_pool2d(shape, size, dtype):
    x = _rand(shape, dtype)
    np.testing.assert_allclose(_run(lambda v: nn.adaptive_avg_pool2d(v, size), x),
                               _torch(lambda t: F.adaptive_avg_pool2d(t, size), x), **_tol(dtype))


def test_adaptive_avg_pool2d_default_keeps_size():
    x = _rand((1, 2, 3, 4))
    np.testing.assert_allclose(_run(nn.adaptive_avg_pool2d, x), x, rtol=1e-6)


def test_small_cnn_end_to_end():
    """conv -> batch_norm -> relu -> max_pool -> adaptive pool -> softmax, as a model would chain them."""
    x, w = _rand((2, 3, 12, 12)), _rand((8, 3, 3, 3))
    g, b, m = _rand((8,)), _rand((8,)), _rand((8,))
    v = _rand((8,), lo=0.5)

    def make(x_, w_, g_, b_, m_, v_):
        bb = relax.BlockBuilder.current()
        y = bb.emit(nn.conv2d(x_, w_, padding=1))
        y = bb.emit(relax.TupleGetItem(bb.emit(nn.batch_norm(y, g_, b_, m_, v_, axis=1)), 0))
        y = bb.emit(nn.max_pool2d(bb.emit(nn.relu(y)), 2, 2))
        y = bb.emit(nn.adaptive_avg_pool2d(y, 1))
        return nn.softmax(y, axis=1)

    def ref(x_, w_, g_, b_, m_, v_):
        y = F.batch_norm(F.conv2d(x_, w_, padding=1), m_, v_, g_, b_)
        return F.softmax(F.adaptive_avg_pool2d(F.max_pool2d(F.relu(y), 2, 2), 1), dim=1)

    np.testing.assert_allclose(_run(make, x, w, g, b, m, v), _torch(ref, x, w, g, b, m, v), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- struct info

def _infer(call):
    return relax.BlockBuilder().normalize(call).struct_info_


def _eq(sinfo, shape, dtype="float32"):
    tvm.ir.assert_structural_equal(sinfo, relax.TensorStructInfo(shape, dtype))


def test_struct_info_symbolic_batch():
    n = tir.Var("n", "int64")
    x = _var("x", (n, 3, 10, 10))
    _eq(_infer(nn.relu(x)), (n, 3, 10, 10))
    _eq(_infer(nn.softmax(x, axis=1)), (n, 3, 10, 10))
    _eq(_infer(nn.conv2d(x, _var("w", (8, 3, 3, 3)), strides=2, padding=1)), (n, 8, 5, 5))
    _eq(_infer(nn.conv2d(x, _var("w", (8, 3, 3, 3)), out_dtype="float16")), (n, 8, 8, 8), "float16")
    _eq(_infer(nn.max_pool2d(x, 3, 2, 1, ceil_mode=True)), (n, 3, 6, 6))
    _eq(_infer(nn.max_pool2d(_var("y", (n, 3, 5, 5)), 2, 2, 1, ceil_mode=True)), (n, 3, 3, 3))  # PyTorch drops 1
    _eq(_infer(nn.avg_pool2d(x, 2, 2)), (n, 3, 5, 5))
    _eq(_infer(nn.adaptive_avg_pool2d(x, (2, 3))), (n, 3, 2, 3))
    _eq(_infer(nn.layer_norm(x, _var("g", (10,)), _var("b", (10,)), [-1])), (n, 3, 10, 10))
    c = [_var(f"c{i}", (3,)) for i in range(4)]
    s = _infer(nn.batch_norm(x, *c, axis=1))
    tvm.ir.assert_structural_equal(s, relax.TupleStructInfo([relax.TensorStructInfo((n, 3, 10, 10), "float32"),
                                                             relax.TensorStructInfo((3,), "float32"),
                                                             relax.TensorStructInfo((3,), "float32")]))
    s = _infer(nn.dropout(x))
    assert len(s.fields) == 2
    _eq(s.fields[1], (n, 3, 10, 10))


def test_struct_info_symbolic_spatial():
    h = tir.Var("h", "int64")
    s = _infer(nn.conv2d(_var("x", (1, 3, h, 8)), _var("w", (4, 3, 3, 3)), padding=1))
    assert s.shape is not None
    analyzer = tvm.arith.Analyzer()
    assert analyzer.can_prove_equal(s.shape.values[2], h)
    s = _infer(nn.max_pool2d(_var("x", (1, 3, h, 8)), 2, 2, 1, ceil_mode=True))
    assert s.ndim == 4 and s.dtype == "float32"  # whether the last window is dropped depends on h


def test_struct_info_unknown_shape():
    x = relax.Var("x", relax.TensorStructInfo(dtype="float32", ndim=4))
    s = _infer(nn.conv2d(x, _var("w", (4, 3, 3, 3))))
    assert s.ndim == 4 and s.shape is None and s.dtype == "float32"
    s = _infer(nn.max_pool2d(x, 2))
    assert s.ndim == 4 and s.shape is None
    s = _infer(nn.relu(relax.Var("y", relax.TensorStructInfo(dtype="float32", ndim=-1))))
    assert s.ndim == -1


def test_struct_info_symbolic_batch_builds_and_runs():
    n = tir.Var("n", "int64")
    x, w = _var("x", (n, 2, 6, 6)), _var("w", (4, 2, 3, 3))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            y = bb.emit(nn.relu(bb.emit(nn.conv2d(x, w, padding=1))))
            gv = bb.emit_output(nn.max_pool2d(y, 2, 2))
        bb.emit_func_output(gv)
    vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
    for batch in (1, 3):
        xv, wv = _rand((batch, 2, 6, 6)), _rand((4, 2, 3, 3))
        out = vm["main"](tvm.nd.array(xv), tvm.nd.array(wv)).numpy()
        ref = _torch(lambda a, b: F.max_pool2d(F.relu(F.conv2d(a, b, padding=1)), 2, 2), xv, wv)
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- errors

def test_errors_wrong_rank_and_dtype():
    with pytest.raises(ValueError, match=r"relax.nn.conv2d: operand 'data' must be 4-D"):
        _infer(nn.conv2d(_var("x", (3, 8, 8)), _var("w", (4, 3, 3, 3))))
    with pytest.raises(ValueError, match=r"relax.nn.conv2d: operand 'weight' must be 4-D"):
        _infer(nn.conv2d(_var("x", (1, 3, 8, 8)), _var("w", (4, 3, 3))))
    with pytest.raises(ValueError, match=r"relax.nn.max_pool2d: operand 'data' must be 4-D"):
        _infer(nn.max_pool2d(_var("x", (3, 8, 8)), 2))
    with pytest.raises(TypeError, match=r"relax.nn.conv2d: operand 'weight' must have the dtype of 'data'"):
        _infer(nn.conv2d(_var("x", (1, 3, 8, 8)), _var("w", (4, 3, 3, 3), "float16")))
    with pytest.raises(TypeError, match=r"relax.nn.gelu: operand 'data' must have a float dtype"):
        _infer(nn.gelu(_var("x", (3,), "int32")))
    with pytest.raises(TypeError, match=r"relax.nn.softmax: operand 'data' \(argument 0\) must be a tensor"):
        _infer(nn.softmax(relax.ShapeExpr([2])))
    with pytest.raises(TypeError, match=r"relax.nn.relu: operand 'data' must be a relax Expr"):
        nn.relu(np.zeros(3))


def test_errors_channels_and_groups():
    with pytest.raises(ValueError, match=r"relax.nn.conv2d: operand 'weight' has 2 input channels per group; with "
                                         r"groups=1 that is 2 channels, but operand 'data' has 3"):
        _infer(nn.conv2d(_var("x", (1, 3, 8, 8)), _var("w", (4, 2, 3, 3))))
    with pytest.raises(ValueError, match=r"groups=2 that is 6 channels, but operand 'data' has 4"):
        _infer(nn.conv2d(_var("x", (1, 4, 8, 8)), _var("w", (4, 3, 3, 3)), groups=2))
    with pytest.raises(ValueError, match=r"operand 'weight' has 5 output channels, not divisible by groups=2"):
        _infer(nn.conv2d(_var("x", (1, 4, 8, 8)), _var("w", (5, 2, 3, 3)), groups=2))
    with pytest.raises(ValueError, match=r"relax.nn.conv2d: attribute 'groups' must be >= 1"):
        _infer(nn.conv2d(_var("x", (1, 4, 8, 8)), _var("w", (4, 4, 3, 3)), groups=0))
    with pytest.raises(ValueError, match=r"relax.nn.conv2d: the dilated kernel of operand 'weight'"):
        _infer(nn.conv2d(_var("x", (1, 3, 4, 4)), _var("w", (4, 3, 3, 3)), dilation=3))


def test_errors_layouts_and_attributes():
    x, w = _var("x", (1, 8, 8, 3)), _var("w", (3, 3, 3, 4))
    assert [int(v) for v in _infer(nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO")).shape.values] == [1, 6, 6, 4]
    with pytest.raises(ValueError, match=r"relax.nn.conv2d: attribute 'data_layout' = \"NHWD\" is not a layout of "
                                         r"NCHW \(unknown axis 'D'"):
        _infer(nn.conv2d(x, w, data_layout="NHWD", kernel_layout="HWIO"))
    with pytest.raises(ValueError, match=r"relax.nn.conv2d: attribute 'kernel_layout' = \"HWIN\""):
        _infer(nn.conv2d(_var("x", (1, 3, 8, 8)), w, kernel_layout="HWIN"))
    with pytest.raises(ValueError, match=r"relax.nn.avg_pool2d: attribute 'layout' = \"NHW\" is not a layout of NCHW"):
        _infer(nn.avg_pool2d(x, 2, layout="NHW"))
    with pytest.raises(ValueError, match=r"relax.nn.conv2d: padding must have 1 or 2 or 4 elements, got 3"):
        nn.conv2d(x, w, padding=(1, 2, 3))
    with pytest.raises(ValueError, match=r"relax.nn.max_pool2d: attribute 'strides' must be >= 1, got 0"):
        _infer(nn.max_pool2d(_var("x", (1, 3, 8, 8)), 2, strides=0))
    with pytest.raises(ValueError, match=r"relax.nn.max_pool2d: the pooling window"):
        _infer(nn.max_pool2d(_var("x", (1, 3, 2, 2)), 3))
    with pytest.raises(ValueError, match=r"relax.nn.softmax: attribute 'axis' = 2 is out of range for operand 'data' "
                                         r"with 2 dimensions"):
        _infer(nn.softmax(_var("x", (2, 3)), axis=2))
    with pytest.raises(ValueError, match=r"relax.nn.dropout: attribute 'rate' must be in \[0, 1\)"):
        _infer(nn.dropout(_var("x", (2, 3)), rate=1.5))
    with pytest.raises(TypeError, match=r"relax.nn.conv2d: strides must be an int or a list of ints"):
        nn.conv2d(x, w, strides=1.5)


def test_errors_norm_parameters():
    x = _var("x", (2, 3, 4))
    with pytest.raises(ValueError, match=r"relax.nn.layer_norm: dimension 0 of operand 'gamma' must equal dimension 2 "
                                         r"of 'data' \(5 vs 4\)"):
        _infer(nn.layer_norm(x, _var("g", (5,)), _var("b", (4,)), [-1]))
    with pytest.raises(ValueError, match=r"relax.nn.layer_norm: operand 'beta' must have 1 dimension"):
        _infer(nn.layer_norm(x, _var("g", (4,)), _var("b", (1, 4)), [2]))
    with pytest.raises(TypeError, match=r"relax.nn.layer_norm: operand 'gamma' must have the dtype of 'data'"):
        _infer(nn.layer_norm(x, _var("g", (4,), "float16"), _var("b", (4,)), [2]))
    with pytest.raises(ValueError, match=r"relax.nn.layer_norm: attribute 'axes' = 3 is out of range"):
        _infer(nn.layer_norm(x, _var("g", (4,)), _var("b", (4,)), [3]))
    c = [_var(f"c{i}", (3,)) for i in range(3)]
    with pytest.raises(ValueError, match=r"relax.nn.batch_norm: the length of operand 'moving_var' must equal "
                                         r"dimension 1 \(the channel axis\) of 'data' \(4 vs 3\)"):
        _infer(nn.batch_norm(x, *c, _var("v", (4,)), axis=1))
    with pytest.raises(ValueError, match=r"relax.nn.batch_norm: operand 'gamma' must be 1-D"):
        _infer(nn.batch_norm(x, _var("g", (3, 1)), *c, axis=1))


# ---------------------------------------------------------------- TVMScript

def _round_trip(mod):
    text = mod.script()
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), mod)
    return text


@pytest.mark.parametrize("make,arrays", [
    (nn.relu, [(2, 3)]), (nn.gelu, [(2, 3)]), (nn.gelu_tanh, [(2, 3)]), (nn.silu, [(2, 3)]),
    (lambda x: nn.softmax(x, 0), [(2, 3)]), (lambda x: nn.log_softmax(x), [(2, 3)]),
    (lambda x, g, b: nn.layer_norm(x, g, b, [1], 1e-6, center=False), [(2, 3), (3,), (3,)]),
    (lambda *a: nn.batch_norm(*a, axis=1, epsilon=1e-3, momentum=0.2), [(2, 3, 4), (3,), (3,), (3,), (3,)]),
    (lambda x: nn.dropout(x, 0.1), [(2, 3)]),
    (lambda x, w: nn.conv2d(x, w, 2, (1, 0), 1, 1, out_dtype="float32"), [(1, 3, 8, 8), (4, 3, 3, 3)]),
    (lambda x: nn.max_pool2d(x, 3, 2, 1, ceil_mode=True), [(1, 3, 8, 8)]),
    (lambda x: nn.avg_pool2d(x, (2, 3), count_include_pad=True), [(1, 3, 8, 8)]),
    (lambda x: nn.adaptive_avg_pool2d(x, 2), [(1, 3, 8, 8)]),
    (lambda x: nn.adaptive_avg_pool2d(x), [(1, 3, 8, 8)]),
], ids=["relu", "gelu", "gelu_tanh", "silu", "softmax", "log_softmax", "layer_norm", "batch_norm", "dropout",
        "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_avg_pool2d_none"])
def test_script_round_trip(make, arrays):
    mod = _module(make, [np.zeros(s, "float32") for s in arrays])
    assert "R.nn." in _round_trip(mod)


def test_script_keyword_attrs_match_constructor():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((1, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")):
            with R.dataflow():
                lv = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1,
                                 data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
                lv1 = R.nn.relu(lv)
                gv = R.nn.max_pool2d(lv1, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0], dilation=[1, 1],
                                     ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
                R.output(gv)
            return gv

    def make(x, w):
        bb = relax.BlockBuilder.current()
        lv1 = bb.emit(nn.relu(bb.emit(nn.conv2d(x, w, strides=2, padding=1))))
        return nn.max_pool2d(lv1, 2, 2)

    x, w = np.zeros((1, 3, 8, 8), "float32"), np.zeros((4, 3, 3, 3), "float32")
    expected = _module(make, [x, w])
    tvm.ir.assert_structural_equal(Mod["main"].body, expected["main"].body, map_free_vars=True)
    assert Mod["main"].body.struct_info.shape.values[2] == 2


def test_script_without_attrs_uses_tvm_defaults():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((1, 2, 6, 6), "float32"), w: R.Tensor((3, 2, 3, 3), "float32")):
            with R.dataflow():
                lv = R.nn.conv2d(x, w)
                lv1 = R.nn.softmax(lv)
                gv = R.nn.avg_pool2d(lv1)
                R.output(gv)
            return gv

    assert [int(d) for d in Mod["main"].ret_struct_info.shape.values] == [1, 3, 4, 4]
    x, w = _rand((1, 2, 6, 6)), _rand((3, 2, 3, 3))
    vm = relax.VirtualMachine(relax.build(Mod, target="llvm"), tvm.cpu())
    out = vm["main"](tvm.nd.array(x), tvm.nd.array(w)).numpy()
    np.testing.assert_allclose(out, _torch(lambda a, b: F.softmax(F.conv2d(a, b), -1), x, w), rtol=1e-5, atol=1e-6)


def test_legalize_ops_leaves_no_nn_call_and_shares_primfuncs():
    x = np.zeros((2, 3, 4, 4), "float32")

    def make(v):
        bb = relax.BlockBuilder.current()
        y = bb.emit(nn.relu(v))
        y = bb.emit(nn.relu(bb.emit(nn.gelu(y))))
        return nn.max_pool2d(y, 2, 2)

    mod = relax.transform.LegalizeOps()(_module(make, [x]))
    prims = sorted(gv.name_hint for gv in mod.get_global_vars() if isinstance(mod[gv], tvm.tir.PrimFunc))
    assert prims == ["gelu", "max_pool2d", "relu"]
    ops = [b.value.op.name for block in mod["main"].body.blocks for b in block.bindings
           if isinstance(b.value, relax.Call) and isinstance(b.value.op, tvm.ir.Op)]
    assert ops == ["relax.call_tir"] * 4


def test_script_positional_attrs_and_defaults():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((1, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"),
                 g: R.Tensor((3,), "float32")):
            with R.dataflow():
                lv = R.nn.conv2d(x, w, [2, 2], [1, 1, 1, 1])
                lv1 = R.nn.softmax(lv, 1)
                lv2 = R.nn.layer_norm(x, g, g, [1], 1e-3)
                lv3 = R.nn.max_pool2d(lv2, [2, 2], [2, 2])
                gv = R.nn.batch_norm(lv3, g, g, g, g, 1)
                R.output(lv1, gv)
            return (lv1, gv)

    def make(x, w, g):
        bb = relax.BlockBuilder.current()
        lv1 = bb.emit(nn.softmax(bb.emit(nn.conv2d(x, w, strides=2, padding=1)), axis=1))
        lv3 = bb.emit(nn.max_pool2d(bb.emit(nn.layer_norm(x, g, g, [1], epsilon=1e-3)), 2, 2))
        return relax.Tuple([lv1, bb.emit(nn.batch_norm(lv3, g, g, g, g, axis=1))])

    expected = _module(make, [np.zeros((1, 3, 8, 8), "float32"), np.zeros((4, 3, 3, 3), "float32"),
                              np.zeros((3,), "float32")])
    got = [b.value for b in Mod["main"].body.blocks[0].bindings]
    want = [b.value for b in expected["main"].body.blocks[0].bindings]
    for g_call, w_call in zip(got, want):
        tvm.ir.assert_structural_equal(g_call, w_call, map_free_vars=True)
    text = Mod.script()
    assert ("R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, "
            'data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")') in text
    assert "R.nn.max_pool2d(lv2, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0], dilation=[1, 1], " \
           "ceil_mode=False, count_include_pad=False" in text


def test_script_attr_errors():
    src = '''
@R.function
def main(x: R.Tensor((2, 3), "float32")):
    gv = R.nn.softmax(x, axes=1)
    return gv
'''
    with pytest.raises(tvm.error.ParseError, match=r"R.nn.softmax has no attribute 'axes' \(attributes: axis\)"):
        tvm.script.from_source(src)
    src = '''
@R.function
def main(x: R.Tensor((2, 3), "float32"), g: R.Tensor((3,), "float32")):
    gv = R.nn.layer_norm(x, g, g)
    return gv
'''
    with pytest.raises(tvm.error.ParseError, match=r"R.nn.layer_norm needs its attribute 'axes'"):
        tvm.script.from_source(src)


# ---------------------------------------------------------------- conv1d, conv2d_transpose

CONV1D_CASES = [  # dshape, wshape, strides, padding, dilation, groups
    ((2, 3, 10), (4, 3, 3), 1, 0, 1, 1),
    ((1, 4, 11), (6, 2, 3), 2, (1, 2), 2, 2),
    ((1, 6, 9), (6, 1, 5), 1, 2, 1, 6),  # depthwise
]


@pytest.mark.parametrize("dshape,wshape,strides,padding,dilation,groups", CONV1D_CASES)
def test_conv1d(dshape, wshape, strides, padding, dilation, groups):
    x, w = _rand(dshape), _rand(wshape)
    out = _run(lambda a, b: nn.conv1d(a, b, strides, padding, dilation, groups), x, w)
    p = [padding] * 2 if isinstance(padding, int) else list(padding)
    ref = _torch(lambda a, b: F.conv1d(F.pad(a, tuple(p)), b, stride=strides, dilation=dilation, groups=groups), x, w)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


CONVT_CASES = [  # dshape, wshape, strides, padding, output_padding, dilation, groups
    ((2, 3, 5, 5), (3, 4, 3, 3), 1, 0, 0, 1, 1),
    ((1, 4, 4, 6), (4, 2, 3, 2), 2, 1, 1, 1, 1),
    ((1, 4, 5, 4), (4, 3, 3, 3), (2, 3), (1, 0), (1, 2), (1, 2), 2),
]


@pytest.mark.parametrize("dshape,wshape,strides,padding,output_padding,dilation,groups", CONVT_CASES)
def test_conv2d_transpose(dshape, wshape, strides, padding, output_padding, dilation, groups):
    x, w = _rand(dshape), _rand(wshape)
    out = _run(lambda a, b: nn.conv2d_transpose(a, b, strides, padding, output_padding, dilation, groups), x, w)
    ref = _torch(lambda a, b: F.conv_transpose2d(a, b, stride=strides, padding=padding, output_padding=output_padding,
                                                 groups=groups, dilation=dilation), x, w)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_conv1d_conv2d_transpose_struct_info_and_errors():
    n = tir.Var("n", "int64")
    _eq(_infer(nn.conv1d(_var("x", (n, 3, 10)), _var("w", (4, 3, 3)), padding=1)), (n, 4, 10))
    _eq(_infer(nn.conv2d_transpose(_var("x", (n, 4, 5, 5)), _var("w", (4, 3, 3, 3)), strides=2, groups=2)),
        (n, 6, 11, 11))
    with pytest.raises(ValueError, match=r"relax.nn.conv1d: operand 'data' must be 3-D \(NCW\)"):
        _infer(nn.conv1d(_var("x", (1, 3, 8, 8)), _var("w", (4, 3, 3))))
    with pytest.raises(ValueError, match=r"relax.nn.conv1d: operand 'weight' has 2 input channels per group"):
        _infer(nn.conv1d(_var("x", (1, 3, 8)), _var("w", (4, 2, 3))))
    with pytest.raises(ValueError, match=r"relax.nn.conv2d_transpose: operand 'weight' has 3 input channels, "
                                         r"but operand 'data' has 4"):
        _infer(nn.conv2d_transpose(_var("x", (1, 4, 5, 5)), _var("w", (3, 4, 3, 3))))
    with pytest.raises(ValueError, match=r"relax.nn.conv2d_transpose: attribute 'output_padding' \(2\) must be "
                                         r"smaller than the stride"):
        _infer(nn.conv2d_transpose(_var("x", (1, 4, 5, 5)), _var("w", (4, 3, 3, 3)), strides=2, output_padding=2))
    with pytest.raises(ValueError, match=r"relax.nn.conv2d_transpose: attribute 'kernel_layout' = \"NCHW\""):
        _infer(nn.conv2d_transpose(_var("x", (1, 4, 5, 5)), _var("w", (4, 3, 3, 3)), kernel_layout="NCHW"))


def test_conv1d_conv2d_transpose_script_round_trip():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((1, 4, 8), "float32"), w: R.Tensor((4, 4, 3), "float32"),
                 y: R.Tensor((1, 4, 5, 5), "float32"), v: R.Tensor((4, 2, 3, 3), "float32")):
            a = R.nn.conv1d(x, w, strides=2, padding=1)
            b = R.nn.conv2d_transpose(y, v, strides=2, output_padding=1)
            return (a, b)

    text = Mod.script()
    assert "R.nn.conv1d(" in text and "R.nn.conv2d_transpose(" in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), Mod)


# ---------------------------------------------------------------- group_norm

@pytest.mark.parametrize("shape,groups,center,scale", [((2, 6, 4, 5), 3, True, True), ((1, 8, 7), 2, False, True),
                                                       ((2, 4, 3, 3), 4, True, False)])
def test_group_norm(shape, groups, center, scale):
    x, g, b = _rand(shape), _rand((shape[1],)), _rand((shape[1],))
    axes = list(range(2, len(shape)))
    out = _run(lambda a, gg, bb: nn.group_norm(a, gg, bb, groups, 1, axes, center=center, scale=scale), x, g, b)
    ref = _torch(lambda a, gg, bb: F.group_norm(a, groups, gg if scale else None, bb if center else None), x, g, b)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_group_norm_struct_info_errors_and_round_trip():
    n = tir.Var("n", "int64")
    _eq(_infer(nn.group_norm(_var("x", (n, 6, 4)), _var("g", (6,)), _var("b", (6,)), 2, 1, [2])), (n, 6, 4))
    with pytest.raises(ValueError, match=r"relax.nn.group_norm: the 6 channels of operand 'data' are not divisible "
                                         r"by num_groups=4"):
        _infer(nn.group_norm(_var("x", (1, 6, 4)), _var("g", (6,)), _var("b", (6,)), 4, 1, [2]))
    with pytest.raises(ValueError, match=r"relax.nn.group_norm: the length of operand 'beta' must equal"):
        _infer(nn.group_norm(_var("x", (1, 6, 4)), _var("g", (6,)), _var("b", (3,)), 2, 1, [2]))
    with pytest.raises(ValueError, match=r"relax.nn.group_norm: attribute 'channel_axis' = 3 is out of range"):
        _infer(nn.group_norm(_var("x", (1, 6, 4)), _var("g", (6,)), _var("b", (6,)), 2, 3, [2]))

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((1, 4, 3), "float32"), g: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            y = R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2])
            return y

    text = Mod.script()
    assert "R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2]" in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), Mod)


def test_conv_groups_checked_at_construction_and_symbolically():
    x, w = _var("x", (2, 128, 28, 28)), _var("w", (48, 16, 3, 3))
    for make in (nn.conv2d, nn.conv2d_transpose):
        with pytest.raises(ValueError, match=rf"{make.__name__}: attribute 'groups' must be >= 1, got -2"):
            make(x, w, groups=-2)
    oc, ic = tir.Var("oc", "int64"), tir.Var("c", "int64")
    with pytest.raises(ValueError, match=r"relax.nn.conv2d: operand 'weight' has oc \* 6 \+ 4 output channels, "
                                         r"not divisible by groups=6"):
        _infer(nn.conv2d(_var("x", (1, ic * 6, 8, 8)), _var("w", (oc * 6 + 4, ic, 3, 3)), groups=6))


@pytest.mark.parametrize("dshape,wshape,strides,padding,output_padding,dilation,groups", [
    ((2, 3, 7), (3, 4, 3), 1, 0, 0, 1, 1),
    ((1, 4, 6), (4, 3, 3), 2, (1, 2), 1, 2, 2),
])
def test_conv1d_transpose(dshape, wshape, strides, padding, output_padding, dilation, groups):
    x, w = _rand(dshape), _rand(wshape)
    out = _run(lambda a, b: nn.conv1d_transpose(a, b, strides, padding, output_padding, dilation, groups), x, w)
    p = [padding] * 2 if isinstance(padding, int) else list(padding)
    full = _torch(lambda a, b: F.conv_transpose1d(a, b, stride=strides, output_padding=output_padding, groups=groups,
                                                  dilation=dilation), x, w)
    ref = full[:, :, p[0]:full.shape[2] - p[1]]  # asymmetric padding crops each side on its own
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    _eq(_infer(nn.conv1d_transpose(_var("x", dshape), _var("w", wshape), strides, padding, output_padding, dilation,
                                   groups)), ref.shape)
