// The tile-factor knobs of DefaultCPUSchedule's rules (conv, conv1x1, matmul,
// rows, pool): a split by the default's factor, fixed, or (the sampled form,
// DefaultCPUScheduleOptions::sampled) split by a sampling instruction whose
// recorded decision is that factor, so the trace replays to the default and
// the tuner's mutators and re-sampling move around it.
#pragma once

#include <vector>

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

// Splits `loop` (constant `extent`, or -1 when symbolic) into [outer, inner]
// with `inner` iterations inside, as Split(loop, [None, inner]) does. With
// opt.sampled and a constant extent the factor is sampled: when `inner`
// divides the extent, SamplePerfectTile(loop, 2, max_inner) with the decision
// [extent / inner, inner]; otherwise SampleCategorical over `candidates`
// (`inner` added when missing) with `inner` as the decision. With
// min_factor > 1 (a split whose later steps need both parts to be at least
// that long, e.g. an rfactor'd lane loop) a divisible extent samples instead
// SampleCategorical over exactly the divisors d of the extent with
// min_factor <= d <= max_inner and extent / d >= min_factor, so neither
// re-sampling nor a mutator can pick a factor the later steps refuse.
Array<LoopRV> SplitByKnob(const Schedule& sch, const LoopRV& loop, int64_t extent, int64_t inner, int64_t max_inner,
                          const std::vector<int64_t>& candidates, const DefaultCPUScheduleOptions& opt,
                          int64_t min_factor = 1);

// Tiles `loop` (constant `extent`, divisible by the product of `inner`) into
// [outer, inner[0], inner[1], ...] perfectly, as Split(loop, [None, inner...])
// does. With opt.sampled it is one SamplePerfectTile(loop, 1 + inner.size(),
// max_inner) deciding that tiling: the factors are one joint decision, so a
// re-sampling or MutateTileSize keeps every part a divisor (two knobs split
// one after the other could leave the second one a factor that no longer
// divides the loop the first one changed: a guarded split whose predicate the
// later steps may refuse).
Array<LoopRV> TileByKnob(const Schedule& sch, const LoopRV& loop, int64_t extent, const std::vector<int64_t>& inner,
                         int64_t max_inner, const DefaultCPUScheduleOptions& opt);

// The factors SplitByKnob offers for a divisible `extent` with min_factor > 1:
// the divisors d of `extent` with min_factor <= d <= max_inner and
// extent / d >= min_factor, ascending (`inner` added when valid and missing).
std::vector<int64_t> ValidSplitFactors(int64_t extent, int64_t inner, int64_t max_inner, int64_t min_factor);

// The constant extent of `loop`, or -1.
int64_t LoopExtentOr(const Schedule& sch, const LoopRV& loop);

// LoopExtentOr of each of `loops`, in order.
std::vector<int64_t> LoopExtents(const Schedule& sch, const Array<LoopRV>& loops);

}  // namespace tir
}  // namespace tessera
