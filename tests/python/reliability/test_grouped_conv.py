"""Bad input on the grouped conv2d path (relax.nn.conv2d with groups, legalized to the
packed kernel per group, topi.nn.conv2d_nchw_packed / conv2d_pack_weight with groups):
channels that groups does not divide, a weight whose shape does not fit, a packed weight
or block that does not match the groups are ValueErrors naming the op and the parameter,
never a crash, an out-of-bounds read or a wrong answer; a built grouped conv (the
smallest and an odd-sized one) matches NumPy."""
import numpy as np
import pytest

from tessera import te, topi

from .harness import expect_error, run_case

_RELAX_CONV = """
import numpy as np
from tessera import relax
bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorStructInfo({x}, "float32"))
with bb.function("main", [x]):
    with bb.dataflow():
        out = bb.emit_output(relax.op.nn.conv2d(x, relax.const(np.zeros({w}, "float32")), padding=1, groups={g}))
    bb.emit_func_output(out)
tvm.relax.build(bb.get(), target="llvm")
"""


@pytest.mark.parametrize("x,w,groups,match", [
    # 30 channels in 4 groups of the weight's 7
    ((1, 30, 8, 8), (32, 7, 3, 3), 4, "relax.nn.conv2d: operand 'weight' has 7 input channels per group; with groups=4"),
    # the weight's 8 channels per group, the data's 64 / 4 = 16
    ((1, 64, 8, 8), (64, 8, 3, 3), 4, "relax.nn.conv2d: operand 'weight' has 8 input channels per group; with groups=4"),
    ((1, 64, 8, 8), (30, 16, 3, 3), 4, "relax.nn.conv2d: operand 'weight' has 30 output channels, not divisible by groups=4"),
    ((1, 64, 8, 8), (64, 16, 3, 3), 0, "relax.nn.conv2d: attribute 'groups'"),
])
def test_relax_conv2d_reports_channels_groups_and_weight_mismatches(x, w, groups, match):
    expect_error(_RELAX_CONV.format(x=x, w=w, g=groups), "ValueError", match)


@pytest.mark.parametrize("packed,groups,match", [
    ((4, 16, 3, 3, 16), 3, "groups=3 must divide"),
    ((4, 16, 3, 3, 16), 0, "groups=0 must divide"),
    ((4, 16, 3, 3, 16), 128, "groups=128 must divide"),
    ((4, 32, 3, 3, 16), 4, "reads 32 input channels per block, expected 16"),
    ((4, 80, 3, 3, 16), 1, "reads 80 input channels per block, expected 64"),  # would read past the data
    ((8, 16, 3, 3, 8), 16, "reads 16 input channels per block, expected 8"),   # two groups of 4 per block
    ((3, 16, 3, 3, 16), 4, "block=16"),                                        # 12 per group: blocks straddle
])
def test_topi_packed_conv_refuses_groups_that_do_not_fit(packed, groups, match):
    with pytest.raises(ValueError, match=match) as err:
        topi.nn.conv2d_nchw_packed(te.placeholder((1, 64, 8, 8), name="X"), te.placeholder(packed, name="P"),
                                   1, 1, 1, groups=groups)
    assert "topi.nn.conv2d_nchw_packed" in str(err.value)


@pytest.mark.parametrize("k,groups,block,match", [(64, 3, 16, "groups=3"), (48, 4, 8, "block=8"),
                                                  (64, 16, 12, "block=12")])
def test_weight_packing_refuses_blocks_across_partial_groups(k, groups, block, match):
    w = np.zeros((k, 4, 3, 3), "float32")
    with pytest.raises(ValueError, match=match):
        topi.nn.conv2d_pack_weight_numpy(w, block, groups)
    with pytest.raises(ValueError, match=match):
        topi.nn.conv2d_pack_weight(te.placeholder(w.shape, name="W"), block, groups)


@pytest.mark.parametrize("n,c,k,groups,hw,stride", [(1, 8, 8, 2, 1, 1), (2, 32, 32, 8, 13, 2), (1, 64, 128, 4, 7, 1)])
def test_built_grouped_conv_matches_numpy(n, c, k, groups, hw, stride):
    res = run_case(f"""
        import numpy as np
        import tessera as tvm
        from tessera import relax
        rng = np.random.default_rng(0)
        n, c, k, g, hw, s = {n}, {c}, {k}, {groups}, {hw}, {stride}
        x = rng.standard_normal((n, c, hw, hw)).astype("float32")
        w = rng.standard_normal((k, c // g, 3, 3)).astype("float32")
        bb = relax.BlockBuilder()
        xv = relax.Var("x", relax.TensorStructInfo(x.shape, "float32"))
        with bb.function("main", [xv]):
            with bb.dataflow():
                y = bb.emit(relax.op.nn.conv2d(xv, relax.const(w), strides=s, padding=1, groups=g))
                out = bb.emit_output(relax.op.nn.relu(y))
            bb.emit_func_output(out)
        vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
        got = vm["main"](tvm.nd.array(x)).numpy()
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))).astype("float64")
        win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))[:, :, ::s, ::s]
        win = win.reshape(n, g, c // g, *win.shape[2:])
        want = np.einsum("bgchwrs,gocrs->bgohw", win, w.reshape(g, k // g, c // g, 3, 3).astype("float64"))
        want = np.maximum(want.reshape(n, k, *want.shape[3:]), 0)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
        print("OK")
    """)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
