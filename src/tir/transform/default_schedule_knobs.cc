// SplitByKnob (see default_schedule_knobs.h): the one place the default
// schedule rules turn a fixed tile factor into a sampled one.
#include "tir/transform/default_schedule_knobs.h"

#include <algorithm>

namespace tessera {
namespace tir {

int64_t LoopExtentOr(const Schedule& sch, const LoopRV& loop) {
  const int64_t* c = AsConstInt(sch.Get(loop).cast<For>()->extent);
  return c != nullptr ? *c : -1;
}

std::vector<int64_t> LoopExtents(const Schedule& sch, const Array<LoopRV>& loops) {
  std::vector<int64_t> out;
  for (const LoopRV& l : loops) out.push_back(LoopExtentOr(sch, l));
  return out;
}

namespace {

// SampleCategorical over `cands` (uniform) deciding `inner`, and the split by it.
Array<LoopRV> SplitByCategorical(const Schedule& sch, const LoopRV& loop, int64_t inner, std::vector<int64_t> cands) {
  if (std::find(cands.begin(), cands.end(), inner) == cands.end()) cands.push_back(inner);
  Array<Any> values, probs;
  int64_t decision = 0;
  for (size_t i = 0; i < cands.size(); ++i) {
    if (cands[i] == inner) decision = static_cast<int64_t>(i);
    values.push_back(Any(cands[i]));
    probs.push_back(Any(1.0 / static_cast<double>(cands.size())));
  }
  Var v = sch.SampleCategorical(values, probs, Any(decision));
  return sch.Split(loop, Array<Any>({Any(), Any(v)}), true);
}

}  // namespace

std::vector<int64_t> ValidSplitFactors(int64_t extent, int64_t inner, int64_t max_inner, int64_t min_factor) {
  std::vector<int64_t> out;
  for (int64_t d = std::max<int64_t>(1, min_factor); d <= std::max(max_inner, inner) && d <= extent; ++d) {
    if (extent % d == 0 && extent / d >= min_factor) out.push_back(d);
  }
  return out;
}

Array<LoopRV> SplitByKnob(const Schedule& sch, const LoopRV& loop, int64_t extent, int64_t inner, int64_t max_inner,
                          const std::vector<int64_t>& candidates, const DefaultCPUScheduleOptions& opt,
                          int64_t min_factor) {
  if (!opt.sampled || extent < 1 || inner < 1) return sch.Split(loop, Array<Any>({Any(), Any(inner)}), true);
  if (min_factor > 1 && extent % inner == 0) {
    // SamplePerfectTile (and MutateTileSize) may give a part of 1: offer only the valid factors.
    return SplitByCategorical(sch, loop, inner, ValidSplitFactors(extent, inner, max_inner, min_factor));
  }
  if (extent % inner == 0) {
    Array<Var> f = sch.SamplePerfectTile(loop, 2, static_cast<int>(std::max(max_inner, inner)),
                                         Array<Any>({Any(extent / inner), Any(inner)}));
    return sch.Split(loop, Array<Any>({Any(f[0]), Any(f[1])}), true);
  }
  return SplitByCategorical(sch, loop, inner, candidates);
}

Array<LoopRV> TileByKnob(const Schedule& sch, const LoopRV& loop, int64_t extent, const std::vector<int64_t>& inner,
                         int64_t max_inner, const DefaultCPUScheduleOptions& opt) {
  int64_t product = 1;
  for (int64_t f : inner) product *= f;
  Array<Any> factors({Any()});
  for (int64_t f : inner) factors.push_back(Any(f));
  if (!opt.sampled || inner.empty() || extent < 1 || product < 1 || extent % product != 0) return sch.Split(loop, factors, true);
  Array<Any> decision({Any(extent / product)});
  for (int64_t f : inner) decision.push_back(Any(f));
  Array<Var> f = sch.SamplePerfectTile(loop, static_cast<int>(inner.size() + 1),
                                       static_cast<int>(std::max(max_inner, inner.back())), decision);
  Array<Any> sampled;
  for (const Var& v : f) sampled.push_back(Any(v));
  return sch.Split(loop, sampled, true);
}

}  // namespace tir
}  // namespace tessera
