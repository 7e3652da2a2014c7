"""TOPI nn kernels added or fixed for the Relax nn ops, built with tvm.build
and run against PyTorch: batch_norm (inference, statistics passed through),
adaptive_pool (avg and max), gelu_tanh, layer_norm without gamma/beta and in
float16, softmax/log_softmax in float16, pool2d's ceil_mode output size
(PyTorch's rule), conv2d and pool2d with a symbolic batch; bad inputs."""
import numpy as np
import pytest
import tessera as tvm
from tessera import te, tir, topi

torch = pytest.importorskip("torch")
F = torch.nn.functional


def _build_run(inputs, outs, arrays, shapes=None):
    outs = outs if isinstance(outs, list) else [outs]
    kwargs = {"index_dtype_override": "int64"} if shapes else {}  # symbolic dims are int64, as in call_te
    lib = tvm.build(te.create_prim_func(list(inputs) + outs, **kwargs), target="llvm")
    shapes = shapes or [[int(s) for s in o.shape] for o in outs]
    res = [tvm.nd.array(np.zeros(s, dtype=o.dtype)) for s, o in zip(shapes, outs)]
    lib["main"](*[tvm.nd.array(a) for a in arrays], *res)
    return [r.numpy() for r in res] if len(res) > 1 else res[0].numpy()


def _rand(shape, dtype="float32", seed=[0]):  # pylint: disable=dangerous-default-value
    seed[0] += 1
    return np.random.default_rng(seed[0]).standard_normal(shape).astype(dtype)


def _t(a):
    return torch.from_numpy(a.astype("float32"))


@pytest.mark.parametrize("center,scale", [(True, True), (False, True), (True, False)])
def test_batch_norm(center, scale):
    x, g, b, m = _rand((2, 3, 4, 5)), _rand((3,)), _rand((3,)), _rand((3,))
    v = np.abs(_rand((3,))) + 0.5
    X, G, B, M, V = (te.placeholder(a.shape, name=n) for a, n in zip((x, g, b, m, v), "XGBMV"))
    outs = topi.nn.batch_norm(X, G, B, M, V, axis=1, epsilon=1e-3, center=center, scale=scale)
    out, m2, v2 = _build_run([X, G, B, M, V], outs, [x, g, b, m, v])
    ref = F.batch_norm(_t(x), _t(m), _t(v), _t(g) if scale else None, _t(b) if center else None, eps=1e-3)
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(m2, m)
    np.testing.assert_array_equal(v2, v)


def test_batch_norm_errors():
    X, C = te.placeholder((2, 3, 4), name="X"), te.placeholder((3,), name="C")
    with pytest.raises(ValueError, match=r"topi.nn.batch_norm: moving_var W must have shape \[3\], got \[4\]"):
        topi.nn.batch_norm(X, C, C, C, te.placeholder((4,), name="W"))
    with pytest.raises(ValueError, match=r"topi.nn.batch_norm: axis 3 is out of range"):
        topi.nn.batch_norm(X, C, C, C, C, axis=3)


@pytest.mark.parametrize("pool_type", ["avg", "max"])
@pytest.mark.parametrize("shape,size", [((1, 2, 7, 9), (3, 4)), ((2, 1, 5, 5), (1, 1)), ((1, 1, 4, 10), (3, 7)),
                                        ((1, 1, 3, 3), (5, 6))])
def test_adaptive_pool(pool_type, shape, size):
    x = _rand(shape)
    X = te.placeholder(shape, name="X")
    out = _build_run([X], topi.nn.adaptive_pool(X, size, pool_type), [x])
    ref = (F.adaptive_avg_pool2d if pool_type == "avg" else F.adaptive_max_pool2d)(_t(x), size)
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-5, atol=1e-6)


def test_adaptive_pool_errors():
    X = te.placeholder((1, 2, 4, 4), name="X")
    with pytest.raises(ValueError, match="pool_type must be 'max' or 'avg'"):
        topi.nn.adaptive_pool(X, 2, "min")
    with pytest.raises(ValueError, match="output_size must be a positive int"):
        topi.nn.adaptive_pool(X, 0, "avg")
    with pytest.raises(NotImplementedError, match="layout NHWC"):
        topi.nn.adaptive_pool(X, 2, "avg", layout="NHWC")


