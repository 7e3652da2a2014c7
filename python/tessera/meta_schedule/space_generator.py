"""Design spaces (``tvm.meta_schedule.space_generator``): where candidates come from.
ScheduleFn wraps a user's stochastic schedule function; PostOrderApply (the default)
applies schedule rules (C++, ``ms.schedule_rule``; by default
``ScheduleRule.create("llvm")``) to every block, consumers first, as TVM's.

``generate_design_space(mod)`` returns the design spaces (one schedule per branch the
rules took); ``sample(mod, seed, ctx)`` draws one candidate: a design space picked with
``seed``, its trace replayed with every sampling decision drawn anew. The space's
postprocessors (``ms.postproc``; by default ``Postproc.create("llvm")`` for
PostOrderApply, none for ScheduleFn unless given) run on every candidate before it is
measured (``apply_postprocs``); one that fails discards the candidate."""
import random

from .. import ir as _ir
from ..error import TVMError, OpNotImplemented, TVMTypeError, TVMValueError
from ..tir.schedule import Schedule, Trace
from . import _ffi_api
from .postproc.postproc import Postproc
from .schedule_rule.schedule_rule import ScheduleRule, _target_of

_FROM_TARGET = ("from-target", "default")


class _Named(str):
    """sch_rules / postprocs given as a kind's name ("cuda", "cuda-tensorcore"): create(name) at initialization."""


def _check_list(value, name, base, method):
    if value in _FROM_TARGET or value is None:
        return value
    if isinstance(value, str):  # a kind's defaults by name, e.g. "cuda-tensorcore" (resolved with the target)
        return _Named(value)
    if not isinstance(value, (list, tuple)):
        raise TVMTypeError(f"{name} must be a list or \"from-target\", got {type(value).__name__}")
    for item in value:
        if not isinstance(item, base) and not callable(getattr(item, method, None)):
            raise TVMTypeError(f"{name}: {item!r} is not a {base.__name__} (nor has an {method}() method)")
    return list(value)


def _check_mutator_probs(mutator_probs, who):
    """"from-target"/"default"/None -> "from-target" (TVM's llvm table), else a {Mutator: probability} dict."""
    from .mutator import Mutator
    if mutator_probs is None or (isinstance(mutator_probs, str) and mutator_probs in _FROM_TARGET):
        return "from-target"
    if isinstance(mutator_probs, str):  # a kind's table by name, e.g. "cuda-tensorcore"
        from .mutator.mutator import default_probs  # pylint: disable=import-outside-toplevel
        return default_probs(mutator_probs)
    if not isinstance(mutator_probs, dict):
        raise TVMTypeError(f"{who}(mutator_probs=...) expects 'default' or a dict {{Mutator: probability}}, "
                           f"got {type(mutator_probs).__name__}")
    for m, p in mutator_probs.items():
        if not isinstance(m, Mutator):
            raise TVMTypeError(f"{who}(mutator_probs=...): keys must be ms.mutator.Mutator objects, got {m!r}")
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not p >= 0 or p == float("inf"):
            raise TVMValueError(f"{who}(mutator_probs=...): the probability of {m} must be a finite number >= 0, "
                                f"got {p!r}")
    return dict(mutator_probs)


class SpaceGenerator:
    """``sample(mod, seed, ctx)`` -> a Schedule drawn from the space (before
    postprocessing); ``apply_postprocs(sch)`` -> whether the candidate is valid."""

    postprocs = ()
    _postprocs_arg = None

    def _initialize_with_tune_context(self, context):
        """Resolves "from-target" postprocessors and initializes them with the context's target."""
        arg = self._postprocs_arg
        if arg in _FROM_TARGET:
            self.postprocs = Postproc.create(_target_of(context).kind.name)
        elif isinstance(arg, _Named):
            self.postprocs = Postproc.create(str(arg))
        else:
            self.postprocs = list(arg or [])
        for p in self.postprocs:
            init = getattr(p, "_initialize_with_tune_context", None)
            if init is not None:
                init(context)
    mutator_probs = "from-target"

    def sample(self, mod, seed, ctx=None):
        raise OpNotImplemented

    def generate_design_space(self, mod, seed=0, ctx=None):
        return [self.sample(mod, seed, ctx)]

    def apply_postprocs(self, sch):
        """Runs the postprocessors on ``sch`` (after an ``enter_postproc`` marker in its
        trace); False when one refuses the candidate or raises a TVMError."""
        if not self.postprocs:
            return True
        sch.enter_postproc()
        self.last_rejection = None
        for p in self.postprocs:
            try:
                if not p.apply(sch):
                    self.last_rejection = type(p).__name__
                    return False
            except TVMError as err:
                self.last_rejection = f"{type(p).__name__} ({type(err).__name__}: {str(err).splitlines()[0]})"
                return False
        return True


