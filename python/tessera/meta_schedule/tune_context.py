"""TuneContext (``tvm.meta_schedule.TuneContext``): one tuning task's module, target,
design space (with its postprocessors and mutator table), strategy name, random state and
the set of modules already measured."""
import os

import numpy as np

from .. import ir as _ir
from .. import target as _target
from ..tir import PrimFunc
from . import space_generator as _space
from .arguments import check_num_tuning_cores, check_seed
from ..error import OpNotImplemented, TVMTypeError, TVMValueError


def normalize_mod(mod):
    """An IRModule with the task's PrimFunc as "main" (a PrimFunc is wrapped)."""
    if isinstance(mod, PrimFunc):
        mod = _ir.IRModule({"main": mod.with_attr("global_symbol", "main")})
    if not isinstance(mod, _ir.IRModule):
        raise TVMTypeError(f"mod must be an IRModule or a PrimFunc, got {type(mod).__name__}")
    names = [gv.name_hint for gv in mod.get_global_vars()]
    if "main" not in names:
        if len(names) != 1:
            raise TVMValueError(f"the module to tune has functions {names} and none is named 'main'")
        mod = _ir.IRModule({"main": mod[names[0]].with_attr("global_symbol", "main")})
    if not isinstance(mod["main"], PrimFunc):
        raise TVMTypeError("the function 'main' of the module to tune must be a PrimFunc "
                           "(Relax models are tuned with relax_integration)")
    return mod


class TuneContext:
    """``mod`` (IRModule with "main"), ``target``, ``space_generator`` (a SpaceGenerator,
    a schedule function or "post-order-apply"), ``search_strategy`` (its name),
    ``task_name``, ``rand_state`` (seed; -1 or None draws one), ``num_threads``."""

    def __init__(self, mod=None, target=None, space_generator="post-order-apply", search_strategy="evolutionary",
                 task_name="main", rand_state=-1, num_threads="physical", logger=None):
        if logger is not None:
            raise OpNotImplemented("TuneContext(logger=...) is not supported; progress goes to stdout")
        self.mod = None if mod is None else normalize_mod(mod)
        self.target = None if target is None else _target.Target(target) if isinstance(target, str) else target
        self.space_generator = _space.create(space_generator)
        # As TVM's: the space's rules and postprocessors read the target (cores, vector width).
        # A target kind without default rules (cuda) can still hold a context (e.g. for
        # feature extraction); sampling from its space then raises the rules' error.
        try:
            self.space_generator._initialize_with_tune_context(self)
        except ValueError:
            if self.target is None or self.target.kind.get_attr("meta_schedule.default_rules") is not None:
                raise
        self.search_strategy = search_strategy
        self.task_name = task_name
        check_seed(rand_state, "TuneContext", "rand_state")
        if rand_state is None or rand_state == -1:
            rand_state = int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF
        self.rand_state = int(rand_state)
        self.rng = np.random.default_rng(self.rand_state)
        check_num_tuning_cores(num_threads, "TuneContext", "num_threads")
        if num_threads == "physical":
            num_threads = os.cpu_count() or 1
        self.num_threads = int(num_threads)
        self.measured = set()
        self.sample_errors = []     # the first 20 messages
        self.num_sample_errors = 0  # all of them

    @property
    def num_cores(self):
        if self.target is not None:
            cores = self.target.attrs.get("num-cores") if hasattr(self.target, "attrs") else None
            if cores is not None:
                return int(cores)
        return self.num_threads

    @property
    def mutator_probs(self):
        """The space generator's {Mutator: probability} table ("from-target": the target kind's)."""
        from .mutator import default_probs
        probs = self.space_generator.mutator_probs
        if not isinstance(probs, str):
            return probs
        return default_probs(self.target.kind.name if self.target is not None else "llvm")

    @property
    def postprocs(self):
        """The space generator's postprocessors (initialized with this context's target)."""
        return list(self.space_generator.postprocs)

    def postprocess(self, sch):
        """Runs the space's postprocessors on a candidate: False when one rejects it."""
        return self.space_generator.apply_postprocs(sch)

    def note_sample_error(self, err):
        self.num_sample_errors += 1
        if len(self.sample_errors) < 20:
            self.sample_errors.append(f"{type(err).__name__}: {err}")

    def generate_design_space(self):
        return self.space_generator.generate_design_space(self.mod, self.rand_state, self)


__all__ = ["TuneContext", "normalize_mod"]
