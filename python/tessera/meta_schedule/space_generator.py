"""Design spaces (``tvm.meta_schedule.space_generator``): where candidates come from.
ScheduleFn wraps a user's stochastic schedule function; PostOrderApply (the default)
applies Tessera's CPU schedule rules (schedule_rule.py) to every block. Each sample runs
the function on a fresh Schedule with a new seed, so its trace records the decisions."""
from ..tir.schedule import Schedule


class SpaceGenerator:
    """``sample(mod, seed, ctx)`` -> a Schedule drawn from the space."""

    def sample(self, mod, seed, ctx=None):
        raise NotImplementedError

    def generate_design_space(self, mod, seed=0, ctx=None):
        return [self.sample(mod, seed, ctx)]


def _as_schedules(result, sch, who):
    if result is None:
        return [sch]
    if isinstance(result, Schedule):
        return [result]
    if isinstance(result, (list, tuple)) and result and all(isinstance(s, Schedule) for s in result):
        return list(result)
    raise TypeError(f"{who} must return a tir.Schedule, a list of them or None; got {type(result).__name__}")


class ScheduleFn(SpaceGenerator):
    """The space of ``sch_fn(sch)``'s results (it returns the Schedule, a list of
    Schedules, or None after editing ``sch`` in place)."""

    def __init__(self, sch_fn, sch_rules=None, postprocs=None, mutator_probs=None):
        if not callable(sch_fn):
            raise TypeError(f"ScheduleFn expects a callable, got {type(sch_fn).__name__}")
        for name, value in (("sch_rules", sch_rules), ("postprocs", postprocs), ("mutator_probs", mutator_probs)):
            if value not in (None, "default", [], {}):
                raise NotImplementedError(f"ScheduleFn({name}=...) is not supported; Tessera's ScheduleFn "
                                          "has no separate rules, postprocessors or mutator table")
        self.sch_fn = sch_fn

    def sample(self, mod, seed, ctx=None):
        schs = _as_schedules(self.sch_fn(Schedule(mod, seed=seed)), None, "the ScheduleFn function")
        if len(schs) == 1:
            return schs[0]
        return schs[seed % len(schs)]


class PostOrderApply(SpaceGenerator):
    """Applies the default CPU schedule rules to each block, consumers before producers
    (see schedule_rule.py for what the rules are). ``sch_rules``, ``postprocs`` and
    ``mutator_probs`` other than "default" are refused."""

    def __init__(self, f_block_filter=None, sch_rules="default", postprocs="default", mutator_probs="default"):
        for name, value in (("sch_rules", sch_rules), ("postprocs", postprocs), ("mutator_probs", mutator_probs)):
            if value != "default":
                raise NotImplementedError(f"PostOrderApply({name}={value!r}) is not supported; only the "
                                          "default CPU rules exist")
        if f_block_filter is not None and not callable(f_block_filter):
            raise TypeError("PostOrderApply(f_block_filter=...) must be callable")
        self.f_block_filter = f_block_filter

    def sample(self, mod, seed, ctx=None):
        from .schedule_rule import apply_default_cpu_rules
        sch = Schedule(mod, seed=seed)
        num_cores = 1 if ctx is None else ctx.num_cores
        apply_default_cpu_rules(sch, num_cores=num_cores, f_block_filter=self.f_block_filter)
        return sch


def create(space="post-order-apply"):
    """A SpaceGenerator from ``space``: one, a callable (wrapped in ScheduleFn) or
    "post-order-apply"."""
    if isinstance(space, SpaceGenerator):
        return space
    if space == "post-order-apply":
        return PostOrderApply()
    if callable(space):
        return ScheduleFn(space)
    raise ValueError(f"space={space!r}: expected a SpaceGenerator, a schedule function or 'post-order-apply'")


__all__ = ["PostOrderApply", "ScheduleFn", "SpaceGenerator", "create"]
