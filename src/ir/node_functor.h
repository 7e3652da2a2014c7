// NodeDispatchTable: a table from a node's runtime type index to a handler,
// with unset entries falling back to the nearest registered ancestor type.
// IR layer; the TIR functors (tir/functor.h) dispatch through it, and the
// Relax expression functors will too.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/object.h"

namespace tessera {

template <typename FType>
class NodeDispatchTable {
 public:
  void Set(uint32_t type_index, FType f) {
    if (table_.size() <= type_index) table_.resize(type_index + 1);
    table_[type_index] = std::move(f);
  }
  // The handler of the type or of its nearest ancestor with one; nullptr when none.
  const FType* Find(uint32_t type_index) const {
    for (uint32_t i = type_index;; i = TypeRegistry::ParentOf(i)) {
      if (i < table_.size() && table_[i]) return &table_[i];
      if (i == TypeRegistry::kRootIndex) return nullptr;
    }
  }
  bool empty() const { return table_.empty(); }

 private:
  std::vector<FType> table_;
};

}  // namespace tessera
