"""1x1 stride-1 conv2d's default CPU path: relax.nn.conv2d legalized to the NCHW
GEMM (topi.nn.conv2d_nchw_1x1) and scheduled by DefaultCPUSchedule's 1x1 rule
(src/tir/transform/default_schedule_conv1x1.cc) matches PyTorch over odd sizes
(a guarded vector tail), channel counts of every block size, fused epilogues
(bias, clip, residual add), a conv written straight to the output and a symbolic
batch; the scheduled loops have the promised structure (pixel tiles in blocks
for few input channels, config tir.default_schedule.conv1x1_pixel_blocks); the
opt-outs keep the previous schedule and the packed kernel."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera as tvm  # noqa: E402
from tessera import relax, tir  # noqa: E402

from .test_tir_default_schedule_conv import _loops, _scheduled_conv as _scheduled  # noqa: E402

TARGET = "llvm -num-cores=4"  # as test_tir_default_schedule_conv's _scheduled_conv


def _module(x_shape, w, bias=None, residual=False, relu6=True, batch=None):
    shape = list(x_shape)
    if batch is not None:
        shape[0] = tir.Var(batch, "int64")
    out_shape = [shape[0], w.shape[0]] + shape[2:]
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    params = [x]
    if residual:
        params.append(relax.Var("r", relax.TensorStructInfo(out_shape, "float32")))
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, relax.const(w)))
            if bias is not None:
                y = bb.emit(relax.op.add(y, relax.const(bias.reshape(1, -1, 1, 1))))
            if residual:
                y = bb.emit(relax.op.add(y, params[1]))
            if relu6:
                y = bb.emit(relax.op.clip(y, 0.0, 6.0))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return bb.get()


def _data(x_shape, k, residual):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(x_shape).astype("float32")
    w = (rng.standard_normal((k, x_shape[1], 1, 1)) / np.sqrt(x_shape[1])).astype("float32")
    b = rng.standard_normal(k).astype("float32")
    r = rng.standard_normal((x_shape[0], k) + tuple(x_shape[2:])).astype("float32") if residual else None
    return x, w, b, r


def _expected(x, w, b, r, relu6):
    out = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b))
    if r is not None:
        out = out + torch.from_numpy(r)
    return (torch.clamp(out, 0, 6) if relu6 else out).numpy()


CASES = [  # (N, C, H, W), K, residual, relu6 (all at least 256 pixels: the GEMM's threshold)
    ((1, 16, 28, 28), 96, False, True),   # expansion: hw 784 = 49 vectors
    ((1, 24, 17, 17), 40, False, True),   # hw 289: a guarded vector tail; 8-channel blocks
    ((2, 13, 19, 21), 20, True, False),   # odd sizes, batch 2, 4-channel blocks, residual add
    ((1, 7, 16, 17), 6, False, True),     # 2-channel blocks
    ((1, 9, 23, 13), 5, True, True),      # 5 channels: 1-channel blocks
    ((2, 16, 17, 19), 40, True, True),    # pixel blocks (<= 64 channels in) over a guarded tail, residual
]


@pytest.mark.parametrize("x_shape,k,residual,relu6", CASES)
def test_matches_pytorch(x_shape, k, residual, relu6):
    x, w, b, r = _data(x_shape, k, residual)
    ex = relax.build(_module(x_shape, w, b, residual, relu6), target=TARGET)
    args = [tvm.nd.array(x)] + ([tvm.nd.array(r)] if residual else [])
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](*args).numpy()
    expected = _expected(x, w, b, r, relu6)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_conv_written_to_the_output_and_symbolic_batch():
    # No epilogue: the GEMM writes the output parameter through its own tile write-back.
    x, w, b, _ = _data((3, 12, 16, 19), 24, False)
    mod = _module((3, 12, 16, 19), w, relu6=False, batch="n")
    vm = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())
    for n in (1, 3):
        got = vm["main"](tvm.nd.array(x[:n])).numpy()
        expected = torch.nn.functional.conv2d(torch.from_numpy(x[:n]), torch.from_numpy(w)).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_loop_structure():
    x, w, b, _ = _data((1, 16, 28, 28), 96, False)
    conv = _scheduled(_module((1, 16, 28, 28), w, b))
    # The weight stays OIHW (no packing) and no block transposes the output.
    assert [int(d) for d in conv.buffer_map[conv.params[1]].shape] == [96, 16, 1, 1]
    kinds = [(l.kind, int(l.extent)) for l in _loops(conv)]
    vec = [e for k, e in kinds if k == tir.ForKind.VECTORIZED]
    assert vec and all(e == vec[0] for e in vec) and vec[0] in (4, 8, 16), kinds
    lanes = vec[0]
    assert (tir.ForKind.UNROLLED, 8) in kinds  # 8 output channels per register tile
    # The longer tile loop outside, its tiles in blocks (16 channels in: few FMAs per output, so
    # each 8-channel tile writes a block's pixels in one run): [blocks: parallel] [96 / 8] [tiles
    # of a block]. Blocks: the largest divisor of the tile count leaving 4 per core (16 blocks;
    # when no divisor above 1 does, and with tir.default_schedule.parallel_chunks False: one per
    # core, 4 blocks).
    tiles = -(-784 // lanes)

    def largest(blocks):
        return max(t for t in range(1, tiles // blocks + 1) if tiles % t == 0)

    for chunks, cfg in ((16, {}), (4, {"tir.default_schedule.parallel_chunks": False})):
        sched = _scheduled(_module((1, 16, 28, 28), w, b), cfg) if cfg else conv
        kinds = [(l.kind, int(l.extent)) for l in _loops(sched)]
        per_block = largest(chunks) if largest(chunks) > 1 else largest(4)
        chunks = min(chunks, tiles // per_block)
        outer = [(k, e) for k, e in kinds if k != tir.ForKind.VECTORIZED][-4:]
        assert outer == [(tir.ForKind.SERIAL, per_block), (tir.ForKind.SERIAL, 12),
                         (tir.ForKind.PARALLEL, tiles // per_block), (tir.ForKind.SERIAL, 1)], kinds
        assert tiles // per_block >= chunks
    # Opt-out: one pixel tile, then every channel tile (the pixel tiles parallel).
    plain = _scheduled(_module((1, 16, 28, 28), w, b), {"tir.default_schedule.conv1x1_pixel_blocks": False})
    plain_kinds = [(l.kind, int(l.extent)) for l in _loops(plain)]
    assert [(k, e) for k, e in plain_kinds if k != tir.ForKind.VECTORIZED][-3:] == \
        [(tir.ForKind.SERIAL, 12), (tir.ForKind.PARALLEL, tiles), (tir.ForKind.SERIAL, 1)], plain_kinds
    lowered = tvm.lower(tvm.IRModule({"main": conv.with_attr("global_symbol", "main")})).script()
    assert f"T.allocate([T.int64({8 * lanes})]" in lowered  # the 8 x lanes accumulator tile
    # X is read as whole vectors (h and w fused into one contiguous index), not gathered.
    assert "T.Ramp" not in lowered


def test_many_input_channels_keep_single_tiles():
    # 96 channels in: compute-bound, so a pixel tile's input stays in L1 across the channel tiles
    # (no blocks; blocks measured 0.88-0.93x at 256 channels in).
    _, w, b, _ = _data((1, 96, 28, 28), 16, False)
    kinds = [(l.kind, int(l.extent)) for l in _loops(_scheduled(_module((1, 96, 28, 28), w, b)))]
    lanes = next(e for k, e in kinds if k == tir.ForKind.VECTORIZED)
    assert [(k, e) for k, e in kinds if k != tir.ForKind.VECTORIZED][-3:] == \
        [(tir.ForKind.SERIAL, 2), (tir.ForKind.PARALLEL, -(-784 // lanes)), (tir.ForKind.SERIAL, 1)], kinds


def test_pixel_blocks_opt_out_matches_pytorch():
    x, w, b, r = _data((2, 16, 17, 19), 40, True)
    with tvm.transform.PassContext(config={"tir.default_schedule.conv1x1_pixel_blocks": False}):
        ex = relax.build(_module((2, 16, 17, 19), w, b, True), target=TARGET)
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x), tvm.nd.array(r)).numpy()
    expected = _expected(x, w, b, r, True)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_small_images_keep_the_packed_kernel():
    # 14 x 14 = 196 pixels, under the threshold: the packed kernel measured faster there.
    _, w, b, _ = _data((1, 16, 14, 14), 32, False)
    conv = _scheduled(_module((1, 16, 14, 14), w, b))
    assert len(conv.buffer_map[conv.params[1]].shape) == 5


def test_opt_out_keeps_packed_kernel():
    x, w, b, _ = _data((1, 16, 16, 16), 32, False)
    mod = _module((1, 16, 16, 16), w, b)
    gemm = _scheduled(mod)
    assert len(gemm.buffer_map[gemm.params[1]].shape) == 4  # the GEMM by default
    conv = _scheduled(mod, {"relax.conv2d_1x1_gemm": False})
    assert len(conv.buffer_map[conv.params[1]].shape) == 5  # packed OIHW[16]o
    with tvm.transform.PassContext(config={"relax.conv2d_1x1_gemm": False}):
        ex = relax.build(mod, target=TARGET)
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(got, _expected(x, w, b, None, True), rtol=1e-5, atol=1e-5)


def test_topi_rejects_a_kernel_that_is_not_1x1():
    from tessera import te, topi
    x = te.placeholder((1, 8, 4, 4), name="x")
    with pytest.raises(tvm.error.TVMError, match="1x1 OIHW weight"):
        topi.nn.conv2d_nchw_1x1(x, te.placeholder((4, 8, 3, 3), name="w"))
    with pytest.raises(ValueError, match="input channels"):
        topi.nn.conv2d_nchw_1x1(x, te.placeholder((4, 6, 1, 1), name="w"))


def test_weight_parameter_needs_no_packing_kernel():
    # A weight that is a parameter is read as OIHW by the GEMM itself (no packing kernel per call).
    x, w, _, _ = _data((1, 8, 16, 17), 16, False)
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorStructInfo(x.shape, "float32"))
    wv = relax.Var("w", relax.TensorStructInfo(w.shape, "float32"))
    with bb.function("main", [xv, wv]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.nn.relu(relax.op.nn.conv2d(xv, wv)))
        bb.emit_func_output(out)
    mod = bb.get()
    assert not [gv for gv in relax.transform.LegalizeOps()(mod).get_global_vars() if "pack" in gv.name_hint]
    got = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())["main"](tvm.nd.array(x),
                                                                                    tvm.nd.array(w)).numpy()
    expected = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w))).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
