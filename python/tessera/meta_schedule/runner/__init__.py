"""Runners (``tvm.meta_schedule.runner``): check built candidates against the unscheduled
program's results and time them. Runner is the interface; LocalRunner measures in a
local worker process, RayRunner on the workers of a Ray cluster."""
from .config import EvaluatorConfig
from .runner import Reference, Runner, RunnerInput, RunnerResult
from .local_runner import LocalRunner
from .ray_runner import RayRunner

__all__ = ["EvaluatorConfig", "LocalRunner", "RayRunner", "Reference", "Runner", "RunnerInput", "RunnerResult"]
