"""The sampled form of the untuned default CPU schedules (tir.DefaultCPUScheduleSampledOf,
default_schedule_knobs.h): replayed with its recorded decisions it is exactly
DefaultCPUSchedule's function; its sampling instructions are mutable and a mutated trace
still computes what NumPy computes; tuning samples and mutates it (one more design space
of PostOrderApply on CPU targets) and never ends slower than the default."""
import numpy as np
import pytest

import tessera as tvm
from tessera import get_global_func
from tessera import meta_schedule as ms
from tessera import relax, tir
from tessera.meta_schedule.default_candidate import default_schedule, is_default_trace
from tessera.meta_schedule.tune_context import normalize_mod
from tessera.tir.schedule import Trace

from ms_helpers import matmul_module

TARGET = "llvm --num-cores=1"
SAMPLES = ("SamplePerfectTile", "SampleCategorical")


def _relax(params, body):
    bb = relax.BlockBuilder()
    vs = [relax.Var(n, relax.TensorStructInfo(s, "float32")) for n, s in params]
    with bb.function("main", vs):
        with bb.dataflow():
            out = bb.emit_output(body(bb, vs))
        bb.emit_func_output(out)
    return bb.get()


def _conv(cin, cout, hw, k):
    def body(bb, v):
        c = bb.emit(relax.op.nn.conv2d(v[0], v[1], padding=k // 2))
        c = bb.emit(relax.op.add(c, relax.op.reshape(v[2], (1, cout, 1, 1))))
        return bb.emit(relax.op.nn.relu(c))
    return _relax([("x", (1, cin, hw, hw)), ("w", (cout, cin, k, k)), ("b", (cout,))], body)


def _softmax(rows, cols):
    return _relax([("x", (rows, cols))], lambda bb, v: bb.emit(relax.op.nn.softmax(v[0], axis=-1)))


def _pool():
    return _relax([("x", (1, 8, 16, 16))],
                  lambda bb, v: bb.emit(relax.op.nn.max_pool2d(v[0], pool_size=3, strides=2, padding=1)))


def _bmm():
    return _relax([("q", (2, 32, 16)), ("k", (2, 16, 32))], lambda bb, v: bb.emit(relax.op.matmul(v[0], v[1])))


def _task(mod, name_part):
    mod = relax.get_pipeline("zero")(mod)
    tasks = [t for t in ms.relax_integration.extract_tasks(mod, TARGET) if name_part in t.task_name]
    assert tasks, name_part
    return normalize_mod(tasks[0].dispatched[0])


WORKLOADS = {
    "matmul": lambda: normalize_mod(matmul_module(64)),
    "conv3x3": lambda: _task(_conv(8, 32, 14, 3), "fused_conv2d"),
    "conv1x1": lambda: _task(_conv(16, 32, 8, 1), "fused_conv2d"),
    "softmax": lambda: _task(_softmax(8, 200), "softmax"),
    "pool": lambda: _task(_pool(), "pool"),
    "batch_matmul": lambda: _task(_bmm(), "matmul"),
}


def _sampled(mod, target):
    return get_global_func("tir.DefaultCPUScheduleSampledOf")(mod["main"], tvm.target.Target(target))


def _sample_decisions(trace):
    return {i: v for i, v in trace.decisions.items() if i.kind.name in SAMPLES}


@pytest.mark.parametrize("name", sorted(WORKLOADS))
@pytest.mark.parametrize("target", [TARGET, "llvm --num-cores=2"])
def test_replays_to_the_default_schedule(name, target):
    mod = WORKLOADS[name]()
    sch = _sampled(mod, target)
    assert _sample_decisions(sch.trace), f"{name}: no sampled tile factor"
    replay = tir.Schedule(mod, seed=7)  # the recorded decisions, not the seed, decide
    sch.trace.apply_to_schedule(replay)
    expected = tvm.tir.transform.DefaultCPUSchedule(tvm.target.Target(target))(mod)["main"]
    assert tvm.ir.structural_equal(replay.mod["main"].body, expected.body), name
    # The tuner's default candidate is this sampled form.
    dflt = default_schedule(mod, tvm.target.Target(target))
    assert _sample_decisions(dflt.trace)
    assert tvm.ir.structural_equal(dflt.mod["main"].body, expected.body)


def _rand(shape, rng):
    return rng.standard_normal(shape).astype("float32")


def _np_conv_bias_relu(x, w_packed, bias, k):
    # The packed weight [co / f, ci, k, k, f] unpacked, then a direct convolution.
    fo, ci, _, _, f = w_packed.shape
    w = w_packed.transpose(0, 4, 1, 2, 3).reshape(fo * f, ci, k, k)
    p = k // 2
    xp = np.pad(x[0], ((0, 0), (p, p), (p, p)))
    h = x.shape[2]
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(1, 2))  # ci, h, w, k, k
    out = np.einsum("chwrs,ocrs->ohw", win, w)[None]
    return np.maximum(out + bias.reshape(1, -1, 1, 1), 0)[:, :, :h, :h]


def _np_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _check_against_numpy(name, mod, sch):
    """Builds ``sch`` and compares its output with NumPy's (random inputs)."""
    rng = np.random.default_rng(0)
    f = mod["main"]
    shapes = [[int(s) for s in f.buffer_map[p].shape] for p in f.params]
    ins = [_rand(s, rng) for s in shapes[:-1]]
    out = tvm.nd.empty(shapes[-1], "float32")
    tvm.build(sch.mod, target="llvm")["main"](*[tvm.nd.array(a) for a in ins], out)
    if name in ("matmul", "batch_matmul"):
        expected = np.matmul(ins[0], ins[1])
    elif name == "softmax":
        expected = _np_softmax(ins[0])
    elif name == "pool":
        xp = np.pad(ins[0], ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
        expected = win.max(axis=(-1, -2))
    else:
        k = shapes[1][2]
        expected = _np_conv_bias_relu(ins[0], ins[1], ins[2], k)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["matmul", "conv3x3", "conv1x1", "softmax", "pool"])
def test_mutated_and_resampled_neighbours_stay_correct(name):
    mod = WORKLOADS[name]()
    sch = _sampled(mod, TARGET)
    ctx = ms.TuneContext(mod=mod, target=TARGET, rand_state=0)
    mutator = ms.mutator.MutateTileSize()
    mutator._initialize_with_tune_context(ctx)
    before = _sample_decisions(sch.trace)
    neighbours = []
    perfect = any(i.kind.name == "SamplePerfectTile" for i in before)
    for seed in range(40 if perfect else 0):
        out = mutator.apply(sch.trace, seed)
        if out is None or _sample_decisions(out) == before:
            continue
        replay = tir.Schedule(mod, seed=3)
        try:  # a move a primitive refuses (an rfactor of a unit loop) is a rejected child
            out.apply_to_schedule(replay)
        except tvm.error.TVMError:
            continue
        _check_against_numpy(name, mod, replay)
        neighbours.append(out)
        break
    assert neighbours or not perfect, f"{name}: MutateTileSize made no valid neighbour"
    # Re-sampled (every decision drawn anew, as PostOrderApply samples the space): a
    # draw a primitive refuses (an rfactor of a unit loop) is a rejected sample; the
    # others compute the same.
    resampled = 0
    for seed in range(8):
        replay = tir.Schedule(mod, seed=seed)
        try:
            Trace(list(sch.trace.insts), {}).apply_to_schedule(replay)
        except tvm.error.TVMError:
            continue
        _check_against_numpy(name, mod, replay)
        resampled += 1
        if resampled == 2:
            break
    assert resampled == 2, name


def test_conv_padding_location_is_a_mutable_knob():
    # The packed conv's padding stage: a SampleComputeLocation deciding "where it is";
    # MutateComputeLocation moves it under a tile loop, and the result matches NumPy. The knob
    # is there when the padding is a whole stage (pad_planes off); by default the padding is
    # scheduled per channel plane (default_schedule_pad.cc) and stays where it is.
    mod = WORKLOADS["conv3x3"]()
    assert not [i for i in _sampled(mod, TARGET).trace.insts if i.kind.name == "SampleComputeLocation"]
    with tvm.transform.PassContext(config={"tir.default_schedule.pad_planes": False}):
        sch = _sampled(mod, TARGET)
    locs = [i for i in sch.trace.insts if i.kind.name == "SampleComputeLocation"]
    assert len(locs) == 1 and int(sch.trace.decisions[locs[0]]) == -1
    mutator = ms.mutator.MutateComputeLocation()
    mutator._initialize_with_tune_context(ms.TuneContext(mod=mod, target=TARGET, rand_state=0))
    moved = 0
    for seed in range(6):
        out = mutator.apply(sch.trace, seed)
        if out is None or int(out.decisions[locs[0]]) == -1:
            continue
        replay = tir.Schedule(mod, seed=1)
        out.apply_to_schedule(replay)
        _check_against_numpy("conv3x3", mod, replay)
        moved += 1
        if moved == 2:
            break
    assert moved == 2


def test_default_rows_kernel_vectorizes_a_row_the_width_does_not_divide():
    # 1000 is no multiple of AVX-512's 16 lanes: the row reductions take 8 lanes
    # (an rfactor block) instead of staying scalar; the result still matches NumPy.
    mod = _task(_softmax(4, 1000), "softmax")
    target = tvm.target.Target("llvm --num-cores=1 -mcpu=skylake-avx512")
    out = tvm.tir.transform.DefaultCPUSchedule(target)(mod)
    names = []
    tvm.tir.stmt_functor.post_order_visit(
        out["main"].body, lambda n: names.append(n.name_hint) if isinstance(n, tvm.tir.Block) else None)
    assert any("_rf" in n for n in names), names
    x = np.random.default_rng(0).standard_normal((4, 1000)).astype("float32")
    y = tvm.nd.empty((4, 1000), "float32")
    tvm.build(out, target="llvm")["main"](tvm.nd.array(x), y)
    np.testing.assert_allclose(y.numpy(), _np_softmax(x), rtol=1e-5, atol=1e-6)


def test_tuning_samples_the_default_space_and_never_ends_slower(tmp_path):
    mod = WORKLOADS["conv3x3"]()
    target = tvm.target.Target(TARGET)
    dflt = default_schedule(mod, target)
    db = ms.tune_tir(mod, TARGET, str(tmp_path), 8, num_trials_per_iter=8, seed=0, num_tuning_cores=1)
    recs = [r for r in db.records_of(mod) if r.is_valid]
    base = [r.mean_run_sec for r in recs if is_default_trace(r.trace, dflt)]
    # The default is measured first; when a sampled candidate measures faster, the
    # final confirmation re-measures the default beside it, adding a second record.
    assert 1 <= len(base) <= 2
    assert min(r.mean_run_sec for r in recs) <= min(base)
    # Some measured candidates come from the sampled default's space (its instructions,
    # other decisions): the default's structure is searched around.
    kinds = [i.kind.name for i in dflt.trace.insts if i.kind.name != "EnterPostproc"]
    around = [r for r in db.records_of(mod) if not is_default_trace(r.trace, dflt)
              and [i.kind.name for i in r.trace.insts][:len(kinds)] == kinds]
    assert around
    _check_against_numpy("conv3x3", mod, ms.tir_integration.compile_tir(db, mod, TARGET))
