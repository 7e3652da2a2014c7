"""relax.nn.conv1d/conv2d/conv3d, conv*_transpose and the 2-D pooling ops in layouts other
than NCHW/OIHW (src/relax/op/nn/nn_layout.cc for inference, python/tessera/relax/op/nn/_layout.py
for the legalization through layout transforms): struct info for permuted and packed layouts,
out_layout defaulting to the data layout (also from TVMScript), and results through relax.build
against PyTorch for several layouts, strides, padding, groups and depthwise NHWC."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.relax.op.nn._layout import layout_shape

from relax_op_helpers import infer, tensor

torch = pytest.importorskip("torch")
nn = relax.op.nn


def _shape(sinfo):
    return [int(v) if isinstance(v, tir.IntImm) else v for v in sinfo.shape.values]


@pytest.mark.parametrize("data_layout,kernel_layout,out_layout,x_shape,w_shape,expected", [
    ("NHWC", "HWIO", None, (2, 10, 12, 3), (3, 3, 3, 8), [2, 5, 5, 8]),
    ("NHWC", "OHWI", "NCHW", (2, 10, 12, 3), (8, 3, 3, 3), [2, 8, 5, 5]),
    ("NCHW16c", "OIHW16i16o", None, (2, 2, 10, 12, 16), (1, 2, 3, 3, 16, 16), [2, 1, 5, 5, 16]),
    ("NCHW", "IOHW", "NHWC", (2, 3, 10, 12), (3, 8, 3, 3), [2, 5, 5, 8]),
    ("HWCN", "WHIO", "NCHW4c", (10, 12, 3, 2), (3, 3, 3, 8), [2, 2, 5, 5, 4]),
])
def test_conv2d_layout_struct_info(data_layout, kernel_layout, out_layout, x_shape, w_shape, expected):
    call = nn.conv2d(tensor(x_shape), tensor(w_shape), strides=(2, 2), padding=(1, 0), data_layout=data_layout,
                     kernel_layout=kernel_layout, out_layout=out_layout)
    assert call.attrs["out_layout"] == (out_layout or data_layout)
    assert _shape(infer(call)) == expected


def test_conv_other_ranks_and_pools_struct_info():
    n = tir.Var("n", "int64")
    assert _shape(infer(nn.conv1d(tensor((n, 9, 4)), tensor((3, 4, 6)), data_layout="NWC", kernel_layout="WIO"))) \
        == [n, 7, 6]
    assert _shape(infer(nn.conv3d(tensor((1, 5, 6, 7, 3)), tensor((8, 2, 2, 2, 3)), data_layout="NDHWC",
                                  kernel_layout="ODHWI"))) == [1, 4, 5, 6, 8]
    assert _shape(infer(nn.conv2d_transpose(tensor((1, 5, 5, 4)), tensor((3, 3, 4, 6)), strides=2, data_layout="NHWC",
                                            kernel_layout="HWIO"))) == [1, 11, 11, 6]
    assert _shape(infer(nn.max_pool2d(tensor((1, 8, 8, 32)), 2, 2, layout="NHWC"))) == [1, 4, 4, 32]
    assert _shape(infer(nn.avg_pool2d(tensor((1, 2, 8, 8, 16)), 3, 1, 1, layout="NCHW16c", out_layout="NHWC"))) \
        == [1, 8, 8, 32]
    assert _shape(infer(nn.adaptive_avg_pool2d(tensor((1, 7, 7, 32)), 1, layout="NHWC"))) == [1, 1, 1, 32]


def test_script_out_layout_defaults_to_data_layout():
    mod = tvm.script.from_source(
        "from tvm.script import relax as R\n"
        "@R.function\n"
        "def main(x: R.Tensor((1, 8, 8, 3), 'float32'), w: R.Tensor((3, 3, 3, 4), 'float32')):\n"
        "    y = R.nn.conv2d(x, w, data_layout='NHWC', kernel_layout='HWIO')\n"
        "    z = R.nn.max_pool2d(y, [2, 2], layout='NHWC')\n"
        "    return z\n")
    calls = [b.value for b in mod.body.blocks[0].bindings]
    assert calls[0].attrs["out_layout"] == "NHWC" and calls[1].attrs["out_layout"] == "NHWC"
    assert _shape(mod.ret_struct_info) == [1, 5, 5, 4]


def _to_layout(a, src, dst):
    """NumPy oracle of a layout change (only permutations and one packed sub-axis per primal)."""
    import re  # pylint: disable=import-outside-toplevel
    canon = [c for c in src if c.isupper()]
    t = torch.from_numpy(a)
    s_axes = re.findall(r"(\d*)([A-Za-z])", src)
    if any(f for f, _ in s_axes):  # unpack: move each sub-axis next to its primal, merge
        letters = [c for _, c in s_axes]
        order = []
        for c in canon:
            order.append(letters.index(c))
            if c.lower() in letters:
                order.append(letters.index(c.lower()))
        t = t.permute(order)
        shape = []
        for c in canon:
            shape.append(t.shape[len(shape) + sum(1 for x in canon[:canon.index(c)] if x.lower() in letters)] *
                         (int(dict((l, f) for f, l in s_axes)[c.lower()]) if c.lower() in letters else 1))
        t = t.reshape(shape)
    else:
        t = t.permute([src.index(c) for c in canon])
    d_axes = re.findall(r"(\d*)([A-Za-z])", dst)
    full = dict(zip(canon, t.shape))
    expanded, names = [], []
    for c in canon:
        f = int(dict((l, f) for f, l in d_axes).get(c.lower(), 0) or 0)
        if f:
            expanded += [full[c] // f, f]
            names += [c, c.lower()]
        else:
            expanded.append(full[c])
            names.append(c)
    t = t.reshape(expanded)
    return t.permute([names.index(c) for _, c in d_axes]).contiguous().numpy()


def _run(call_fn, inputs):
    bb = relax.BlockBuilder()
    params = [relax.Var(f"p{i}", relax.TensorStructInfo(a.shape, "float32")) for i, a in enumerate(inputs)]
    with bb.function("main", params):
        bb.emit_func_output(bb.emit(call_fn(*params)))
    ex = relax.build(bb.get(), target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    return vm["main"](*[tvm.nd.array(a) for a in inputs]).numpy()


@pytest.mark.parametrize("data_layout,kernel_layout,out_layout,strides,padding,groups,cin,cout", [
    ("NHWC", "HWIO", "NHWC", 1, 1, 1, 8, 16),
    ("NHWC", "OHWI", "NCHW", 2, (1, 2), 1, 3, 8),
    ("NHWC", "HWOI", "NHWC", 1, 1, 8, 8, 8),      # depthwise in NHWC (TVM's HWOI depthwise kernel)
    ("NCHW", "HWIO", "NHWC", 2, 0, 2, 4, 6),
    ("NCHW4c", "OIHW4i4o", "NCHW4c", 1, 1, 1, 8, 8),
])
def test_conv2d_layouts_match_torch(data_layout, kernel_layout, out_layout, strides, padding, groups, cin, cout):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, cin, 9, 10)).astype("float32")
    w = rng.standard_normal((cout, cin // groups, 3, 3)).astype("float32")
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=strides,
                                     padding=padding, groups=groups).numpy()
    got = _run(lambda a, b: nn.conv2d(a, b, strides=strides, padding=padding, groups=groups, data_layout=data_layout,
                                      kernel_layout=kernel_layout, out_layout=out_layout),
               [_to_layout(x, "NCHW", data_layout), _to_layout(w, "OIHW", kernel_layout)])
    np.testing.assert_allclose(got, _to_layout(ref, "NCHW", out_layout), rtol=1e-4, atol=1e-4)


def test_conv1d_conv3d_transpose_layouts_match_torch():
    rng = np.random.default_rng(1)
    x1, w1 = rng.standard_normal((2, 4, 11)).astype("float32"), rng.standard_normal((6, 4, 3)).astype("float32")
    got = _run(lambda a, b: nn.conv1d(a, b, strides=2, padding=1, data_layout="NWC", kernel_layout="WIO"),
               [x1.transpose(0, 2, 1).copy(), w1.transpose(2, 1, 0).copy()])
    ref = torch.nn.functional.conv1d(torch.from_numpy(x1), torch.from_numpy(w1), stride=2, padding=1).numpy()
    np.testing.assert_allclose(got, ref.transpose(0, 2, 1), rtol=1e-4, atol=1e-4)
    x3, w3 = rng.standard_normal((1, 3, 5, 6, 7)).astype("float32"), rng.standard_normal((4, 3, 2, 2, 2)).astype("float32")
    got = _run(lambda a, b: nn.conv3d(a, b, padding=1, data_layout="NDHWC", kernel_layout="DHWIO"),
               [x3.transpose(0, 2, 3, 4, 1).copy(), w3.transpose(2, 3, 4, 1, 0).copy()])
    ref = torch.nn.functional.conv3d(torch.from_numpy(x3), torch.from_numpy(w3), padding=1).numpy()
    np.testing.assert_allclose(got, ref.transpose(0, 2, 3, 4, 1), rtol=1e-4, atol=1e-4)
    xt, wt = rng.standard_normal((1, 4, 5, 5)).astype("float32"), rng.standard_normal((4, 3, 3, 3)).astype("float32")
    got = _run(lambda a, b: nn.conv2d_transpose(a, b, strides=2, padding=1, output_padding=1, data_layout="NHWC",
                                                kernel_layout="HWIO"),
               [xt.transpose(0, 2, 3, 1).copy(), wt.transpose(2, 3, 0, 1).copy()])
    ref = torch.nn.functional.conv_transpose2d(torch.from_numpy(xt), torch.from_numpy(wt), stride=2, padding=1,
                                               output_padding=1).numpy()
    np.testing.assert_allclose(got, ref.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout,out_layout", [("NHWC", "NHWC"), ("NHWC", "NCHW"), ("NCHW8c", "NHWC")])
def test_pool2d_layouts_match_torch(layout, out_layout):
    x = np.random.default_rng(2).standard_normal((2, 16, 9, 9)).astype("float32")
    t = torch.from_numpy(x)
    xin = _to_layout(x, "NCHW", layout)
    got = _run(lambda a: nn.max_pool2d(a, 3, 2, 1, layout=layout, out_layout=out_layout), [xin])
    np.testing.assert_allclose(got, _to_layout(torch.nn.functional.max_pool2d(t, 3, 2, 1).numpy(), "NCHW", out_layout))
    got = _run(lambda a: nn.avg_pool2d(a, 2, 2, layout=layout, out_layout=out_layout), [xin])
    np.testing.assert_allclose(got, _to_layout(torch.nn.functional.avg_pool2d(t, 2, 2).numpy(), "NCHW", out_layout),
                               rtol=1e-5, atol=1e-6)
    got = _run(lambda a: nn.adaptive_avg_pool2d(a, 1, layout=layout, out_layout=out_layout), [xin])
    np.testing.assert_allclose(got, _to_layout(torch.nn.functional.adaptive_avg_pool2d(t, 1).numpy(), "NCHW",
                                               out_layout), rtol=1e-5, atol=1e-6)


def test_layout_shape_helper():
    assert layout_shape("NCHW", "NCHW16c", [1, 32, 7, 7]) == [1, 2, 7, 7, 16]
    assert layout_shape("NCHW16c", "NHWC", [1, 2, 7, 7, 16]) == [1, 7, 7, 32]


def test_resize2d_nhwc_matches_torch():
    x = np.random.default_rng(4).standard_normal((1, 3, 5, 6)).astype("float32")
    got = _run(lambda a: relax.op.image.resize2d(a, (10, 9), layout="NHWC"), [x.transpose(0, 2, 3, 1).copy()])
    ref = torch.nn.functional.interpolate(torch.from_numpy(x), size=(10, 9), mode="bilinear", align_corners=False)
    np.testing.assert_allclose(got, ref.numpy().transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)
