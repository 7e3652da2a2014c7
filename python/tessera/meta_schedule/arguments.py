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


def check_max_time(max_time_s, who):
    """None (no wall-clock budget) or a positive number of seconds."""
    if max_time_s is None:
        return None
    if isinstance(max_time_s, bool) or not isinstance(max_time_s, (int, float)):
        raise TVMTypeError(f"{who}(max_time_s={max_time_s!r}): expected None or a number of seconds")
    if not max_time_s > 0:
        raise TVMValueError(f"{who}(max_time_s={max_time_s!r}): must be positive")
    return float(max_time_s)


def check_confirm_top_k(top_k, who):
    """How many tuned candidates the final confirmation re-measures: an int >= 0 (0: off)."""
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        raise TVMTypeError(f"{who}(confirm_top_k={top_k!r}): expected a non-negative int (0 turns it off)")
    if top_k < 0:
        raise TVMValueError(f"{who}(confirm_top_k={top_k}): must be at least 0 (0 turns it off)")
    return top_k


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


def device_type_name(target):
    """The runner's device for ``target`` (a Target): "cpu", or the kind's device name ("cuda")."""
    dev_type = target.kind.device_type
    return "cpu" if dev_type == 1 else {2: "cuda"}.get(dev_type, target.kind.name)


def check_tunable_target(target, runner, who):
    """The target's kind has default tuning rules, and, when the candidates are measured
    here (``runner`` "local"), a device of the target's kind exists: a CUDA target on a
    machine without a GPU fails up front ("no CUDA device to measure on") instead of
    failing every trial. A Runner object of the caller's own measures elsewhere (or not
    at all) and needs no device here."""
    from ..target import kind_family  # pylint: disable=import-outside-toplevel
    if target.kind.get_attr("meta_schedule.default_rules") is None:
        _, known = kind_family(target.kind.name, "meta_schedule.default_rules")
        raise TVMValueError(f"{who}: target {target} is not supported; the target kinds with default tuning "
                            f"rules are {', '.join(known)}")
    if isinstance(runner, str) and runner == "local" and target.kind.device_type != 1:
        from ..runtime.device import Device  # pylint: disable=import-outside-toplevel
        name = device_type_name(target)
        if not Device(target.kind.device_type, 0).exist:
            raise TVMError(f"{who}: no {name.upper()} device to measure on (target {target}): {name}(0) does not "
                           f"exist on this machine; tune on a machine with one, or pass runner= a Runner of "
                           f"your own")


__all__ = ["check_confirm_top_k", "check_int", "check_trials", "check_max_time", "check_seed", "check_num_tuning_cores",
           "refuse_spawn_bootstrap", "check_tunable_target", "device_type_name"]
