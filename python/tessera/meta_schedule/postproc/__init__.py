"""Postprocessors (``tvm.meta_schedule.postproc``): checks (and, with the schedule-rule
postprocs, rewrites) applied to every candidate before it is measured; a candidate a
postproc rejects is dropped. The checks are C++ (src/meta_schedule/postproc/)."""
from .postproc import Postproc
from .disallow_dynamic_loop import DisallowDynamicLoop
from .verify_gpu_code import VerifyGPUCode

__all__ = ["DisallowDynamicLoop", "Postproc", "VerifyGPUCode"]
