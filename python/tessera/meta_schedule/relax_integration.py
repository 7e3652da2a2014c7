"""Tuning whole Relax models (``tvm.meta_schedule.relax_integration``): extract_tasks finds
the distinct PrimFuncs a model calls with call_tir (after LegalizeOps), deduplicated by
structural equality and weighted by call sites; tune_relax tunes them together under one
trial budget with a task scheduler; compile_relax builds the model with the best
schedules of a database (relax.transform.MetaScheduleApplyDatabase + relax.build)."""
import time
import warnings

import numpy as np

from .. import ir as _ir
from .. import target as _target
from ..relax.expr import Function as RelaxFunction
from ..relax.expr_functor import PyExprVisitor, visitor
from ..tir import PrimFunc
from . import task_scheduler as _task_scheduler
from .arg_info import ArgInfo
from .extracted_task import ExtractedTask
from .arguments import (check_confirm_top_k, check_max_time, check_num_tuning_cores, check_seed, check_trials,
                        check_tunable_target, refuse_spawn_bootstrap)
from .tune import make_builder_runner, make_database
from .tune_context import TuneContext, normalize_mod
from ..error import OpNotImplemented, TVMTypeError, TVMValueError


def _as_relax_module(mod, who):
    from ..relax.expr import Function
    if isinstance(mod, Function):
        mod = _ir.IRModule({"main": mod})
    if not isinstance(mod, _ir.IRModule):
        raise TVMTypeError(f"{who}: mod must be a Relax IRModule or relax.Function, got {type(mod).__name__}")
    if not any(isinstance(f, Function) for _, f in mod.functions.items()):
        raise TVMTypeError(f"{who}: the module has no Relax function (PrimFuncs only); tune a TIR module with "
                           "ms.tune_tir")
    return mod


def _as_target(target, who):
    if isinstance(target, _target.Target):
        return target
    if not isinstance(target, (str, dict)):
        raise TVMTypeError(f"{who}: target must be a Target or a target string, got {type(target).__name__}")
    return _target.Target(target)


def _bind_and_legalize(mod, params, target):
    """``params`` bound, then what relax.build's default pipeline does before fusing
    (FoldBatchnormToConv2d, LegalizeOps) in relax.build's scope for ``target``, so the
    PrimFuncs tuned and replaced are the ones relax.build makes (its layout choices, e.g.
    packed matmul weights on a CPU); an already fused module is left as it is."""
    from ..relax.transform import BindParams, FoldBatchnormToConv2d, LegalizeOps
    from ..relax.vm_build import build_scope
    if params:
        mod = BindParams("main", params)(mod)
    with build_scope(target):
        return LegalizeOps()(FoldBatchnormToConv2d()(mod))


def fuse_as_built(mod, target, params=None):
    """The Relax model ``mod`` fused as relax.build's default pipeline fuses it for
    ``target`` (``params`` bound, FoldBatchnormToConv2d, then the "zero" pipeline:
    LegalizeOps ... FuseOps, FuseTIR, in relax.build's scope), before the default
    schedules: tuning it and building it with compile_relax starts from exactly the
    PrimFuncs relax.build makes by default."""
    from ..relax.pipeline import zero_pipeline
    from ..relax.vm_build import build_scope
    target = _as_target(target, "fuse_as_built")
    mod = _bind_and_legalize(_as_relax_module(mod, "fuse_as_built"), params, target)
    with build_scope(target):
        return zero_pipeline()(mod)


@visitor
class _CallTIRCollector(PyExprVisitor):
    """The first argument (the callee) of every relax.call_tir visited, in order."""

    def __init__(self):
        self.call_tir = _ir.Op.get("relax.call_tir")
        self.callees = []

    def visit_call_(self, call):
        if isinstance(call.op, _ir.Op) and call.op.same_as(self.call_tir):
            self.callees.append(call.args[0])
        else:
            super().visit_call_(call)


def call_tir_callees(mod):
    """The GlobalVar of every call_tir site in the Relax functions of ``mod`` (one entry
    per site, in function-name then binding order; nested functions and If branches
    included)."""
    collector = _CallTIRCollector()
    for gv in sorted(mod.get_global_vars(), key=lambda g: g.name_hint):
        func = mod[gv]
        if isinstance(func, RelaxFunction):
            collector.visit_expr(func.body)
    return collector.callees


