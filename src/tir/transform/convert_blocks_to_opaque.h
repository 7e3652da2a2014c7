// ConvertBlocksToOpaque: makes every block opaque: its iteration variables
// are replaced by their bound values (in the body, read/write regions and
// match_buffer regions) and the block keeps no iter_vars. Runs after
// LowerInitBlock (a block with an `init` raises ValueError: the init needs
// the reduction variables), before LowerOpaqueBlock.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

PrimFunc ConvertBlocksToOpaque(PrimFunc func);

namespace transform {
// The pass form (registered as tir.transform.ConvertBlocksToOpaque; opt_level 0).
tessera::transform::Pass ConvertBlocksToOpaque();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
