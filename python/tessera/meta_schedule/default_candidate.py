"""The untuned default schedule of a task as a tuning candidate: what relax.build would
run without tuning (tir.transform.DefaultCPUSchedule, as a tir.Schedule with its trace).
TaskState measures it in the task's first round and records it in the database, so
the best record of a task is never slower than not tuning. Its trace is the sampled
form (tir.DefaultCPUScheduleSampledOf): the rules' tile factors are sampling
instructions deciding the default's factors, so the evolutionary search mutates it and
PostOrderApply samples it as one more CPU design space. CPU targets only (the CUDA
default schedule is not a traced schedule); None where there is no such candidate."""
from .. import get_global_func
from .. import ir as _ir
from ..tir.schedule import Schedule


def _is_cpu(target):
    return target is not None and "cpu" in [str(k) for k in target.keys]


def _default_of(mod, target, sampled):
    name = "tir.DefaultCPUScheduleSampledOf" if sampled else "tir.DefaultCPUScheduleOf"
    try:
        return get_global_func(name)(mod["main"], target)
    except Exception:  # noqa: BLE001 -- no default candidate; tuning goes on without it
        return None


def sampled_default_schedule(mod, target):
    """The sampled form of the default CPU schedule of ``mod["main"]`` as it comes from the
    rules (its trace replays onto ``mod``), or None: not a CPU target, already scheduled,
    the rules failed, or the same function as the fixed default schedule is not what its
    recorded decisions replay to (then the sampled form is not used at all)."""
    if not _is_cpu(target):
        return None
    sampled, fixed = _default_of(mod, target, True), _default_of(mod, target, False)
    if sampled is None or fixed is None or not _ir.structural_equal(sampled.mod["main"], fixed.mod["main"]):
        return None
    return sampled


def default_schedule(mod, target):
    """The default CPU schedule of ``mod["main"]`` for ``target`` as a Schedule (its trace
    replays it onto ``mod``; the sampled form where it replays to the same function), or
    None: not a CPU target, the function already scheduled, or the default scheduler
    failed (the task is then tuned without it)."""
    if not _is_cpu(target):
        return None
    sch = sampled_default_schedule(mod, target) or _default_of(mod, target, False)
    if sch is None:
        return None
    # Replayed onto the task's module: the candidate's module is exactly what its
    # record's trace gives (the database stores traces, not modules).
    out = Schedule(mod)
    sch.trace.apply_to_schedule(out, remove_postproc=False)
    # Complete as it is: an empty postprocessing part, like every measured candidate's trace.
    out.enter_postproc()
    return out


def is_default_trace(trace, default_sch):
    """Whether ``trace`` is the default schedule's (a record of the default candidate)."""
    return default_sch is not None and str(trace.as_json()) == str(default_sch.trace.as_json())


def has_decisions(trace):
    """Whether ``trace`` records a sampling decision (a mutator has something to move)."""
    return len(trace.decisions) > 0


__all__ = ["default_schedule", "has_decisions", "is_default_trace", "sampled_default_schedule"]
