"""The budget of one tuning run (tune_tir, tune_relax / the task schedulers): trials
(``max_trials``, records already in the database included) and an optional wall-clock
limit (``max_time_s``, from the call's start). Rounds are only started while time is
left and are shortened so that, at the measured seconds per trial, they end within it
and, while tasks still wait for their first round, leave each of them an equal share of
the trials and time left; a run always stops between rounds, so every record it made is
committed."""
import math
import time


class TuningBudget:
    def __init__(self, max_trials, max_time_s=None, start=None):
        self.max_trials = int(max_trials)
        self.max_time_s = max_time_s
        self.start = time.time() if start is None else start
        self.measured_now = 0      # trials measured by this run
        self.measuring_secs = 0.0  # wall time of this run's rounds
        self.reserve_s = 0.0       # kept from the search for the final confirmation (reserve_for)

    def elapsed(self):
        return time.time() - self.start

    def time_left(self):
        return math.inf if self.max_time_s is None else self.max_time_s - self.elapsed()

    def search_time_left(self):
        """The time left to the search: the time left less the confirmation's reserve."""
        return self.time_left() - self.reserve_s

    def time_up(self):
        """Whether the search must stop (no time left before the confirmation's reserve)."""
        return self.search_time_left() <= 0

    def reserve_for(self, n_tasks, top_k, secs_per_run):
        """Keeps time for confirming ``n_tasks`` tasks (confirm.py): each rebuilds ``top_k
        + 1`` candidates (about a trial's seconds each, as measured so far) and times them
        in several rounds of ``secs_per_run``; at most a fifth of the budget, but never
        less than one task's confirmation (confirm_tasks always confirms the heaviest)."""
        if self.max_time_s is None or top_k <= 0 or n_tasks <= 0 or self.measured_now == 0:
            self.reserve_s = 0.0
            return
        per_trial = self.measuring_secs / self.measured_now
        one_task = (top_k + 1) * (per_trial + secs_per_run)
        self.reserve_s = min(max(0.2 * self.max_time_s, one_task), n_tasks * one_task)

    def round_size(self, n, trials_left, share=1):
        """``n`` trials, fewer when this round must leave room for ``share - 1`` more rounds
        (tasks still waiting for their first round) within the ``trials_left`` and the time
        left at the seconds per trial measured so far; at least one."""
        n = min(n, max(1, trials_left // share))
        if self.max_time_s is None or self.measured_now == 0:
            return n
        per_trial = self.measuring_secs / self.measured_now
        return max(1, min(n, int(self.search_time_left() / per_trial / share) if per_trial > 0 else n))

    def record_round(self, measured, secs):
        self.measured_now += measured
        self.measuring_secs += secs

    def eta(self, trials_left):
        """Seconds until the trial budget or the time limit ends the run (None before any trial)."""
        if self.measured_now == 0:
            return None
        by_trials = self.elapsed() / self.measured_now * max(0, trials_left)
        return max(0.0, min(by_trials, self.time_left()))


__all__ = ["TuningBudget"]