def test_gelu_tanh():
    x = _rand((4, 5))
    X = te.placeholder(x.shape, name="X")
    np.testing.assert_allclose(_build_run([X], topi.nn.gelu_tanh(X), [x]),
                               F.gelu(_t(x), approximate="tanh").numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("with_gamma,with_beta", [(False, False), (True, False), (False, True)])
def test_layer_norm_optional_affine(with_gamma, with_beta):
    x, g, b = _rand((3, 8)), _rand((8,)), _rand((8,))
    X, G, B = te.placeholder((3, 8), name="X"), te.placeholder((8,), name="G"), te.placeholder((8,), name="B")
    Y = topi.nn.layer_norm(X, G if with_gamma else None, B if with_beta else None, axis=[1])
    inputs = [X] + ([G] if with_gamma else []) + ([B] if with_beta else [])
    arrays = [x] + ([g] if with_gamma else []) + ([b] if with_beta else [])
    ref = F.layer_norm(_t(x), (8,), _t(g) if with_gamma else None, _t(b) if with_beta else None)
    np.testing.assert_allclose(_build_run(inputs, Y, arrays), ref.numpy(), rtol=1e-5, atol=1e-5)


def test_layer_norm_float16_accumulates_in_float32():
    x = (_rand((2, 512)) * 4 + 100).astype("float16")  # large mean: float16 sums would lose the variance
    X = te.placeholder(x.shape, "float16", name="X")
    out = _build_run([X], topi.nn.layer_norm(X, None, None, axis=-1), [x])
    ref = F.layer_norm(_t(x), (512,)).numpy()
    np.testing.assert_allclose(out.astype("float32"), ref, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("h,k,s,p", [(5, 2, 2, 1), (6, 3, 2, 1), (7, 3, 3, 1), (10, 4, 3, 2)])
def test_pool2d_ceil_mode_output_size_as_pytorch(h, k, s, p):
    x = _rand((1, 2, h, h))
    X = te.placeholder(x.shape, name="X")
    for kind, ref_fn in (("max", lambda t: F.max_pool2d(t, k, s, p, ceil_mode=True)),
                         ("avg", lambda t: F.avg_pool2d(t, k, s, p, ceil_mode=True, count_include_pad=True))):
        Y = topi.nn.pool2d(X, k, s, 1, p, kind, ceil_mode=True, count_include_pad=True)
        ref = ref_fn(_t(x)).numpy()
        assert [int(d) for d in Y.shape] == list(ref.shape)
        np.testing.assert_allclose(_build_run([X], Y, [x]), ref, rtol=1e-5, atol=1e-6)


def test_conv2d_and_pool2d_symbolic_batch():
    n = tir.Var("n", "int64")
    X, W = te.placeholder((n, 2, 6, 6), name="X"), te.placeholder((3, 2, 3, 3), name="W")
    Y = topi.nn.pool2d(topi.nn.conv2d(X, W, 1, 1, 1), 2, 2, 1, 0, "max")
    assert Y.shape[0].same_as(n)
    x, w = _rand((3, 2, 6, 6)), _rand((3, 2, 3, 3))
    out = _build_run([X, W], Y, [x, w], shapes=[(3, 3, 3, 3)])
    np.testing.assert_allclose(out, F.max_pool2d(F.conv2d(_t(x), _t(w), padding=1), 2, 2).numpy(), rtol=1e-4,
                               atol=1e-5)


def test_softmax_float16_accumulates_in_float32():
    x = (_rand((2, 4096)) * 0.1).astype("float16")  # 4096 near-equal terms: a float16 running sum drifts
    X = te.placeholder(x.shape, "float16", name="X")
    out = _build_run([X], topi.nn.softmax(X), [x]).astype("float32")
    np.testing.assert_allclose(out, F.softmax(_t(x), -1).numpy(), rtol=5e-3, atol=1e-6)
    out = _build_run([X], topi.nn.log_softmax(X), [x]).astype("float32")
    np.testing.assert_allclose(out, F.log_softmax(_t(x), -1).numpy(), rtol=2e-3, atol=1e-3)
