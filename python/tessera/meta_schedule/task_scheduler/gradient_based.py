"""GradientBased (``tvm.meta_schedule.task_scheduler.GradientBased``), TVM's default task
scheduler (Ansor's section 6): one warm-up round per task in order, then each round
goes to the live task with the largest weight * (alpha * backward gradient + (1 - alpha)
* forward estimate) of its best-latency history (ms per round): the backward gradient is
the drop of the best latency over the last ``window_size`` rounds divided by the window
(0 with a shorter history), the forward estimate best / rounds. A task without a valid
measurement yet (best latency 1e9 ms or more) gets the lowest priority, as in TVM (a task
whose every candidate fails does not eat the budget). Equal gradients for every live task
pick one at random (``seed``). Tessera: the warm-up round measures ``warmup_trials``
candidates (1: the task's untuned default schedule), enough to learn each task's share
of the model's latency before the gradient spends full rounds where that share is; a
task resumed from the database (its best latency already known) has no warm-up round."""
import os

import numpy as np

from .task_scheduler import TaskScheduler
from ...error import TVMValueError

_INVALID_MS = 1e9   # a best latency at or above this (ms) means "no valid measurement"


class GradientBased(TaskScheduler):
    def __init__(self, *, alpha=0.2, window_size=3, seed=-1, warmup_trials=1):
        super().__init__()
        if not 0.0 <= float(alpha) <= 1.0:
            raise TVMValueError(f"GradientBased(alpha={alpha}) must lie in [0, 1]")
        if int(window_size) < 1:
            raise TVMValueError(f"GradientBased(window_size={window_size}) must be at least 1")
        if warmup_trials is not None and (isinstance(warmup_trials, bool) or int(warmup_trials) < 1):
            raise TVMValueError(f"GradientBased(warmup_trials={warmup_trials!r}) must be at least 1 (or None: "
                                "a full round, as TVM)")
        self.alpha = float(alpha)
        self.window_size = int(window_size)
        self.warmup_trials = None if warmup_trials is None else int(warmup_trials)
        if seed is None or seed == -1:
            seed = int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF
        self.seed = int(seed)
        self._rng = np.random.default_rng(self.seed)
        self._rounds = 0

    def on_start(self):
        self._rounds = 0

    def round_trials(self, state, num_trials_per_iter):
        """A task's first round (no best-latency history yet) measures ``warmup_trials``."""
        if self.warmup_trials is not None and not state.best_ms_history:
            return min(num_trials_per_iter, self.warmup_trials)
        return num_trials_per_iter

    def gradient(self, history, weight):
        """The weighted gradient of a task with best-latency ``history`` (ms per round);
        -inf while its best latency is not valid (1e9 ms or more)."""
        n = len(history)
        if n == 0:
            raise TVMValueError("GradientBased.gradient: the task has no best-latency history yet")
        best = history[-1]
        if best >= _INVALID_MS:
            return -np.inf
        w = self.window_size
        backward = (history[n - 1 - w] - best) / w if n >= 1 + w else 0.0
        forward = best / n
        return (self.alpha * backward + (1.0 - self.alpha) * forward) * weight

    def next_task_id(self):
        n = len(self.states)
        while self._rounds < n:   # warm-up: every task once, in order (not one resumed with a history)
            tid = self._rounds
            self._rounds += 1
            if not self.states[tid].terminated and not self.states[tid].best_ms_history:
                return tid
        self._rounds += 1
        alive = self._alive()
        if not alive:
            return -1
        grads = [self.gradient(self.states[i].best_ms_history, self.states[i].weight) for i in alive]
        if max(grads) == min(grads):
            return alive[int(self._rng.integers(len(alive)))]
        return alive[int(np.argmax(grads))]


__all__ = ["GradientBased"]
