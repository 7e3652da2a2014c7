"""Design spaces (``tvm.meta_schedule.space_generator``): where candidates come from.
ScheduleFn wraps a user's stochastic schedule function; PostOrderApply (the default)
applies Tessera's CPU schedule rules (schedule_rule.py) to every block. Each sample runs
the function on a fresh Schedule with a new seed, so its trace records the decisions."""
from ..tir.schedule import Schedule


def _check_postprocs(postprocs, who):
    """"default"/None -> "default" (resolved per target by the TuneContext), else a list
    of ms.postproc.Postproc."""
    from .postproc import Postproc
    if postprocs is None or (isinstance(postprocs, str) and postprocs == "default"):
        return "default"
    if not isinstance(postprocs, (list, tuple)) or not all(isinstance(p, Postproc) for p in postprocs):
        raise TypeError(f"{who}(postprocs=...) expects 'default' or a list of ms.postproc.Postproc, got {postprocs!r}")
    return list(postprocs)


def _check_mutator_probs(mutator_probs, who):
    """"default"/None -> "default" (TVM's llvm table), else a {Mutator: probability} dict."""
    from .mutator import Mutator
    if mutator_probs is None or (isinstance(mutator_probs, str) and mutator_probs == "default"):
        return "default"
    if not isinstance(mutator_probs, dict):
        raise TypeError(f"{who}(mutator_probs=...) expects 'default' or a dict {{Mutator: probability}}, "
                        f"got {type(mutator_probs).__name__}")
    for m, p in mutator_probs.items():
        if not isinstance(m, Mutator):
            raise TypeError(f"{who}(mutator_probs=...): keys must be ms.mutator.Mutator objects, got {m!r}")
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not p >= 0 or p == float("inf"):
            raise ValueError(f"{who}(mutator_probs=...): the probability of {m} must be a finite number >= 0, "
                             f"got {p!r}")
    return dict(mutator_probs)


class SpaceGenerator:
    """``sample(mod, seed, ctx)`` -> a Schedule drawn from the space. ``postprocs`` and
    ``mutator_probs`` ("default" or explicit) are read by the TuneContext."""

    postprocs = "default"
    mutator_probs = "default"

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
        if sch_rules not in (None, "default", []):
            raise NotImplementedError("ScheduleFn(sch_rules=...) is not supported: the function is the space")
        self.postprocs = _check_postprocs(postprocs, "ScheduleFn")
        self.mutator_probs = _check_mutator_probs(mutator_probs, "ScheduleFn")
        self.sch_fn = sch_fn

    def sample(self, mod, seed, ctx=None):
        schs = _as_schedules(self.sch_fn(Schedule(mod, seed=seed)), None, "the ScheduleFn function")
        if len(schs) == 1:
            return schs[0]
        return schs[seed % len(schs)]


class PostOrderApply(SpaceGenerator):
    """Applies the default CPU schedule rules to each block, consumers before producers
    (see schedule_rule.py for what the rules are). ``sch_rules`` other than "default"
    are refused; ``postprocs`` and ``mutator_probs`` as TVM's."""

    def __init__(self, f_block_filter=None, sch_rules="default", postprocs="default", mutator_probs="default"):
        if sch_rules != "default":
            raise NotImplementedError(f"PostOrderApply(sch_rules={sch_rules!r}) is not supported; only the "
                                      "default CPU rules exist")
        self.postprocs = _check_postprocs(postprocs, "PostOrderApply")
        self.mutator_probs = _check_mutator_probs(mutator_probs, "PostOrderApply")
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
