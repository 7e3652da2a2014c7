// Where sample_compute_location may put a block, as TVM's
// CollectComputeLocation: "inline" (-2, when compute_inline would succeed),
// "root" (-1), then the loops of the first consumer down to the consumers'
// lowest common loop, skipping unit loops, data-parallel loops after a
// reduction loop and trailing reduction loops, where compute_at succeeds
// with a static nest (no loop extent of the moved block varying with a loop
// variable, which DisallowDynamicLoop would reject).
// A candidate's index is the loop's position among that consumer's loops
// (the decision a trace records). TIR schedule layer (sampling.cc).
#pragma once

#include <vector>

#include "tir/schedule/schedule.h"

namespace tessera {
namespace tir {

struct ComputeLocationCandidate {
  int64_t index;  // -2 inline, -1 root, else the loop's position
  Var loop;       // the loop (undefined for root; InlineMarkVar() for inline)
};
std::vector<ComputeLocationCandidate> CollectComputeLocation(const Schedule& sch, const BlockRV& block);

// The value of a loop handle that stands for the "inline" location:
// compute_at / reverse_compute_at at it inline the block instead (as TVM's
// inline mark).
const Var& InlineMarkVar();

}  // namespace tir
}  // namespace tessera
