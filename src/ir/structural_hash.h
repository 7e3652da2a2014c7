// Structural hashing of IR, consistent with StructuralEqual: equal nodes
// hash alike. Defined variables hash by the order of their definition (so
// names never matter); the hash of IR without free variables is the same in
// every run. IR layer; used by the tuning database and caches keyed by IR.
#pragma once

#include <cstdint>

#include "ir/structural_equal.h"

namespace tessera {

// Free variables hash by identity, unless `map_free_vars` (then by the order
// in which they are met, as StructuralEqual maps them).
uint64_t StructuralHash(const Any& node, bool map_free_vars = false);

}  // namespace tessera
