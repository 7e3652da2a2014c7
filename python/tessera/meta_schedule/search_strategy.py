"""Search strategies (``tvm.meta_schedule.search_strategy``): which candidates to measure next.
ReplayFunc ("random") draws fresh samples of the design space; ReplayTrace ("replay-trace")
replays the design space's traces with every decision re-sampled; EvolutionarySearch
("evolutionary") mutates the sampling decisions of a population (measured bests plus fresh
samples), ranks children with the cost model and measures the predicted best, with an
epsilon-greedy share of random samples. Every strategy skips candidates whose module was
already measured (structural hash) and draws all randomness from the task's seed."""
import math

import numpy as np

from .. import ir as _ir
from ..tir.schedule import Schedule, Trace
from .feature import candidate_features
from .default_candidate import has_decisions
from ..error import OpNotImplemented, TVMError, TVMTypeError, TVMValueError


class Candidate:
    """A sampled schedule with its module hash and (lazily) per-store feature rows."""

    __slots__ = ("sch", "shash", "_features", "score", "is_default")

    def __init__(self, sch, is_default=False):
        self.sch = sch
        self.is_default = is_default  # the untuned default schedule (default_candidate.py)
        self.shash = int(_ir.structural_hash(sch.mod))
        self._features = None
        self.score = None

    @property
    def features(self):
        if self._features is None:
            self._features = candidate_features(self.sch.mod)
        return self._features


class SearchStrategy:
    """``generate(n)`` -> up to n unmeasured Candidates; ``notify(cands, latencies)``."""

    def __init__(self, ctx):
        self.ctx = ctx

    def _seed(self):
        return int(self.ctx.rng.integers(1, 2**31 - 1))

    def _sample(self):
        try:
            return self._postprocessed(self.ctx.space_generator.sample(self.ctx.mod, self._seed(), self.ctx))
        except Exception as err:  # noqa: BLE001 -- a failing sample is skipped and reported
            self.ctx.note_sample_error(err)
            return None

    def _postprocessed(self, sch):
        """A Candidate of ``sch`` after the space's postprocessors, None if one refuses it."""
        if not self.ctx.space_generator.apply_postprocs(sch):
            who = getattr(self.ctx.space_generator, "last_rejection", None)
            self.ctx.note_sample_error(RuntimeError("a postprocessor rejected the candidate"
                                                    + (f": {who}" if who else "")))
            return None
        return Candidate(sch)

    def _replayed(self, trace):
        """``trace`` replayed without its postprocessing part, then postprocessed anew."""
        sch = Schedule(self.ctx.mod, seed=self._seed())
        trace.apply_to_schedule(sch, remove_postproc=True)
        return self._postprocessed(sch)

    def _new_unique(self, cand, taken):
        return cand is not None and cand.shash not in self.ctx.measured and cand.shash not in taken

    def _random_batch(self, n, taken=None, max_tries_factor=8):
        taken = set() if taken is None else taken
        out = []
        for _ in range(max(1, n) * max_tries_factor):
            if len(out) >= n:
                break
            cand = self._sample()
            if self._new_unique(cand, taken):
                taken.add(cand.shash)
                out.append(cand)
        return out

    def generate(self, n):
        raise OpNotImplemented

    def notify(self, cands, latencies):
        pass


class ReplayFunc(SearchStrategy):
    """Random search: each candidate is a fresh sample of the design space."""

    def generate(self, n):
        return self._random_batch(n)


class ReplayTrace(SearchStrategy):
    """Replays the design space's traces with all decisions re-sampled."""

    def __init__(self, ctx, num_design_traces=4):
        super().__init__(ctx)
        traces = {}
        for _ in range(num_design_traces):
            cand = self._sample()
            if cand is None:
                continue
            js = cand.sch.trace.as_json(remove_postproc=True)
            key = str(js[0])  # TVM's trace JSON: [insts, decisions]
            traces.setdefault(key, js)
        if not traces:
            raise TVMError("ReplayTrace: every sample of the design space failed")
        self.design = list(traces.values())

    def generate(self, n):
        out, taken = [], set()
        for _ in range(max(1, n) * 8):
            if len(out) >= n:
                break
            js = [self.design[int(self.ctx.rng.integers(len(self.design)))][0], []]  # decisions re-sampled
            try:
                cand = self._replayed(Trace.from_json(js))
            except Exception as err:  # noqa: BLE001
                self.ctx.note_sample_error(err)
                continue
            if self._new_unique(cand, taken):
                taken.add(cand.shash)
                out.append(cand)
        return out


