// LowerOpaqueBlock: removes TensorIR blocks, leaving plain loop nests.
// Non-trivial predicates become `if` statements, block-allocated buffers
// become Allocate + DeclBuffer scopes (storage_align padding applied), and
// match_buffers are rewritten to index their source buffer. Runs after
// ConvertBlocksToOpaque (blocks that still have iteration variables are
// accepted too: they are bound to their values); a block that still has an
// `init` raises ValueError (LowerInitBlock must run first).
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

PrimFunc LowerOpaqueBlock(PrimFunc func);

namespace transform {
tessera::transform::Pass LowerOpaqueBlock();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
