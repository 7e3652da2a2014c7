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
// (`inner` added when missing) with `inner` as the decision.
Array<LoopRV> SplitByKnob(const Schedule& sch, const LoopRV& loop, int64_t extent, int64_t inner, int64_t max_inner,
                          const std::vector<int64_t>& candidates, const DefaultCPUScheduleOptions& opt);

// The constant extent of `loop`, or -1.
int64_t LoopExtentOr(const Schedule& sch, const LoopRV& loop);

}  // namespace tir
}  // namespace tessera
