"""The tuning loop behind ``ms.tune_tir``: sample candidates with the search strategy,
build them (builder), check and time them (runner), commit a record per candidate to the
database and feed the latencies back; progress and a summary go to stdout. A database
that already holds records of the workload (a rerun with the same work_dir) counts them
as trials done and never measures their modules again."""
import os
import sys
import time

from .. import ir as _ir
from .arg_info import ArgInfo
from .builder import BuilderInput, LocalBuilder
from .cost_model import RandomModel, XGBModel
from .database import JSONDatabase, MemoryDatabase, Database, TuningRecord
from .feature import estimate_flops
from .runner import LocalRunner, RunnerInput
from . import search_strategy as _strategy
from .tune_context import TuneContext


def _print(msg):
    print(msg, flush=True)
    sys.stdout.flush()


def _fmt_time(secs):
    secs = int(secs)
    return f"{secs // 60}m{secs % 60:02d}s" if secs >= 60 else f"{secs}s"


def tune_task(ctx, database, builder, runner, cost_model, max_trials, num_trials_per_iter, work_dir):
    """Tunes ``ctx``'s task until ``max_trials`` trials (existing records included) are in
    ``database`` or the space has no unmeasured candidate left; returns the database."""
    mod, target = ctx.mod, str(ctx.target)
    workload = database.commit_workload(mod)
    args_info = ArgInfo.from_prim_func(mod["main"])
    flop = estimate_flops(mod)

    existing = database.records_of(mod)
    for rec in existing:
        sch = _ir_schedule(mod, rec.trace)
        if sch is not None:
            ctx.measured.add(int(_ir.structural_hash(sch.mod)))
    strategy = _strategy.create(ctx.search_strategy, ctx, cost_model)
    if existing and isinstance(strategy, _strategy.EvolutionarySearch):
        strategy.seed_measured(existing)

    ref_path = os.path.join(work_dir, f"reference_{workload.shash}.npz")
    reference = runner.make_reference(mod, target, args_info, ref_path, seed=0)

    done = len(existing)
    valid = [r.mean_run_sec for r in existing if r.is_valid]
    best = min(valid) if valid else None
    n_errors = sum(1 for r in existing if not r.is_valid)
    if done:
        _print(f"[{ctx.task_name}] resuming: {done} trials already in the database")
    start = time.time()
    measured_now = 0

    def gflops(t):
        return flop / t / 1e9 if t else 0.0

    while done < max_trials:
        n = min(num_trials_per_iter, max_trials - done)
        cands = strategy.generate(n)
        if not cands:
            _print(f"[{ctx.task_name}] the search space has no unmeasured candidate left; stopping at "
                   f"{done} trials")
            break
        builds = builder.build([BuilderInput(c.sch.mod, target) for c in cands])
        run_inputs, run_index = [], []
        for i, b in enumerate(builds):
            if b.error_msg is None:
                run_inputs.append(RunnerInput(b.artifact_path, "cpu", args_info, reference))
                run_index.append(i)
        results = [None] * len(cands)
        for i, r in zip(run_index, runner.run(run_inputs)):
            results[i] = r
        latencies = []
        for cand, b, r in zip(cands, builds, results):
            ctx.measured.add(cand.shash)
            if b.error_msg is not None:
                secs, err = None, b.error_msg
            else:
                secs, err = r.run_secs, r.error_msg
                try:
                    os.remove(b.artifact_path)
                except OSError:
                    pass
            rec = TuningRecord(cand.sch.trace, workload, secs, target, args_info, err)
            database.commit_tuning_record(rec)
            latencies.append(rec.mean_run_sec if rec.is_valid else None)
            if rec.is_valid and (best is None or rec.mean_run_sec < best):
                best = rec.mean_run_sec
            n_errors += 0 if rec.is_valid else 1
        strategy.notify(cands, latencies)
        done += len(cands)
        measured_now += len(cands)
        elapsed = time.time() - start
        eta = elapsed / measured_now * (max_trials - done)
        best_txt = f"{gflops(best):.2f} GFLOPS ({best * 1e6:.1f} us)" if best else "none valid yet"
        _print(f"[{ctx.task_name}] trials {done}/{max_trials}  best {best_txt}  errors {n_errors}  "
               f"elapsed {_fmt_time(elapsed)}  ETA {_fmt_time(eta)}")
    elapsed = time.time() - start
    _print(" ID | Name | FLOP | Weight | Speed (GFLOPS) | Latency (us) | Trials | Errors | Wall time")
    speed = f"{gflops(best):.2f}" if best else "N/A"
    lat = f"{best * 1e6:.2f}" if best else "N/A"
    _print(f"  0 | {ctx.task_name} | {flop} | 1 | {speed} | {lat} | {done} | {n_errors} | {_fmt_time(elapsed)}")
    if ctx.sample_errors:
        _print(f"[{ctx.task_name}] {len(ctx.sample_errors)} samples of the space failed, first: "
               f"{ctx.sample_errors[0]}")
    return database


