"""The gradient-based task scheduler spends a model's trials where its latency is: fake
task states with scripted latencies (no compilation) check the choice order (warm-up in
order, then the largest weighted gradient; a task without a valid measurement is never
chosen while another has one, as TVM), and the whole TaskScheduler.tune loop with those
fake states checks the round sizes (a one-trial warm-up round per task) and that a task
holding a tiny share of the model's weighted latency gets no trial beyond its warm-up."""
from types import SimpleNamespace

import numpy as np
import pytest

from tessera.meta_schedule import task_scheduler as ts_mod
from tessera.meta_schedule.cost_model import RandomModel
from tessera.meta_schedule.shared_cost_model import SharedCostModel
from tessera.meta_schedule.task_scheduler import GradientBased, RoundRobin


class _ScriptedTask:
    """A task whose best latency (ms) after its k-th round is ``script(k)``; None: no
    valid measurement (1e100, as TaskState.best_ms)."""

    def __init__(self, weight, script):
        self.weight = weight
        self.script = script
        self.best_ms_history = []
        self.terminated = False

    def run_round(self):
        ms = self.script(len(self.best_ms_history))
        self.best_ms_history.append(1e100 if ms is None else ms)


def _simulate(sched, tasks, rounds):
    sched.states = tasks
    sched.on_start()
    order = []
    for _ in range(rounds):
        tid = sched.next_task_id()
        order.append(tid)
        tasks[tid].run_round()
    return order


def _decaying(start, rate):
    return lambda k: start * rate ** k


def test_gradient_choice_order_follows_weighted_latency():
    tasks = [_ScriptedTask(1, _decaying(10.0, 0.9)),    # heavy: 10 ms, improving 10% a round
             _ScriptedTask(2, _decaying(2.0, 0.9)),     # medium: 2 ms x 2 calls
             _ScriptedTask(1, _decaying(0.05, 0.5)),    # tiny: 0.5% of the model, improving fast
             _ScriptedTask(3, lambda k: None)]          # every candidate fails
    order = _simulate(GradientBased(alpha=0.2, window_size=3, seed=0), tasks, 14)
    # warm-up in order; then (test below, by hand) the heavy task twice (8.0, 3.6 > the medium's 3.2), the
    # medium once, ...: rounds in proportion to weighted latency; the tiny and the failing task never again
    assert order == [0, 1, 2, 3, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0]
    counts = np.bincount(order, minlength=4)
    assert counts[0] > counts[1] > counts[2] == counts[3] == 1
    assert counts[0] >= 7


def test_hand_computed_gradients_of_the_first_choices():
    sched = GradientBased(alpha=0.2, window_size=3, seed=0)
    # after warm-up: heavy [10], medium [2] (weight 2), tiny [0.05], failing [1e100] (weight 3)
    assert sched.gradient([10.0], 1) == pytest.approx(8.0)
    assert sched.gradient([2.0], 2) == pytest.approx(3.2)
    assert sched.gradient([0.05], 1) == pytest.approx(0.04)
    assert sched.gradient([1e100], 3) == -np.inf
    # heavy after 1 more round: [10, 9]: fwd 9/2 -> 0.8 * 4.5 = 3.6 > 3.2, so it is chosen again
    assert sched.gradient([10.0, 9.0], 1) == pytest.approx(3.6)
    # then [10, 9, 8.1]: 0.8 * 2.7 = 2.16 < 3.2: the medium task's turn
    assert sched.gradient([10.0, 9.0, 8.1], 1) == pytest.approx(2.16)


def test_resumed_tasks_skip_the_warm_up():
    tasks = [_ScriptedTask(1, _decaying(1.0, 0.9)), _ScriptedTask(1, _decaying(0.1, 0.9)),
             _ScriptedTask(1, _decaying(5.0, 0.9))]
    tasks[0].best_ms_history = [1.0]          # resumed: its latency is known from the database
    tasks[1].best_ms_history = [0.1]
    order = _simulate(GradientBased(seed=0), tasks, 3)
    assert order == [2, 2, 2]                 # the new task's warm-up, then the heaviest by gradient


def test_only_failing_tasks_left_are_chosen_at_random():
    tasks = [_ScriptedTask(1, lambda k: None), _ScriptedTask(1, lambda k: None)]
    order = _simulate(GradientBased(seed=1), tasks, 30)
    assert order[:2] == [0, 1] and set(order[2:]) == {0, 1}


class _FakeState:
    """Stands in for tune.TaskState inside TaskScheduler.tune: each trial of a round may
    lower the best latency by the task's scripted factor."""

    def __init__(self, ctx, database, builder, runner, cost_model, work_dir, max_trials, weight=1.0,
                 num_trials_per_iter=64):
        self.ctx, self.weight, self.max_trials = ctx, float(weight), int(max_trials)
        self.task_name = ctx.task_name
        self.flop, self.done, self.n_errors = 1.0, 0, 0
        self.best, self.best_ms_history, self.terminated = None, [], False
        self.round_sizes = []

    def prepare(self):
        pass

    def run_round(self, n):
        n = min(n, self.max_trials - self.done)
        self.round_sizes.append(n)
        self.done += n
        base, rate = self.ctx.script
        best_ms = (base if self.best is None else self.best * 1e3) * rate ** (n - 1)
        self.best = best_ms * 1e-3
        self.best_ms_history.append(best_ms)
        if self.done >= self.max_trials:
            self.terminated = True
        return n

    def gflops(self):
        return 0.0

    def best_text(self):
        return f"{self.best}"


class _NoGroupShared(SharedCostModel):
    def for_task(self, mod, target=None):
        return self.model


def test_tune_loop_warms_up_with_one_trial_and_spends_the_rest_on_heavy_tasks(monkeypatch, tmp_path):
    monkeypatch.setattr(ts_mod.task_scheduler, "TaskState", _FakeState)
    # (ms, improvement per trial) and weights: task 0 is 80% of the model, task 3 0.1%
    scripts = [(8.0, 0.97), (1.0, 0.97), (0.45, 0.97), (0.01, 0.97)]
    weights = [1, 1, 2, 1]
    ctxs = [SimpleNamespace(task_name=f"t{i}", script=s, mod=None, target=None, rand_state=0, sample_errors=[])
            for i, s in enumerate(scripts)]
    sched = GradientBased(seed=0)
    sched.tune(ctxs, weights, 100, 100, 8, None, None, None, _NoGroupShared(RandomModel(seed=0)), str(tmp_path))
    sizes = [st.round_sizes for st in sched.states]
    assert [s[0] for s in sizes] == [1, 1, 1, 1]            # warm-up: the default schedule of each task
    done = [st.done for st in sched.states]
    assert sum(done) == 100
    assert done[3] == 1                                    # 0.1% of the latency: its warm-up only
    assert done[0] > 60 and done[0] > done[1] + done[2]


def test_round_robin_keeps_full_rounds():
    st = SimpleNamespace(best_ms_history=[])
    assert RoundRobin().round_trials(st, 16) == 16
    assert GradientBased(seed=0).round_trials(st, 16) == 1
    assert GradientBased(seed=0, warmup_trials=None).round_trials(st, 16) == 16
    st.best_ms_history.append(3.0)
    assert GradientBased(seed=0).round_trials(st, 16) == 16
    with pytest.raises(ValueError, match="warmup_trials"):
        GradientBased(warmup_trials=0)
