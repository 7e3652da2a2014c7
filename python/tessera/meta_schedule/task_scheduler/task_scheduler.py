"""The task scheduler interface and its tuning loop: a round gives ``num_trials_per_iter``
trials to the task ``next_task_id()`` picks (a subclass decides), until the global
budget (trials, optionally wall-clock time) is spent or every task is terminated;
progress after each round (the task's trials and best GFLOPS; tasks tuned, total trials,
the model's estimated latency, elapsed and ETA) and TVM's per-task table at the start
and the end go to stdout."""
import os
import time

from ..arguments import check_max_time
from ..budget import TuningBudget
from ..confirm import confirm_tasks, reserve_confirmation
from ..tune import (TaskState, cost_model_text, fmt_time, num_rejected, progress_text, report_sample_errors,
                    summary_table, _print, make_cost_model)
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
             runner, database, cost_model, work_dir, max_time_s=None, start=None, confirm_top_k=3):
        """Tunes ``tasks`` (TuneContexts) with weights ``task_weights``; one cost model made
        from ``cost_model`` ("xgb", "random", a CostModel or a SharedCostModel; seeded with
        the first task's seed) serves every task, warm-started from ``database``
        (shared_cost_model.py). Trials already in ``database`` count towards both budgets.
        ``max_time_s``: wall-clock budget from ``start`` (a time.time() value; default: this
        call's start): no round starts after it, rounds are shortened to end within it.
        At the end each task's best is confirmed against its default (confirm.py;
        ``confirm_top_k`` candidates, 0: off) while time is left."""
        if len(tasks) != len(task_weights):
            raise TVMValueError(f"TaskScheduler.tune: {len(tasks)} tasks but {len(task_weights)} task_weights")
        max_time_s = check_max_time(max_time_s, "TaskScheduler.tune")
        budget = TuningBudget(max_trials_global, max_time_s, start)
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
        while total < max_trials_global and not budget.time_up():
            tid = self.next_task_id()
            if tid < 0:
                break
            st = self.states[tid]
            round_start = time.time()
            # A first round leaves every task still waiting for its own an equal share of
            # what is left (the first candidate of each is its default schedule), so a
            # budget smaller than tasks x num_trials_per_iter still reaches every task.
            waiting = sum(1 for s in self.states if s.done == 0 and not s.terminated) if st.done == 0 else 1
            n = st.run_round(budget.round_size(self.round_trials(st, num_trials_per_iter), max_trials_global - total,
                                               waiting))
            budget.record_round(n, time.time() - round_start)
            reserve_confirmation(budget, self.states, confirm_top_k)
            total += n
            if n == 0:
                continue
            _print(f"[task #{tid} {st.task_name}] trials {st.done}/{st.max_trials}  best {st.best_text()}  "
                   f"errors {st.n_errors}  rejected {num_rejected(st)} | "
                   f"{progress_text(self.states, total, budget)}")
        if total >= max_trials_global:
            for st in self.states:
                st.terminated = True
        elif budget.time_up():
            _print(f"Time budget of {fmt_time(max_time_s)} spent: stopping at {total}/{max_trials_global} trials "
                   "(rerun with the same work_dir to continue)")
        confirm_tasks(self.states, confirm_top_k, budget, _print)
        _print(summary_table(self.states))
        _print(f"Wall time: {fmt_time(budget.elapsed())}")
        if cost_model_text(self.cost_model):
            _print(cost_model_text(self.cost_model))
        report_sample_errors(self.states)
        return database

    def on_start(self):
        """Called once the tasks are prepared, before the first round."""

    def round_trials(self, state, num_trials_per_iter):
        """How many trials the next round of ``state`` (a TaskState) asks for."""
        return num_trials_per_iter


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
