"""``tvm.meta_schedule``: automatic tuning of TensorIR programs (MetaSchedule names).
tune_tir samples a design space (space_generator), builds and checks candidates in worker
processes (builder, runner), keeps every measurement in a database and searches with an
XGBoost cost model (search_strategy, cost_model, feature). Relax integration is not here yet."""
from . import arg_info, builder, cost_model, database, feature, runner, search_strategy, space_generator
from . import tir_integration
from .tune_context import TuneContext
from .tune import tune_tir
from .tir_integration import compile_tir

__all__ = ["TuneContext", "arg_info", "builder", "compile_tir", "cost_model", "database", "feature", "runner",
           "search_strategy", "space_generator", "tir_integration", "tune_tir"]
