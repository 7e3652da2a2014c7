"""The MetaSchedule passes of ``tvm.relax.transform``: MetaScheduleApplyDatabase swaps
each PrimFunc of a module for its best tuned schedule in a database and marks it
"tir.is_scheduled" (so later default-schedule passes leave it alone);
MetaScheduleTuneTIR / MetaScheduleTuneIRMod tune the module's PrimFuncs / whole model
into work_dir and return the module unchanged. All need ``with tvm.target.Target(...)``."""
import warnings

from ...ir import transform as _ir_transform
from ...error import OpNotImplemented, TVMTypeError, TVMValueError


def _current_target(who):
    from ...target import Target  # pylint: disable=import-outside-toplevel
    target = Target.current()
    if target is None:
        raise TVMValueError(f"{who} needs a target: run it inside `with tvm.target.Target(...):`")
    return target


def _check_module(mod, who):
    from ...ir import IRModule  # pylint: disable=import-outside-toplevel
    if not isinstance(mod, IRModule):
        raise TVMTypeError(f"{who} expects an IRModule, got {type(mod).__name__}")


@_ir_transform.module_pass(opt_level=0, name="MetaScheduleApplyDatabase")
class MetaScheduleApplyDatabase:
    """Replaces every PrimFunc that has a valid record in the database (``work_dir``'s
    JSONDatabase, else the one of the enclosing ``with database:``) for the current
    target by the record's schedule, keeping the function's attributes and adding
    "tir.is_scheduled"; PrimFuncs already scheduled or without a record are unchanged
    (``enable_warning`` warns about the latter)."""

    def __init__(self, work_dir=None, enable_warning=False):
        if work_dir is not None and not isinstance(work_dir, str):
            raise TVMTypeError(f"MetaScheduleApplyDatabase(work_dir=...) must be a str, got {type(work_dir).__name__}")
        self.work_dir = work_dir
        self.enable_warning = bool(enable_warning)

    def _database(self):
        from ...meta_schedule.database import Database, JSONDatabase  # pylint: disable=import-outside-toplevel
        if self.work_dir is not None:
            return JSONDatabase(work_dir=self.work_dir)
        database = Database.current()
        if database is None:
            raise TVMValueError("MetaScheduleApplyDatabase needs a database: give work_dir=... or run it inside "
                                "`with database:`")
        return database

    def transform_module(self, mod, ctx):  # pylint: disable=unused-argument
        from ...meta_schedule.tune_context import normalize_mod  # pylint: disable=import-outside-toplevel
        from ...tir import PrimFunc  # pylint: disable=import-outside-toplevel
        _check_module(mod, "MetaScheduleApplyDatabase")
        target = str(_current_target("MetaScheduleApplyDatabase"))
        database = self._database()
        updates = []
        for gv in mod.get_global_vars():
            func = mod[gv]
            if not isinstance(func, PrimFunc):
                continue
            attrs = dict(func.attrs) if func.attrs is not None else {}
            if attrs.get("tir.is_scheduled", False):
                continue
            sch = database.query_schedule(normalize_mod(func), target=target, workload_name="main")
            if sch is None:
                if self.enable_warning:
                    warnings.warn(f"MetaScheduleApplyDatabase: no tuning record for PrimFunc {gv.name_hint}",
                                  stacklevel=2)
                continue
            new_func = sch.mod["main"].without_attr("global_symbol")
            for key, value in attrs.items():
                new_func = new_func.with_attr(key, value)
            updates.append((gv, new_func.with_attr("tir.is_scheduled", True)))
        if not updates:
            return mod
        out = mod.copy()
        for gv, func in updates:
            out.update_func(gv, func)
        return out


@_ir_transform.module_pass(opt_level=0, name="MetaScheduleTuneTIR")
class MetaScheduleTuneTIR:
    """Tunes each PrimFunc of the module on its own with ``ms.tune_tir`` (``work_dir``,
    ``max_trials_global`` trials each; a PrimFunc structurally equal to one already
    tuned finds its records there) and returns the module unchanged."""

    def __init__(self, work_dir, max_trials_global):
        from ...meta_schedule.tune import check_trials  # pylint: disable=import-outside-toplevel
        check_trials(max_trials_global, 1, work_dir, "MetaScheduleTuneTIR")
        self.work_dir = work_dir
        self.max_trials_global = int(max_trials_global)

    def transform_module(self, mod, ctx):  # pylint: disable=unused-argument
        from ...meta_schedule import tune_tir  # pylint: disable=import-outside-toplevel
        from ...meta_schedule.tune_context import normalize_mod  # pylint: disable=import-outside-toplevel
        from ...tir import PrimFunc  # pylint: disable=import-outside-toplevel
        _check_module(mod, "MetaScheduleTuneTIR")
        target = _current_target("MetaScheduleTuneTIR")
        for gv in sorted(mod.get_global_vars(), key=lambda g: g.name_hint):
            func = mod[gv]
            if isinstance(func, PrimFunc) and not (func.attrs is not None and func.attrs.get("tir.is_scheduled")):
                tune_tir(normalize_mod(func), target, self.work_dir, self.max_trials_global,
                         num_trials_per_iter=min(64, self.max_trials_global), task_name=gv.name_hint)
        return mod


@_ir_transform.module_pass(opt_level=0, name="MetaScheduleTuneIRMod")
class MetaScheduleTuneIRMod:
    """Tunes the Relax model with ``ms.relax_integration.tune_relax`` (``params`` bound
    into "main", ``work_dir``, ``max_trials_global``, ``max_trials_per_task``) and
    returns the module unchanged; ``op_names`` (TVM's task filter) is not supported."""

    def __init__(self, params, work_dir, max_trials_global, max_trials_per_task=None, op_names=None):
        from ...meta_schedule.tune import check_trials  # pylint: disable=import-outside-toplevel
        if op_names is not None:
            raise OpNotImplemented("MetaScheduleTuneIRMod(op_names=...) is not supported; every task is tuned")
        check_trials(max_trials_global, 1, work_dir, "MetaScheduleTuneIRMod")
        self.params = params or {}
        self.work_dir = work_dir
        self.max_trials_global = int(max_trials_global)
        self.max_trials_per_task = max_trials_per_task

    def transform_module(self, mod, ctx):  # pylint: disable=unused-argument
        from ...meta_schedule.relax_integration import tune_relax  # pylint: disable=import-outside-toplevel
        _check_module(mod, "MetaScheduleTuneIRMod")
        target = _current_target("MetaScheduleTuneIRMod")
        tune_relax(mod, self.params, target, self.work_dir, self.max_trials_global,
                   max_trials_per_task=self.max_trials_per_task,
                   num_trials_per_iter=min(64, self.max_trials_global))
        return mod


__all__ = ["MetaScheduleApplyDatabase", "MetaScheduleTuneIRMod", "MetaScheduleTuneTIR"]
