"""Cost models (``tvm.meta_schedule.cost_model``). XGBModel is gradient-boosted trees (the
``xgboost`` library) on per-store features (feature_extractor.PerStoreFeature: one row per
stored buffer of a candidate), fitted as TVM does: every row predicts a score, a candidate's
prediction is the sum of its rows' scores, and the training objective is the squared error
of those per-candidate sums against normalized throughput (fastest measured latency /
latency, so 1.0 is the best seen, 0 a failed candidate), weighted by that throughput; refit
on all measurements after each round. RandomModel predicts uniform noise (for comparison)."""
import numpy as np


class CostModel:
    def update(self, features, run_secs):
        raise NotImplementedError

    def predict(self, features):
        raise NotImplementedError


class RandomModel(CostModel):
    def __init__(self, seed=None):
        self._rng = np.random.default_rng(seed)

    def update(self, features, run_secs):
        pass

    def predict(self, features):
        return self._rng.random(len(features))


def _as_rows(x):
    """A candidate's features as a 2-D float32 array (stores x features); NDArrays accepted."""
    if hasattr(x, "numpy"):
        x = x.numpy()
    x = np.asarray(x, dtype="float32")
    if x.ndim == 1:
        x = x.reshape(1, -1)
    if x.ndim != 2:
        raise ValueError(f"XGBModel: a candidate's features must be 2-D (stores x features), got shape {x.shape}")
    return x


class _Packed:
    """Rows of many candidates stacked into one matrix, with each row's candidate index."""

    def __init__(self, feats, n_features):
        rows = [_as_rows(f) for f in feats]
        for r in rows:
            if r.shape[0] and r.shape[1] != n_features:
                raise ValueError(f"XGBModel: feature rows of length {r.shape[1]}, expected {n_features}")
        self.n = len(rows)
        self.ids = np.repeat(np.arange(self.n), [r.shape[0] for r in rows])
        self.x = np.concatenate(rows, axis=0) if len(self.ids) else np.zeros((0, n_features), "float32")

    def group_sum(self, row_scores):
        return np.bincount(self.ids, weights=row_scores, minlength=self.n)


class XGBModel(CostModel):
    """``num_rounds`` boosting rounds of trees of depth ``max_depth`` (TVM's tree parameters:
    depth 10, eta 0.2, gamma 0.001, min_child_weight 0; TVM boosts up to 10,000 rounds with
    early stopping, here a fixed count keeps a refit fast); ``seed`` makes fits reproducible.
    Untrained (fewer than ``min_samples`` valid measurements) it predicts 0."""

    def __init__(self, num_rounds=60, max_depth=10, learning_rate=0.2, gamma=0.001, min_child_weight=0.0,
                 min_samples=4, seed=0, nthread=1):
        try:
            import xgboost
        except ImportError:
            raise ImportError("XGBModel needs the xgboost package (pip install xgboost; "
                              "scripts/setup.sh installs it)") from None
        if int(num_rounds) < 1 or int(max_depth) < 1:
            raise ValueError("XGBModel: num_rounds and max_depth must be >= 1")
        self._xgb = xgboost
        self.num_rounds = int(num_rounds)
        # base_score 0: a candidate's score is the plain sum of its rows' margins.
        self.params = {"max_depth": int(max_depth), "eta": float(learning_rate), "gamma": float(gamma),
                       "min_child_weight": float(min_child_weight), "base_score": 0.0, "seed": int(seed),
                       "nthread": int(nthread), "verbosity": 0, "disable_default_eval_metric": 1}
        self.min_samples = int(min_samples)
        self._feats, self._lats = [], []
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
                raise ValueError(f"XGBModel: feature rows of length {r.shape[1]}, the model was fed "
                                 f"{self._n_features}")

    def update(self, features, run_secs):
        """Adds measurements (per candidate: its feature rows and mean latency, or None for a
        failed candidate) and refits on everything seen."""
        features = list(features)
        self._check_width(features)
        for x, t in zip(features, run_secs):
            self._feats.append(_as_rows(x))
            self._lats.append(float("inf") if t is None else float(t))
        lats = np.array(self._lats)
        valid = np.isfinite(lats) & (lats > 0)
        if valid.sum() < self.min_samples or self._n_features is None:
            return
        y = np.where(valid, lats[valid].min() / np.where(valid, lats, 1.0), 0.0)
        packed = _Packed(self._feats, self._n_features)
        if not len(packed.ids):
            return
        row_y = y[packed.ids]
        dtrain = self._xgb.DMatrix(packed.x, label=row_y, weight=row_y)

        def group_squared_error(row_pred, dmat):
            # d/d(row score) of weight * (sum of the candidate's row scores - y)^2 / 2
            sums = packed.group_sum(row_pred)[packed.ids]
            w = dmat.get_weight()
            return w * (sums - dmat.get_label()), w

        self._booster = self._xgb.train(self.params, dtrain, num_boost_round=self.num_rounds,
                                        obj=group_squared_error)

    def predict(self, features):
        """Predicted normalized throughput per candidate (higher is faster)."""
        features = list(features)
        if not features:
            return np.zeros(0)
        if self._booster is None:
            return np.zeros(len(features))
        packed = _Packed(features, self._n_features)
        if not len(packed.ids):
            return np.zeros(len(features))
        row_pred = self._booster.predict(self._xgb.DMatrix(packed.x), output_margin=True)
        return packed.group_sum(row_pred)


__all__ = ["CostModel", "RandomModel", "XGBModel"]
