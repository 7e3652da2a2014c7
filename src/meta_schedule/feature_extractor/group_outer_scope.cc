// Group 5 of the per-store features (TVM's outer-scope group, 3 values): the
// product of the loop extents around the store, the number of those loops,
// and the innermost positive pragma_auto_unroll_max_step in scope (0: none).
#include "meta_schedule/feature_extractor/feature_group.h"

namespace tessera {
namespace meta_schedule {
namespace {

void Compute(StoreContext* ctx, std::vector<double>* out) {
  int64_t unroll = 0;
  for (int64_t v : ctx->nest.auto_unroll)
    if (v > 0) unroll = v;
  out->push_back(SLog(ctx->nest.prod));
  out->push_back(SLog(static_cast<double>(ctx->nest.loops.size())));
  out->push_back(SLog(static_cast<double>(unroll)));
}

}  // namespace

FeatureGroup OuterScopeFeatureGroup() {
  return FeatureGroup{"outer_scope", [](const PerStoreFeatureConfig&) { return 3; }, Compute};
}

}  // namespace meta_schedule
}  // namespace tessera
