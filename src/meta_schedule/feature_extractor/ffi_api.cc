// Global functions "meta_schedule.*" of the feature extractor, through which
// Python's ms.feature_extractor.PerStoreFeature reaches the C++ extractor.
#include <algorithm>

#include "meta_schedule/feature_extractor/per_store_feature.h"
#include "meta_schedule/feature_extractor/workload_embedding.h"
#include "runtime/registry.h"

namespace tessera {
namespace meta_schedule {
namespace {

PerStoreFeatureConfig MakeConfig(int64_t buffers_per_store, int64_t n_samples, int64_t cache_line_bytes,
                                 bool is_gpu) {
  auto narrow = [](int64_t v) { return static_cast<int>(std::max<int64_t>(std::min<int64_t>(v, 1 << 30), -1)); };
  PerStoreFeatureConfig c;
  c.buffers_per_store = narrow(buffers_per_store);
  c.arith_intensity_curve_num_samples = narrow(n_samples);
  c.cache_line_bytes = narrow(cache_line_bytes);
  c.is_gpu = is_gpu;
  CheckPerStoreFeatureConfig(c);
  return c;
}

}  // namespace

TESSERA_REGISTER_GLOBAL("meta_schedule.PerStoreFeatureLength")
    .set_body_typed([](int64_t buffers_per_store, int64_t n_samples, int64_t cache_line_bytes, bool extract_workload) {
      return int64_t{PerStoreFeatureLength(MakeConfig(buffers_per_store, n_samples, cache_line_bytes, false),
                                           extract_workload)};
    });

// (modules, buffers_per_store, n_samples, cache_line_bytes, is_gpu, workload or None, strict)
// -> one (n_stores, n_features) float64 array per module. A module that fails
// to lower gives a (0, n_features) array, or raises when `strict`.
TESSERA_REGISTER_GLOBAL("meta_schedule.PerStoreFeatureExtract")
    .set_body_typed([](Array<IRModule> mods, int64_t buffers_per_store, int64_t n_samples, int64_t cache_line_bytes,
                       bool is_gpu, std::optional<IRModule> workload, bool strict) {
      PerStoreFeatureConfig config = MakeConfig(buffers_per_store, n_samples, cache_line_bytes, is_gpu);
      const int n_features = PerStoreFeatureLength(config, workload.has_value());
      std::vector<double> embedding;
      if (workload) embedding = WorkloadEmbedding(*workload);
      Array<NDArray> out;
      for (const IRModule& mod : mods) {
        std::vector<std::vector<double>> rows;
        try {
          TESSERA_CHECK_OR_THROW(mod.defined(), ValueError) << "PerStoreFeature: a candidate's module is None";
          rows = ExtractPerStoreFeatures(mod, config);
        } catch (const Error&) {
          if (strict) throw;
          rows.clear();
        }
        for (auto& row : rows) row.insert(row.end(), embedding.begin(), embedding.end());
        out.push_back(FeatureRowsToNDArray(rows, n_features));
      }
      return out;
    });

}  // namespace meta_schedule
}  // namespace tessera
