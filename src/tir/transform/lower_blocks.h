// LowerBlocks: removes TensorIR blocks, leaving plain loop nests. Block
// iteration variables are replaced by their bound values, non-trivial
// predicates become `if` statements, block-allocated buffers become
// Allocate + DeclBuffer scopes, and match_buffers are rewritten to index
// their source buffer. Runs after LowerInitBlock, before FlattenBuffer.
#pragma once

#include "tir/function.h"

namespace tessera {
namespace tir {

PrimFunc LowerBlocks(PrimFunc func);

}  // namespace tir
}  // namespace tessera
