// Group 4 of the per-store features (TVM's allocation group, 4 values) for the
// buffer the store writes: allocated bytes, elements times the loop product
// outside the allocation, that outer loop product, and the store's loop
// product over it (how often one allocation is reused). A buffer whose
// allocation is not seen (none in the function) gives 0, 0, 1 and the store's
// loop product.
#include "meta_schedule/feature_extractor/feature_group.h"

namespace tessera {
namespace meta_schedule {
namespace {

void Compute(StoreContext* ctx, std::vector<double>* out) {
  AllocInfo none;
  const AllocInfo& a = ctx->alloc ? *ctx->alloc : none;
  double outer = a.outer_prod > 0 ? a.outer_prod : 1.0;
  out->push_back(SLog(a.bytes));
  out->push_back(SLog(a.numel * a.outer_prod));
  out->push_back(SLog(a.outer_prod));
  out->push_back(SLog(ctx->nest.prod / outer));
}

}  // namespace

FeatureGroup AllocationFeatureGroup() {
  return FeatureGroup{"allocation", [](const PerStoreFeatureConfig&) { return 4; }, Compute};
}

}  // namespace meta_schedule
}  // namespace tessera
