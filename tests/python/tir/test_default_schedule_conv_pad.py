"""The packed conv2d's padding stage and write-back under DefaultCPUSchedule:
the standalone padding stage in front of topi.nn.conv2d_nchw_packed runs per
(n, c) plane, parallel, its column loop cut into border / interior / border
(default_schedule_pad.cc), and the NCHW write-back of each register tile with
its fused epilogue is a vector along the output width; with 7-wide rows a tile
takes two output-channel blocks (default_schedule_conv.cc).
PyTorch is the oracle, with the defaults and with both switches off
("tir.default_schedule.pad_planes", "tir.default_schedule.conv_vector_epilogue")."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera as tvm  # noqa: E402
from tessera import relax, tir  # noqa: E402

from .test_tir_default_schedule_conv import _blocks, _loops, _weights  # noqa: E402

TARGET = "llvm -num-cores=4"
OFF = {"tir.default_schedule.pad_planes": False, "tir.default_schedule.conv_vector_epilogue": False}


def _module(x_shape, w, bias, stride, padding, residual=False, batch=None):
    """relu(conv2d(x, w) + bias [+ x]) with constant weights."""
    shape = list(x_shape)
    if batch is not None:
        shape[0] = tir.Var(batch, "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, relax.const(w), strides=stride, padding=padding))
            y = bb.emit(relax.op.add(y, relax.const(bias.reshape(1, -1, 1, 1))))
            if residual:
                y = bb.emit(relax.op.add(y, x))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get()


def _expected(x, w, bias, stride, padding, residual=False):
    y = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(bias),
                                   stride=stride, padding=padding)
    if residual:
        y = y + torch.from_numpy(x)
    return torch.relu(y).numpy()


# These tests are about the packed kernel's padding: Winograd (taken by default for
# 3x3 stride-1 convs from 64 channels) is kept off.
PACKED = {"relax.conv2d_winograd": False}


def _run(mod, x, config=None):
    with tvm.transform.PassContext(config={**PACKED, **(config or {})}):
        ex = relax.build(mod, target=TARGET)
    return relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x)).numpy()


def _scheduled(mod, config=None):
    passes = list(relax.get_pipeline(target=tvm.target.Target(TARGET)).passes)
    upto = [p.info.name for p in passes].index("DefaultCPUSchedule") + 1
    with tvm.transform.PassContext(config={**PACKED, **(config or {})}):
        mod = tvm.transform.Sequential(passes[:upto])(mod)
    (conv,) = [mod[gv] for gv in mod.functions if "conv2d" in gv.name_hint and isinstance(mod[gv], tir.PrimFunc)]
    return conv


CASES = [  # (N, C, H, W), (K, kh, kw), stride, padding, residual
    ((1, 16, 14, 14), (16, 3, 3), 1, 1, True),     # a ResNet block: bias, residual, relu
    ((1, 16, 15, 17), (32, 3, 3), 1, 1, False),    # odd sizes
    ((2, 8, 29, 31), (16, 3, 3), 2, 1, False),     # stride 2, odd sizes, batch 2
    ((1, 3, 37, 35), (16, 7, 7), 2, 3, False),     # stem-like: 7x7, stride 2, padding 3
    ((1, 16, 13, 11), (16, 3, 3), 1, 0, False),    # padding 0: no padding stage
    ((1, 24, 15, 15), (48, 1, 1), 2, 0, False),    # strided 1x1
    ((1, 8, 12, 20), (8, 3, 3), 1, (0, 1), False),  # columns padded only
    ((1, 8, 12, 20), (8, 3, 3), 1, (1, 0), False),  # rows padded only: no column border to cut
    ((2, 16, 30, 30), (32, 3, 3), 1, 1, False),    # a parallel plane loop (32 planes)
    ((1, 64, 7, 7), (64, 3, 3), 1, 1, True),       # 7-wide rows: two channel blocks per tile
    ((1, 16, 13, 13), (48, 3, 3), 2, 1, False),    # 7-wide rows, three channel blocks: one per tile
]


@pytest.mark.parametrize("x_shape,k_shape,stride,padding,residual", CASES)
def test_matches_pytorch(x_shape, k_shape, stride, padding, residual):
    x, w = _weights(x_shape, k_shape, 1)
    bias = np.random.default_rng(1).standard_normal(k_shape[0]).astype("float32")
    mod = _module(x_shape, w, bias, stride, padding, residual)
    expected = _expected(x, w, bias, stride, padding, residual)
    for config in (None, OFF):
        got = _run(mod, x, config)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_symbolic_batch():
    x_shape, k_shape = (3, 16, 19, 21), (16, 3, 3)
    x, w = _weights(x_shape, k_shape, 1)
    bias = np.random.default_rng(2).standard_normal(16).astype("float32")
    mod = _module(x_shape, w, bias, 1, 1, residual=True, batch="n")
    conv = _scheduled(mod)
    pad_loops = [l for l in _loops(conv) if any(b.name_hint.startswith("pad_temp") for b in _blocks(l.body))]
    assert sum(1 for l in pad_loops if not any(isinstance(s, tir.For) for s in _inner_fors(l))) == 3
    ex = relax.build(mod, target=TARGET)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for n in (1, 3):
        got = vm["main"](tvm.nd.array(x[:n])).numpy()
        expected = _expected(x[:n], w, bias, 1, 1, residual=True)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def _inner_fors(loop):
    found = []
    tir.stmt_functor.post_order_visit(loop.body, lambda n: found.append(n) if isinstance(n, tir.For) else None)
    return found


def _pad_column_loops(func):
    """The innermost loops of the padding stage."""
    return [l for l in _loops(func) if any(b.name_hint.startswith("pad_temp") for b in _blocks(l.body))
            and not _inner_fors(l)]


def test_padding_per_plane_with_its_borders_cut():
    """32 planes of 32 x 32 padded: one parallel plane loop of 32 iterations around the
    padding, whose column loop is cut into [0, 1), [1, 31), [31, 32); in the interior the
    column condition of the select is provably true (LLVM then vectorizes a plain copy).
    The opt-out keeps the generic split vector loop with its guarded tail."""
    x_shape, k_shape = (1, 32, 30, 30), (32, 3, 3)
    _, w = _weights(x_shape, k_shape, 1)
    bias = np.zeros(32, "float32")
    conv = _scheduled(_module(x_shape, w, bias, 1, 1))
    planes = [l for l in _loops(conv) if l.kind == tir.ForKind.PARALLEL
              and any(b.name_hint.startswith("pad_temp") for b in _blocks(l.body))]
    assert len(planes) == 1 and int(planes[0].extent) == 32
    cols = _pad_column_loops(conv)
    assert sorted((int(l.min), int(l.extent)) for l in cols) == [(0, 1), (1, 30), (31, 1)]
    (interior,) = [l for l in cols if int(l.extent) == 30]
    (block,) = [b for b in _blocks(interior.body) if b.name_hint.startswith("pad_temp")]
    cond = block.body.value.args[0]  # if_then_else(rows and columns inside, x[...], 0)
    ana = tvm.arith.Analyzer()
    ana.bind(interior.loop_var, tvm.ir.Range.from_min_extent(interior.min, interior.extent))
    realize = [r for r in _realizes(interior.body) if r.block.same_as(block)][0]
    col_var = block.iter_vars[3].var
    bound = tvm.tir.stmt_functor.substitute(cond, {col_var: realize.iter_values[3]})
    assert col_var.name in str(cond)
    inside = str(ana.simplify(bound))  # only the row condition is left
    assert col_var.name not in inside and interior.loop_var.name not in inside and block.iter_vars[2].var.name in inside

    off = _scheduled(_module(x_shape, w, bias, 1, 1), {"tir.default_schedule.pad_planes": False})
    assert not [l for l in _pad_column_loops(off) if int(l.min) == 1]
    assert any(l.kind == tir.ForKind.VECTORIZED for l in _pad_column_loops(off))


def _realizes(stmt):
    found = []
    tir.stmt_functor.post_order_visit(stmt, lambda n: found.append(n) if isinstance(n, tir.BlockRealize) else None)
    return found


def test_write_back_with_epilogue_is_vectorized_along_the_width():
    """The 56-wide rows are tiled by 14 columns x 16 output channels; the write-back of each
    tile to NCHW with bias, residual and relu runs per tile under the parallel loop as
    16 rows of a 14-lane vector (scalar with the opt-out)."""
    x_shape, k_shape = (1, 16, 56, 56), (16, 3, 3)
    _, w = _weights(x_shape, k_shape, 1)
    bias = np.zeros(16, "float32")
    mod = _module(x_shape, w, bias, 1, 1, residual=True)

    def epilogue_loops(func):
        (outer,) = [l for l in _loops(func) if l.kind == tir.ForKind.PARALLEL
                    and any(b.name_hint.startswith("conv2d_nchw_packed_update") for b in _blocks(l.body))]
        return [l for l in _inner_fors(outer) if not _inner_fors(l)
                and not any(b.name_hint.startswith("conv2d_nchw_packed") for b in _blocks(l.body))]

    assert [(l.kind, int(l.extent)) for l in epilogue_loops(_scheduled(mod))] == [(tir.ForKind.VECTORIZED, 14)]
    off = epilogue_loops(_scheduled(mod, {"tir.default_schedule.conv_vector_epilogue": False}))
    assert [(l.kind, int(l.extent)) for l in off] == [(tir.ForKind.SERIAL, 14)]


def test_seven_wide_rows_take_two_channel_blocks_per_tile():
    """7 columns alone would leave 7 accumulators (too few to hide the FMA latency): the tile
    is 2 output-channel blocks x 7 columns x 16 lanes, both unrolled, over a parallel loop of
    (64 / 32 channel pairs) x 7 rows; 48 channels (3 blocks) keep one block per tile."""
    x_shape = (1, 32, 7, 7)
    _, w = _weights(x_shape, (64, 3, 3), 1)
    conv = _scheduled(_module(x_shape, w, np.zeros(64, "float32"), 1, 1))
    kinds = [(l.kind, int(l.extent)) for l in _loops(conv)]
    assert (tir.ForKind.UNROLLED, 2) in kinds and (tir.ForKind.UNROLLED, 7) in kinds
    assert (tir.ForKind.PARALLEL, 14) in kinds, kinds
    lowered = tvm.lower(tvm.IRModule({"main": conv.with_attr("global_symbol", "main")})).script()
    assert "T.allocate([T.int64(224)]" in lowered  # the 2 x 7 x 16 accumulators, per tile
    _, w = _weights((1, 16, 13, 13), (48, 3, 3), 1)
    kinds = [(l.kind, int(l.extent)) for l in _loops(_scheduled(_module((1, 16, 13, 13), w, np.zeros(48, "float32"),
                                                                       2, 1)))]
    # Unit loops are the sampled form's knobs at their default (one block, one row).
    assert (tir.ForKind.UNROLLED, 7) in kinds and not [k for k in kinds if k[0] == tir.ForKind.UNROLLED
                                                       and k[1] not in (1, 7)]


def test_several_images_are_padded_one_at_a_time():
    """With 4 images the padding moves under the conv's image loop: a serial loop of 4 around
    the plane loop (32 planes, parallel, borders cut) and the parallel tile loop; the padded
    buffer is one image (32 x 32 x 32), and each tile's accumulators stay a 10 x 16 (or
    2 x 7 x 16) allocation inside the tile loop."""
    for x_shape, tile in (((4, 32, 30, 30), 10 * 16), ((4, 64, 7, 7), 2 * 7 * 16)):
        _, w = _weights(x_shape, (64, 3, 3), 1)
        conv = _scheduled(_module(x_shape, w, np.zeros(64, "float32"), 1, 1))
        (image,) = [l for l in _loops(conv) if int(l.extent) == 4 and l.kind == tir.ForKind.SERIAL]
        inner = [(l.kind, int(l.extent)) for l in _inner_fors(image)]
        padded = x_shape[1] * (x_shape[2] + 2) * (x_shape[3] + 2)
        # the planes run in parallel from 2^15 elements per image on (the 7 x 7 ones serially)
        assert ((tir.ForKind.PARALLEL if padded >= 1 << 15 else tir.ForKind.SERIAL), x_shape[1]) in inner, inner
        assert sum(1 for l in _pad_column_loops(conv)) == 3
        lowered = tvm.lower(tvm.IRModule({"main": conv.with_attr("global_symbol", "main")})).script()
        sizes = [int(v) for v in __import__("re").findall(r"T\.allocate\(\[T\.int64\((\d+)\)\]", lowered)]
        assert sorted(sizes) == [tile, tile, padded], sizes


def test_padding_left_for_a_refused_conv_rule_is_still_scheduled():
    """Two images of 17-wide rows: the padding is left for the conv rule, which refuses
    this width (no tile width in 4..14 divides 17; the generic rules take the block); the
    padding is then scheduled at the root, per plane with its borders cut, not left serial
    and unsplit. PyTorch oracle."""
    x_shape = (2, 16, 15, 17)
    x, w = _weights(x_shape, (32, 3, 3), 1)
    bias = np.random.default_rng(4).standard_normal(32).astype("float32")
    mod = _module(x_shape, w, bias, 1, 1)
    conv = _scheduled(mod)
    assert sorted((int(l.min), int(l.extent)) for l in _pad_column_loops(conv)) == [(0, 1), (1, 17), (18, 1)]
    expected = _expected(x, w, bias, 1, 1)
    np.testing.assert_allclose(_run(mod, x), expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())