class MutatorSampler:
    """Draws mutators with the probabilities of a {Mutator: probability} table (TVM's
    mutator_probs; the probabilities are normalized) from ``rng`` (a NumPy Generator).
    Each mutator is a clone initialized with ``ctx``."""

    def __init__(self, mutator_probs, ctx, rng):
        from .mutator import Mutator
        items = list(dict(mutator_probs).items())
        for m, p in items:
            if not isinstance(m, Mutator):
                raise TVMTypeError(f"mutator_probs: keys must be ms.mutator.Mutator objects, got {type(m).__name__}")
            if not isinstance(p, (int, float)) or isinstance(p, bool) or not math.isfinite(p) or p < 0:
                raise TVMValueError(f"mutator_probs: the probability of {m} must be a finite number >= 0, got {p!r}")
        items = [(m, float(p)) for m, p in items if p > 0]
        total = sum(p for _, p in items)
        self.mutators = []
        for m, _ in items:
            m = m.clone()
            if ctx is not None:
                m._initialize_with_tune_context(ctx)
            self.mutators.append(m)
        self.probs = np.array([p / total for _, p in items]) if items else np.zeros(0)
        self.cum = np.cumsum(self.probs)
        self.rng = rng

    def __len__(self):
        return len(self.mutators)

    def sample(self):
        """One mutator (None when the table is empty)."""
        if not self.mutators:
            return None
        k = int(np.searchsorted(self.cum, self.rng.random() * self.cum[-1], side="right"))
        return self.mutators[min(k, len(self.mutators) - 1)]


