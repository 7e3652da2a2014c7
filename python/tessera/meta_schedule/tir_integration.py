"""TIR entry points (``tvm.meta_schedule.tir_integration``): tune_tir and compile_tir,
which returns the best tuned schedule of a module from a database."""
from .. import target as _target
from .database import Database
from .tune import tune_tir
from .tune_context import normalize_mod
from ..error import TVMTypeError, TVMValueError


def compile_tir(database, mod, target):
    """The fastest valid record's schedule of ``mod`` in ``database`` (a tir.Schedule)."""
    if not isinstance(database, Database):
        raise TVMTypeError(f"compile_tir expects a meta_schedule Database, got {type(database).__name__}")
    mod = normalize_mod(mod)
    target = str(_target.Target(target) if isinstance(target, str) else target)
    sch = database.query_schedule(mod, target=target, workload_name="main")
    if sch is None:
        raise TVMValueError("compile_tir: the database has no valid tuning record of this module for target "
                            f"{target!r} (was it tuned, and did any candidate run correctly?)")
    return sch


__all__ = ["compile_tir", "tune_tir"]
