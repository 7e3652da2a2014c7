// Block read/write region inference: computes the regions of buffers a
// block reads and writes from its body (as TVM's GetBlockAccessRegion), so
// blocks written without T.reads/T.writes get them filled in. TIR analysis;
// used by the TVMScript parser and by schedule primitives.
#pragma once

#include "tir/function.h"

namespace tessera {
namespace tir {

// Returns {reads, writes} of `block`: every buffer accessed in its body (and
// init), minus buffers allocated inside it, each with the union (bounding
// box) of the accessed indices relaxed over loops inside the block. A
// reduction block's output buffer is not listed among its reads when it is
// only read at the written location, matching TVM's printed modules.
std::pair<Array<BufferRegion>, Array<BufferRegion>> InferBlockAccessRegions(const Block& block);

// Fills in reads/writes of every block in `func` whose script did not give
// them (blocks marked with the annotation "tir.script_infer_regions" = 1 by
// the parser; the marker is removed).
PrimFunc CompleteBlockAccessRegions(const PrimFunc& func);

}  // namespace tir
}  // namespace tessera