def _ir_schedule(mod, trace):
    from ..tir.schedule import Schedule
    sch = Schedule(mod)
    try:
        trace.apply_to_schedule(sch)
    except Exception:  # noqa: BLE001 -- a record that no longer replays is ignored
        return None
    return sch


def tune_tir(mod, target, work_dir, max_trials_global, *, num_trials_per_iter=64, builder="local",
             runner="local", database="json", cost_model="xgb", space="post-order-apply",
             strategy="evolutionary", task_name="main", num_tuning_cores="physical", seed=None):
    """Tunes the PrimFunc ``mod`` ("main" of an IRModule, or a PrimFunc) for ``target`` with
    ``max_trials_global`` measured candidates and returns the database (a JSONDatabase in
    ``work_dir`` unless ``database`` is given). ``space``: "post-order-apply" (the default
    CPU rules), a ScheduleFn or a schedule function; ``strategy``: "evolutionary",
    "replay-trace" or "random"; ``seed`` fixes every random choice of the search;
    ``num_tuning_cores`` ("physical" or a count) is the number of build workers (and the
    core count the default space parallelizes for when the target gives no --num-cores)."""
    if int(max_trials_global) < 1:
        raise ValueError(f"tune_tir(max_trials_global={max_trials_global}) must be at least 1")
    if int(num_trials_per_iter) < 1:
        raise ValueError(f"tune_tir(num_trials_per_iter={num_trials_per_iter}) must be at least 1")
    if work_dir is None:
        raise ValueError("tune_tir needs a work_dir")
    os.makedirs(work_dir, exist_ok=True)
    ctx = TuneContext(mod, target, space, strategy, task_name, -1 if seed is None else seed, num_tuning_cores)
    if ctx.target.kind.name != "llvm":
        raise ValueError(f"tune_tir: target {ctx.target} is not supported; only CPU (llvm) targets are tuned")
    if database == "json":
        database = JSONDatabase(work_dir=work_dir)
    elif database == "memory":
        database = MemoryDatabase()
    elif not isinstance(database, Database):
        raise ValueError(f"tune_tir(database={database!r}): expected 'json', 'memory' or a Database")
    if cost_model == "xgb":
        cost_model = XGBModel(seed=ctx.rand_state)
    elif cost_model == "random":
        cost_model = RandomModel(seed=ctx.rand_state)
    elif not hasattr(cost_model, "predict"):
        raise ValueError(f"tune_tir(cost_model={cost_model!r}): expected 'xgb', 'random' or a CostModel")
    own_builder = builder == "local"
    own_runner = runner == "local"
    if own_builder:
        builder = LocalBuilder(max_workers=ctx.num_threads, artifact_dir=os.path.join(work_dir, "artifacts"))
    if own_runner:
        runner = LocalRunner()
    for obj, name, method in ((builder, "builder", "build"), (runner, "runner", "run")):
        if not hasattr(obj, method):
            raise ValueError(f"tune_tir({name}={obj!r}): expected 'local' or an object with .{method}()")
    try:
        return tune_task(ctx, database, builder, runner, cost_model, int(max_trials_global),
                         int(num_trials_per_iter), work_dir)
    finally:
        if own_builder:
            builder.close()
        if own_runner:
            runner.close()


__all__ = ["tune_tir", "tune_task"]
