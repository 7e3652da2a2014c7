"""The Winograd rule's knobs (src/tir/transform/default_schedule_winograd.cc): in the
sampled form (tir.DefaultCPUScheduleSampledOf) the tiles per step of the column
transform and of the NCHW write are sampling instructions; replayed with their
recorded decisions they give DefaultCPUSchedule's function, a mutated neighbour
still matches NumPy, and a short tuning run ends no slower than the default."""
import numpy as np
import pytest

import tessera as tvm
from tessera import get_global_func
from tessera import meta_schedule as ms
from tessera import relax, tir
from tessera.meta_schedule.default_candidate import default_schedule, is_default_trace
from tessera.meta_schedule.tune_context import normalize_mod

TARGET = "llvm --num-cores=1"
C, K, HW = 16, 32, 16  # 16 tiles of 4 x 4: the GEMM takes the matmul rule (and its knobs)
RNG = np.random.default_rng(5)
W = (RNG.standard_normal((K, C, 3, 3)) / 12).astype("float32")
BIAS = RNG.standard_normal((1, K, 1, 1)).astype("float32")


def _workload(hw=HW):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, C, hw, hw), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.add(relax.op.nn.conv2d(x, relax.const(W), padding=1), relax.const(BIAS)))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    mod = relax.get_pipeline("zero")(bb.get())
    tasks = [t for t in ms.relax_integration.extract_tasks(mod, TARGET) if "winograd" in t.task_name]
    assert tasks, "no Winograd kernel"
    return normalize_mod(tasks[0].dispatched[0])


def _sampled(mod):
    return get_global_func("tir.DefaultCPUScheduleSampledOf")(mod["main"], tvm.target.Target(TARGET))


def _tile_knobs(trace):
    return {i: v for i, v in trace.decisions.items() if i.kind.name == "SamplePerfectTile"}


def _check_against_numpy(mod, lib_mod):
    """Runs the scheduled kernel (its inputs: x, then the constants the legalization
    made: transformed weight, B^T, A^T, bias) and compares with a direct convolution."""
    torch = pytest.importorskip("torch")
    f = mod["main"]
    shapes = [[int(s) for s in f.buffer_map[p].shape] for p in f.params]
    x = RNG.standard_normal(shapes[0]).astype("float32")
    from tessera import topi
    u = topi.nn.conv2d_winograd_weight_transform(W, 4)
    bt, at = topi.nn.winograd_transform_constants(4)
    consts = {tuple(u.shape): u, tuple(bt.shape): bt, tuple(at.shape): at, tuple(BIAS.shape): BIAS}
    ins = [x] + [consts[tuple(s)] for s in shapes[1:-1]]
    out = tvm.nd.empty(shapes[-1], "float32")
    tvm.build(lib_mod, target="llvm")["main"](*[tvm.nd.array(a) for a in ins], out)
    expected = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(W), padding=1)
                          + torch.from_numpy(BIAS)).numpy()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_replays_to_the_default_and_has_tile_knobs():
    mod = _workload()
    sch = _sampled(mod)
    # Two knobs of this rule (column transform, NCHW write) besides the matmul rule's.
    assert len(_tile_knobs(sch.trace)) >= 4, sch.trace
    replay = tir.Schedule(mod, seed=7)
    sch.trace.apply_to_schedule(replay)
    expected = tvm.tir.transform.DefaultCPUSchedule(tvm.target.Target(TARGET))(mod)["main"]
    assert tvm.ir.structural_equal(replay.mod["main"].body, expected.body)
    _check_against_numpy(mod, replay.mod)


def test_mutated_neighbour_matches_numpy():
    mod = _workload()
    sch = _sampled(mod)
    mutator = ms.mutator.MutateTileSize()
    mutator._initialize_with_tune_context(ms.TuneContext(mod=mod, target=TARGET, rand_state=0))
    before = _tile_knobs(sch.trace)
    for seed in range(40):
        out = mutator.apply(sch.trace, seed)
        if out is None or _tile_knobs(out) == before:
            continue
        replay = tir.Schedule(mod, seed=3)
        try:
            out.apply_to_schedule(replay)
        except tvm.error.TVMError:
            continue
        _check_against_numpy(mod, replay.mod)
        return
    pytest.fail("MutateTileSize made no valid neighbour")


def test_tuning_ends_no_slower_than_the_default(tmp_path):
    mod = _workload()
    dflt = default_schedule(mod, tvm.target.Target(TARGET))
    db = ms.tune_tir(mod, TARGET, str(tmp_path), 2, num_trials_per_iter=2, seed=0, num_tuning_cores=1)
    recs = [r for r in db.records_of(mod) if r.is_valid]
    base = [r.mean_run_sec for r in recs if is_default_trace(r.trace, dflt)]
    assert len(base) == 1
    assert min(r.mean_run_sec for r in recs) <= base[0]
    _check_against_numpy(mod, ms.tir_integration.compile_tir(db, mod, TARGET).mod)
