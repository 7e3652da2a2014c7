"""Task schedulers (``tvm.meta_schedule.task_scheduler``): how tune_relax spends one
global trial budget over the tasks of a model. RoundRobin takes them in turn;
GradientBased (the default, "gradient") picks the task whose weighted latency is
expected to drop most (TVM's algorithm)."""
from .task_scheduler import TaskScheduler, create
from .round_robin import RoundRobin
from .gradient_based import GradientBased

__all__ = ["GradientBased", "RoundRobin", "TaskScheduler", "create"]
