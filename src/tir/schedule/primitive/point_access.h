// How a block accesses one buffer "at a point": the indices of its loads and
// stores of the buffer (body and init) and whether they all agree, and the
// rewrite of those accesses to another buffer at given indices. Shared by
// reindex and reindex_cache_read/write. TIR schedule layer (primitives).
#pragma once

#include <optional>

#include "tir/functor.h"

namespace tessera {
namespace tir {

struct PointAccess {
  std::optional<Array<PrimExpr>> indices;  // those of the first access (none: no access)
  bool single = true;                      // every access uses the same indices
  bool loaded = false, stored = false;
  const BlockNode* nested = nullptr;       // the first block found inside the block
  bool opaque = false;                     // the buffer's data variable used directly
};

// The accesses of `buf` in `block` (its body first, then its init; nested
// blocks are entered and noted).
PointAccess CollectPointAccess(const BlockNode* block, const Buffer& buf);

// `stmt` with every load and store of `from` (at any indices) turned into
// one of `to` at `to_indices`.
Stmt RewritePointAccess(const Stmt& stmt, const Buffer& from, const Buffer& to, const Array<PrimExpr>& to_indices);

}  // namespace tir
}  // namespace tessera
