"""Mutator classes over the C++ mutators (``meta_schedule.Mutator*`` FFI entries):
``apply(trace)`` returns a mutated Trace or None, ``Mutator.create("llvm")`` TVM's
default table {mutator: probability} for a target kind."""
from ..._ffi.registry import get_global_func, register_object
from ...ir.base import Node
from ...tir.schedule import Trace
from ...error import OpNotImplemented, TVMTypeError, TVMValueError


def _f(name):
    return get_global_func("meta_schedule." + name)


def _num_cores(context):
    return int(getattr(context, "num_cores", 1) or 1)


@register_object("meta_schedule.Mutator")
class Mutator(Node):
    """A mutator: ``apply(trace, rand_state=-1)`` -> a mutated Trace or None (nothing to
    mutate). Initialize it with the task first (``_initialize_with_tune_context``)."""

    def _initialize_with_tune_context(self, context):
        if context.mod is None:
            raise TVMValueError(f"{type(self).__name__}: the TuneContext has no module")
        _f("MutatorInitializeWithTuneContext")(self, context.mod, _num_cores(context))

    def apply(self, trace, rand_state=-1):
        if not isinstance(trace, Trace):
            raise TVMTypeError(f"{type(self).__name__}.apply expects a tir.schedule.Trace, got {type(trace).__name__}")
        return _f("MutatorApply")(self, trace, int(rand_state))

    def apply_with_state(self, trace, state):
        """(mutated trace or None, the advanced state): draws a reproducible sequence."""
        out, state = _f("MutatorApplyWithState")(self, trace, int(state))
        return out, int(state)

    def clone(self):
        """A copy with the same settings, not bound to a task."""
        return _f("MutatorClone")(self)

    def __str__(self):
        return _f("MutatorName")(self)

    __repr__ = __str__

    @staticmethod
    def create(kind="llvm"):
        """TVM's default mutators with their probabilities for a target kind."""
        return default_probs(kind)


@register_object("meta_schedule.MutateTileSize")
class MutateTileSize(Mutator):
    """Moves a divisor between two tiles of a SamplePerfectTile decision."""

    def __init__(self):
        self.__init_handle_by_constructor__(_f("MutatorMutateTileSize"))


@register_object("meta_schedule.MutateParallel")
class MutateParallel(Mutator):
    """Changes the ``meta_schedule.parallel`` annotation's value (at most
    ``max_jobs_per_core`` times the target's cores)."""

    def __init__(self, max_jobs_per_core):
        if isinstance(max_jobs_per_core, bool) or not isinstance(max_jobs_per_core, int):
            raise TVMTypeError(f"MutateParallel(max_jobs_per_core=...) expects an int, got {max_jobs_per_core!r}")
        self.__init_handle_by_constructor__(_f("MutatorMutateParallel"), max_jobs_per_core)


@register_object("meta_schedule.MutateUnroll")
class MutateUnroll(Mutator):
    """Re-picks the sampled unroll depth (``meta_schedule.unroll_explicit/implicit``)."""

    def __init__(self):
        self.__init_handle_by_constructor__(_f("MutatorMutateUnroll"))


@register_object("meta_schedule.MutateThreadBinding")
class MutateThreadBinding(Mutator):
    """Re-picks the sampled thread count of a loop bound to threadIdx.x (AutoBind's)."""

    def __init__(self):
        self.__init_handle_by_constructor__(_f("MutatorMutateThreadBinding"))


@register_object("meta_schedule.MutateComputeLocation")
class MutateComputeLocation(Mutator):
    """Re-picks a SampleComputeLocation decision among the legal locations."""

    def __init__(self):
        self.__init_handle_by_constructor__(_f("MutatorMutateComputeLocation"))


def default_probs(kind="llvm"):
    """TVM v0.18's default mutator probabilities for the target kind ``kind``: the
    table its kind attribute "meta_schedule.mutator_probs" names ("cpu" for llvm and c;
    "gpu" for cuda: MutateTileSize 0.9, MutateUnroll 0.08, MutateThreadBinding 0.02)."""
    from ...target import kind_family  # pylint: disable=import-outside-toplevel
    family, known = ("gpu", None) if kind == "cuda-tensorcore" else kind_family(kind, "meta_schedule.mutator_probs")
    if family == "gpu":
        return {MutateTileSize(): 0.9, MutateUnroll(): 0.08, MutateThreadBinding(): 0.02}
    if family != "cpu":
        raise OpNotImplemented(f"Mutator.create({kind!r}): only the CPU kinds ({', '.join(known)}) have a "
                               "default mutator table in Tessera")
    return {
        MutateTileSize(): 0.9,
        MutateComputeLocation(): 0.05,
        MutateUnroll(): 0.03,
        MutateParallel(max_jobs_per_core=16): 0.02,
    }

