"""XGBModel's amortised refit: after a round it refits only once its measurements grew by
``refit_growth`` since the last fit (a deferred refit is counted), a fit trains on at
most ``max_train_samples`` candidates (the newest half plus a seeded sample of the older
ones), refit_growth=0 / max_train_samples=None give TVM's refit on everything after each
round, and the capped model still ranks a held-out set like the uncapped one."""
import numpy as np
import pytest

from tessera.meta_schedule.cost_model import XGBModel

from .test_meta_schedule_shared_cost_model import _spearman

pytest.importorskip("xgboost")


def _data(n, seed=0):
    """Candidates of 2 rows x 6 features; latency a smooth function of the features."""
    rng = np.random.default_rng(seed)
    feats = [rng.random((2, 6)).astype("float32") for _ in range(n)]
    lats = [1e-3 * (0.2 + f[:, 0].sum() + 0.5 * f[:, 1].mean()) for f in feats]
    return feats, lats


def test_refit_waits_for_ten_percent_more_measurements():
    feats, lats = _data(60)
    model = XGBModel(seed=0, num_rounds=5)
    model.update(feats[:40], lats[:40])
    assert model.num_fits == 1 and model.trained
    model.update(feats[40:42], lats[40:42])     # +2 of 40: deferred
    model.update(feats[42:44], lats[42:44])     # +4 of 40 (10%): refit
    assert model.num_fits == 2 and model.num_skipped_fits == 1
    model.update(feats[40:44], lats[40:44])     # nothing new: no refit, nothing deferred
    assert model.num_fits == 2 and model.num_skipped_fits == 1
    every_round = XGBModel(seed=0, num_rounds=5, refit_growth=0)
    for i in range(0, 44, 2):
        every_round.update(feats[i:i + 2], lats[i:i + 2])
    assert every_round.num_fits == 22 - 1       # the first update has too few valid ones (4 needed)
    assert model.fit_secs > 0


def test_fit_trains_on_the_newest_half_plus_a_sample_of_older():
    model = XGBModel(seed=3, num_rounds=2, max_train_samples=8)
    idx = model._train_indices(20)
    assert len(idx) == 8 and len(set(idx.tolist())) == 8
    assert idx[-4:].tolist() == [16, 17, 18, 19] and all(i < 16 for i in idx[:4])
    assert XGBModel(seed=3, max_train_samples=None)._train_indices(20).tolist() == list(range(20))
    feats, lats = _data(20)
    model.update(feats, lats)
    assert model.trained and model.num_measurements == 20


def test_capped_model_ranks_held_out_candidates_well():
    feats, lats = _data(300, seed=1)
    test_feats, test_lats = _data(60, seed=2)
    rhos = {}
    for name, kwargs in (("capped", dict(max_train_samples=64, refit_growth=0.5)),
                         ("uncapped", dict(max_train_samples=None, refit_growth=0))):
        model = XGBModel(seed=0, num_rounds=20, **kwargs)
        for i in range(0, 300, 20):
            model.update(feats[i:i + 20], lats[i:i + 20])
        rhos[name] = _spearman(model.predict(test_feats), -np.array(test_lats))
    assert rhos["capped"] > 0.7 and rhos["uncapped"] > 0.7, rhos


@pytest.mark.parametrize("kwargs, match", [(dict(max_train_samples=1), "max_train_samples"),
                                           (dict(max_train_samples=True), "max_train_samples"),
                                           (dict(refit_growth=-0.1), "refit_growth")])
def test_bad_refit_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        XGBModel(**kwargs)
