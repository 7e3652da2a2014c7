// PerStoreFeature: MetaSchedule's per-store program features (TVM's
// meta_schedule.PerStoreFeature). A candidate module is lowered
// (lower_for_features.h), then every BufferStore of a non-constant value gives
// one row of the feature groups (feature_group.h) — one row per stored buffer,
// from its last store, in the order buffers are first stored (as TVM). With
// extract_workload, 8 workload-kind flags (workload_embedding.h) end each row.
#pragma once

#include <vector>

#include "ir/module.h"
#include "meta_schedule/feature_extractor/feature_group.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace meta_schedule {

// Raises ValueError naming a parameter out of range.
void CheckPerStoreFeatureConfig(const PerStoreFeatureConfig& config);

// Length of one row: 164 for the default configuration (57 + 18 * 5 + 10 + 4 + 3).
int PerStoreFeatureLength(const PerStoreFeatureConfig& config, bool extract_workload);

// Rows of an already lowered module.
std::vector<std::vector<double>> CollectPerStoreFeatures(const IRModule& lowered, const PerStoreFeatureConfig& config);

// Lowers `mod` and collects its rows (raises what lowering raises).
std::vector<std::vector<double>> ExtractPerStoreFeatures(const IRModule& mod, const PerStoreFeatureConfig& config);

// rows as a float64 NDArray of shape (rows, n_features) on the CPU.
NDArray FeatureRowsToNDArray(const std::vector<std::vector<double>>& rows, int n_features);

}  // namespace meta_schedule
}  // namespace tessera
