"""meta_schedule tuning: wrong candidates rejected, crashing or hanging candidates are
failed trials, determinism with a fixed seed, the default CPU space,
worker pool failures and bad inputs. Trial counts are kept small."""
import math

import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera.meta_schedule.builder import LocalBuilder, BuilderResult
from tessera.meta_schedule.runner import Runner, RunnerResult
from tessera.meta_schedule.worker_pool import WorkerPool, WorkerFailure

from ms_helpers import matmul_module, stochastic_schedule_mm, zero_fill_module

TARGET = "llvm --num-cores=1"
SPACE = ms.space_generator.ScheduleFn(stochastic_schedule_mm)


def _matmul_check(sch, n):
    rng = np.random.default_rng(0)
    a = rng.random((n, n)).astype("float32")
    b = rng.random((n, n)).astype("float32")
    lib = tvm.build(sch.mod, target="llvm")
    c = tvm.nd.empty((n, n), "float32")
    lib["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


class WrongEverySecondBuilder(LocalBuilder):
    """Builds a zero-filling module (fast, wrong) in place of every second candidate."""

    def __init__(self, n):
        super().__init__(max_workers=1)
        self.n = n
        self.calls = 0

    def build(self, build_inputs):
        for inp in build_inputs:
            if self.calls % 2 == 1:
                inp.mod = zero_fill_module(self.n)
            self.calls += 1
        return super().build(build_inputs)


def test_wrong_candidate_is_recorded_as_error_and_never_chosen(tmp_path):
    n = 64
    mod = matmul_module(n)
    db = ms.tune_tir(mod, TARGET, str(tmp_path), 6, num_trials_per_iter=3, space=SPACE, strategy="random",
                     seed=1, builder=WrongEverySecondBuilder(n))
    recs = db.get_all_tuning_records()
    assert len(recs) == 6
    wrong = [r for r in recs if not r.is_valid]
    assert len(wrong) == 3
    assert all("wrong result" in r.error_msg for r in wrong)
    sch = ms.tir_integration.compile_tir(db, mod, TARGET)
    _matmul_check(sch, n)


class CrashingBuilder(LocalBuilder):
    """The second candidate's build crashes its worker (abort), the third hangs past the limit."""

    def __init__(self):
        super().__init__(max_workers=1, timeout_sec=5)
        self.calls = 0

    def build(self, build_inputs):
        out = []
        for inp in build_inputs:
            self.calls += 1
            if self.calls in (2, 3):
                fn = "crash_now" if self.calls == 2 else "hang"
                res = self._pool.map("ms_helpers", fn, [()], self.timeout_sec)[0]
                assert isinstance(res, WorkerFailure)
                out.append(BuilderResult(None, f"build {res}"))
            else:
                out += super().build([inp])
        return out


def test_crash_and_hang_in_a_candidate_are_failed_trials(tmp_path):
    n = 32
    mod = matmul_module(n)
    db = ms.tune_tir(mod, TARGET, str(tmp_path), 5, num_trials_per_iter=5, space=SPACE, strategy="random",
                     seed=2, builder=CrashingBuilder())
    recs = db.get_all_tuning_records()
    assert len(recs) == 5
    errors = [r.error_msg for r in recs if not r.is_valid]
    assert len(errors) == 2
    assert "crash" in errors[0] and "timeout" in errors[1]
    assert sum(r.is_valid for r in recs) == 3
    _matmul_check(ms.tir_integration.compile_tir(db, mod, TARGET), n)


def test_worker_pool_survives_crash_timeout_and_exception():
    pool = WorkerPool(1)
    try:
        res = pool.map("ms_helpers", "crash_now", [()], 30)[0]
        assert isinstance(res, WorkerFailure) and res.kind == "crash"
        res = pool.map("ms_helpers", "hang", [()], 1)[0]
        assert isinstance(res, WorkerFailure) and res.kind == "timeout"
        res = pool.map("math", "sqrt", [(-1.0,)], 30)[0]
        assert isinstance(res, WorkerFailure) and res.kind == "error" and "ValueError" in res.message
        assert pool.map("math", "sqrt", [(16.0,), (9.0,)], 30) == [4.0, 3.0]
    finally:
        pool.close()


class FakeRunner(Runner):
    """Latencies from a fixed pseudo-random sequence (deterministic measurements)."""

    def __init__(self):
        self.rng = np.random.default_rng(123)

    def make_reference(self, mod, target, args_info, path, seed=0):
        return None

    def run(self, runner_inputs):
        return [RunnerResult([float(1e-3 * (1 + self.rng.random()))], None) for _ in runner_inputs]


class RecordingBuilder(LocalBuilder):
    def __init__(self):
        super().__init__(max_workers=1)
        self.mods = []

    def build(self, build_inputs):
        self.mods += [tvm.ir.structural_hash(i.mod) for i in build_inputs]
        return [BuilderResult("unused.so", None) for _ in build_inputs]


def _trace_sequence(tmp_path, seed, strategy, space):
    builder = RecordingBuilder()
    ms.tune_tir(matmul_module(64), TARGET, str(tmp_path), 12, num_trials_per_iter=4, space=space,
                strategy=strategy, seed=seed, builder=builder, runner=FakeRunner(), database="memory",
                confirm_top_k=0)  # the search's builds only
    builder.close()
    return builder.mods


@pytest.mark.parametrize("strategy", ["evolutionary", "replay-trace", "random"])
def test_fixed_seed_gives_the_same_search(tmp_path, strategy):
    space = "post-order-apply" if strategy == "evolutionary" else SPACE
    first = _trace_sequence(tmp_path / "a", 5, strategy, space)
    again = _trace_sequence(tmp_path / "b", 5, strategy, space)
    other = _trace_sequence(tmp_path / "c", 6, strategy, space)
    assert len(first) == 12 and len(set(first)) == 12
    assert first == again
    assert first != other


def test_evolutionary_search_tunes_a_correct_schedule(tmp_path):
    n = 64
    mod = matmul_module(n)
    db = ms.tune_tir(mod, TARGET, str(tmp_path), 12, num_trials_per_iter=4, seed=0)
    recs = db.get_all_tuning_records()
    assert len({r.trace_key for r in recs}) == 12 and all(r.is_valid for r in recs)
    sch = ms.tir_integration.compile_tir(db, mod, TARGET)
    # The best is the fastest single measurement, or the confirmed fastest when the
    # final confirmation re-measured the top candidates (records after the 12 trials).
    confirmed = recs[12:] or recs
    assert min(r.mean_run_sec for r in confirmed) == db.query_tuning_record(mod, TARGET).mean_run_sec
    _matmul_check(sch, n)


@pytest.mark.parametrize("seed", range(6))
def test_default_space_samples_tile_and_stay_correct(seed):
    """A sample of the default space (C++ rules) after the default postprocessors: tiled,
    the reduction decomposed, and still computing the matmul."""
    n = 64
    ctx = ms.TuneContext(matmul_module(n), "llvm --num-cores=2", rand_state=seed)
    sch = ctx.space_generator.sample(ctx.mod, seed, ctx)
    assert ctx.space_generator.apply_postprocs(sch)
    kinds = []
    tvm.tir.stmt_functor.post_order_visit(
        sch.mod["main"].body, lambda x: kinds.append(x.kind) if isinstance(x, tvm.tir.For) else None)
    assert len(kinds) >= 8  # tiled (a loop of extent 1 innermost is not vectorized, as in TVM)
    names = [inst.kind.name for inst in sch.trace.insts]
    # The rules' spaces tile i, j, k (3 samples); Tessera's extra CPU space, the sampled
    # default schedule (default_candidate.py), samples its register tile's rows and columns.
    assert names.count("SamplePerfectTile") in (2, 3) and "DecomposeReduction" in names and "EnterPostproc" in names
    _matmul_check(sch, n)


def test_tune_tir_bad_inputs(tmp_path):
    mod = matmul_module(16)
    with pytest.raises(ValueError, match="max_trials_global"):
        ms.tune_tir(mod, TARGET, str(tmp_path), 0)
    with pytest.raises(ValueError, match="strategy"):
        ms.tune_tir(mod, TARGET, str(tmp_path), 2, space=SPACE, strategy="annealing")
    with pytest.raises(ValueError, match="space"):
        ms.tune_tir(mod, TARGET, str(tmp_path), 2, space=42)
    if not tvm.cuda(0).exist:
        with pytest.raises(RuntimeError, match="no CUDA device to measure on"):
            ms.tune_tir(mod, "cuda", str(tmp_path), 2, space=SPACE)
    with pytest.raises(ValueError, match="not supported"):
        ms.tune_tir(mod, "nvptx", str(tmp_path), 2, space=SPACE)
    with pytest.raises(TypeError, match="callable"):
        ms.space_generator.ScheduleFn(3)
    with pytest.raises(TypeError, match="sch_rules"):
        ms.space_generator.PostOrderApply(sch_rules=3)
    with pytest.raises(TypeError, match="mutator_probs"):
        ms.space_generator.PostOrderApply(mutator_probs={"x": 1.0})
    with pytest.raises(ValueError, match="no valid tuning record"):
        ms.tir_integration.compile_tir(ms.database.MemoryDatabase(), mod, TARGET)
    with pytest.raises(ValueError, match="timeout_sec"):
        ms.runner.LocalRunner(timeout_sec=0)


def test_worker_whose_process_fails_to_start_reports_that_error_and_closes_cleanly():
    """A worker process that never starts (spawn refused) surfaces the start error,
    not an AttributeError from killing a process that has no handle; close() is safe."""
    import multiprocessing

    from tessera.meta_schedule.worker_pool import Worker

    class RefusingContext:
        def __init__(self):
            self._real = multiprocessing.get_context("spawn")

        def Pipe(self):  # noqa: N802 -- multiprocessing's name
            return self._real.Pipe()

        def Process(self, *args, **kwargs):  # noqa: N802
            proc = self._real.Process(*args, **kwargs)

            def refuse():
                raise OSError("spawn refused")
            proc.start = refuse
            return proc

    w = Worker()
    w._ctx = RefusingContext()
    with pytest.raises(OSError, match="spawn refused"):
        w.call("math", "sqrt", (4.0,), timeout=5)
    w.close()
    assert w._proc is None or w._proc.pid is None
