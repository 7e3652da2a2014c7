// Group 3 of the per-store features (TVM's arithmetic-intensity curve,
// arith_intensity_curve_num_samples values): float operations per byte touched
// for the innermost loop, the two innermost, ... up to the whole nest, sampled
// at evenly spaced fractions of the nest's total float operations (linear
// interpolation between loops), log-scaled. All zero without float operations.
#include "meta_schedule/feature_extractor/feature_group.h"

namespace tessera {
namespace meta_schedule {
namespace {

void Compute(StoreContext* ctx, std::vector<double>* out) {
  const int n_samples = ctx->config.arith_intensity_curve_num_samples;
  const ForVec& loops = ctx->nest.loops;
  const int n = static_cast<int>(loops.size());
  double per_iter = ctx->nest.prod > 0 ? ctx->arith.FloatOps() / ctx->nest.prod : 0.0;
  if (n == 0 || per_iter <= 0 || static_cast<int>(ctx->touched_bytes_per_loop.size()) != n) {
    out->insert(out->end(), n_samples, 0.0);
    return;
  }
  // k = 0: innermost loop alone; k = n-1: the whole nest.
  std::vector<double> ops(n), bytes(n);
  double acc = per_iter;
  for (int k = 0; k < n; ++k) {
    acc *= LoopExtentOr1(loops[n - 1 - k]);
    ops[k] = acc;
    bytes[k] = std::max(1.0, ctx->touched_bytes_per_loop[n - 1 - k]);
  }
  const double total = ops.back();
  int p = 0;
  for (int s = 0; s < n_samples; ++s) {
    double target = (s + 1.0) / n_samples * total;
    while (p < n - 1 && ops[p] < target - 1e-4) ++p;
    if (p == 0 || ops[p] == ops[p - 1]) {
      out->push_back(SLog(ops[p] / bytes[p]));
    } else {
      double lo = ops[p - 1] / bytes[p - 1], hi = ops[p] / bytes[p];
      double slope = (hi - lo) / (ops[p] - ops[p - 1]);
      out->push_back(SLog(lo + slope * (target - ops[p - 1])));
    }
  }
}

}  // namespace

FeatureGroup ArithIntensityFeatureGroup() {
  return FeatureGroup{"arith_intensity",
                      [](const PerStoreFeatureConfig& c) { return c.arith_intensity_curve_num_samples; }, Compute};
}

}  // namespace meta_schedule
}  // namespace tessera
