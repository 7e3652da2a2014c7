"""The untuned default schedule of a task as a tuning candidate: what relax.build would
run without tuning (tir.transform.DefaultCPUSchedule, as a tir.Schedule with its trace).
TaskState measures it in the task's first round and records it in the database, so
the best record of a task is never slower than not tuning. CPU targets only (the CUDA
default schedule is not a traced schedule); None where there is no such candidate."""
from .. import get_global_func
from ..tir.schedule import Schedule


def default_schedule(mod, target):
    """The default CPU schedule of ``mod["main"]`` for ``target`` as a Schedule (its trace
    replays it onto ``mod``), or None: not a CPU target, the function already scheduled,
    or the default scheduler failed (the task is then tuned without it)."""
    if target is None or "cpu" not in [str(k) for k in target.keys]:
        return None
    try:
        sch = get_global_func("tir.DefaultCPUScheduleOf")(mod["main"], target)
    except Exception:  # noqa: BLE001 -- no default candidate; tuning goes on without it
        return None
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


__all__ = ["default_schedule", "is_default_trace"]
