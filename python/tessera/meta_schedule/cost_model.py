"""Cost models (``tvm.meta_schedule.cost_model``). XGBModel is gradient-boosted trees (the
``xgboost`` library) on per-store features (feature_extractor.PerStoreFeature: one row per
stored buffer of a candidate), fitted as TVM does: every row predicts a score, a candidate's
prediction is the sum of its rows' scores, and the training objective is the squared error
of those per-candidate sums against normalized throughput (fastest measured latency /
latency, so 1.0 is the best seen, 0 a failed candidate), weighted by that throughput.
Refits are amortised (Tessera): after a round only once the measurements grew by
``refit_growth`` (10%) since the last fit, and on at most ``max_train_samples`` candidates
(the newest half of them plus a seeded sample of the older ones); TVM refits on
everything after each round, a cost that grows with the run. Measurements carry a group (the task's workload hash
when one model serves many tasks, shared_cost_model.py): throughput is normalized within
each group, as TVM's XGBModel does per workload. RandomModel predicts uniform noise (for
comparison)."""
import hashlib
import time
from typing import NamedTuple, Optional

import numpy as np
from ..error import OpNotImplemented, TVMImportError, TVMTypeError, TVMValueError


class CostModel:
    """``update(context, candidates, runner_results)`` / ``predict(context, candidates)`` (TVM),
    or ``update(features, run_secs)`` / ``predict(features)`` on extracted features."""

    def update(self, *args, group=None):
        raise OpNotImplemented

    def predict(self, *args):
        raise OpNotImplemented

    @staticmethod
    def create(kind, *args, **kwargs):
        """``"xgb"`` or ``"random"`` (TVM's names)."""
        kinds = {"xgb": XGBModel, "random": RandomModel}
        if kind not in kinds:
            raise TVMValueError(f"CostModel.create: unknown kind {kind!r}; expected one of {sorted(kinds)}")
        return kinds[kind](*args, **kwargs)


class RandomModel(CostModel):
    """Uniform noise in [0, 1) per candidate, drawn from ``seed``."""

    def __init__(self, *, seed=None):
        self._rng = np.random.default_rng(seed)

    def update(self, *args, group=None):
        if len(args) not in (2, 3):
            raise TVMTypeError("RandomModel.update takes (context, candidates, runner_results) or (features, run_secs)")

    def predict(self, *args):
        if len(args) not in (1, 2):
            raise TVMTypeError("RandomModel.predict takes (context, candidates) or (features)")
        return self._rng.random(len(list(args[-1])))


def _as_rows(x):
    """A candidate's features as a 2-D float32 array (stores x features); NDArrays accepted."""
    if hasattr(x, "numpy"):
        x = x.numpy()
    x = np.asarray(x, dtype="float32")
    if x.ndim == 1:
        x = x.reshape(1, -1)
    if x.ndim != 2:
        raise TVMValueError(f"XGBModel: a candidate's features must be 2-D (stores x features), got shape {x.shape}")
    return x


class _Packed:
    """Rows of many candidates stacked into one matrix, with each row's candidate index."""

    def __init__(self, feats, n_features):
        rows = [_as_rows(f) for f in feats]
        for r in rows:
            if r.shape[0] and r.shape[1] != n_features:
                raise TVMValueError(f"XGBModel: feature rows of length {r.shape[1]}, expected {n_features}")
        self.n = len(rows)
        self.ids = np.repeat(np.arange(self.n), [r.shape[0] for r in rows])
        self.x = np.concatenate(rows, axis=0) if len(self.ids) else np.zeros((0, n_features), "float32")

    def group_sum(self, row_scores):
        return np.bincount(self.ids, weights=row_scores, minlength=self.n)


class XGBConfig(NamedTuple):
    """Tree parameters of XGBModel (TVM's ``XGBConfig`` and defaults); ``nthread`` None: 1."""

    max_depth: int = 10
    gamma: float = 0.001
    min_child_weight: float = 0.0
    eta: float = 0.2
    nthread: Optional[int] = None


