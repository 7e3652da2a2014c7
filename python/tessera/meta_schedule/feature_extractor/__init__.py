"""``tvm.meta_schedule.feature_extractor``: program features for the cost model (TVM names).
PerStoreFeature is the C++ extractor (src/meta_schedule/feature_extractor): one row of
TVM's per-store features per stored buffer of the lowered candidate."""
from .feature_extractor import FeatureExtractor, PyFeatureExtractor
from .per_store_feature import PerStoreFeature
from .random_feature_extractor import RandomFeatureExtractor

__all__ = ["FeatureExtractor", "PerStoreFeature", "PyFeatureExtractor", "RandomFeatureExtractor"]
