"""Cost models (``tvm.meta_schedule.cost_model``). XGBModel is a gradient-boosted tree
regressor (the ``xgboost`` library) from candidate features (feature.py) to normalized
throughput (fastest measured latency / latency, so 1.0 is the best seen), refit on all
measurements after each round; RandomModel predicts uniform noise (for comparison)."""
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


class XGBModel(CostModel):
    """``num_rounds`` boosting rounds of depth ``max_depth``; ``seed`` makes fits
    reproducible. Untrained (fewer than ``min_samples`` valid measurements), it predicts 0."""

    def __init__(self, num_rounds=60, max_depth=6, learning_rate=0.3, min_samples=4, seed=0, nthread=1):
        try:
            import xgboost
        except ImportError:
            raise ImportError("XGBModel needs the xgboost package (pip install xgboost; "
                              "scripts/setup.sh installs it)") from None
        self._xgb = xgboost
        self.num_rounds = int(num_rounds)
        self.params = {"max_depth": int(max_depth), "eta": float(learning_rate), "objective": "reg:squarederror",
                       "seed": int(seed), "nthread": int(nthread), "verbosity": 0}
        self.min_samples = int(min_samples)
        self._xs, self._ys = [], []
        self._booster = None

    @property
    def trained(self):
        return self._booster is not None

    def update(self, features, run_secs):
        """Adds measurements (one feature vector and mean latency, or None for a failed
        candidate, per entry) and refits on everything seen."""
        for x, t in zip(features, run_secs):
            self._xs.append(np.asarray(x, dtype="float32"))
            self._ys.append(float("inf") if t is None else float(t))
        ys = np.array(self._ys)
        valid = np.isfinite(ys)
        if valid.sum() < self.min_samples:
            return
        best = ys[valid].min()
        target = np.where(valid, best / np.where(valid, ys, 1.0), 0.0)
        dtrain = self._xgb.DMatrix(np.stack(self._xs), label=target)
        self._booster = self._xgb.train(self.params, dtrain, num_boost_round=self.num_rounds)

    def predict(self, features):
        if not len(features):
            return np.zeros(0)
        if self._booster is None:
            return np.zeros(len(features))
        return self._booster.predict(self._xgb.DMatrix(np.stack([np.asarray(x, "float32") for x in features])))


__all__ = ["CostModel", "RandomModel", "XGBModel"]