class EvolutionarySearch(SearchStrategy):
    """TVM's evolutionary search. Each round (``generate(n)``):

    1. initial population: the ``init_measured_ratio`` share of ``population_size`` taken
       from the best measured records (their traces replayed: this run's and, resuming,
       the database's) plus fresh samples of the design space (at least
       ``init_min_unmeasured``; sampling gives up after ``max_fail_count`` rounds that
       find nothing new);
    2. ``genetic_num_iters`` generations: the cost model scores the population and the
       best ``n`` unmeasured candidates seen so far are kept; each slot of the next
       generation takes a parent drawn with probability proportional to its score and,
       with probability ``genetic_mutate_prob``, a child from a mutator drawn from the
       space's ``mutator_probs`` table (replayed, postprocessed; up to
       ``genetic_max_fail_count`` tries), else the parent itself;
    3. the batch: ``n - int(n * eps_greedy)`` of the predicted best, the rest random
       initial samples (either side fills in when the other runs short).
    Nothing measured (structural hash) is proposed again; all randomness comes from the
    task's seed."""

    def __init__(self, ctx, cost_model, population_size=512, init_measured_ratio=0.2, init_min_unmeasured=50,
                 max_fail_count=5, genetic_num_iters=4, genetic_mutate_prob=0.85, genetic_max_fail_count=10,
                 eps_greedy=0.05):
        super().__init__(ctx)
        for name, value in (("eps_greedy", eps_greedy), ("genetic_mutate_prob", genetic_mutate_prob),
                            ("init_measured_ratio", init_measured_ratio)):
            if not 0 <= value <= 1:
                raise TVMValueError(f"EvolutionarySearch({name}={value!r}): must lie in [0, 1]")
        for name, value in (("population_size", population_size), ("init_min_unmeasured", init_min_unmeasured),
                            ("max_fail_count", max_fail_count), ("genetic_num_iters", genetic_num_iters),
                            ("genetic_max_fail_count", genetic_max_fail_count)):
            if isinstance(value, bool) or not isinstance(value, int) or value < (1 if name == "population_size" else 0):
                raise TVMValueError(f"EvolutionarySearch({name}={value!r}): must be a non-negative int "
                                    "(population_size at least 1)")
        self.cost_model = cost_model
        self.population_size = population_size
        self.init_measured_ratio = init_measured_ratio
        self.init_min_unmeasured = min(init_min_unmeasured, population_size)
        self.max_fail_count = max_fail_count
        self.genetic_num_iters = genetic_num_iters
        self.genetic_mutate_prob = genetic_mutate_prob
        self.genetic_max_fail_count = genetic_max_fail_count
        self.eps_greedy = eps_greedy
        self.best_measured = []   # [(latency, trace)], fastest first
        self.mutators = MutatorSampler(ctx.mutator_probs, ctx, ctx.rng)
        self.num_mutations = 0          # children made by mutators (for tests and reports)

    # -- candidates --------------------------------------------------------------
    def _from_trace(self, trace):
        try:
            return self._replayed(trace)
        except Exception:  # noqa: BLE001 -- a trace that no longer applies is dropped
            return None

    def _mutate(self, parent):
        mutator = self.mutators.sample()
        if mutator is None:
            return None
        trace, _ = mutator.apply_with_state(parent.sch.trace, self._seed())
        if trace is None:
            return None
        return self._from_trace(trace)

    def _score(self, cands):
        todo = [c for c in cands if c.score is None]
        if todo:
            preds = self.cost_model.predict([c.features for c in todo])
            for c, p in zip(todo, preds):
                c.score = float(p)

    # -- the three steps -----------------------------------------------------------
    def _init_population(self):
        measured, taken = [], set()
        for _, trace in self.best_measured:
            if len(measured) >= int(self.population_size * self.init_measured_ratio):
                break
            cand = self._from_trace(trace)
            if cand is not None and cand.shash not in taken:
                taken.add(cand.shash)
                measured.append(cand)
        unmeasured, fails = [], 0
        want = max(self.population_size - len(measured), self.init_min_unmeasured)
        while len(unmeasured) < want and fails <= self.max_fail_count:
            batch = self._random_batch(want - len(unmeasured), taken, max_tries_factor=2)
            fails = 0 if batch else fails + 1
            unmeasured += batch
        return measured, unmeasured

    def _evolve(self, population, num):
        best = {}   # shash -> candidate, unmeasured ones seen in any generation
        for it in range(self.genetic_num_iters + 1):
            self._score(population)
            for c in population:
                if c.shash not in self.ctx.measured:
                    best.setdefault(c.shash, c)
            if it == self.genetic_num_iters or not population or not len(self.mutators):
                break
            weights = np.array([max(c.score, 0.0) for c in population]) + 1e-12
            cum = np.cumsum(weights / weights.sum())
            nxt, seen = [], set()
            for _ in range(self.population_size):
                for _ in range(self.genetic_max_fail_count + 1):
                    parent = population[min(int(np.searchsorted(cum, self.ctx.rng.random(), side="right")),
                                            len(population) - 1)]
                    if self.ctx.rng.random() < self.genetic_mutate_prob:
                        child = self._mutate(parent)
                        if child is None or child.shash in seen:
                            continue
                        self.num_mutations += 1
                    else:
                        child = parent
                        if child.shash in seen:
                            continue
                    seen.add(child.shash)
                    nxt.append(child)
                    break
            population = nxt
        ranked = sorted(best.values(), key=lambda c: -c.score)
        return ranked[:num]

    def generate(self, n):
        measured, unmeasured = self._init_population()
        population = measured + unmeasured
        if not population:
            return []
        bests = self._evolve(population, n)
        rands = [c for c in unmeasured if c.shash not in self.ctx.measured]
        order = self.ctx.rng.permutation(len(rands))
        rands = [rands[int(i)] for i in order]
        num_rands = int(n * self.eps_greedy)
        picked, taken = [], set()
        ib = ir = 0
        while len(picked) < n and (ib < len(bests) or ir < len(rands)):
            want_rand = len(picked) >= n - num_rands
            if (want_rand and ir < len(rands)) or ib >= len(bests):
                cand, ir = rands[ir], ir + 1
            else:
                cand, ib = bests[ib], ib + 1
            if cand.shash in taken or cand.shash in self.ctx.measured:
                continue
            taken.add(cand.shash)
            picked.append(cand)
        return picked

    def notify(self, cands, latencies):
        self.cost_model.update([c.features for c in cands], latencies)
        for c, t in zip(cands, latencies):
            # The default schedule is a parent of the population when its trace is the
            # sampled form (decisions to mutate); a fixed one has nothing to move.
            if t is not None and (not c.is_default or has_decisions(c.sch.trace)):
                self.best_measured.append((t, c.sch.trace))
        self.best_measured.sort(key=lambda p: p[0])

    def seed_measured(self, seeds):
        """Adds the database's existing records (resuming a run) to the population source
        and the cost model's training data. ``seeds``: (record, replayed, learnt) triples,
        ``replayed`` the record's one replay (shared_cost_model.Replayed: its features) and
        ``learnt`` whether the cost model was already fed it (warm start); a bare record
        is replayed here."""
        feats, lats = [], []
        for seed in seeds:
            rec, replayed, learnt = seed if isinstance(seed, tuple) else (seed, None, False)
            if replayed is None:
                replayed = self._from_trace(rec.trace)
                if replayed is None:
                    continue
            if not learnt:
                feats.append(replayed.features)
                lats.append(rec.mean_run_sec if rec.is_valid else None)
            if rec.is_valid:
                self.best_measured.append((rec.mean_run_sec, rec.trace))
        self.best_measured.sort(key=lambda p: p[0])
        if feats:
            self.cost_model.update(feats, lats)


def evolutionary_population(num_trials_per_iter):
    """The population tune_tir / tune_relax give EvolutionarySearch: TVM's 512 for TVM's
    default rounds of 64 trials, scaled down with smaller rounds (8 per trial, at least 64)
    so that a round of a few trials does not evolve 512 candidates."""
    return min(512, max(64, 8 * int(num_trials_per_iter)))


def create(strategy, ctx, cost_model=None, num_trials_per_iter=64):
    if strategy == "evolutionary":
        pop = evolutionary_population(num_trials_per_iter)
        return EvolutionarySearch(ctx, cost_model, population_size=pop, init_min_unmeasured=min(50, pop))
    if strategy == "replay-trace":
        return ReplayTrace(ctx)
    if strategy in ("random", "replay-func"):
        return ReplayFunc(ctx)
    raise TVMValueError(f"strategy={strategy!r}: expected 'evolutionary', 'replay-trace', 'random' or 'replay-func'")


__all__ = ["EvolutionarySearch", "MutatorSampler", "ReplayFunc", "ReplayTrace", "SearchStrategy", "create"]
