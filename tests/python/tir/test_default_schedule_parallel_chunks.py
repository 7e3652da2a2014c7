"""tir.default_schedule.parallel_chunks (src/tir/transform/default_schedule_chunks.h):
at 2 cores the parallel loops of the Winograd rule's final write and of the 1x1
conv's pixel blocks have at least 4 iterations per core (ResNet's 64-channel
layers had 2 and 4: one slow or late thread could not be balanced); off, the
earlier extents; a one-core schedule is unchanged; results match PyTorch."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir

from .test_tir_default_schedule_conv import PACKED
from .test_tir_default_schedule_conv1x1 import _module as _conv1x1_module
from .test_tir_default_schedule_winograd import _blocks, _loops_of, _weight
from .test_tir_default_schedule_winograd import _module as _winograd_module

torch = pytest.importorskip("torch")
OFF = {"tir.default_schedule.parallel_chunks": False}
WINOGRAD = {"relax.conv2d_winograd": True}


def _scheduled(mod, target, config):
    passes = list(relax.get_pipeline(target=tvm.target.Target(target)).passes)
    upto = [p.info.name for p in passes].index("DefaultCPUSchedule") + 1
    with tvm.transform.PassContext(config={**PACKED, **config}):
        mod = tvm.transform.Sequential(passes[:upto])(mod)
    (conv,) = [mod[gv] for gv in mod.functions if "conv2d" in gv.name_hint and isinstance(mod[gv], tir.PrimFunc)]
    return conv


def _parallel_extents(func):
    found = []
    tir.stmt_functor.post_order_visit(
        func.body, lambda n: found.append(int(n.extent)) if isinstance(n, tir.For) and n.kind == tir.ForKind.PARALLEL
        else None)
    return found


def _final_write_extent(func):
    """The extent of the parallel loop around the Winograd rule's final write (the
    epilogue block reading the inverse)."""
    (final,) = [b for b in _blocks(func) if not b.name_hint.startswith("winograd_")
                and any(r.buffer.name.startswith("winograd_inverse") for r in b.reads)]
    (par,) = [l for l in _loops_of(func, final.name_hint) if l.kind == tir.ForKind.PARALLEL]
    return int(par.extent)


def _run(mod, target, config, *arrays):
    with tvm.transform.PassContext(config={**PACKED, **config}):
        ex = relax.build(mod, target=target)
    return relax.VirtualMachine(ex, tvm.cpu())["main"](*[tvm.nd.array(a) for a in arrays]).numpy()


def test_winograd_final_write_has_four_chunks_per_core():
    # 64 channels (2 panels of 32) at 56 x 56, batch 1: ResNet-18's layer1
    mod = _winograd_module((1, 64, 56, 56), 64, True)
    new = _final_write_extent(_scheduled(mod, "llvm -num-cores=2", WINOGRAD))
    old = _final_write_extent(_scheduled(mod, "llvm -num-cores=2", {**WINOGRAD, **OFF}))
    assert old == 2  # [n, k / 32]: one iteration per core
    assert new == 2 * 14 and new % 2 == 0  # the 14 tile rows joined the parallel loop
    # enough panels already (8 cores x 4 > 2 only when the panels are few): unchanged at 256 channels
    wide = _winograd_module((1, 256, 14, 14), 256, False)
    assert _final_write_extent(_scheduled(wide, "llvm -num-cores=2", WINOGRAD)) == 8


def test_winograd_final_write_matches_pytorch():
    x = np.random.default_rng(2).standard_normal((1, 64, 20, 20)).astype("float32")
    r = np.random.default_rng(3).standard_normal((1, 64, 20, 20)).astype("float32")
    mod = _winograd_module(x.shape, 64, True)
    expected = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(_weight(64, 64)),
                                                     padding=1) + 1 + torch.from_numpy(r)).numpy()
    for config in (WINOGRAD, {**WINOGRAD, **OFF}):
        got = _run(mod, "llvm -num-cores=2", config, x, r)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def _conv1x1_case():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 64, 56, 56)).astype("float32")
    w = (rng.standard_normal((256, 64, 1, 1)) / 8).astype("float32")
    b = rng.standard_normal(256).astype("float32")
    r = rng.standard_normal((1, 256, 56, 56)).astype("float32")
    return x, w, b, r


def test_conv1x1_pixel_blocks_have_four_chunks_per_core():
    # ResNet-50's 64 -> 256 1x1 conv at 56 x 56, batch 1 (with its residual add)
    x, w, b, _ = _conv1x1_case()
    mod = _conv1x1_module(x.shape, w, b, residual=True, relu6=False)
    (new,) = _parallel_extents(_scheduled(mod, "llvm -num-cores=2", {}))
    (old,) = _parallel_extents(_scheduled(mod, "llvm -num-cores=2", OFF))
    assert old < 8 <= new, (old, new)


def test_conv1x1_matches_pytorch_with_chunks_on_and_off():
    x, w, b, r = _conv1x1_case()
    mod = _conv1x1_module(x.shape, w, b, residual=True, relu6=False)
    expected = (torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b))
                + torch.from_numpy(r)).numpy()
    for config in ({}, OFF):
        got = _run(mod, "llvm -num-cores=2", config, x, r)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_one_core_schedules_are_unchanged():
    x, w, b, _ = _conv1x1_case()
    for mod, cfg in ((_conv1x1_module(x.shape, w, b, residual=True, relu6=False), {}),
                     (_winograd_module((1, 64, 56, 56), 64, True), WINOGRAD)):
        on = _scheduled(mod, "llvm -num-cores=1", cfg)
        off = _scheduled(mod, "llvm -num-cores=1", {**cfg, **OFF})
        assert not _parallel_extents(on)
        assert on.script() == off.script()
