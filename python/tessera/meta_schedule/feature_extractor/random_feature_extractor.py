"""RandomFeatureExtractor (TVM's): random rows, for testing cost models."""
import numpy as np

from .feature_extractor import PyFeatureExtractor, candidate_module
from ...error import TVMValueError


class RandomFeatureExtractor(PyFeatureExtractor):
    """``feature_size`` values per row, between 1 and ``max_block_num`` rows per candidate,
    uniform in [0, 1), drawn from ``seed``."""

    def __init__(self, *, feature_size=30, max_block_num=5, seed=0):
        if int(feature_size) < 1 or int(max_block_num) < 1:
            raise TVMValueError("RandomFeatureExtractor: feature_size and max_block_num must be >= 1")
        self.feature_size = int(feature_size)
        self.max_block_num = int(max_block_num)
        self.random_state = np.random.default_rng(seed)

    def extract_from(self, context, candidates):
        from ... import nd  # pylint: disable=import-outside-toplevel

        out = []
        for cand in candidates:
            candidate_module(cand)
            rows = int(self.random_state.integers(1, self.max_block_num + 1))
            out.append(nd.array(self.random_state.random((rows, self.feature_size))))
        return out
