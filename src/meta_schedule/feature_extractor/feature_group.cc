// The ordered list of per-store feature groups (see feature_group.h): the one
// place a new group is added.
#include "meta_schedule/feature_extractor/feature_group.h"

namespace tessera {
namespace meta_schedule {

std::vector<double> ConstBufferShape(const tir::BufferNode* buffer, arith::Analyzer* analyzer) {
  std::vector<double> shape;
  for (const PrimExpr& s : buffer->shape) {
    if (const int64_t* c = AsConstInt(s)) {
      shape.push_back(static_cast<double>(*c));
      continue;
    }
    arith::BoundEntry b = analyzer->const_int_bound.Eval(s);
    bool known = b.max_value >= 0 && b.max_value < arith::ConstIntBound::kPosInf;
    shape.push_back(known ? static_cast<double>(b.max_value) : 1.0);
  }
  return shape;
}

const std::vector<FeatureGroup>& PerStoreFeatureGroups() {
  static const std::vector<FeatureGroup> groups = {
      ComputeFeatureGroup(),         // 57: op counts, vectorize/unroll/parallel, GPU thread extents
      BufferAccessFeatureGroup(),    // 18 per buffer x buffers_per_store
      ArithIntensityFeatureGroup(),  // arith_intensity_curve_num_samples
      AllocationFeatureGroup(),      // 4
      OuterScopeFeatureGroup(),      // 3
  };
  return groups;
}

}  // namespace meta_schedule
}  // namespace tessera
