"""RoundRobin (``tvm.meta_schedule.task_scheduler.RoundRobin``): the tasks take turns,
one round each, skipping terminated ones."""
from .task_scheduler import TaskScheduler


class RoundRobin(TaskScheduler):
    def __init__(self):
        super().__init__()
        self._last = -1

    def on_start(self):
        self._last = -1

    def next_task_id(self):
        n = len(self.states)
        for step in range(1, n + 1):
            tid = (self._last + step) % n
            if not self.states[tid].terminated:
                self._last = tid
                return tid
        return -1


__all__ = ["RoundRobin"]