def _run_secs_of(result):
    """Mean latency of a RunnerResult (None when it failed)."""
    if getattr(result, "error_msg", None) is not None:
        return None
    secs = [float(s) for s in (getattr(result, "run_secs", None) or [])]
    return float(np.mean(secs)) if secs else None


class XGBModel(CostModel):
    """XGBoost on per-store features. ``config`` (XGBConfig) holds TVM's tree parameters;
    ``num_rounds`` boosting rounds, or with ``early_stopping_rounds`` up to ``num_rounds`` with
    boosting stopped once the candidates' weighted RMSE on the training data has not improved
    for that many rounds (TVM stops on its training-set metric too); ``seed`` makes fits
    reproducible. Untrained (fewer than ``num_warmup_samples`` valid measurements) it predicts
    0. Two calling conventions: TVM's ``update(context, candidates, runner_results)`` /
    ``predict(context, candidates)`` (features from ``extractor``, PerStoreFeature by default)
    and the search strategies' ``update(features, run_secs)`` / ``predict(features)`` with
    feature rows already extracted (``Candidate.features``)."""

    def __init__(self, *, extractor=None, config=None, num_rounds=60, early_stopping_rounds=None,
                 num_warmup_samples=4, seed=0, max_train_samples=2048, refit_growth=0.1):
        try:
            import xgboost
        except ImportError:
            raise TVMImportError("XGBModel needs the xgboost package (pip install xgboost; "
                                 "scripts/setup.sh installs it)") from None
        config = XGBConfig() if config is None else config
        if not isinstance(config, XGBConfig):
            raise TVMTypeError(f"XGBModel: config must be an XGBConfig, got {type(config).__name__}")
        if int(num_rounds) < 1 or int(config.max_depth) < 1:
            raise TVMValueError("XGBModel: num_rounds and config.max_depth must be >= 1")
        if early_stopping_rounds is not None and int(early_stopping_rounds) < 1:
            raise TVMValueError("XGBModel: early_stopping_rounds must be >= 1 or None")
        if int(num_warmup_samples) < 1:
            raise TVMValueError("XGBModel: num_warmup_samples must be >= 1")
        if max_train_samples is not None and (isinstance(max_train_samples, bool) or int(max_train_samples) < 2):
            raise TVMValueError(f"XGBModel: max_train_samples must be >= 2 or None, got {max_train_samples!r}")
        if isinstance(refit_growth, bool) or not 0 <= float(refit_growth) < 10:
            raise TVMValueError(f"XGBModel: refit_growth must lie in [0, 10), got {refit_growth!r}")
        self.max_train_samples = None if max_train_samples is None else int(max_train_samples)
        self.refit_growth = float(refit_growth)
        self._sample_rng = np.random.default_rng(int(seed))
        self._n_at_fit = 0          # measurements held at the last fit
        self.fit_secs = 0.0         # time spent in fit (for reports)
        self.num_fits = 0
        self.num_skipped_fits = 0   # updates whose refit was deferred (refit_growth)
        self._xgb = xgboost
        if extractor is None:
            from .feature_extractor import PerStoreFeature  # pylint: disable=import-outside-toplevel
            extractor = PerStoreFeature()
        self.extractor = extractor
        self.config = config
        self.num_rounds = int(num_rounds)
        self.early_stopping_rounds = None if early_stopping_rounds is None else int(early_stopping_rounds)
        self.num_warmup_samples = int(num_warmup_samples)
        # base_score 0: a candidate's score is the plain sum of its rows' margins.
        self.params = {"max_depth": int(config.max_depth), "eta": float(config.eta), "gamma": float(config.gamma),
                       "min_child_weight": float(config.min_child_weight), "base_score": 0.0, "seed": int(seed),
                       "nthread": int(config.nthread or 1), "verbosity": 0, "disable_default_eval_metric": 1}
        self._feats, self._lats, self._groups = [], [], []
        self._seen = set()   # (group, rows digest, latency): a measurement fed twice counts once
        self._n_features = None
        self._booster = None

    @property
    def trained(self):
        return self._booster is not None

    def _check_width(self, feats):
        for f in feats:
            r = _as_rows(f)
            if r.shape[0] == 0:
                continue
            if self._n_features is None:
                self._n_features = r.shape[1]
            elif r.shape[1] != self._n_features:
                raise TVMValueError(f"XGBModel: feature rows of length {r.shape[1]}, the model was fed "
                                    f"{self._n_features}")

    @property
    def num_measurements(self):
        """How many distinct measurements the model holds (failed ones included)."""
        return len(self._lats)

    def update(self, *args, group=None):
        """``update(context, candidates, runner_results)`` (TVM) or ``update(features, run_secs)``:
        adds measurements (a failed candidate: error or None) of the task ``group`` (any
        hashable; throughput is normalized per group) and refits on everything seen. A
        measurement already held (same group, feature rows and latency) is not added again;
        nothing new: no refit."""
        if len(args) == 3:
            context, candidates, results = args
            candidates, results = list(candidates), list(results)
            if len(candidates) != len(results):
                raise TVMValueError(f"XGBModel.update: {len(candidates)} candidates but {len(results)} results")
            return self._update(self.extractor.extract_from(context, candidates), [_run_secs_of(r) for r in results],
                                group)
        if len(args) == 2:
            return self._update(*args, group)
        raise TVMTypeError("XGBModel.update takes (context, candidates, runner_results) or (features, run_secs)")

    def predict(self, *args):
        """``predict(context, candidates)`` (TVM) or ``predict(features)``: predicted normalized
        throughput per candidate (higher is faster)."""
        if len(args) == 2:
            context, candidates = args
            return self._predict(self.extractor.extract_from(context, list(candidates)))
        if len(args) == 1:
            return self._predict(args[0])
        raise TVMTypeError("XGBModel.predict takes (context, candidates) or (features)")

    def _update(self, features, run_secs, group=None):
        added = self.add(features, run_secs, group)
        if self._booster is None or (added and self._refit_due()):
            self.fit()
        elif added:
            self.num_skipped_fits += 1

    def _refit_due(self):
        grown = len(self._lats) - self._n_at_fit
        return grown >= max(1.0, self.refit_growth * self._n_at_fit)

    def _train_indices(self, n):
        """The measurements a fit trains on: all, or with more than ``max_train_samples``
        the newest half of that many plus a uniform sample of the older ones."""
        cap = self.max_train_samples
        if cap is None or n <= cap:
            return np.arange(n)
        newest = cap // 2
        older = self._sample_rng.choice(n - newest, size=cap - newest, replace=False)
        return np.concatenate([np.sort(older), np.arange(n - newest, n)])

    def add(self, features, run_secs, group=None):
        """Adds measurements without refitting (``fit`` refits); returns how many were new."""
        features, run_secs = list(features), list(run_secs)
        if len(features) != len(run_secs):
            raise TVMValueError(f"XGBModel.update: {len(features)} feature sets but {len(run_secs)} latencies")
        self._check_width(features)
        added = 0
        for x, t in zip(features, run_secs):
            rows = _as_rows(x)
            lat = float("inf") if t is None else float(t)
            key = (group, rows.shape, hashlib.sha1(rows.tobytes()).digest(), lat)
            if key in self._seen:
                continue
            self._seen.add(key)
            self._feats.append(rows)
            self._lats.append(lat)
            self._groups.append(group)
            added += 1
        return added

    def _targets(self):
        """Normalized throughput per measurement: the fastest valid latency of its group /
        its latency (0 when it failed); None before ``num_warmup_samples`` valid ones."""
        lats = np.array(self._lats)
        valid = np.isfinite(lats) & (lats > 0)
        if valid.sum() < self.num_warmup_samples:
            return None
        best = {}
        for g, t, ok in zip(self._groups, lats, valid):
            if ok:
                best[g] = min(best.get(g, t), t)
        return np.array([best[g] / t if ok else 0.0 for g, t, ok in zip(self._groups, lats, valid)])

    def fit(self):
        """Refits on the measurements held, at most ``max_train_samples`` of them (nothing
        before ``num_warmup_samples`` valid ones)."""
        start = time.perf_counter()
        try:
            self._fit()
        finally:
            self.fit_secs += time.perf_counter() - start

    def _fit(self):
        y = self._targets()
        if y is None or self._n_features is None:
            return
        self._n_at_fit = len(self._lats)
        self.num_fits += 1
        keep = self._train_indices(len(y))
        y = y[keep]
        packed = _Packed([self._feats[i] for i in keep], self._n_features)
        if not len(packed.ids):
            return
        row_y = y[packed.ids]
        dtrain = self._xgb.DMatrix(packed.x, label=row_y, weight=row_y)

        def group_squared_error(row_pred, dmat):
            # d/d(row score) of weight * (sum of the candidate's row scores - y)^2 / 2
            sums = packed.group_sum(row_pred)[packed.ids]
            w = dmat.get_weight()
            return w * (sums - dmat.get_label()), w

        kwargs = {}
        if self.early_stopping_rounds is not None:
            weight = y  # per candidate: the same weighting as the objective

            def weighted_group_rmse(row_pred, dmat):
                err = packed.group_sum(row_pred) - y
                return "group-wrmse", float(np.sqrt(np.sum(weight * err * err) / max(np.sum(weight), 1e-12)))

            kwargs = dict(evals=[(dtrain, "train")], custom_metric=weighted_group_rmse,
                          early_stopping_rounds=self.early_stopping_rounds, verbose_eval=False)
        self._booster = self._xgb.train(self.params, dtrain, num_boost_round=self.num_rounds,
                                        obj=group_squared_error, **kwargs)

    def _predict(self, features):
        features = list(features)
        if not features:
            return np.zeros(0)
        if self._booster is None:
            return np.zeros(len(features))
        packed = _Packed(features, self._n_features)
        if not len(packed.ids):
            return np.zeros(len(features))
        kwargs = {}
        if self.early_stopping_rounds is not None and hasattr(self._booster, "best_iteration"):
            kwargs["iteration_range"] = (0, self._booster.best_iteration + 1)
        row_pred = self._booster.predict(self._xgb.DMatrix(packed.x), output_margin=True, **kwargs)
        return packed.group_sum(row_pred)

    def save(self, path):
        """Writes the measurements (features, latencies, groups as text) to ``path`` (.npz);
        ``load`` refits."""
        np.savez(path, lats=np.array(self._lats), counts=np.array([f.shape[0] for f in self._feats]),
                 rows=np.concatenate(self._feats, axis=0) if self._feats else np.zeros((0, 0), "float32"),
                 groups=np.array([repr(g) for g in self._groups], dtype=str))

    def load(self, path):
        data = np.load(path)
        counts, rows, lats = data["counts"], data["rows"], data["lats"]
        groups = data["groups"] if "groups" in data else np.array(["None"] * len(lats))
        if len(counts) != len(lats) or len(groups) != len(lats) or int(counts.sum()) != rows.shape[0]:
            raise TVMValueError(f"XGBModel.load: {path} is not a file XGBModel.save wrote")
        bounds = np.cumsum(np.concatenate([[0], counts]))
        self._feats, self._lats, self._groups, self._seen = [], [], [], set()
        self._n_features, self._booster = None, None
        for i, g in enumerate(groups):
            self.add([rows[bounds[i]:bounds[i + 1]]], [None if not np.isfinite(lats[i]) else float(lats[i])], str(g))
        self.fit()


__all__ = ["CostModel", "RandomModel", "XGBConfig", "XGBModel"]
