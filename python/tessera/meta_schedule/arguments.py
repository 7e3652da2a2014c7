"""Argument checks of the tuning entry points (tune_tir, tune_relax, tune_tasks, the
MetaSchedule passes, TuneContext): each bad value is refused up front with TVMTypeError /
TVMValueError naming the parameter, and a tuning call made while a spawned worker
imports the main script says how to guard the script."""
import multiprocessing
import os

import numpy as np

from ..error import TVMError, TVMTypeError, TVMValueError
from .worker_pool import BOOTSTRAP_HINT

_SEED_MAX = 2**31 - 1  # seeds feed NumPy, the schedule's sampler and XGBoost (an unsigned 32-bit seed)


def check_int(who, name, value, low, high=None):
    """``value`` as an int, or TVMTypeError / TVMValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TVMTypeError(f"{who}({name}={value!r}): {name} must be an integer, got {type(value).__name__}")
    if value < low or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"between {low} and {high}"
        raise TVMValueError(f"{who}({name}={value}): {name} must be {bounds}")
    return int(value)


def check_trials(max_trials_global, num_trials_per_iter, work_dir, who, max_trials_per_task=None):
    check_int(who, "max_trials_global", max_trials_global, 1)
    check_int(who, "num_trials_per_iter", num_trials_per_iter, 1)
    if max_trials_per_task is not None:
        check_int(who, "max_trials_per_task", max_trials_per_task, 1)
    if work_dir is None:
        raise TVMValueError(f"{who} needs a work_dir")
    if not isinstance(work_dir, (str, os.PathLike)):
        raise TVMTypeError(f"{who}(work_dir={work_dir!r}): work_dir must be a path, got {type(work_dir).__name__}")


def check_seed(seed, who, name="seed"):
    """None or -1 (TVM's spelling): a random seed is drawn; else an int in [0, 2**31 - 1]."""
    if seed is None or (isinstance(seed, int) and not isinstance(seed, bool) and seed == -1):
        return
    check_int(who, name, seed, 0, _SEED_MAX)


def check_num_tuning_cores(num_tuning_cores, who, name="num_tuning_cores"):
    """"physical" (the machine's core count) or a positive count."""
    if isinstance(num_tuning_cores, str):
        if num_tuning_cores != "physical":
            raise TVMValueError(f"{who}({name}={num_tuning_cores!r}): expected 'physical' or a count")
        return
    check_int(who, name, num_tuning_cores, 1)


def refuse_spawn_bootstrap(who):
    """Tuning started while a spawned worker imports the main script (the script has no
    ``if __name__ == "__main__":`` guard): say so instead of starting workers recursively."""
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise TVMError(f"{who} was called while a tuning worker process was importing the main script; "
                       f"{BOOTSTRAP_HINT}")


__all__ = ["check_int", "check_trials", "check_seed", "check_num_tuning_cores", "refuse_spawn_bootstrap"]
