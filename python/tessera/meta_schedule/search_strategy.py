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


class Candidate:
    """A sampled schedule with its module hash and (lazily) per-store feature rows."""

    __slots__ = ("sch", "shash", "_features", "score")

    def __init__(self, sch):
        self.sch = sch
        self.shash = int(_ir.structural_hash(sch.mod))
        self._features = None
        self.score = 0.0

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
            self.ctx.note_sample_error(RuntimeError("a postprocessor rejected the candidate"))
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
        raise NotImplementedError

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
            raise RuntimeError("ReplayTrace: every sample of the design space failed")
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


def _prime_factors(x):
    out, d = [], 2
    while d * d <= x:
        while x % d == 0:
            out.append(d)
            x //= d
        d += 1
    if x > 1:
        out.append(x)
    return out


def mutate_decision(kind, attrs, decision, rng):
    """A different valid decision for a sampling instruction, or None if there is none.
    SamplePerfectTile: moves a prime factor from one tile to another (respecting the
    innermost limit); SampleCategorical: another candidate index."""
    if kind == "SamplePerfectTile":
        dec = [int(x) for x in decision]
        max_inner = int(attrs[1]) if len(attrs) > 1 else 0
        if len(dec) < 2:
            return None
        for _ in range(16):
            src = int(rng.integers(len(dec)))
            if dec[src] <= 1:
                continue
            factor = int(rng.choice(_prime_factors(dec[src])))
            dst = int(rng.integers(len(dec) - 1))
            dst = dst + 1 if dst >= src else dst
            new = list(dec)
            new[src] //= factor
            new[dst] *= factor
            if max_inner > 0 and new[-1] > max_inner:
                continue
            return new
        return None
    if kind == "SampleCategorical":
        n = len(attrs[0])
        if n < 2:
            return None
        cur = int(decision)
        new = int(rng.integers(n - 1))
        return new + 1 if new >= cur else new
    return None


_MUTABLE = ("SamplePerfectTile", "SampleCategorical")


class EvolutionarySearch(SearchStrategy):
    """Population ``population_size``; ``init_measured_ratio`` of it from the best measured
    records; ``genetic_num_iters`` rounds of mutation (probability ``genetic_mutate_prob``
    per individual) keeping the best predicted; then the predicted best are measured,
    except an ``eps_greedy`` share of random samples."""

    def __init__(self, ctx, cost_model, population_size=64, init_measured_ratio=0.2, genetic_num_iters=3,
                 genetic_mutate_prob=0.85, eps_greedy=0.05):
        super().__init__(ctx)
        if not 0 <= eps_greedy <= 1 or not 0 <= genetic_mutate_prob <= 1 or not 0 <= init_measured_ratio <= 1:
            raise ValueError("EvolutionarySearch: eps_greedy, genetic_mutate_prob and init_measured_ratio "
                             "must lie in [0, 1]")
        self.cost_model = cost_model
        self.population_size = int(population_size)
        self.init_measured_ratio = init_measured_ratio
        self.genetic_num_iters = int(genetic_num_iters)
        self.genetic_mutate_prob = genetic_mutate_prob
        self.eps_greedy = eps_greedy
        self.best_measured = []   # [(latency, trace)], fastest first

    def _mutate(self, cand):
        trace = cand.sch.trace
        insts = [i for i in trace.insts if i.kind.name in _MUTABLE and i in trace.decisions]
        if not insts:
            return None
        for _ in range(4):
            inst = insts[int(self.ctx.rng.integers(len(insts)))]
            new = mutate_decision(inst.kind.name, list(inst.attrs), trace.decisions[inst], self.ctx.rng)
            if new is None:
                continue
            try:
                cand = self._replayed(trace.with_decision(inst, new))
            except Exception:  # noqa: BLE001 -- an invalid mutation is dropped
                continue
            if cand is not None:
                return cand
        return None

    def _from_trace(self, trace):
        try:
            return self._replayed(trace)
        except Exception:  # noqa: BLE001
            return None

    def _score(self, cands):
        preds = self.cost_model.predict([c.features for c in cands])
        for c, p in zip(cands, preds):
            c.score = float(p)

    def generate(self, n):
        pop, taken = [], set()
        for _, trace in self.best_measured[:int(self.population_size * self.init_measured_ratio)]:
            cand = self._from_trace(trace)
            if cand is not None and cand.shash not in taken:
                taken.add(cand.shash)
                pop.append(cand)
        pop += self._random_batch(self.population_size - len(pop), set(taken), max_tries_factor=2)
        if not pop:
            return []
        pool = {c.shash: c for c in pop}
        for _ in range(self.genetic_num_iters):
            children = []
            for parent in pop:
                if self.ctx.rng.random() < self.genetic_mutate_prob:
                    child = self._mutate(parent)
                    if child is not None and child.shash not in pool:
                        pool[child.shash] = child
                        children.append(child)
            self._score(children + [c for c in pop if c.score == 0.0])
            pop = sorted(pop + children, key=lambda c: -c.score)[:self.population_size]
        ranked = sorted((c for c in pool.values() if c.shash not in self.ctx.measured), key=lambda c: -c.score)
        n_random = int(math.floor(n * self.eps_greedy + self.ctx.rng.random()))
        picked = ranked[:max(0, n - n_random)]
        taken = {c.shash for c in picked}
        picked += self._random_batch(n - len(picked), taken)
        return picked[:n]

    def notify(self, cands, latencies):
        self.cost_model.update([c.features for c in cands], latencies)
        for c, t in zip(cands, latencies):
            if t is not None:
                self.best_measured.append((t, c.sch.trace))
        self.best_measured.sort(key=lambda p: p[0])

    def seed_measured(self, records):
        """Adds the database's existing valid records (resuming a run) to the population source
        and the cost model's training data."""
        feats, lats = [], []
        for rec in records:
            cand = self._from_trace(rec.trace)
            if cand is None:
                continue
            feats.append(cand.features)
            lats.append(rec.mean_run_sec if rec.is_valid else None)
            if rec.is_valid:
                self.best_measured.append((rec.mean_run_sec, rec.trace))
        self.best_measured.sort(key=lambda p: p[0])
        if feats:
            self.cost_model.update(feats, lats)


def create(strategy, ctx, cost_model=None):
    if strategy == "evolutionary":
        return EvolutionarySearch(ctx, cost_model)
    if strategy == "replay-trace":
        return ReplayTrace(ctx)
    if strategy in ("random", "replay-func"):
        return ReplayFunc(ctx)
    raise ValueError(f"strategy={strategy!r}: expected 'evolutionary', 'replay-trace', 'random' or 'replay-func'")


__all__ = ["EvolutionarySearch", "ReplayFunc", "ReplayTrace", "SearchStrategy", "create", "mutate_decision"]
