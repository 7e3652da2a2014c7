"""The row kernels' sampled knobs (softmax, log_softmax, layer_norm: the fused row
kernels of default_schedule_rows.cc, through SplitByKnob; a lone row reduction is split
by a fixed factor, not a knob) offer only valid choices: every value of
every knob, every fresh re-sampling and each mutator's moves of the sampled default
schedule replays, passes the space's postprocessors and computes what NumPy computes.
(The rfactor split once sampled a lane or reduction loop of 1: 10-20% of the samples of
a softmax space were rejected.)"""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax, tir
from tessera.meta_schedule.default_candidate import sampled_default_schedule
from tessera.meta_schedule.tune_context import normalize_mod
from tessera.tir.schedule import Trace

from .test_meta_schedule_sampled_default import _relax

TARGETS = ["llvm --num-cores=1", "llvm -mcpu=skylake-avx512 --num-cores=1", "llvm -mcpu=haswell --num-cores=2"]


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _layer_norm(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5) * g + b


# name: (relax module, NumPy oracle, task name part). Rows of 64..1000: several
# divisors, so the rfactor knob has choices on every vector width.
ROWS = {
    "softmax": (lambda: _relax([("x", (4, 1000))], lambda bb, v: bb.emit(relax.op.nn.softmax(v[0]))),
                _softmax, "softmax"),
    "softmax3d": (lambda: _relax([("x", (2, 3, 128))], lambda bb, v: bb.emit(relax.op.nn.softmax(v[0]))),
                  _softmax, "softmax"),
    "log_softmax": (lambda: _relax([("x", (4, 96))], lambda bb, v: bb.emit(relax.op.nn.log_softmax(v[0]))),
                    lambda x: np.log(_softmax(x)), "log_softmax"),
    "layer_norm": (lambda: _relax([("x", (4, 768)), ("g", (768,)), ("b", (768,))],
                                  lambda bb, v: bb.emit(relax.op.nn.layer_norm(v[0], v[1], v[2], axes=[-1]))),
                   _layer_norm, "layer_norm"),
}


def _task(name, target):
    mod = relax.get_pipeline("zero")(ROWS[name][0]())
    tasks = [t for t in ms.relax_integration.extract_tasks(mod, target) if ROWS[name][2] in t.task_name]
    assert tasks, name
    return normalize_mod(tasks[0].dispatched[0])


def check_against(mod, sch, oracle):
    """Builds ``sch`` (a schedule of ``mod``), runs it on random inputs and compares its
    output with ``oracle(*inputs)``."""
    rng = np.random.default_rng(0)
    f = mod["main"]
    shapes = [[int(s) for s in f.buffer_map[p].shape] for p in f.params]
    ins = [rng.standard_normal(s).astype("float32") for s in shapes[:-1]]
    out = tvm.nd.empty(shapes[-1], "float32")
    tvm.build(sch.mod, target="llvm")["main"](*[tvm.nd.array(a) for a in ins], out)
    np.testing.assert_allclose(out.numpy(), oracle(*ins), rtol=1e-4, atol=1e-4)


def _check(name, mod, sch):
    check_against(mod, sch, ROWS[name][1])


def _valid(ctx, mod, trace, seed=0):
    """``trace`` replayed onto ``mod`` and postprocessed: the schedule, or the reason it failed."""
    sch = tir.Schedule(mod, seed=seed)
    try:
        trace.apply_to_schedule(sch, remove_postproc=True)
    except tvm.error.TVMError as err:
        return f"replay: {str(err).splitlines()[0]}"
    if not ctx.space_generator.apply_postprocs(sch):
        return f"postprocessor: {ctx.space_generator.last_rejection}"
    return sch


def _invalid_moves(ctx, mod, trace, seeds):
    """[(mutator and seed, why)] for each of the CPU mutators' moves of ``trace`` (seeds
    0..seeds-1) that fails to replay or that a postprocessor refuses."""
    bad = []
    for m in ms.mutator.Mutator.create("llvm"):
        m._initialize_with_tune_context(ctx)
        for seed in range(seeds):
            out = m.apply(trace, seed)
            got = None if out is None else _valid(ctx, mod, out)
            if isinstance(got, str):
                bad.append((f"{type(m).__name__} {seed}", got))
    return bad


def resample_and_mutate(ctx, mod, trace, check, resamples, mutations):
    """The (what, reason) of each invalid neighbour of ``trace``: every decision re-sampled
    ``resamples`` times (PostOrderApply's and ReplayTrace's samples; the first two valid
    ones passed to ``check``) and each mutator's moves for ``mutations`` seeds (the
    evolutionary search's)."""
    bad = []
    for seed in range(resamples):
        got = _valid(ctx, mod, Trace(list(trace.insts), {}), seed=seed + 1)
        if isinstance(got, str):
            bad.append((f"resample {seed}", got))
        elif seed < 2:
            check(got)
    return bad + _invalid_moves(ctx, mod, trace, mutations)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(ROWS))
def test_every_knob_value_resample_and_mutation_is_valid(name, target):
    mod = _task(name, target)
    dflt = sampled_default_schedule(mod, tvm.target.Target(target))
    assert dflt is not None, name
    ctx = ms.TuneContext(mod=mod, target=target, space_generator="post-order-apply", rand_state=0)
    trace = Trace(list(dflt.trace.insts), dict(dflt.trace.decisions))
    knobs = [i for i in trace.insts if i.kind.name in ("SampleCategorical", "SamplePerfectTile")]
    assert knobs, f"{name}: the row kernel has no sampled knob"
    bad, checked = [], 0
    # Every value of every categorical knob (the others at the default's decision).
    for inst in knobs:
        if inst.kind.name != "SampleCategorical":
            continue
        for k in range(len(inst.attrs[0])):
            got = _valid(ctx, mod, trace.with_decision(inst, k))
            if isinstance(got, str):
                bad.append((str(inst.attrs[0][k]), got))
            elif checked < 3:
                _check(name, mod, got)
                checked += 1
    bad += resample_and_mutate(ctx, mod, trace, lambda sch: _check(name, mod, sch), 24, 12)
    assert not bad, f"{name} on {target}: {len(bad)} invalid choices, e.g. {bad[:3]}"


def test_tuning_a_softmax_wastes_no_sample_and_says_so(tmp_path, capsys):
    # ReplayTrace re-samples every decision of the softmax space; the log states
    # the task's rejected samples on every progress line and at the end: none.
    mod = _task("softmax", TARGETS[0])
    ms.tune_tir(mod, TARGETS[0], str(tmp_path), 8, num_trials_per_iter=4, seed=0, strategy="replay-trace",
                cost_model="random", num_tuning_cores=1, confirm_top_k=0)
    out = capsys.readouterr().out
    progress = [ln for ln in out.splitlines() if " trials " in ln and "best" in ln]
    assert progress and all("rejected 0 |" in ln for ln in progress), progress
    assert "rejected samples of the space: 0" in out
