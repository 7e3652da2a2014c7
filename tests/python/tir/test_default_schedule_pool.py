"""DefaultCPUSchedule's window rule (tir/transform/default_schedule_pool.cc) at model
sizes: with enough images x channels for the cores, the parallel loop is [n, c] and the
padding stage is computed per channel plane inside it (a plane-sized buffer per
iteration, not the whole padded tensor: at batch 8 ResNet's 3x3/2 max pool wrote and read
back 26 MB, MobileNetV2's first depthwise conv 40 MB); with few planes the parallel loop
keeps the row tiles. A padding stage stored deinterleaved by a column stride is copied
S columns per unrolled step; the row tile is 4 rows or the height's largest divisor up
to 8. Max/avg pooling and depthwise conv2d match PyTorch over odd sizes, strides and a
symbolic batch."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir

torch = pytest.importorskip("torch")
TARGET = "llvm -num-cores=4"


def _module(x_shape, op, stride, padding, w=None):
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorStructInfo(x_shape, "float32"))
    with bb.function("main", [xv]):
        with bb.dataflow():
            if op == "max":
                y = relax.op.nn.max_pool2d(xv, 3, stride, padding)
            elif op == "avg":
                y = relax.op.nn.avg_pool2d(xv, 3, stride, padding)
            else:
                y = relax.op.nn.conv2d(xv, relax.const(w), strides=stride, padding=padding, groups=w.shape[0])
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get()


def _expected(x, op, stride, padding, w=None):
    tx = torch.from_numpy(x)
    if op == "max":
        ref = torch.nn.functional.max_pool2d(tx, 3, stride, padding)
    elif op == "avg":  # Relax's avg_pool2d defaults to count_include_pad=False
        ref = torch.nn.functional.avg_pool2d(tx, 3, stride, padding, count_include_pad=False)
    else:
        ref = torch.nn.functional.conv2d(tx, torch.from_numpy(w), stride=stride, padding=padding, groups=w.shape[0])
    return torch.relu(ref).numpy()


def _scheduled(mod):
    passes = list(relax.get_pipeline(target=tvm.target.Target(TARGET)).passes)
    upto = [p.info.name for p in passes].index("DefaultCPUSchedule") + 1
    scheduled = tvm.transform.Sequential(passes[:upto])(mod)
    (func,) = [scheduled[gv] for gv in scheduled.functions
               if isinstance(scheduled[gv], tir.PrimFunc) and "pool" in gv.name_hint or "conv" in gv.name_hint]
    return func


def _parallel_loop(func):
    found = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, tir.For) else None)
    return [l for l in found if l.kind == tir.ForKind.PARALLEL]


@pytest.mark.parametrize("op,x_shape,stride,padding", [
    ("max", (2, 16, 112, 112), 2, 1),   # ResNet's stem pool (stride 2: deinterleaved plane)
    ("depthwise", (2, 24, 29, 31), 2, 1),
    ("depthwise", (1, 32, 14, 14), 1, 1),
    ("avg", (3, 17, 41, 39), 2, 1),
])
def test_padding_is_computed_per_plane_under_the_parallel_loop(op, x_shape, stride, padding):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(x_shape).astype("float32")
    w = rng.standard_normal((x_shape[1], 1, 3, 3)).astype("float32") if op == "depthwise" else None
    mod = _module(x_shape, op, stride, padding, w)
    func = _scheduled(mod)
    (par,) = _parallel_loop(func)
    assert int(par.extent) == x_shape[0] * x_shape[1], func.script()  # [n, c] fused
    pads = []
    tir.stmt_functor.post_order_visit(par.body, lambda n: pads.append(n) if isinstance(n, tir.Block)
                                      and n.name_hint.startswith("pad_temp") else None)
    assert pads, func.script()  # the padding stage runs inside the parallel loop
    lowered = tvm.lower(tvm.IRModule({"main": func.with_attr("global_symbol", "main")})).script()
    h, wd = x_shape[2] + 2 * padding, x_shape[3] + 2 * padding
    plane = h * (wd + (-wd % stride if stride > 1 and wd % stride == 0 else 0))
    (pad,) = [int(s.split(")]")[0]) for s in lowered.split("pad_temp = T.allocate([T.int64(")[1:]]
    assert pad <= plane, (pad, plane, lowered)  # one plane per iteration at most
    got = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(got, _expected(x, op, stride, padding, w), rtol=1e-5, atol=1e-5)


def test_few_planes_keep_row_tiles_in_the_parallel_loop():
    """4 planes for 4 cores: the parallel loop also takes the row tiles (the padding stays a stage of its own)."""
    x_shape = (1, 4, 64, 64)
    x = np.random.default_rng(1).standard_normal(x_shape).astype("float32")
    mod = _module(x_shape, "max", 2, 1)
    func = _scheduled(mod)
    (par,) = _parallel_loop(func)
    assert int(par.extent) > 4, func.script()
    got = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(got, _expected(x, "max", 2, 1), rtol=1e-6)


def test_symbolic_batch():
    n = tir.Var("n", "int64")
    w = np.random.default_rng(2).standard_normal((32, 1, 3, 3)).astype("float32")
    mod = _module((n, 32, 15, 15), "depthwise", 2, 1, w)
    vm = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())
    for batch in (1, 3):
        x = np.random.default_rng(batch).standard_normal((batch, 32, 15, 15)).astype("float32")
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), _expected(x, "depthwise", 2, 1, w),
                                   rtol=1e-4, atol=1e-4)


def _unrolled_over(func, wanted):
    """Extents of the unrolled loops whose body's block names satisfy `wanted`."""
    found = []

    def visit(n):
        if isinstance(n, tir.For) and n.kind == tir.ForKind.UNROLLED:
            blocks = []
            tir.stmt_functor.post_order_visit(n.body, lambda m: blocks.append(m.name_hint)
                                              if isinstance(m, tir.Block) else None)
            if blocks and wanted(blocks):
                found.append(int(n.extent))
    tir.stmt_functor.post_order_visit(func.body, visit)
    return found


