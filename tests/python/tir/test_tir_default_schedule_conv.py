"""conv2d's default CPU path: relax.nn.conv2d legalized to the packed-weight
kernel (topi.nn.conv2d_nchw_packed) and scheduled by DefaultCPUSchedule's conv
rule (src/tir/transform/default_schedule_conv.cc) matches PyTorch over strided,
padded, dilated, 1x1, odd-sized and symbolic-batch convolutions (grouped and
depthwise ones, and channels not a multiple of 8, take the plain kernel); the
scheduled loops have the promised structure; the opt-out keeps the plain kernel."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera as tvm  # noqa: E402
from tessera import relax, tir  # noqa: E402

TARGET = "llvm -num-cores=4"


def _module(x_shape, w, stride, padding, dilation, groups, batch=None):
    shape = list(x_shape)
    if batch is not None:
        shape[0] = tir.Var(batch, "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, relax.const(w), strides=stride, padding=padding, dilation=dilation,
                                           groups=groups))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get()


CASES = [  # (N, C, H, W), (K, kh, kw), stride, padding, dilation, groups
    ((1, 16, 14, 14), (32, 3, 3), 1, 1, 1, 1),
    ((2, 8, 17, 19), (16, 3, 3), 2, 1, 1, 1),     # strided, odd sizes (width tail)
    ((1, 32, 9, 9), (64, 1, 1), 1, 0, 1, 1),      # 1x1: a GEMM
    ((1, 24, 15, 15), (48, 1, 1), 2, 0, 1, 1),    # strided 1x1
    ((1, 3, 31, 29), (16, 7, 7), 2, 3, 1, 1),     # stem-like
    ((1, 8, 12, 12), (8, 3, 3), 1, 2, 2, 1),      # dilated
    ((1, 5, 6, 40), (24, 2, 3), (1, 2), (0, 1), 1, 1),  # 8-channel block, wide rows
    ((1, 16, 10, 10), (12, 3, 3), 1, 1, 1, 1),    # 12 channels: plain kernel
    ((1, 16, 10, 10), (32, 3, 3), 1, 1, 1, 4),    # grouped: plain kernel
    ((1, 32, 11, 11), (32, 3, 3), 2, 1, 1, 32),   # depthwise: plain kernel
]


def _weights(x_shape, k_shape, groups):
    rng = np.random.default_rng(0)
    k, kh, kw = k_shape
    x = rng.standard_normal(x_shape).astype("float32")
    w = rng.standard_normal((k, x_shape[1] // groups, kh, kw)).astype("float32")
    return x, w


def _expected(x, w, stride, padding, dilation, groups):
    out = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=stride, padding=padding,
                                     dilation=dilation, groups=groups)
    return torch.relu(out).numpy()


@pytest.mark.parametrize("x_shape,k_shape,stride,padding,dilation,groups", CASES)
def test_matches_pytorch(x_shape, k_shape, stride, padding, dilation, groups):
    x, w = _weights(x_shape, k_shape, groups)
    mod = _module(x_shape, w, stride, padding, dilation, groups)
    ex = relax.build(mod, target=TARGET)
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    expected = _expected(x, w, stride, padding, dilation, groups)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_symbolic_batch():
    x_shape, k_shape = (3, 16, 13, 13), (32, 3, 3)
    x, w = _weights(x_shape, k_shape, 1)
    ex = relax.build(_module(x_shape, w, 1, 1, 1, 1, batch="n"), target=TARGET)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for n in (1, 3):
        got = vm["main"](tvm.nd.array(x[:n])).numpy()
        expected = _expected(x[:n], w, 1, 1, 1, 1)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


# The packed kernel's tests keep Winograd (3x3 stride-1 convs from 16 channels) off
# unless a test's config turns it on.
PACKED = {"relax.conv2d_winograd": False}


def _scheduled_conv(mod, config=None):
    passes = list(relax.get_pipeline(target=tvm.target.Target(TARGET)).passes)
    upto = [p.info.name for p in passes].index("DefaultCPUSchedule") + 1
    with tvm.transform.PassContext(config={**PACKED, **(config or {})}):
        mod = tvm.transform.Sequential(passes[:upto])(mod)
    convs = [mod[gv] for gv in mod.functions if "conv2d" in gv.name_hint and "pack" not in gv.name_hint
             and isinstance(mod[gv], tir.PrimFunc)]
    assert len(convs) == 1
    return convs[0]


def _loops(func):
    found = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, tir.For) else None)
    return found


def test_loop_structure():
    x_shape, k_shape = (1, 16, 28, 28), (32, 3, 3)
    _, w = _weights(x_shape, k_shape, 1)
    conv = _scheduled_conv(_module(x_shape, w, 1, 1, 1, 1))
    # The weight arrives packed by 16 output channels (packed at build time).
    assert [int(d) for d in conv.buffer_map[conv.params[1]].shape] == [2, 16, 3, 3, 16]
    loops = _loops(conv)
    kinds = [(l.kind, int(l.extent)) for l in loops]
    # A parallel outer loop over (batch, channel block, row, width tile): 1 * 2 * 28 * 2.
    assert (tir.ForKind.PARALLEL, 112) in kinds
    # The 14 x 16 register tile: width unrolled, output-channel block vectorized.
    assert (tir.ForKind.UNROLLED, 14) in kinds
    assert (tir.ForKind.VECTORIZED, 16) in kinds
    text = conv.script()
    assert 'scope="local"' in text


def test_opt_out_keeps_plain_kernel():
    x_shape, k_shape = (1, 16, 14, 14), (32, 3, 3)
    x, w = _weights(x_shape, k_shape, 1)
    mod = _module(x_shape, w, 1, 1, 1, 1)
    conv = _scheduled_conv(mod, {"relax.conv2d_packed": False})
    assert len(conv.buffer_map[conv.params[1]].shape) == 4
    with tvm.transform.PassContext(config={"relax.conv2d_packed": False}):
        ex = relax.build(mod, target=TARGET)
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(got, _expected(x, w, 1, 1, 1, 1), rtol=1e-4, atol=1e-4)


def test_constant_weight_packed_without_a_kernel():
    # A constant weight is packed while legalizing (NumPy), so no packing
    # PrimFunc is built per conv shape; the packed constant is OIHW -> O/16 I H W 16.
    x_shape, k_shape = (1, 16, 14, 14), (32, 3, 3)
    _, w = _weights(x_shape, k_shape, 1)
    with tvm.transform.PassContext(config=PACKED):
        mod = relax.transform.LegalizeOps()(_module(x_shape, w, 1, 1, 1, 1))
    assert not [gv for gv in mod.get_global_vars() if "weight_pack" in gv.name_hint]
    consts = []
    relax.analysis.post_order_visit(mod["main"], lambda e: consts.append(e) if isinstance(e, relax.Constant) else None)
    packed = [c.data.numpy() for c in consts if len(c.data.shape) == 5]
    assert len(packed) == 1
    np.testing.assert_array_equal(packed[0], w.reshape(2, 16, 16, 3, 3).transpose(0, 2, 3, 4, 1))


def test_weight_parameter_packed_by_its_kernel():
    # A weight that is a parameter keeps its packing kernel (run on every call).
    x_shape, k_shape = (1, 8, 9, 9), (16, 3, 3)
    x, w = _weights(x_shape, k_shape, 1)
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorStructInfo(x_shape, "float32"))
    wv = relax.Var("w", relax.TensorStructInfo(w.shape, "float32"))
    with bb.function("main", [xv, wv]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(xv, wv, padding=1))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    mod = bb.get()
    assert [gv for gv in relax.transform.LegalizeOps()(mod).get_global_vars() if "weight_pack" in gv.name_hint]
    ex = relax.build(mod, target=TARGET)
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x), tvm.nd.array(w)).numpy()
    np.testing.assert_allclose(got, _expected(x, w, 1, 1, 1, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind,shape,kernel,stride,padding", [
    ("max", (1, 8, 112, 112), 3, 2, 1), ("avg", (2, 5, 13, 17), 3, 2, 1), ("max", (1, 3, 9, 7), 2, 1, 0)])
def test_pooling_matches_pytorch_and_is_tiled(kind, shape, kernel, stride, padding):
    """pool2d's window reduction (default_schedule_pool.cc): vector width dividing the
    output width where one does, rows unrolled, a parallel outer loop; PyTorch oracle."""
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    pool = relax.op.nn.max_pool2d if kind == "max" else relax.op.nn.avg_pool2d
    with bb.function("main", [xv]):
        with bb.dataflow():
            out = bb.emit_output(pool(xv, kernel, stride, padding))
        bb.emit_func_output(out)
    mod = bb.get()
    ex = relax.build(mod, target=TARGET)
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    tx = torch.from_numpy(x)
    if kind == "max":
        expected = torch.nn.functional.max_pool2d(tx, kernel, stride, padding).numpy()
    else:  # Relax's avg_pool2d defaults to count_include_pad=False
        expected = torch.nn.functional.avg_pool2d(tx, kernel, stride, padding, count_include_pad=False).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    if shape[2] == 112:  # output 56 x 56: 8 lanes (56 % 16 != 0), 4 rows
        passes = list(relax.get_pipeline(target=tvm.target.Target(TARGET)).passes)
        upto = [p.info.name for p in passes].index("DefaultCPUSchedule") + 1
        scheduled = tvm.transform.Sequential(passes[:upto])(mod)
        (func,) = [scheduled[gv] for gv in scheduled.functions if isinstance(scheduled[gv], tir.PrimFunc)]
        kinds = [(l.kind, int(l.extent)) for l in _loops(func)]
        assert (tir.ForKind.VECTORIZED, 8) in kinds and (tir.ForKind.UNROLLED, 4) in kinds
        assert any(k == tir.ForKind.PARALLEL for k, _ in kinds)


@tvm.testing.requires_llvm  # the vector width of an -mcpu is LLVM's
def test_depthwise_gets_the_window_rule():
    """Depthwise conv2d (one input channel per group) is tiled as a window reduction:
    8 lanes (dividing the 56-wide output), 4 rows unrolled, the relu epilogue per tile,
    a parallel outer loop; the per-tile accumulators are compacted to registers."""
    x_shape, k_shape = (1, 16, 56, 56), (16, 3, 3)
    x, w = _weights(x_shape, k_shape, 16)
    mod = _module(x_shape, w, 1, 1, 1, 16)
    conv = _scheduled_conv(mod)
    kinds = [(l.kind, int(l.extent)) for l in _loops(conv)]
    assert (tir.ForKind.VECTORIZED, 8) in kinds and (tir.ForKind.UNROLLED, 4) in kinds
    assert any(k == tir.ForKind.PARALLEL for k, _ in kinds)
    lowered = tvm.lower(tvm.IRModule({"main": conv.with_attr("global_symbol", "main")})).script()
    assert "T.allocate([T.int64(32)]" in lowered  # the 4 x 8 accumulator tile
    got = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    expected = _expected(x, w, 1, 1, 1, 16)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def _blocks(stmt):
    found = []
    tir.stmt_functor.post_order_visit(stmt, lambda n: found.append(n) if isinstance(n, tir.Block) else None)
    return found


def _window_module(x_shape, w, op, stride, padding):
    """relu(max_pool2d 3x3) or relu(depthwise conv2d by the constant w) of x."""
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorStructInfo(x_shape, "float32"))
    with bb.function("main", [xv]):
        with bb.dataflow():
            if op == "max":
                y = relax.op.nn.max_pool2d(xv, 3, stride, padding)
            else:
                y = relax.op.nn.conv2d(xv, relax.const(w), strides=stride, padding=padding, groups=w.shape[0])
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get()


def _window_reference(x, w, op, stride, padding):
    tx = torch.from_numpy(x)
    if op == "max":
        ref = torch.nn.functional.max_pool2d(tx, 3, stride, padding)
    else:
        ref = torch.nn.functional.conv2d(tx, torch.from_numpy(w), stride=stride, padding=padding, groups=w.shape[0])
    return torch.relu(ref).numpy()


@pytest.mark.parametrize("op,stride,padding", [("depthwise", 2, 1), ("depthwise", 4, 1), ("max", 2, 1),
                                               ("depthwise", 1, 1), ("depthwise", 3, 1)])
def test_strided_window_reads_a_deinterleaved_pad(op, stride, padding):
    """With a column stride S > 1 the padding stage is stored as pad[n, c, h, w % S, w / S]
    (default_schedule_pool.cc), so the vectorized columns read consecutive elements;
    stride 1, or a stride not dividing the padded width (3 into 32), keeps the plain 4-D pad
    and the window tiling. PyTorch oracle."""
    x_shape = (1, 8, 29, 30)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(x_shape).astype("float32")
    w = rng.standard_normal((8, 1, 3, 3)).astype("float32")
    mod = _window_module(x_shape, w, op, stride, padding)
    passes = list(relax.get_pipeline(target=tvm.target.Target(TARGET)).passes)
    upto = [p.info.name for p in passes].index("DefaultCPUSchedule") + 1
    scheduled = tvm.transform.Sequential(passes[:upto])(mod)
    pads = []
    for gv in scheduled.functions:
        if isinstance(scheduled[gv], tir.PrimFunc):
            tir.stmt_functor.post_order_visit(
                scheduled[gv].body,
                lambda n: pads.extend(b for b in n.alloc_buffers if b.name.startswith("pad_temp"))
                if isinstance(n, tir.Block) else None)
    assert len(pads) == 1
    shape = [int(d) for d in pads[0].shape]
    assert any(l.kind == tir.ForKind.VECTORIZED for gv in scheduled.functions
               if isinstance(scheduled[gv], tir.PrimFunc) for l in _loops(scheduled[gv]))
    if 32 % stride == 0 and stride > 1:
        assert shape == [1, 8, 31, stride, 32 // stride], shape
    else:
        assert shape == [1, 8, 31, 32], shape
    got = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(got, _window_reference(x, w, op, stride, padding), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["depthwise", "max"])
def test_padding_computed_per_channel_plane(op):
    """The padding stage of a depthwise conv / pooling window is computed per (n, c) plane
    inside the parallel plane loop, just before the plane's row tiles (default_schedule_pool.cc):
    its buffer is one plane, not the whole padded tensor, and its column loop is cut at the
    borders. PyTorch oracle."""
    x_shape = (2, 8, 57, 58)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(x_shape).astype("float32")
    w = rng.standard_normal((8, 1, 3, 3)).astype("float32")
    mod = _window_module(x_shape, w, op, 2, 1)
    passes = list(relax.get_pipeline(target=tvm.target.Target(TARGET)).passes)
    upto = [p.info.name for p in passes].index("DefaultCPUSchedule") + 1
    scheduled = tvm.transform.Sequential(passes[:upto])(mod)
    (func,) = [scheduled[gv] for gv in scheduled.functions if isinstance(scheduled[gv], tir.PrimFunc)]
    outer = [l for l in _loops(func) if l.kind == tir.ForKind.PARALLEL]
    assert len(outer) == 1 and int(outer[0].extent) == 16  # the 2 x 8 planes
    pads = []
    tir.stmt_functor.post_order_visit(outer[0].body, lambda n: pads.append(n) if isinstance(n, tir.Block)
                                      and n.name_hint.startswith("pad_temp") else None)
    assert pads  # computed inside the plane loop
    # Its column loop cut into border, interior (no per-column select left to
    # LLVM's vectorizer) and border; the pad is stored deinterleaved by the
    # stride 2, so the columns go by pairs (the pair unrolled, default_schedule_pad.cc):
    # pairs [0, 1) (columns 0, 1), [1, 29) (2 .. 57), [29, 30) (58, 59).
    def inner_loops(stmt):
        found = []
        tir.stmt_functor.post_order_visit(stmt, lambda n: found.append(n) if isinstance(n, tir.For) else None)
        return found

    pairs = [l for l in _loops(func) if any(b.name_hint.startswith("pad_temp") for b in _blocks(l.body))
             and [(i.kind, int(i.extent)) for i in inner_loops(l.body)] == [(tir.ForKind.UNROLLED, 2)]]
    assert sorted((int(l.min), int(l.extent)) for l in pairs) == [(0, 1), (1, 28), (29, 1)], \
        [(l.min, l.extent) for l in pairs]
    lowered = tvm.lower(tvm.IRModule({"main": func.with_attr("global_symbol", "main")})).script()
    sizes = [int(s) for s in __import__("re").findall(r"T\.allocate\(\[T\.int64\((\d+)\)\]", lowered)]
    assert max(sizes) <= 59 * 60, sizes  # one padded plane (59 x 60), not 2 x 8 of them
    got = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(got, _window_reference(x, w, op, 2, 1), rtol=1e-5, atol=1e-5)
