"""meta_schedule on whole Relax models: extract_tasks (structural dedup, call-site weights),
the task schedulers (gradient values checked by hand), tune_relax + compile_relax on a
small MLP checked against NumPy, MetaScheduleApplyDatabase / TuneTIR / TuneIRMod, and bad
inputs. Trial counts are tiny."""
import warnings

import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax, topi
from tessera.meta_schedule.arg_info import ArgInfo
from tessera.meta_schedule.database import MemoryDatabase, TuningRecord
from tessera.meta_schedule.task_scheduler import GradientBased, RoundRobin
from tessera.script import ir as I, relax as R, tir as T

TARGET = "llvm --num-cores=1"


def mlp_module():
    """x(1, 64) -> dense0 + bias + relu (64 -> 32) -> dense1 (copy of dense0 under another
    name) ... -> dense_out (32 -> 8): dense0 is called twice and dense1 once."""
    @I.ir_module
    class MLP:
        @T.prim_func
        def dense0(X: T.Buffer((1, 32), "float32"), W: T.Buffer((32, 32), "float32"),
                   B: T.Buffer((32,), "float32"), Z: T.Buffer((1, 32), "float32")):
            T.func_attr({"global_symbol": "dense0", "tir.noalias": True})
            Y = T.alloc_buffer((1, 32), "float32")
            for i, j, k in T.grid(1, 32, 32):
                with T.block("Y"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
            for i, j in T.grid(1, 32):
                with T.block("Z"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Z[vi, vj] = T.max(Y[vi, vj] + B[vj], T.float32(0))

        @T.prim_func
        def dense1(X: T.Buffer((1, 32), "float32"), W: T.Buffer((32, 32), "float32"),
                   B: T.Buffer((32,), "float32"), Z: T.Buffer((1, 32), "float32")):
            T.func_attr({"global_symbol": "dense1", "tir.noalias": True})
            Y = T.alloc_buffer((1, 32), "float32")
            for i, j, k in T.grid(1, 32, 32):
                with T.block("Y"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
            for i, j in T.grid(1, 32):
                with T.block("Z"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Z[vi, vj] = T.max(Y[vi, vj] + B[vj], T.float32(0))

        @T.prim_func
        def dense_out(X: T.Buffer((1, 32), "float32"), W: T.Buffer((8, 32), "float32"),
                      Z: T.Buffer((1, 8), "float32")):
            T.func_attr({"global_symbol": "dense_out", "tir.noalias": True})
            for i, j, k in T.grid(1, 8, 32):
                with T.block("Z"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        Z[vi, vj] = T.float32(0)
                    Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]

        @R.function
        def main(x: R.Tensor((1, 32), "float32"), w0: R.Tensor((32, 32), "float32"),
                 b0: R.Tensor((32,), "float32"), w1: R.Tensor((8, 32), "float32")):
            cls = MLP
            with R.dataflow():
                h0 = R.call_tir(cls.dense0, (x, w0, b0), out_sinfo=R.Tensor((1, 32), "float32"))
                h1 = R.call_tir(cls.dense0, (h0, w0, b0), out_sinfo=R.Tensor((1, 32), "float32"))
                h2 = R.call_tir(cls.dense1, (h1, w0, b0), out_sinfo=R.Tensor((1, 32), "float32"))
                out = R.call_tir(cls.dense_out, (h2, w1), out_sinfo=R.Tensor((1, 8), "float32"))
                R.output(out)
            return out

    return MLP


def mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    return {"w0": (rng.standard_normal((32, 32)) * 0.3).astype("float32"),
            "b0": (rng.standard_normal((32,)) * 0.1).astype("float32"),
            "w1": (rng.standard_normal((8, 32)) * 0.3).astype("float32")}


def mlp_numpy(x, p):
    h = x
    for _ in range(3):
        h = np.maximum(h @ p["w0"].T + p["b0"], 0)
    return h @ p["w1"].T


def task_mod(func):
    """What a task's module must be: the PrimFunc as "main" (oracle written out here)."""
    return tvm.IRModule({"main": func.with_attr("global_symbol", "main")})


# ---- extract_tasks ------------------------------------------------------------------

def test_extract_tasks_dedups_structurally_equal_primfuncs():
    mod = mlp_module()
    tasks = ms.relax_integration.extract_tasks(mod, TARGET)
    assert [(t.task_name, t.weight) for t in tasks] == [("dense0", 3), ("dense_out", 1)]
    tvm.ir.assert_structural_equal(tasks[0].mod, task_mod(mod["dense0"]))
    tvm.ir.assert_structural_equal(tasks[0].mod, task_mod(mod["dense1"]))
    tvm.ir.assert_structural_equal(tasks[1].mod, task_mod(mod["dense_out"]))
    assert not tvm.ir.structural_equal(tasks[0].mod, tasks[1].mod)
    for t in tasks:
        assert str(t.target) == str(tvm.target.Target(TARGET))
        assert len(t.dispatched) == 1 and t.dispatched[0].same_as(t.mod)
    # params bound into main leave the tasks as they are
    tasks_bound = ms.relax_integration.extract_tasks(mod, TARGET, {k: tvm.nd.array(v) for k, v in mlp_params().items()})
    assert [(t.task_name, t.weight) for t in tasks_bound] == [("dense0", 3), ("dense_out", 1)]


def _layers_module(n_layers, widths):
    """BlockBuilder model: n_layers of matmul + relu (TOPI), each layer's width from widths."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, widths[0]), "float32"))
    ws = [relax.Var(f"w{i}", relax.TensorStructInfo((widths[i], widths[i + 1]), "float32"))
          for i in range(n_layers)]
    with bb.function("main", [x] + ws):
        with bb.dataflow():
            h = x
            for w in ws:
                h = bb.emit_te(topi.nn.matmul, h, w)
                h = bb.emit_te(topi.nn.relu, h)
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    return bb.get()


def test_twelve_identical_layers_give_one_task_of_weight_twelve():
    tasks = ms.relax_integration.extract_tasks(_layers_module(12, [16] * 13), TARGET)
    assert sorted((t.task_name, t.weight) for t in tasks) == [("matmul", 12), ("relu", 12)]
    # distinct shapes are distinct tasks: 16->16 (x2), 16->8 (x1); relu (2,16) x2, (2,8) x1
    tasks = ms.relax_integration.extract_tasks(_layers_module(3, [16, 16, 16, 8]), TARGET)
    assert sorted(t.weight for t in tasks) == [1, 1, 2, 2]
    shapes = sorted((t.weight, [list(map(int, a.shape)) for a in ArgInfo.from_prim_func(t.mod["main"])])
                    for t in tasks)
    assert shapes[2:] == [(2, [[2, 16], [2, 16]]), (2, [[2, 16], [16, 16], [2, 16]])]


def test_extract_tasks_counts_call_sites_in_every_relax_function():
    mod = mlp_module()

    @I.ir_module
    class Two:
        @T.prim_func
        def neg(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            T.func_attr({"global_symbol": "neg", "tir.noalias": True})
            for i in range(4):
                with T.block("B"):
                    vi = T.axis.remap("S", [i])
                    B[vi] = T.float32(0) - A[vi]

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Two
            y = R.call_tir(cls.neg, (x,), out_sinfo=R.Tensor((4,), "float32"))
            return y

        @R.function
        def helper(x: R.Tensor((4,), "float32")):
            cls = Two
            y = R.call_tir(cls.neg, (x,), out_sinfo=R.Tensor((4,), "float32"))
            z = R.call_tir(cls.neg, (y,), out_sinfo=R.Tensor((4,), "float32"))
            return z

    tasks = ms.relax_integration.extract_tasks(Two, TARGET)
    assert [(t.task_name, t.weight) for t in tasks] == [("neg", 3)]
    assert mod is not None


# ---- task schedulers ----------------------------------------------------------------

class _FakeTask:
    def __init__(self, history, weight, terminated=False):
        self.best_ms_history = history
        self.weight = weight
        self.terminated = terminated


def test_gradient_based_picks_the_largest_hand_computed_gradient():
    sched = GradientBased(alpha=0.2, window_size=3, seed=0)
    sched.states = [_FakeTask([10.0, 8.0, 6.0, 5.0], 1),          # n=4: back (10-5)/3, fwd 5/4
                    _FakeTask([4.0, 4.0], 2),                      # n=2 < 4: back 0, fwd 4/2, weight 2
                    _FakeTask([30.0, 20.0, 12.0, 9.0, 9.0], 1)]    # n=5: back (20-9)/3, fwd 9/5
    expected = [0.2 * 5 / 3 + 0.8 * 1.25, 0.8 * 2.0 * 2, 0.2 * 11 / 3 + 0.8 * 1.8]
    assert expected == pytest.approx([1.3333333, 3.2, 2.1733333])
    got = [sched.gradient(t.best_ms_history, t.weight) for t in sched.states]
    assert got == pytest.approx(expected)
    # no warm-up round for tasks that already have a history (resumed): the largest gradient first
    assert sched.next_task_id() == 1
    sched.states[1].terminated = True
    assert sched.next_task_id() == 2
    sched.states[2].best_ms_history.append(1e100)                     # no valid result: never chosen (TVM)
    assert sched.gradient(sched.states[2].best_ms_history, 1) == -np.inf
    assert sched.next_task_id() == 0
    sched.states[0].terminated = sched.states[2].terminated = True
    assert sched.next_task_id() == -1


def test_gradient_based_ties_pick_a_live_task_at_random_and_skip_terminated_in_warmup():
    sched = GradientBased(seed=3)
    sched.states = [_FakeTask([], 1), _FakeTask([], 1, terminated=True), _FakeTask([], 1)]
    assert [sched.next_task_id(), sched.next_task_id()] == [0, 2]
    for t in sched.states:
        t.best_ms_history.append(2.0)
    picks = {sched.next_task_id() for _ in range(40)}
    assert picks == {0, 2}


def test_round_robin_cycles_over_live_tasks():
    sched = RoundRobin()
    sched.states = [_FakeTask([1.0], 1), _FakeTask([1.0], 1), _FakeTask([1.0], 1)]
    assert [sched.next_task_id() for _ in range(4)] == [0, 1, 2, 0]
    sched.states[1].terminated = True
    assert [sched.next_task_id() for _ in range(3)] == [2, 0, 2]
    for t in sched.states:
        t.terminated = True
    assert sched.next_task_id() == -1


# ---- tune_relax + compile_relax -----------------------------------------------------

def _check_applied(applied, db, tasks):
    target = str(tvm.target.Target(TARGET))
    for name in ("dense0", "dense1", "dense_out"):
        func = applied[name]
        assert func.attrs["tir.is_scheduled"]
        assert func.attrs["global_symbol"] == name
        task = next(t for t in tasks if tvm.ir.structural_equal(t.mod, task_mod(mlp_module()[name])))
        best = db.query_ir_module(task.mod, target=target)
        tvm.ir.assert_structural_equal(func.body, best["main"].body)


def test_tune_relax_mlp_then_compile_relax_matches_numpy(tmp_path, capsys):
    mod = mlp_module()
    params = mlp_params()
    nd_params = {k: tvm.nd.array(v) for k, v in params.items()}
    work_dir = str(tmp_path / "tune")
    db = ms.relax_integration.tune_relax(mod, nd_params, TARGET, work_dir, 6, num_trials_per_iter=2, seed=0)
    out = capsys.readouterr().out
    assert "total trials 6/6" in out and "Weighted Latency (us)" in out and "ETA" in out
    tasks = ms.relax_integration.extract_tasks(mod, TARGET, nd_params)
    recs = db.get_all_tuning_records()
    assert len({(id(r.workload), r.trace_key) for r in recs}) == 6  # trials (the confirmation re-measures some)
    for t in tasks:
        assert db.query_tuning_record(t.mod, target=str(tvm.target.Target(TARGET))) is not None, t.task_name
    # each task got its one-trial warm-up round; the weight-3 task at least as many trials as the other
    per_task = [len({r.trace_key for r in db.records_of(t.mod)}) for t in tasks]
    assert per_task[0] >= per_task[1] >= 1 and sum(per_task) == 6

    ex = ms.relax_integration.compile_relax(db, mod, TARGET, nd_params)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.random.default_rng(1).random((1, 32)).astype("float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), mlp_numpy(x, params), rtol=1e-4, atol=1e-4)

    with tvm.target.Target(TARGET), db:
        applied = relax.transform.MetaScheduleApplyDatabase()(mod)
    _check_applied(applied, db, tasks)

    # resuming with the same work_dir: the budget is spent, nothing new is measured
    db2 = ms.relax_integration.tune_relax(mod, nd_params, TARGET, work_dir, 6, num_trials_per_iter=2, seed=0)
    assert len(db2.get_all_tuning_records()) == len(recs)


def _hand_record(db, func):
    """A record of ``func``'s task with a hand schedule (split of the first loop by 2)."""
    mod = task_mod(func)
    sch = tvm.tir.Schedule(mod)
    block = sch.get_block("Z", "main")
    loops = sch.get_loops(block)
    sch.split(loops[1], factors=[None, 2])
    wl = db.commit_workload(mod)
    db.commit_tuning_record(TuningRecord(sch.trace, wl, [1e-4], str(tvm.target.Target(TARGET)),
                                         ArgInfo.from_prim_func(mod["main"])))
    return sch.mod["main"]


def test_apply_database_replaces_recorded_funcs_and_leaves_the_others():
    mod = mlp_module()
    db = MemoryDatabase()
    scheduled = _hand_record(db, mod["dense_out"])
    with tvm.target.Target(TARGET), db:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            applied = relax.transform.MetaScheduleApplyDatabase(enable_warning=True)(mod)
    assert any("dense0" in str(w.message) for w in caught)
    out = applied["dense_out"]
    assert out.attrs["tir.is_scheduled"] and out.attrs["global_symbol"] == "dense_out"
    expected = scheduled.with_attr("global_symbol", "dense_out").with_attr("tir.is_scheduled", True)
    tvm.ir.assert_structural_equal(out, expected)
    for name in ("dense0", "dense1", "main"):
        assert applied[name].same_as(mod[name]), name
    # the input module is unchanged; applying again changes nothing (already scheduled)
    assert "tir.is_scheduled" not in dict(mod["dense_out"].attrs)
    with tvm.target.Target(TARGET), db:
        again = relax.transform.MetaScheduleApplyDatabase()(applied)
    assert again["dense_out"].same_as(applied["dense_out"])
    # a record for another target is not used
    with tvm.target.Target("llvm --num-cores=2"), db:
        other = relax.transform.MetaScheduleApplyDatabase()(mod)
    assert other["dense_out"].same_as(mod["dense_out"])


def test_tune_ir_mod_and_tune_tir_passes_fill_work_dir(tmp_path):
    mod = mlp_module()
    work_dir = str(tmp_path / "irmod")
    with tvm.target.Target(TARGET):
        same = relax.transform.MetaScheduleTuneIRMod({}, work_dir, 4)(mod)
        assert same.same_as(mod) or tvm.ir.structural_equal(same, mod)
        applied = relax.transform.MetaScheduleApplyDatabase(work_dir)(mod)
    # the gradient scheduler's warm-up round measures one trial per task (TVM's warm-up would give
    # all 4 to the first task); the rest goes to the weight-3 dense task, most of the model's time
    db = ms.database.JSONDatabase(work_dir=work_dir)
    n_dense, n_out = (len({r.trace_key for r in db.records_of(task_mod(m))}) for m in (mod["dense0"], mod["dense_out"]))
    assert n_dense + n_out == 4 and n_dense >= n_out >= 1
    assert all(applied[n].attrs["tir.is_scheduled"] for n in ("dense0", "dense1", "dense_out"))

    tir_dir = str(tmp_path / "tir")
    only_tir = tvm.IRModule({"dense_out": mod["dense_out"]})
    with tvm.target.Target(TARGET):
        relax.transform.MetaScheduleTuneTIR(tir_dir, 2)(only_tir)
    db = ms.database.JSONDatabase(work_dir=tir_dir)
    assert len({r.trace_key for r in db.get_all_tuning_records()}) == 2
    assert db.query_tuning_record(task_mod(mod["dense_out"])) is not None


# ---- bad inputs ---------------------------------------------------------------------

def test_relax_integration_bad_inputs(tmp_path):
    mod = mlp_module()
    wd = str(tmp_path)
    with pytest.raises(ValueError):
        ms.relax_integration.extract_tasks(mod, "no_such_target")
    with pytest.raises(ValueError, match="max_trials_global"):
        ms.relax_integration.tune_relax(mod, None, TARGET, wd, 0)
    with pytest.raises(ValueError, match="num_trials_per_iter"):
        ms.relax_integration.tune_relax(mod, None, TARGET, wd, 4, num_trials_per_iter=-1)
    if not tvm.cuda(0).exist:
        with pytest.raises(RuntimeError, match="no CUDA device to measure on"):
            ms.relax_integration.tune_relax(mod, None, "cuda", wd, 4)
    with pytest.raises(ValueError, match="not supported"):
        ms.relax_integration.tune_relax(mod, None, "nvptx", wd, 4)
    with pytest.raises(ValueError, match="task_scheduler"):
        ms.relax_integration.tune_relax(mod, None, TARGET, wd, 4, task_scheduler="fifo")
    tir_only = tvm.IRModule({"dense_out": mod["dense_out"]})
    with pytest.raises(TypeError, match="no Relax function"):
        ms.relax_integration.extract_tasks(tir_only, TARGET)
    with pytest.raises(TypeError, match="no Relax function"):
        ms.relax_integration.tune_relax(tir_only, None, TARGET, wd, 4)
    with pytest.raises(TypeError, match="IRModule"):
        ms.relax_integration.extract_tasks(42, TARGET)
    with pytest.raises(NotImplementedError, match="module_equality"):
        ms.relax_integration.extract_tasks(mod, TARGET, module_equality="anchor-block")
    with pytest.raises(TypeError, match="Database"):
        ms.relax_integration.compile_relax("db", mod, TARGET, None)
    with pytest.raises(ValueError, match="alpha"):
        GradientBased(alpha=1.5)
    with pytest.raises(ValueError, match="window_size"):
        GradientBased(window_size=0)
    with pytest.raises(ValueError, match="needs a target"):
        relax.transform.MetaScheduleApplyDatabase(wd)(mod)
    with tvm.target.Target(TARGET):
        with pytest.raises(ValueError, match="needs a database"):
            relax.transform.MetaScheduleApplyDatabase()(mod)
    with pytest.raises(ValueError, match="max_trials_global"):
        relax.transform.MetaScheduleTuneTIR(wd, 0)
    with pytest.raises(ValueError, match="no tasks"):
        ms.tune_tasks(tasks=[], task_weights=[], work_dir=wd, max_trials_global=4)
    with pytest.raises(NotImplementedError, match="measure_callbacks"):
        ms.tune_tasks(tasks=[], task_weights=[], work_dir=wd, max_trials_global=4, measure_callbacks=[])
    ctx = ms.TuneContext(task_mod(mod["dense_out"]), TARGET, task_name="dense_out")
    with pytest.raises(ValueError, match="2 task_weights"):
        ms.tune_tasks(tasks=[ctx], task_weights=[1, 2], work_dir=wd, max_trials_global=4)
    with pytest.raises(NotImplementedError, match="op_names"):
        relax.transform.MetaScheduleTuneIRMod({}, wd, 4, op_names=["dense"])


def test_high_level_op_model_is_legalized_into_tasks_and_tuned(tmp_path):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((8, 16), "float32"))
    y = relax.Var("y", relax.TensorStructInfo((8, 16), "float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            a = bb.emit(relax.op.add(x, y))
            b = bb.emit(relax.op.multiply(a, y))
            c = bb.emit(relax.op.add(b, y))
            out = bb.emit_output(relax.op.exp(c))
        bb.emit_func_output(out)
    mod = bb.get()
    tasks = ms.relax_integration.extract_tasks(mod, TARGET)
    assert sorted((t.task_name, t.weight) for t in tasks) == [("add", 2), ("exp", 1), ("multiply", 1)]
    db = ms.relax_integration.tune_relax(mod, None, TARGET, str(tmp_path), 3, num_trials_per_iter=1, seed=0,
                                         strategy="random")
    for t in tasks:   # warm-up: one round (one trial) per task
        assert len(db.records_of(t.mod)) == 1, t.task_name
    vm = relax.VirtualMachine(ms.relax_integration.compile_relax(db, mod, TARGET, None), tvm.cpu())
    rng = np.random.default_rng(3)
    xa, ya = rng.random((8, 16)).astype("float32"), rng.random((8, 16)).astype("float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(xa), tvm.nd.array(ya)).numpy(),
                               np.exp((xa + ya) * ya + ya), rtol=1e-5, atol=1e-5)


def test_twelve_linear_relu_layers_of_high_level_ops(tmp_path):
    """relax.op.linear + maximum, twelve times with the same weights: after LegalizeOps each
    distinct PrimFunc (permute_dims, matmul, add, maximum) is one task of weight 12."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, 16), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((16, 16), "float32"))
    b = relax.Var("b", relax.TensorStructInfo((16,), "float32"))
    with bb.function("main", [x, w, b]):
        with bb.dataflow():
            h = x
            for _ in range(12):
                h = bb.emit(relax.op.linear(h, w, b))
                h = bb.emit(relax.op.maximum(h, relax.const(np.zeros((16,), "float32"))))
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    mod = bb.get()
    tasks = ms.relax_integration.extract_tasks(mod, TARGET)
    assert len(tasks) == 4 and all(t.weight == 12 for t in tasks), tasks
    db = ms.relax_integration.tune_relax(mod, None, TARGET, str(tmp_path), 4, num_trials_per_iter=1, seed=0,
                                         strategy="random")
    assert all(len(db.records_of(t.mod)) == 1 for t in tasks)
    vm = relax.VirtualMachine(ms.relax_integration.compile_relax(db, mod, TARGET, None), tvm.cpu())
    rng = np.random.default_rng(4)
    xa = rng.random((4, 16)).astype("float32")
    wa = (rng.standard_normal((16, 16)) * 0.3).astype("float32")
    ba = (rng.standard_normal((16,)) * 0.1).astype("float32")
    ref = xa
    for _ in range(12):
        ref = np.maximum(ref @ wa.T + ba, 0)
    got = vm["main"](tvm.nd.array(xa), tvm.nd.array(wa), tvm.nd.array(ba)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)