def extract_tasks(mod, target, params=None, module_equality="structural"):
    """The tuning tasks of a Relax model: one ExtractedTask per distinct PrimFunc called
    by call_tir in ``mod`` (a Relax IRModule or function; ``params`` are bound into
    "main" first and high-level ops legalized with LegalizeOps). PrimFuncs equal up to
    their name (structural equality of the normalized task module) share a task whose
    weight is the number of call sites calling any of them; task_name is the first one's
    name. Order: first call site first."""
    if module_equality != "structural":
        raise OpNotImplemented(f"extract_tasks(module_equality={module_equality!r}): only 'structural' is "
                                  "supported")
    mod = _as_relax_module(mod, "extract_tasks")
    target = _as_target(target, "extract_tasks")
    mod = _bind_and_legalize(mod, params, target)
    groups, by_hash, group_of = [], {}, {}   # groups: [task_name, task_mod, weight]
    for gv in call_tir_callees(mod):
        if not isinstance(gv, _ir.GlobalVar):
            raise TVMTypeError(f"extract_tasks: a call_tir calls {type(gv).__name__}, expected a GlobalVar")
        name = gv.name_hint
        if name not in group_of:
            func = mod[gv]
            if not isinstance(func, PrimFunc):
                raise TVMTypeError(f"extract_tasks: call_tir calls '{name}', which is not a PrimFunc")
            task_mod = normalize_mod(func)
            shash = int(_ir.structural_hash(task_mod))
            group = next((g for g in by_hash.get(shash, []) if _ir.structural_equal(g[1], task_mod)), None)
            if group is None:
                group = [name, task_mod, 0]
                by_hash.setdefault(shash, []).append(group)
                groups.append(group)
            group_of[name] = group
        group_of[name][2] += 1
    return [ExtractedTask(name, task_mod, target, [task_mod], weight) for name, task_mod, weight in groups]


