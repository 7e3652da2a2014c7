"""TensorIR schedules (``tvm.tir.schedule``)."""
from ...error import ScheduleError
from .schedule import Schedule, BlockRV, LoopRV
from .trace import Trace, Instruction

__all__ = ["Schedule", "BlockRV", "LoopRV", "Trace", "Instruction", "ScheduleError"]
