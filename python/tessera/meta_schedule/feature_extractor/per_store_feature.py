"""PerStoreFeature (TVM's ``ms.feature_extractor.PerStoreFeature``): the C++ per-store feature
extractor. Each candidate's module is lowered (LowerInitBlock, ConvertBlocksToOpaque,
LowerOpaqueBlock, CompactBufferAllocation after a feature simplification) and every stored
buffer gives one row: arithmetic counts and loop kinds (57), buffer accesses (18 per buffer,
``buffers_per_store`` buffers), the arithmetic-intensity curve
(``arith_intensity_curve_num_samples``), allocation (4), outer scope (3) and, with
``extract_workload``, 8 workload flags: 164 values by default, log2(1 + x)-scaled."""
from ..._ffi.registry import get_global_func
from .feature_extractor import FeatureExtractor, candidate_module
from ...error import TVMTypeError, TVMValueError


def _int_arg(name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TVMTypeError(f"PerStoreFeature: {name} must be an int, got {type(value).__name__}")
    return value


class PerStoreFeature(FeatureExtractor):
    def __init__(self, buffers_per_store=5, arith_intensity_curve_num_samples=10, cache_line_bytes=64,
                 extract_workload=False):
        self.buffers_per_store = _int_arg("buffers_per_store", buffers_per_store)
        self.arith_intensity_curve_num_samples = _int_arg("arith_intensity_curve_num_samples",
                                                          arith_intensity_curve_num_samples)
        self.cache_line_bytes = _int_arg("cache_line_bytes", cache_line_bytes)
        if not isinstance(extract_workload, bool):
            raise TVMTypeError("PerStoreFeature: extract_workload must be a bool, got "
                               f"{type(extract_workload).__name__}")
        self.extract_workload = extract_workload
        # Validates the configuration (ValueError naming the parameter).
        self.feature_vector_length = int(get_global_func("meta_schedule.PerStoreFeatureLength")(
            self.buffers_per_store, self.arith_intensity_curve_num_samples, self.cache_line_bytes,
            self.extract_workload))
        self._extract = get_global_func("meta_schedule.PerStoreFeatureExtract")

    def _config(self, target):
        is_gpu = False
        if target is not None:
            keys = [str(k) for k in getattr(target, "keys", [])]
            is_gpu = "gpu" in keys
        return (self.buffers_per_store, self.arith_intensity_curve_num_samples, self.cache_line_bytes, is_gpu)

    def extract_from(self, context, candidates):
        """One float64 NDArray of shape (stored buffers, feature_vector_length) per candidate.
        ``context`` (a TuneContext) gives the target (GPU launch features when its keys have
        "gpu") and, with extract_workload, the workload ``context.mod``. A candidate whose
        module cannot be lowered gets a (0, feature_vector_length) array."""
        mods = [candidate_module(c) for c in candidates]
        target = getattr(context, "target", None) if context is not None else None
        workload = None
        if self.extract_workload:
            workload = getattr(context, "mod", None) if context is not None else None
            if workload is None:
                raise TVMValueError("PerStoreFeature(extract_workload=True): the TuneContext has no mod")
        return list(self._extract(mods, *self._config(target), workload, False))

    def extract_module(self, mod, target=None):
        """Rows of one module (numpy, float64); raises what lowering raises (strict)."""
        if self.extract_workload:
            raise TVMValueError("PerStoreFeature.extract_module: extract_workload needs a TuneContext; use "
                                "extract_from")
        return self._extract([candidate_module(mod)], *self._config(target), None, True)[0].numpy()

    def __repr__(self):
        return (f"PerStoreFeature(buffers_per_store={self.buffers_per_store}, arith_intensity_curve_num_samples="
                f"{self.arith_intensity_curve_num_samples}, cache_line_bytes={self.cache_line_bytes}, "
                f"extract_workload={self.extract_workload})")
