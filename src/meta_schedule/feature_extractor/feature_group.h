// The feature groups of the per-store feature extractor: what a group sees
// (StoreContext: the store, its loop nest, the shared analyzer and what earlier
// groups computed) and the ordered list of groups (PerStoreFeatureGroups, in
// feature_group.cc: adding a group is one entry there plus its file group_*.cc).
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"
#include "meta_schedule/feature_extractor/loop_nest.h"
#include "tir/stmt.h"

namespace tessera {
namespace meta_schedule {

// log2(|x| + 1): how every count and size enters the feature vector (as TVM).
inline double SLog(double x) { return std::log2(std::fabs(x) + 1.0); }

struct PerStoreFeatureConfig {
  int buffers_per_store = 5;
  int arith_intensity_curve_num_samples = 10;
  int cache_line_bytes = 64;
  bool is_gpu = false;
};

// Where and how big an allocation (a DeclBuffer inside the function, or a
// parameter buffer) is: shape product, bytes, and the loop product outside it.
struct AllocInfo {
  double numel = 0;
  double bytes = 0;
  double outer_prod = 1;
};

// Floating-point / integer operation counts of one store's value, each times
// the iterations of its loop nest (group 1 fills it, group 3 reads it).
struct ArithCounts {
  double float_mad = 0, float_add_sub = 0, float_mul = 0, float_div_mod = 0, float_cmp = 0,
         float_math_func = 0, float_other_func = 0;
  double int_mad = 0, int_add_sub = 0, int_mul = 0, int_div_mod = 0, int_cmp = 0, int_math_func = 0,
         int_other_func = 0;
  double bool_op = 0, select_op = 0;
  double FloatOps() const {
    return float_mad + float_add_sub + float_mul + float_div_mod + float_cmp + float_math_func + float_other_func;
  }
};

// Element counts touched under each loop, per buffer, by every store visited
// so far (one entry per store): serial reuse between stores is read from it.
using TouchedUnderLoop =
    std::unordered_map<const tir::ForNode*, std::unordered_map<const tir::BufferNode*, std::vector<double>>>;

// Everything a group may read while computing one store's features.
struct StoreContext {
  const PerStoreFeatureConfig& config;
  const tir::BufferStoreNode* store;
  const LoopNest& nest;
  arith::Analyzer* analyzer;
  TouchedUnderLoop* touched_under_loop;  // kept across the stores of a module
  const AllocInfo* alloc = nullptr;      // the stored buffer's allocation, if known
  // Filled by group 1 (compute):
  ArithCounts arith;
  // Filled by group 2 (buffer access): bytes touched by one iteration of loop i
  // (outermost first), summed over the store's buffers.
  std::vector<double> touched_bytes_per_loop;
};

struct FeatureGroup {
  std::string name;
  std::function<int(const PerStoreFeatureConfig&)> count;
  // Appends exactly count(config) values.
  std::function<void(StoreContext*, std::vector<double>*)> compute;
};

// Constant shape of a buffer: a symbolic dimension takes its upper bound, else 1.
std::vector<double> ConstBufferShape(const tir::BufferNode* buffer, arith::Analyzer* analyzer);

// The groups in the order of the feature vector.
const std::vector<FeatureGroup>& PerStoreFeatureGroups();

// Group factories, one file each.
FeatureGroup ComputeFeatureGroup();          // group_compute.cc (TVM's group 1)
FeatureGroup BufferAccessFeatureGroup();     // group_buffer_access.cc (group 2)
FeatureGroup ArithIntensityFeatureGroup();   // group_arith_intensity.cc (group 3)
FeatureGroup AllocationFeatureGroup();       // group_allocation.cc (group 4)
FeatureGroup OuterScopeFeatureGroup();       // group_outer_scope.cc (group 5)

}  // namespace meta_schedule
}  // namespace tessera
