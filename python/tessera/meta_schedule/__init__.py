"""``tvm.meta_schedule``: automatic tuning of TensorIR programs and Relax models (MetaSchedule
names). tune_tir samples a design space (space_generator), builds and checks candidates in
worker processes (builder, runner), keeps every measurement in a database and searches
with an XGBoost cost model on C++ per-store features (search_strategy, cost_model,
feature_extractor); relax_integration extracts a model's tasks and tunes them together under a task scheduler (task_scheduler)."""
from . import arg_info, builder, cost_model, database, feature, feature_extractor, runner, search_strategy
from . import space_generator
from . import task_scheduler, tir_integration, relax_integration
from . import mutator, postproc
from .extracted_task import ExtractedTask
from .tune_context import TuneContext
from .tune import tune_tir
from .tir_integration import compile_tir
from .relax_integration import compile_relax, extract_tasks, tune_relax, tune_tasks

__all__ = ["ExtractedTask", "TuneContext", "arg_info", "builder", "compile_relax", "compile_tir", "cost_model",
           "database", "extract_tasks", "feature", "feature_extractor", "mutator", "postproc", "relax_integration",
           "runner", "search_strategy",
           "space_generator", "task_scheduler", "tir_integration", "tune_relax", "tune_tasks", "tune_tir"]
