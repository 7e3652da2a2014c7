"""The untuned default schedule (tir.transform.DefaultCPUSchedule) is the first
candidate of every CPU task: measured in the first round, recorded in the database
(its trace replays the default schedule), never measured twice when resuming, so the
best record is never slower than not tuning. Small workloads, few trials."""
import numpy as np

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax
from tessera.meta_schedule.default_candidate import default_schedule, is_default_trace
from tessera.meta_schedule.tune_context import normalize_mod

from ms_helpers import matmul_module

TARGET = "llvm --num-cores=1"


def _identity_space(sch):
    """A user's schedule function that leaves the loop nest as it is (naive, slow)."""
    return sch


def _default_records(db, mod, target):
    dflt = default_schedule(normalize_mod(mod), tvm.target.Target(target))
    assert dflt is not None
    return [r for r in db.records_of(normalize_mod(mod)) if is_default_trace(r.trace, dflt)], dflt


def _softmax_module():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((16, 100), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(relax.op.nn.softmax(x, axis=-1)))
        bb.emit_func_output(out)
    return bb.get()


def _model_tasks():
    from .test_meta_schedule_model_spaces import _conv_bn_relu_module, _pool_module
    mods = [_conv_bn_relu_module(hw=8), _conv_bn_relu_module(hw=8, fuse=True), _pool_module(), _softmax_module()]
    return [t.dispatched[0] for m in mods for t in ms.relax_integration.extract_tasks(m, TARGET)]


def test_default_trace_replays_the_default_schedule():
    # The trace must replay exactly what relax.build's DefaultCPUSchedule makes, for every
    # kind of kernel its rules schedule (matmul, packed conv2d, pooling, row kernels,
    # elementwise), on single- and multi-core targets.
    for target_str in (TARGET, "llvm --num-cores=2"):
        target = tvm.target.Target(target_str)
        for mod in [normalize_mod(matmul_module(64))] + _model_tasks():
            dflt = default_schedule(mod, target)
            expected = tvm.tir.transform.DefaultCPUSchedule(target)(mod)["main"]
            # Same body; DefaultCPUSchedule also marks the function "tir.is_scheduled".
            assert tvm.ir.structural_equal(dflt.mod["main"].body, expected.body), (target_str, mod)
    assert default_schedule(normalize_mod(matmul_module(64)), tvm.target.Target("cuda")) is None


def test_restricted_space_ends_no_slower_than_the_default(tmp_path):
    n = 128
    mod = matmul_module(n)
    # The built-in space restricted to no rule and no postprocessor: one candidate, the
    # unscheduled loop nest.
    space = ms.space_generator.PostOrderApply(sch_rules=[], postprocs=[])
    db = ms.tune_tir(mod, TARGET, str(tmp_path), 4, num_trials_per_iter=2, space=space, strategy="random", seed=0)
    recs = db.records_of(normalize_mod(mod))
    assert len(recs) == 2  # the default and the one candidate of the space, then the space is exhausted
    dflt_recs, _ = _default_records(db, mod, TARGET)
    assert len(dflt_recs) == 1 and dflt_recs[0].is_valid
    best = min(r.mean_run_sec for r in recs if r.is_valid)
    assert best <= dflt_recs[0].mean_run_sec
    # The best record builds and computes the matmul.
    sch = ms.tir_integration.compile_tir(db, mod, TARGET)
    rng = np.random.default_rng(0)
    a, b = (rng.random((n, n)).astype("float32") for _ in range(2))
    c = tvm.nd.empty((n, n), "float32")
    tvm.build(sch.mod, target="llvm")["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_schedule_fn_space_gets_no_default_candidate(tmp_path):
    # A user's schedule function defines every candidate (the course's chapter 4 expects
    # the winner to come from it), so the default schedule is not added.
    mod = matmul_module(64)
    db = ms.tune_tir(mod, TARGET, str(tmp_path), 1, num_trials_per_iter=1,
                     space=ms.space_generator.ScheduleFn(_identity_space), strategy="random", seed=0)
    dflt_recs, _ = _default_records(db, mod, TARGET)
    assert len(db.records_of(normalize_mod(mod))) == 1 and not dflt_recs


def test_default_is_measured_once_across_resumed_runs(tmp_path):
    mod = matmul_module(64)
    for budget in (2, 4):
        db = ms.tune_tir(mod, TARGET, str(tmp_path), budget, num_trials_per_iter=2, strategy="random", seed=0)
    assert len(db.records_of(normalize_mod(mod))) == 4
    dflt_recs, _ = _default_records(db, mod, TARGET)
    assert len(dflt_recs) == 1
