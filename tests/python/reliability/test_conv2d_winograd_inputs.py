"""Bad input on the Winograd conv2d path (topi.nn.conv2d_nchw_winograd, legalized from
relax.nn.conv2d with PassContext config "relax.conv2d_winograd"): shapes that do not
fit, tiles it has no transform for and convs without an output are ValueErrors naming
the culprit, never a crash or a wrong answer; the smallest legal convs (one output
pixel, one partial tile) match NumPy."""
import numpy as np
import pytest

import tessera as tvm
from tessera import te, topi

from .harness import expect_error


def _inputs(x_shape, u_shape, m=4):
    bt, at = topi.nn.winograd_transform_constants(m)
    return (te.placeholder(x_shape, name="x"), te.placeholder(u_shape, name="u"),
            te.placeholder(bt.shape, name="bt"), te.placeholder(at.shape, name="at"))


@pytest.mark.parametrize("x_shape,u_shape,padding,match", [
    ((1, 8, 6, 6), (6, 6, 1, 4, 16), 1, "channels"),       # the weight's 4 input channels, the data's 8
    ((1, 8, 6, 6), (6, 6, 8, 16), 1, "5-d U"),               # an untransformed-rank weight
    ((1, 8, 6), (6, 6, 1, 8, 16), 1, "4-d data"),
    ((1, 8, 1, 1), (6, 6, 1, 8, 16), 0, "no 3x3 output"),  # 1 x 1 input, unpadded
    ((1, 8, 6, 6), (6, 6, 1, 8, 16), -1, "padding"),
])
def test_topi_refuses_shapes_that_do_not_fit(x_shape, u_shape, padding, match):
    with pytest.raises(ValueError, match=match):
        topi.nn.conv2d_nchw_winograd(*_inputs(x_shape, u_shape), padding)


@pytest.mark.parametrize("m", [0, 3, 8])
def test_tiles_without_a_transform_are_refused(m):
    with pytest.raises(ValueError, match="output tile m"):
        topi.nn.conv2d_winograd_weight_transform(np.zeros((4, 4, 3, 3), "float32"), m)


def test_build_with_mismatched_channels_is_a_clean_error():
    # Winograd forced on: the conv's channel mismatch is still reported by conv2d's
    # struct-info inference, naming the op, before any transform.
    expect_error("""
        import numpy as np
        from tessera import relax
        bb = relax.BlockBuilder()
        x = relax.Var("x", relax.TensorStructInfo((1, 64, 8, 8), "float32"))
        with bb.function("main", [x]):
            with bb.dataflow():
                out = bb.emit_output(relax.op.nn.conv2d(x, relax.const(np.zeros((64, 32, 3, 3), "float32")),
                                                        padding=1))
            bb.emit_func_output(out)
        with tvm.transform.PassContext(config={"relax.conv2d_winograd": True}):
            relax.build(bb.get(), target="llvm")
    """, "ValueError", "conv2d")


@pytest.mark.parametrize("hw,padding", [(1, 1), (3, 0), (5, 0)])
def test_smallest_convs_match_numpy(hw, padding):
    from tessera import relax
    rng = np.random.default_rng(hw)
    x = rng.standard_normal((2, 16, hw, hw)).astype("float32")
    w = rng.standard_normal((16, 16, 3, 3)).astype("float32")
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorStructInfo(x.shape, "float32"))
    with bb.function("main", [xv]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.nn.conv2d(xv, relax.const(w), padding=padding))
        bb.emit_func_output(out)
    with tvm.transform.PassContext(config={"relax.conv2d_winograd": True}):
        ex = relax.build(bb.get(), target="llvm")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # n, c, oh, ow, 3, 3
    expected = np.einsum("ncyxrs,kcrs->nkyx", win.astype(np.float64), w.astype(np.float64))
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())