def extracted_tasks_to_tune_contexts(extracted_tasks, work_dir, space="post-order-apply", strategy="evolutionary",
                                     num_threads="physical", seed=None):
    """TuneContexts and weights of ``extracted_tasks``; tasks already scheduled
    ("tir.is_scheduled") are skipped with a warning; task seeds are drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    contexts, weights = [], []
    for task in extracted_tasks:
        task_seed = int(rng.integers(1, 2**31 - 1)) if seed is not None else -1
        if task.mod["main"].attrs is not None and task.mod["main"].attrs.get("tir.is_scheduled", False):
            warnings.warn(f"The task {task.task_name} is already scheduled (tir.is_scheduled); skipping it.",
                          stacklevel=2)
            continue
        contexts.append(TuneContext(task.dispatched[0], task.target, space, strategy, task.task_name, task_seed,
                                    num_threads))
        weights.append(float(task.weight))
    return contexts, weights


def tune_relax(mod, params, target, work_dir, max_trials_global, *, max_trials_per_task=None,
               num_trials_per_iter=64, builder="local", runner="local", database="json", cost_model="xgb",
               task_scheduler="gradient", space="post-order-apply", strategy="evolutionary", seed=None,
               num_tuning_cores="physical", max_time_s=None, confirm_top_k=3):
    """Tunes every task of the Relax model ``mod`` (see extract_tasks) for ``target``
    with ``max_trials_global`` trials in all, at most ``max_trials_per_task`` (default:
    the global budget) per task and ``num_trials_per_iter`` per round; the task
    scheduler ("gradient" -- TVM's default --, "round-robin" or a TaskScheduler) picks
    the task of each round. Returns the database (a JSONDatabase in ``work_dir`` unless
    given); rerunning with the same work_dir resumes. ``seed`` fixes every random choice.
    ``max_time_s``: a wall-clock budget in seconds from the call's start (extraction
    included): no round starts after it, the run stops between rounds with every record
    committed, and a rerun with the same work_dir continues. ``confirm_top_k`` (Tessera):
    at the end, each task whose best record is not its default schedule has the default
    and this many of its fastest candidates timed again side by side; the confirmed
    fastest becomes its best record (0: off; see confirm.py)."""
    refuse_spawn_bootstrap("tune_relax")
    confirm_top_k = check_confirm_top_k(confirm_top_k, "tune_relax")
    check_trials(max_trials_global, num_trials_per_iter, work_dir, "tune_relax", max_trials_per_task)
    check_seed(seed, "tune_relax")
    check_num_tuning_cores(num_tuning_cores, "tune_relax")
    max_time_s = check_max_time(max_time_s, "tune_relax")
    start = time.time()
    if max_trials_per_task is None:
        max_trials_per_task = max_trials_global
    target = _as_target(target, "tune_relax")
    check_tunable_target(target, runner, "tune_relax")
    scheduler = _task_scheduler.create(task_scheduler, seed)
    tasks = extract_tasks(mod, target, params)
    contexts, weights = [], []
    for ctx, w in zip(*extracted_tasks_to_tune_contexts(tasks, work_dir, space, strategy, num_tuning_cores, seed)):
        try:
            ArgInfo.from_prim_func(ctx.mod["main"])
        except ValueError as err:
            warnings.warn(f"tune_relax: task {ctx.task_name} cannot be tuned and keeps its default schedule: {err}",
                          stacklevel=2)
            continue
        contexts.append(ctx)
        weights.append(w)
    if not contexts:
        warnings.warn("tune_relax: the model has no tunable call_tir PrimFunc", stacklevel=2)
        return make_database(database, work_dir, "tune_relax")
    return tune_tasks(tasks=contexts, task_weights=weights, work_dir=work_dir, max_trials_global=max_trials_global,
                      max_trials_per_task=max_trials_per_task, num_trials_per_iter=num_trials_per_iter,
                      builder=builder, runner=runner, database=database, cost_model=cost_model,
                      task_scheduler=scheduler, max_time_s=max_time_s, _start=start, confirm_top_k=confirm_top_k)


def tune_tasks(*, tasks, task_weights, work_dir, max_trials_global, max_trials_per_task=None,
               num_trials_per_iter=64, builder="local", runner="local", database="json", cost_model="xgb",
               measure_callbacks="default", task_scheduler="gradient", module_equality="structural",
               post_optimization=False, max_time_s=None, _start=None, confirm_top_k=3):
    """``ms.tune_tasks`` (``tvm.meta_schedule.tune_tasks``): tunes the TuneContexts ``tasks``
    with ``task_weights`` under one budget with ``task_scheduler`` and returns the
    database. ``measure_callbacks`` other than "default", ``module_equality`` other than
    "structural" and ``post_optimization`` are refused. ``max_time_s``: wall-clock budget
    and ``confirm_top_k`` (Tessera; see tune_relax)."""
    if measure_callbacks != "default":
        raise OpNotImplemented("tune_tasks(measure_callbacks=...) is not supported: records are committed "
                                  "and the cost model updated by the loop itself")
    if module_equality != "structural":
        raise OpNotImplemented(f"tune_tasks(module_equality={module_equality!r}): only 'structural' is "
                                  "supported")
    if post_optimization:
        raise OpNotImplemented("tune_tasks(post_optimization=True) is not supported")
    refuse_spawn_bootstrap("tune_tasks")
    confirm_top_k = check_confirm_top_k(confirm_top_k, "tune_tasks")
    check_trials(max_trials_global, num_trials_per_iter, work_dir, "tune_tasks", max_trials_per_task)
    if max_trials_per_task is None:
        max_trials_per_task = max_trials_global
    tasks = list(tasks)
    if not tasks:
        raise TVMValueError("tune_tasks: no tasks given")
    for ctx in tasks:
        if not isinstance(ctx, TuneContext):
            raise TVMTypeError(f"tune_tasks: tasks must be TuneContexts, got {type(ctx).__name__}")
        if ctx.target is None:
            raise TVMValueError(f"tune_tasks: task {ctx.task_name} has no target")
        check_tunable_target(ctx.target, runner, f"tune_tasks (task {ctx.task_name})")
    scheduler = _task_scheduler.create(task_scheduler)
    database = make_database(database, work_dir, "tune_tasks")
    builder, runner, own_builder, own_runner = make_builder_runner(builder, runner, tasks[0].num_threads, work_dir,
                                                                   "tune_tasks")
    try:
        return scheduler.tune(tasks, list(task_weights), int(max_trials_global), int(max_trials_per_task),
                              int(num_trials_per_iter), builder, runner, database, cost_model, work_dir,
                              max_time_s=check_max_time(max_time_s, "tune_tasks"), start=_start,
                              confirm_top_k=confirm_top_k)
    finally:
        if own_builder:
            builder.close()
        if own_runner:
            runner.close()


def compile_relax(database, mod, target, params=None, enable_warning=False):
    """Builds the Relax model ``mod`` (``params`` bound into "main", high-level ops
    legalized) with each PrimFunc replaced by its best schedule in ``database``
    (MetaScheduleApplyDatabase); functions without a record keep their schedule.
    Returns the relax.Executable."""
    from ..relax import build as relax_build
    from ..relax.transform import MetaScheduleApplyDatabase
    from .database import Database
    if not isinstance(database, Database):
        raise TVMTypeError(f"compile_relax expects a meta_schedule Database, got {type(database).__name__}")
    mod = _as_relax_module(mod, "compile_relax")
    target = _as_target(target, "compile_relax")
    mod = _bind_and_legalize(mod, params, target)
    with target, database:
        mod = MetaScheduleApplyDatabase(enable_warning=enable_warning)(mod)
    return relax_build(mod, target=target)


__all__ = ["compile_relax", "extract_tasks", "fuse_as_built", "extracted_tasks_to_tune_contexts", "tune_relax", "tune_tasks"]
