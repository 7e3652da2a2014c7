"""The tuning space of a grouped conv2d (the packed kernel per group with its fused
bias + ReLU, default_schedule_conv.cc's rule): the sampled default form has knobs,
and 50 samples of the space, re-samplings of the default and every mutator's moves
all pass the postprocessors and compute what NumPy computes (wide groups of 16
channels and narrow groups of 4 sharing a block of 8, strides 1 and 2)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax
from tessera.meta_schedule.default_candidate import sampled_default_schedule
from tessera.meta_schedule.tune_context import normalize_mod
from tessera.tir.schedule import Trace

from .test_meta_schedule_row_knobs import check_against, resample_and_mutate
from .test_meta_schedule_sampled_default import _relax

TARGETS = ["llvm --num-cores=1", "llvm -mcpu=haswell --num-cores=2"]
# (channels, groups, stride): groups of 16 (block 16), groups of 4 (two per block of 8).
SHAPES = [(32, 2, 1), (32, 8, 2)]


def _task(c, groups, stride, target):
    def body(bb, v):
        y = bb.emit(relax.op.nn.conv2d(v[0], v[1], strides=stride, padding=1, groups=groups))
        y = bb.emit(relax.op.add(y, relax.op.reshape(v[2], (1, c, 1, 1))))
        return bb.emit(relax.op.nn.relu(y))
    mod = relax.get_pipeline("zero")(_relax([("x", (1, c, 10, 10)), ("w", (c, c // groups, 3, 3)), ("b", (c,))],
                                            body))
    tasks = [t for t in ms.relax_integration.extract_tasks(mod, target) if t.task_name.startswith("fused_conv2d")]
    assert tasks
    return normalize_mod(tasks[0].dispatched[0])


def _numpy(x, packed, bias, groups, stride):
    """NumPy oracle over the packed weight (O/b, span, 3, 3, b): block fo reads the
    ``span`` input channels of its groups."""
    ko, span, k, _, block = packed.shape
    c = x.shape[1]
    per_group_out = ko * block // groups
    xp = np.pad(x[0], ((0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(1, 2))[:, ::stride, ::stride]
    out = []
    for fo in range(ko):
        first = (fo * block // per_group_out) * (c // groups)
        out.append(np.einsum("chwrs,crsf->fhw", win[first:first + span], packed[fo]))
    return np.maximum(np.concatenate(out)[None] + bias.reshape(1, -1, 1, 1), 0)


def _check(mod, sch, groups, stride):
    check_against(mod, sch, lambda *ins: _numpy(*ins, groups, stride))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("c,groups,stride", SHAPES)
def test_space_samples_resamples_and_mutations_are_valid(c, groups, stride, target):
    mod = _task(c, groups, stride, target)
    assert any(b.name_hint == "conv2d_nchw_packed" for b in _blocks(mod))
    dflt = sampled_default_schedule(mod, tvm.target.Target(target))
    assert dflt is not None
    trace = Trace(list(dflt.trace.insts), dict(dflt.trace.decisions))
    assert [i for i in trace.insts if i.kind.name in ("SampleCategorical", "SamplePerfectTile")], "no knob"
    _check(mod, dflt, groups, stride)
    ctx = ms.TuneContext(mod=mod, target=target, space_generator="post-order-apply", rand_state=0)
    sg = ctx.space_generator
    bad = []
    for seed in range(50):  # the space's samples (every design space of PostOrderApply)
        sch = sg.sample(mod, seed + 1, ctx)
        if not sg.apply_postprocs(sch):
            bad.append((f"sample {seed}", sg.last_rejection))
        elif seed < 2:
            _check(mod, sch, groups, stride)
    # The default's decisions re-sampled and the evolutionary search's moves.
    bad += resample_and_mutate(ctx, mod, trace, lambda sch: _check(mod, sch, groups, stride), 12, 8)
    assert not bad, f"{len(bad)} rejected, e.g. {bad[:3]}"


def _blocks(mod):
    found = []
    tvm.tir.stmt_functor.post_order_visit(
        mod["main"].body, lambda n: found.append(n) if isinstance(n, tvm.tir.Block) else None)
    return found