def _unrolled_pad_steps(func):
    """Extents of the unrolled loops whose body is a padding block."""
    return _unrolled_over(func, lambda blocks: all(b.startswith("pad_temp") for b in blocks))


@pytest.mark.parametrize("op,x_shape,stride", [
    ("depthwise", (1, 16, 56, 56), 2),  # MobileNetV2's stride-2 depthwise convs (96x112x112 there)
    ("depthwise", (2, 8, 28, 34), 2),
    ("max", (1, 16, 40, 40), 2),        # ResNet's stem pool
    ("depthwise", (1, 12, 22, 22), 3),  # padded width 24: S = 3 divides it
    ("avg", (1, 16, 25, 30), 2),        # padded width 32, an odd height
])
def test_deinterleaved_padding_is_copied_stride_columns_a_step(op, x_shape, stride):
    """The padding stage of a column-strided window is stored deinterleaved
    (pad[.., w % S, w / S]); its copy runs S columns per unrolled step (one
    contiguous store per deinterleaved row, S consecutive loads, which LLVM
    vectorizes), where a loop over w stored by a scalar scatter. Off with
    PassContext config tir.default_schedule.strided_pad_copy=False; both match
    PyTorch."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(x_shape).astype("float32")
    w = rng.standard_normal((x_shape[1], 1, 3, 3)).astype("float32") if op == "depthwise" else None
    mod = _module(x_shape, op, stride, 1, w)
    expected = _expected(x, op, stride, 1, w)
    for on in (True, False):
        with tvm.transform.PassContext(config={"tir.default_schedule.strided_pad_copy": on}):
            func = _scheduled(mod)
            ex = relax.build(mod, target=TARGET)
        steps = _unrolled_pad_steps(func)
        if on:  # left border, interior, right border: each a loop of S unrolled columns
            assert steps and set(steps) == {stride}, func.script()
        else:
            assert not steps, func.script()
        got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x)).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_stride_that_does_not_divide_the_padded_width_keeps_the_plain_copy():
    """Padded width 15 (13 + 2) with stride 2: no deinterleaved stage, no unrolled copy; matches PyTorch."""
    x_shape = (1, 8, 13, 13)
    x = np.random.default_rng(4).standard_normal(x_shape).astype("float32")
    w = np.random.default_rng(5).standard_normal((8, 1, 3, 3)).astype("float32")
    mod = _module(x_shape, "depthwise", 2, 1, w)
    assert not _unrolled_pad_steps(_scheduled(mod))
    got = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(got, _expected(x, "depthwise", 2, 1, w), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x_shape,stride,rows", [
    ((1, 16, 14, 14), 1, 7),   # MobileNetV2's 14x14 and 7x7 layers: 7 rows per tile (was 2 and 1)
    ((1, 16, 7, 7), 1, 7),
    ((1, 16, 14, 14), 2, 7),
    ((1, 16, 28, 28), 1, 4),   # 4 when it divides the height
    ((1, 16, 11, 11), 1, 1),   # a prime height over 8: one row
])
def test_row_tile_is_four_or_the_largest_divisor_up_to_eight(x_shape, stride, rows):
    rng = np.random.default_rng(6)
    x = rng.standard_normal(x_shape).astype("float32")
    w = rng.standard_normal((x_shape[1], 1, 3, 3)).astype("float32")
    mod = _module(x_shape, "depthwise", stride, 1, w)
    func = _scheduled(mod)
    unrolled = _unrolled_over(func, lambda blocks: "group_conv2d_nchw_update" in blocks)
    assert unrolled == [rows], func.script()
    got = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(got, _expected(x, "depthwise", stride, 1, w), rtol=1e-5, atol=1e-5)
