"""A constant conv2d weight holding inf or NaN is not transformed by Winograd: G w G^T
spreads each tap over every entry of the transformed weight and the inverse transform
multiplies by A^T's zeros, so inf * 0 made NaN in every output of the channel where the
direct convolution gives +-inf (or NaN only where IEEE arithmetic does). Both the
by-shape choice and the forced PassContext config "relax.conv2d_winograd" keep the
direct kernel (the forced one says why at info level); the outputs match a NumPy
direct convolution, inf and NaN positions included."""
import logging

import numpy as np
import pytest

import tessera as tvm
from tessera import relax

C = K = 16
HW = 16  # 4 x 4 tiles of 4 x 4 outputs: Winograd by shape when the weight is finite
RNG = np.random.default_rng(7)
X = RNG.uniform(0.5, 1.5, (1, C, HW, HW)).astype("float32")


def _weight(nonfinite=True):
    w = (np.random.default_rng(8).standard_normal((K, C, 3, 3)) / 12).astype("float32")
    if nonfinite:
        w[0, 3, 0, 0] = np.inf   # channel 0: +inf everywhere the tap meets data, NaN on padding
        w[1, 2, 1, 1] = -np.inf  # channel 1: -inf
        w[2, 5, 2, 2] = np.nan   # channel 2: NaN
    return w


def _module(w, padding):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(X.shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.nn.conv2d(x, relax.const(w), padding=padding))
        bb.emit_func_output(out)
    return bb.get()


def _config(winograd):
    return tvm.transform.PassContext(config={} if winograd is None else {"relax.conv2d_winograd": winograd})


def _direct_conv(w, padding):
    """NumPy oracle: the sum over the 9 taps of the zero-padded input times the weight."""
    xp = np.pad(X.astype(np.float64), ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = xp.shape[2] - 2
    with np.errstate(invalid="ignore"):
        return sum(np.einsum("nchw,kc->nkhw", xp[:, :, i:i + oh, j:j + oh], w[:, :, i, j].astype(np.float64))
                   for i in range(3) for j in range(3)).astype("float32")


def _legalized_names(w, winograd):
    with _config(winograd):
        mod = relax.transform.LegalizeOps()(_module(w, 1))
    return [gv.name_hint for gv in mod.functions.keys()]


@pytest.mark.parametrize("winograd", [None, True])
@pytest.mark.parametrize("padding", [1, 0])
def test_nonfinite_weight_matches_the_direct_convolution(winograd, padding):
    w = _weight()
    with _config(winograd):
        ex = relax.build(_module(w, padding), target="llvm")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(X)).numpy()
    want = _direct_conv(w, padding)
    assert np.isinf(want).any() and np.isnan(want).any()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.where(np.isinf(want), got, 0), np.where(np.isinf(want), want, 0))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-4, atol=1e-4)


def test_forced_winograd_keeps_the_direct_kernel_and_says_why(caplog):
    with caplog.at_level(logging.INFO):
        names = _legalized_names(_weight(), True)
    assert not any("winograd" in n for n in names), names
    assert any("non-finite" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("winograd", [None, True])
def test_finite_weight_still_takes_winograd(winograd):
    assert any("winograd" in n for n in _legalized_names(_weight(nonfinite=False), winograd))
