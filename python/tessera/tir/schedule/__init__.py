"""TensorIR schedules (``tvm.tir.schedule``)."""
from ...error import ScheduleError
from .schedule import Schedule, BlockRV, LoopRV
from .instruction import Instruction, InstructionKind
from .trace import Trace
from .state import ScheduleState, StmtSRef, ScheduleDebugMask

__all__ = ["Schedule", "BlockRV", "LoopRV", "Trace", "Instruction", "InstructionKind", "ScheduleError",
           "ScheduleState", "StmtSRef", "ScheduleDebugMask"]