def _as_schedules(result, sch, who):
    if result is None:
        return [sch]
    if isinstance(result, Schedule):
        return [result]
    if isinstance(result, (list, tuple)) and result and all(isinstance(s, Schedule) for s in result):
        return list(result)
    raise TVMTypeError(f"{who} must return a tir.Schedule, a list of them or None; got {type(result).__name__}")


class ScheduleFn(SpaceGenerator):
    """The space of ``sch_fn(sch)``'s results (it returns the Schedule, a list of
    Schedules, or None after editing ``sch`` in place). ``postprocs``: a list run on each
    candidate ("from-target": the target's defaults); by default none (TVM applies the
    target's). ``sch_rules`` is refused."""

    def __init__(self, sch_fn, sch_rules=None, postprocs=None, mutator_probs=None):
        if not callable(sch_fn):
            raise TVMTypeError(f"ScheduleFn expects a callable, got {type(sch_fn).__name__}")
        if sch_rules not in (None, [], "default", "from-target"):
            raise OpNotImplemented("ScheduleFn(sch_rules=...) is not supported: a ScheduleFn applies no rules")
        self.mutator_probs = _check_mutator_probs(mutator_probs, "ScheduleFn")
        if postprocs == "default":  # Tessera's earlier spelling of "none"
            postprocs = None
        self._postprocs_arg = _check_list(postprocs, "ScheduleFn(postprocs)", Postproc, "apply")
        self.postprocs = list(postprocs) if isinstance(postprocs, (list, tuple)) else []
        self.sch_fn = sch_fn

    def sample(self, mod, seed, ctx=None):
        schs = _as_schedules(self.sch_fn(Schedule(mod, seed=seed)), None, "the ScheduleFn function")
        if len(schs) == 1:
            return schs[0]
        return schs[seed % len(schs)]


