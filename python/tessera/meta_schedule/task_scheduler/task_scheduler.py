"""The task scheduler interface and its tuning loop: a round gives ``num_trials_per_iter``
trials to the task ``next_task_id()`` picks (a subclass decides), until the global
budget is spent or every task is terminated; progress after each round (trials done /
total, the task's best GFLOPS, elapsed and ETA) and TVM's per-task table at the start
and the end go to stdout."""
import os
import time

from ..tune import TaskState, fmt_time, summary_table, _print, make_cost_model
from ...error import OpNotImplemented, TVMValueError


class TaskScheduler:
    """Subclasses implement ``next_task_id()`` over ``self.states`` (TaskStates: weight,
    best_ms_history, terminated, ...); -1 means no task is left."""

    def __init__(self):
        self.states = []

    def next_task_id(self):
        raise OpNotImplemented

    def _alive(self):
        return [i for i, st in enumerate(self.states) if not st.terminated]

    def tune(self, tasks, task_weights, max_trials_global, max_trials_per_task, num_trials_per_iter, builder,
             runner, database, cost_model, work_dir):
        """Tunes ``tasks`` (TuneContexts) with weights ``task_weights``; one cost model made
        from ``cost_model`` ("xgb", "random", a CostModel or a SharedCostModel; seeded with
        the first task's seed) serves every task, warm-started from ``database``
        (shared_cost_model.py). Trials already in ``database`` count towards both budgets."""
        if len(tasks) != len(task_weights):
            raise TVMValueError(f"TaskScheduler.tune: {len(tasks)} tasks but {len(task_weights)} task_weights")
        max_trials_global, num_trials_per_iter = int(max_trials_global), int(num_trials_per_iter)
        os.makedirs(work_dir, exist_ok=True)
        from ..shared_cost_model import shared_cost_model  # pylint: disable=import-outside-toplevel
        self.cost_model = shared_cost_model(cost_model, tasks[0].rand_state if tasks else None, database,
                                            tasks[0].target if tasks else None, "tune", _print, make_cost_model)
        self.states = [TaskState(ctx, database, builder, runner, self.cost_model.for_task(ctx.mod, ctx.target),
                                 work_dir, max_trials_per_task, w, num_trials_per_iter=num_trials_per_iter)
                       for ctx, w in zip(tasks, task_weights)]
        for st in self.states:
            st.prepare()
        self.on_start()
        total = sum(st.done for st in self.states)
        _print(summary_table(self.states))
        start, measured_now = time.time(), 0
        while total < max_trials_global:
            tid = self.next_task_id()
            if tid < 0:
                break
            st = self.states[tid]
            n = st.run_round(min(num_trials_per_iter, max_trials_global - total))
            total += n
            measured_now += n
            if n == 0:
                continue
            elapsed = time.time() - start
            eta = elapsed / measured_now * (max_trials_global - total)
            _print(f"[task #{tid} {st.task_name}] trials {st.done}/{st.max_trials}  best {st.best_text()}  "
                   f"errors {st.n_errors} | total trials {total}/{max_trials_global}  elapsed "
                   f"{fmt_time(elapsed)}  ETA {fmt_time(eta)}")
        if total >= max_trials_global:
            for st in self.states:
                st.terminated = True
        _print(summary_table(self.states))
        _print(f"Wall time: {fmt_time(time.time() - start)}")
        for st in self.states:
            if st.ctx.sample_errors:
                _print(f"[{st.task_name}] {len(st.ctx.sample_errors)} samples of the space failed, first: "
                       f"{st.ctx.sample_errors[0]}")
        return database

    def on_start(self):
        """Called once the tasks are prepared, before the first round."""


def create(kind="gradient", seed=None):
    """A TaskScheduler from ``kind``: one, "gradient" (GradientBased) or "round-robin"."""
    from .gradient_based import GradientBased
    from .round_robin import RoundRobin
    if isinstance(kind, TaskScheduler):
        return kind
    if kind == "gradient":
        return GradientBased(seed=-1 if seed is None else seed)
    if kind == "round-robin":
        return RoundRobin()
    raise TVMValueError(f"task_scheduler={kind!r}: expected 'gradient', 'round-robin' or a TaskScheduler")


TaskScheduler.create = staticmethod(create)

__all__ = ["TaskScheduler", "create"]
