"""FeatureExtractor: the interface of MetaSchedule feature extractors (TVM's), ``extract_from(
context, candidates) -> list of NDArray`` (one 2-D array of rows per candidate), and
PyFeatureExtractor, the base for extractors written in Python."""
from ...error import OpNotImplemented, TVMTypeError, TVMValueError


def candidate_module(cand):
    """The IRModule of a measure candidate: anything with ``.sch`` (MeasureCandidate,
    search_strategy.Candidate), a Schedule (``.mod``) or an IRModule."""
    from ... import ir  # pylint: disable=import-outside-toplevel

    sch = getattr(cand, "sch", cand)
    mod = getattr(sch, "mod", sch)
    if not isinstance(mod, ir.IRModule):
        raise TVMTypeError(f"extract_from: a candidate must be a MeasureCandidate (with .sch), a Schedule or an "
                           f"IRModule, got {type(cand).__name__}")
    return mod


class FeatureExtractor:
    """Extracts features of measure candidates."""

    def extract_from(self, context, candidates):
        raise OpNotImplemented

    @staticmethod
    def create(kind, *args, **kwargs):
        """``"per-store-feature"`` or ``"random"`` (TVM's names)."""
        from . import PerStoreFeature, RandomFeatureExtractor  # pylint: disable=import-outside-toplevel

        kinds = {"per-store-feature": PerStoreFeature, "random": RandomFeatureExtractor}
        if kind not in kinds:
            raise TVMValueError(f"FeatureExtractor.create: unknown kind {kind!r}; expected one of {sorted(kinds)}")
        return kinds[kind](*args, **kwargs)


class PyFeatureExtractor(FeatureExtractor):
    """Base class of feature extractors implemented in Python: override ``extract_from``."""