class PostOrderApply(SpaceGenerator):
    """Applies schedule rules to each block, as TVM's PostOrderApply: for each rule in
    order, every block collected up front (root included, pre-order) is visited from the
    last to the first (consumers before producers, the root last) on every schedule the
    previous rules produced; a rule may branch. Blocks removed meanwhile (inlined) and
    blocks annotated "schedule_rule" are skipped; ``f_block_filter(block)`` (a tir.Block)
    false skips a block. A rule raising a ScheduleError leaves that schedule as it was.
    ``sch_rules`` / ``postprocs``: lists of rules / postprocessors (C++ ones from
    ``ms.schedule_rule`` / ``ms.postproc``, or Python objects with ``apply``) or
    "from-target" (``ScheduleRule.create`` / ``Postproc.create`` of the target's kind,
    "llvm"). ``mutator_probs``: a {Mutator: probability} dict or "from-target" (TVM's llvm table)."""

    def __init__(self, f_block_filter=None, sch_rules="from-target", postprocs="from-target",
                 mutator_probs="from-target"):
        if f_block_filter is not None and not callable(f_block_filter):
            raise TVMTypeError("PostOrderApply(f_block_filter=...) must be callable")
        self.mutator_probs = _check_mutator_probs(mutator_probs, "PostOrderApply")
        self._sch_rules_arg = _check_list(sch_rules, "PostOrderApply(sch_rules)", ScheduleRule, "apply")
        self._postprocs_arg = _check_list(postprocs, "PostOrderApply(postprocs)", Postproc, "apply")
        self.f_block_filter = f_block_filter
        self.sch_rules = None
        self.postprocs = None
        self._target_str = None
        self._design = {}  # (target, structural hash of the module) -> design-space traces

    def _initialize_with_tune_context(self, context):
        arg = self._sch_rules_arg
        if arg in _FROM_TARGET:
            self.sch_rules = ScheduleRule.create(_target_of(context).kind.name)
        elif isinstance(arg, _Named):
            self.sch_rules = ScheduleRule.create(str(arg))
        else:
            self.sch_rules = list(arg or [])
        for rule in self.sch_rules:
            init = getattr(rule, "_initialize_with_tune_context", None)
            if init is not None:
                init(context)
        super()._initialize_with_tune_context(context)
        self._target_str = str(_target_of(context))

    def _ensure_initialized(self, ctx):
        if self.sch_rules is None or (ctx is not None and str(_target_of(ctx)) != self._target_str):
            self._initialize_with_tune_context(ctx)

    def _blocks(self, sch):
        out = []
        for func, name in _ffi_api.CollectBlockNames(sch.mod):
            func, name = str(func), str(name)
            if self.f_block_filter is not None:
                sch.work_on(func)
                if not self.f_block_filter(sch.get(sch.get_block(name, func))):
                    continue
            out.append(sch.get_block(name, func))
        return out

    def generate_design_space(self, mod, seed=0, ctx=None):
        """The design spaces of ``mod``: the schedules the rules lead to (before postprocessing)."""
        from ..tir.schedule import ScheduleError
        self._ensure_initialized(ctx)
        sch = Schedule(mod, seed=seed)
        blocks = self._blocks(sch)
        result = [sch]
        for rule in self.sch_rules:
            stack = [(s, list(blocks)) for s in result]
            result = []
            while stack:
                s, pending = stack.pop()
                if not pending:
                    result.append(s)
                    continue
                block = pending.pop()
                try:
                    node = s.get(block)
                except ScheduleError:
                    stack.append((s, pending))  # the block is gone (inlined)
                    continue
                if "schedule_rule" in node.annotations:
                    stack.append((s, pending))
                    continue
                backup = s.copy()
                try:
                    applied = rule.apply(s, block)
                except ScheduleError:
                    applied = [backup]
                for a in applied:
                    stack.append((a, list(pending)))
        return result

    def _design_traces(self, mod, ctx):
        self._ensure_initialized(ctx)
        key = (self._target_str, int(_ir.structural_hash(mod)))
        if key not in self._design:
            spaces = self.generate_design_space(mod, 0, ctx)
            traces = [Trace(list(s.trace.insts), {}) for s in spaces]
            dflt = self._sampled_default(mod, ctx)
            if dflt is not None:
                traces.append(Trace(list(dflt.trace.insts), {}))
            self._design[key] = traces
        return self._design[key]

    def _sampled_default(self, mod, ctx):
        """Tessera's extra CPU design space: the sampled form of the untuned default
        schedule (default_candidate.py), sampled with fresh decisions like the rules'
        spaces. Only with the target's own rules (a user's rule list stays the user's
        space) and only when it has a decision to sample."""
        if self._sch_rules_arg not in _FROM_TARGET or ctx is None:
            return None
        from .default_candidate import has_decisions, sampled_default_schedule
        sch = sampled_default_schedule(mod, _target_of(ctx))
        return sch if sch is not None and has_decisions(sch.trace) else None

    def sample(self, mod, seed, ctx=None):
        traces = self._design_traces(mod, ctx)
        trace = traces[random.Random(seed).randrange(len(traces))]
        sch = Schedule(mod, seed=seed)
        trace.apply_to_schedule(sch)
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
    raise TVMValueError(f"space={space!r}: expected a SpaceGenerator, a schedule function or 'post-order-apply'")


__all__ = ["PostOrderApply", "ScheduleFn", "SpaceGenerator", "create"]
