"""FLOP count of a workload (``estimate_flops``), used by tune.py for GFLOPS figures.
The cost model's features are the C++ per-store features (feature_extractor.PerStoreFeature);
``candidate_features`` is the hook the search strategies use to get them."""
from ..tir.analysis import estimate_tir_flops
from .feature_extractor import PerStoreFeature

_DEFAULT_EXTRACTOR = None


def candidate_features(mod):
    """Per-store feature rows (numpy float64, stores x 164) of a candidate module, from the
    default PerStoreFeature (CPU); a module that does not lower gives 0 rows."""
    global _DEFAULT_EXTRACTOR  # pylint: disable=global-statement
    if _DEFAULT_EXTRACTOR is None:
        _DEFAULT_EXTRACTOR = PerStoreFeature()
    return _DEFAULT_EXTRACTOR.extract_from(None, [mod])[0].numpy()


def estimate_flops(mod):
    """Float operations of one call of ``mod["main"]`` (tir.analysis.estimate_tir_flops;
    a loop of symbolic extent counts once)."""
    return estimate_tir_flops(mod["main"], symbolic_extent=1)


__all__ = ["candidate_features", "estimate_flops"]
