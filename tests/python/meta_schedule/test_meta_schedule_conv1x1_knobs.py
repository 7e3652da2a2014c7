"""The 1x1 conv kernel's sampled knobs (default_schedule_conv1x1.cc) offer only replayable
choices. With few input channels its pixel tiles are grouped in blocks; the block size was
a fixed number of tiles under a sampled lane split, so a re-sampled or mutated lane factor
left a block split that no longer divided the tile loop (a guarded split whose predicate
DecomposeReduction could not prove one-to-one): ResNet-50's 64-channel 1x1 convs rejected
5 and 18 samples in whole-model tuning. Blocks, tiles and lanes are now one
SamplePerfectTile, and DecomposeReduction's one-to-one check reads a loop of one iteration
as its constant (a block of one tile failed it). Every value of every knob, fresh samples
of the space and mutations of those replay, pass the postprocessors and compute what NumPy
computes."""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax, tir
from tessera.meta_schedule.default_candidate import sampled_default_schedule
from tessera.meta_schedule.search_strategy import MutatorSampler
from tessera.meta_schedule.tune_context import normalize_mod
from tessera.tir.schedule import Trace

from .test_meta_schedule_row_knobs import _invalid_moves, _valid
from .test_meta_schedule_sampled_default import _relax

# 16 lanes (avx512) and 8 (avx2); 2 cores: the parallel pixel-block loop needs 2 blocks.
TARGETS = ["llvm -mcpu=skylake-avx512 --num-cores=1", "llvm -mcpu=haswell --num-cores=1",
           "llvm -mcpu=haswell --num-cores=2"]
# (in channels, out channels, height = width): 784 pixels, 49 (or 98) tiles grouped in
# blocks; 324 pixels: a tail of lanes (the lanes fixed, the block of 21 or 41 tiles sampled).
SHAPES = [(16, 32, 28), (16, 32, 18)]


def _module(shape):
    cin, cout, hw = shape

    def body(bb, v):
        c = bb.emit(relax.op.nn.conv2d(v[0], v[1]))
        c = bb.emit(relax.op.add(c, relax.op.reshape(v[2], (1, cout, 1, 1))))
        return bb.emit(relax.op.nn.relu(c))
    return _relax([("x", (1, cin, hw, hw)), ("w", (cout, cin, 1, 1)), ("b", (cout,))], body)


def _task(target, shape):
    mod = relax.get_pipeline("zero")(_module(shape))
    tasks = [t for t in ms.relax_integration.extract_tasks(mod, target) if "conv2d" in t.task_name]
    assert len(tasks) == 1
    return normalize_mod(tasks[0].dispatched[0])


def _oracle(x, w, b):
    return np.maximum(np.einsum("oi,nihw->nohw", w[:, :, 0, 0], x) + b.reshape(1, -1, 1, 1), 0)


def _check(mod, sch, shape):
    cin, cout, hw = shape
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, cin, hw, hw)).astype("float32")
    w = rng.standard_normal((cout, cin, 1, 1)).astype("float32")
    b = rng.standard_normal(cout).astype("float32")
    f = mod["main"]
    shapes = [[int(s) for s in f.buffer_map[p].shape] for p in f.params]
    assert shapes[:2] == [list(x.shape), list(w.shape)], shapes
    out = tvm.nd.empty(shapes[-1], "float32")
    args = [tvm.nd.array(x), tvm.nd.array(w), tvm.nd.array(b.reshape(shapes[2]))]
    tvm.build(sch.mod, target="llvm")["main"](*args, out)
    np.testing.assert_allclose(out.numpy(), _oracle(x, w, b), rtol=1e-4, atol=1e-4)


def _tilings(extent, n, max_inner):
    """Every perfect n-part tiling of ``extent`` with the innermost part <= max_inner."""
    if n == 1:
        return [[extent]]
    return [rest + [d] for d in range(1, min(extent, max_inner) + 1) if extent % d == 0
            for rest in _tilings(extent // d, n - 1, extent)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("target", TARGETS)
def test_every_knob_value_sample_and_mutation_replays(target, shape):
    mod = _task(target, shape)
    dflt = sampled_default_schedule(mod, tvm.target.Target(target))
    assert dflt is not None
    trace = Trace(list(dflt.trace.insts), dict(dflt.trace.decisions))
    knobs = [i for i in trace.insts if i.kind.name in ("SamplePerfectTile", "SampleCategorical")]
    assert len(knobs) >= 2, trace  # channel tile; lanes (and pixel blocks)
    ctx = ms.TuneContext(mod=mod, target=target, space_generator="post-order-apply", rand_state=0)
    bad, checked = [], 0
    # Every perfect tiling of each tile knob and every value of each categorical one,
    # the others at the default's decision.
    for inst in knobs:
        if inst.kind.name == "SampleCategorical":
            dec, choices = int(trace.decisions[inst]), list(range(len(inst.attrs[0])))
        else:
            dec = [int(v) for v in trace.decisions[inst]]
            choices = _tilings(int(np.prod(dec)), len(dec), int(inst.attrs[1]))
        for choice in choices:
            got = _valid(ctx, mod, trace.with_decision(inst, choice))
            if isinstance(got, str):
                bad.append((choice, got))
            elif checked < 3 and choice != dec:
                _check(mod, got, shape)
                checked += 1
    assert checked == 3
    # Fresh samples of the space (rules' spaces and the sampled default), and each a
    # parent of mutations drawn as the evolutionary search draws them.
    rng = np.random.default_rng(0)
    mutators = MutatorSampler(ctx.mutator_probs, ctx, rng)
    parents = [dflt]
    for seed in range(40):
        try:
            sch = ctx.space_generator.sample(ctx.mod, seed + 1, ctx)
        except tvm.error.TVMError as err:
            bad.append((f"sample {seed}", str(err).splitlines()[0]))
            continue
        if not ctx.space_generator.apply_postprocs(sch):
            bad.append((f"sample {seed}", f"postprocessor: {ctx.space_generator.last_rejection}"))
            continue
        parents.append(sch)
    for i, parent in enumerate(parents * 2):
        m = mutators.sample()
        out, _ = m.apply_with_state(parent.trace, i + 1)
        got = None if out is None else _valid(ctx, mod, out, seed=i + 1)
        if isinstance(got, str):
            bad.append((f"{type(m).__name__} of parent {i % len(parents)}", got))
    # Every mutator's moves of the default's trace.
    bad += _invalid_moves(ctx, mod, trace, 24)
    assert not bad, f"{target}: {len(bad)} invalid choices, e.g. {bad[:3]}"
