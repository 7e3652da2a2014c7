"""relax.transform.ConvertLayout (python/tessera/relax/transform/convert_layout.py): the
rewritten module's structure (transposes only at the region's boundary, none between
consecutive convolutions, axes of reductions/concat/softmax remapped) and its numbers: a
small conv-bn-relu-pool-residual network gives the same outputs as the original and as
PyTorch through relax.build, for NHWC/OHWI, NHWC/HWIO and "default" kernels."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.relax.transform import ConvertLayout, Normalize

torch = pytest.importorskip("torch")
nn = relax.op.nn


def _bindings(mod):
    return [b for blk in mod["main"].body.blocks for b in blk.bindings]


def _op_names(mod):
    return [b.value.op.name for b in _bindings(mod) if isinstance(b.value, relax.Call)]


def _network(shapes, with_bn=True):
    """conv(3x3) -> batch_norm -> relu -> max_pool -> conv(3x3, pad 1) + residual -> relu -> conv(1x1)
    -> mean over H, W (keepdims) and the block output; parameters are function inputs."""
    bb = relax.BlockBuilder()
    params = [relax.Var(n, relax.TensorStructInfo(s, "float32")) for n, s in shapes]
    x, w1, w2, w3, g, b, m, v, bias = params
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(nn.conv2d(x, w1, padding=1))
            if with_bn:
                y = bb.emit(relax.TupleGetItem(bb.emit(nn.batch_norm(y, g, b, m, v, axis=1)), 0))
            y = bb.emit(nn.relu(bb.emit(relax.op.add(y, bias))))
            p = bb.emit(nn.max_pool2d(y, 2, 2))
            z = bb.emit(nn.conv2d(p, w2, padding=1))
            r = bb.emit(nn.relu(bb.emit(relax.op.add(z, p))))
            c = bb.emit(nn.conv2d(r, w3))
            s = bb.emit(relax.op.mean(c, axis=[2, 3], keepdims=True))
            out = bb.emit_output(relax.Tuple([c, s]))
        bb.emit_func_output(out)
    return bb.get()


_SHAPES = [("x", (2, 3, 12, 12)), ("w1", (8, 3, 3, 3)), ("w2", (8, 8, 3, 3)), ("w3", (4, 8, 1, 1)), ("g", (8,)),
           ("b", (8,)), ("m", (8,)), ("v", (8,)), ("bias", (1, 8, 1, 1))]


def test_no_transposes_between_convs():
    mod = Normalize()(ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(_network(_SHAPES)))
    names = _op_names(mod)
    assert names.count("relax.nn.conv2d") == 3
    convs = [b.value for b in _bindings(mod) if isinstance(b.value, relax.Call) and b.value.op.name == "relax.nn.conv2d"]
    assert all(c.attrs["data_layout"] == "NHWC" and c.attrs["kernel_layout"] == "OHWI" for c in convs)
    pool = next(b.value for b in _bindings(mod) if isinstance(b.value, relax.Call) and b.value.op.name == "relax.nn.max_pool2d")
    assert pool.attrs["layout"] == "NHWC"
    mean = next(b.value for b in _bindings(mod) if isinstance(b.value, relax.Call) and b.value.op.name == "relax.mean")
    assert [int(a) for a in mean.attrs["axis"]] == [1, 2]
    # permute_dims: x, bias and 3 weights in; the two outputs back; none between the convolutions
    assert names.count("relax.permute_dims") == 7
    first_conv, last_conv = names.index("relax.nn.conv2d"), len(names) - 1 - names[::-1].index("relax.nn.conv2d")
    between = [n for n in names[first_conv:last_conv] if n == "relax.permute_dims"]
    assert len(between) == 3  # the weights of the 2nd and 3rd conv and the (1, 8, 1, 1) bias
    assert mod["main"].ret_struct_info.fields[0].shape is not None


@pytest.mark.parametrize("desired", [{"relax.nn.conv2d": ["NHWC", "OHWI"]}, {"relax.nn.conv2d": ["NHWC", "HWIO"]},
                                     {"relax.nn.conv2d": ["NHWC", "default"]},
                                     {"relax.nn.conv2d": ["NHWC", "OHWI"], "relax.nn.max_pool2d": ["NHWC"]}])
def test_network_numbers_unchanged(desired):
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s).astype("float32") for _, s in _SHAPES]
    inputs[7] = np.abs(inputs[7]) + 0.5  # variance
    mod = _network(_SHAPES)
    converted = ConvertLayout(desired)(mod)

    def run(m):
        vm = relax.VirtualMachine(relax.build(m, target="llvm"), tvm.cpu())
        return [o.numpy() for o in vm["main"](*[tvm.nd.array(a) for a in inputs])]

    x, w1, w2, w3, g, b, m, v, bias = [torch.from_numpy(a) for a in inputs]
    y = torch.nn.functional.conv2d(x, w1, padding=1)
    y = torch.nn.functional.batch_norm(y, m, v, g, b, training=False, eps=1e-5)
    p = torch.nn.functional.max_pool2d(torch.relu(y + bias), 2, 2)
    c = torch.nn.functional.conv2d(torch.relu(torch.nn.functional.conv2d(p, w2, padding=1) + p), w3)
    ref = [c.numpy(), c.mean(dim=(2, 3), keepdim=True).numpy()]
    for got_orig, got_conv, want in zip(run(mod), run(converted), ref):
        np.testing.assert_allclose(got_conv, want, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(got_conv, got_orig, rtol=1e-5, atol=1e-5)


def test_nhwc_model_to_nchw_and_depthwise():
    """The reverse direction (an NHWC model converted to NCHW) and a depthwise NHWC conv."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 9, 9, 8), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((3, 3, 8, 1), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            y = bb.emit(nn.conv2d(x, w, padding=1, groups=8, data_layout="NHWC", kernel_layout="HWOI"))
            out = bb.emit_output(relax.op.sum(nn.relu(y), axis=[3]))
        bb.emit_func_output(out)
    mod = bb.get()
    converted = ConvertLayout({"relax.nn.conv2d": ["NCHW", "OIHW"]})(mod)
    conv = next(b.value for b in _bindings(converted) if isinstance(b.value, relax.Call)
                and b.value.op.name == "relax.nn.conv2d")
    assert (conv.attrs["data_layout"], conv.attrs["kernel_layout"]) == ("NCHW", "OIHW")
    rng = np.random.default_rng(3)
    xs, ws = rng.standard_normal((1, 9, 9, 8)).astype("float32"), rng.standard_normal((3, 3, 8, 1)).astype("float32")
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(xs).permute(0, 3, 1, 2),
                                                torch.from_numpy(ws).permute(2, 3, 0, 1), padding=1, groups=8))
    for m in (mod, converted):
        vm = relax.VirtualMachine(relax.build(m, target="llvm"), tvm.cpu())
        np.testing.assert_allclose(vm["main"](tvm.nd.array(xs), tvm.nd.array(ws)).numpy(), ref.sum(dim=1).numpy(),
                                   rtol=1e-4, atol=1e-4)
