"""The final confirmation of a task's tuning (tune.py, the task schedulers): each
candidate was timed once, so one slow measurement of the untuned default (a loaded
machine) let a slower candidate win. When the best record is not the default, the default
and the ``top_k`` fastest other candidates are rebuilt and timed side by side (interleaved
rounds in one worker, runner.measure_interleaved); each gets a new record with its median,
and the database's best query (database.py) judges confirmed traces by these."""
import os
import statistics

from .builder import BuilderInput
from .database import TuningRecord
from .arguments import device_type_name
from .runner import RunnerInput
from .runner.runner import measure_interleaved
from ..tir.schedule import Schedule

CONFIRM_ROUNDS = 5


def _default_key(state):
    sch = getattr(state, "default_sch", None)
    if sch is None:
        return None
    return TuningRecord(sch.trace, state.workload).trace_key


def confirm_task(state, top_k, rounds=CONFIRM_ROUNDS, log=print):
    """Confirms ``state``'s (a prepared TaskState) best record: re-measures the default and
    the ``top_k`` fastest other valid traces interleaved, commits one record per trace
    with its median per-round time, updates ``state.best``; returns the confirmed
    default/best ratio, or None when nothing was confirmed (best is the default, already
    confirmed, fewer than two candidates, top_k 0)."""
    if top_k <= 0:
        return None
    db, name = state.database, state.task_name
    idx = db._index_of(state.workload)  # pylint: disable=protected-access
    mod, target = state.ctx.mod, str(state.ctx.target)
    latest = [r for r in db.latest_per_trace(idx, target).values() if r.is_valid]
    if not latest:
        return None
    latest.sort(key=lambda r: r.mean_run_sec)
    dkey, confirmed = _default_key(state), db.confirmed_keys(idx)
    best = latest[0]
    if best.trace_key == dkey or best.measure_key in confirmed:
        return None
    others = [r for r in latest if r.trace_key != dkey][:top_k]
    dflt = [r for r in latest if r.trace_key == dkey]
    if not dflt or not others:  # no default measured (a ScheduleFn space, a GPU target): nothing to confirm against
        return None
    cands = dflt + others
    schs = []
    for rec in cands:
        sch = Schedule(mod)
        rec.trace.apply_to_schedule(sch, remove_postproc=False)
        schs.append(sch)
    builds = state.builder.build([BuilderInput(s.mod, target) for s in schs])
    inputs, where = [], []
    for i, b in enumerate(builds):
        if b.error_msg is None:
            inputs.append(RunnerInput(b.artifact_path, device_type_name(state.ctx.target), state.args_info,
                                      state.reference))
            where.append(i)
    timings = [b.error_msg for b in builds]
    for i, res in zip(where, measure_interleaved(state.runner, inputs, rounds) if inputs else []):
        timings[i] = res
    for b in builds:
        if b.error_msg is None:
            try:
                os.remove(b.artifact_path)
            except OSError:
                pass
    secs = {}
    for rec, t in zip(cands, timings):
        ok = isinstance(t, list) and t and all(x > 0 for x in t)
        med = statistics.median(t) if ok else None
        new = TuningRecord(rec.trace, state.workload, None if med is None else [med], target, state.args_info,
                           None if ok else f"confirmation: {t if isinstance(t, str) else 'no run time'}")
        db.commit_tuning_record(new)
        if ok:
            secs[rec.trace_key] = med
    if not secs:
        log(f"[{name}] confirmation: every re-measured candidate failed; keeping the single measurements")
        return None
    best_key = min(secs, key=secs.get)
    state.best = secs[best_key]
    dsec = secs.get(dkey)
    ratio = dsec / secs[best_key] if dsec else None
    winner = "the default" if best_key == dkey else f"candidate {[r.trace_key for r in cands].index(best_key)}"
    dflt_text = (f"default {dflt[0].mean_run_sec * 1e6:.1f} us measured once, "
                 + (f"{dsec * 1e6:.1f} us confirmed" if dsec else "failed when re-measured"))
    log(f"[{name}] confirmation ({len(cands)} candidates x {rounds} interleaved rounds): {dflt_text}; best "
        f"{best.mean_run_sec * 1e6:.1f} us measured once -> {winner} wins at {secs[best_key] * 1e6:.1f} us; "
        f"confirmed default/best {'n/a' if ratio is None else f'{ratio:.2f}x'}")
    return ratio


# Seconds one interleaved round of one candidate takes at least (LocalRunner's
# min_repeat_ms, and the rest): what TuningBudget.reserve_for keeps per round.
_SECS_PER_ROUND = 0.03


def reserve_confirmation(budget, states, top_k):
    """Keeps time in ``budget`` for confirming the tasks of ``states`` that have a valid
    record (called after each round)."""
    n = sum(1 for st in states if st.best is not None)
    budget.reserve_for(n, top_k, CONFIRM_ROUNDS * _SECS_PER_ROUND)


def confirm_tasks(states, top_k, budget, log=print):
    """Runs confirm_task on every state, the most time-weighted first, while ``budget``
    (a TuningBudget) has time left (its reserve included); the most time-weighted task is
    confirmed even when a slow last round ate the reserve, if this run measured anything
    (it then overruns by that one confirmation). Logs the tasks skipped for want of time."""
    if top_k <= 0:
        return
    states = [st for st in states if getattr(st, "_prepared", False) and st.best is not None]
    for i, st in enumerate(sorted(states, key=lambda st: -st.weight * st.best)):
        if (i > 0 or budget.measured_now == 0) and budget.time_left() <= 0:
            log(f"[{st.task_name}] confirmation skipped: the time budget is spent")
            continue
        confirm_task(st, top_k, log=log)


__all__ = ["CONFIRM_ROUNDS", "confirm_task", "confirm_tasks", "reserve_confirmation"]
