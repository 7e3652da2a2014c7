// IndexMap (`tvm.tir.IndexMap`): a map from buffer indices to new indices,
// `lambda i, j: (j // 4, i, j % 4)` as initial variables and final
// expressions. transform_layout takes one; it maps indices and shapes,
// inverts bijective affine maps and round-trips through JSON (schedule
// traces store it). TIR layer, beside PrimFunc.
#pragma once

#include <string>

#include "tir/expr.h"

namespace tessera {
namespace tir {

class IndexMap;

class IndexMapNode : public Object {
 public:
  Array<Var> initial_indices;
  Array<PrimExpr> final_indices;
  // The inverse when the user gave one or Inverse() derived it; not part of
  // structural equality (as in TVM).
  ObjectRef inverse_index_map;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(IndexMapNode, Object, "tir.IndexMap");
};

class IndexMap : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(IndexMap, ObjectRef, IndexMapNode);
  IndexMap(Array<Var> initial_indices, Array<PrimExpr> final_indices, ObjectRef inverse_index_map = ObjectRef());

  // The final indices with the initial variables replaced by `indices`
  // (simplified). ValueError when the arity differs.
  Array<PrimExpr> MapIndices(const Array<PrimExpr>& indices) const;
  // The shape of the image of a buffer of `shape` (constant shapes): each
  // final index's maximum + 1 over the domain. ValueError when an extent
  // is not a constant or a final index can be negative.
  Array<PrimExpr> MapShape(const Array<PrimExpr>& shape) const;
  // The inverse over a buffer of `shape`; ValueError naming the reason
  // when the map is not a bijective affine map of that domain.
  IndexMap Inverse(const Array<PrimExpr>& shape) const;
  // `lambda i, j: (j // 4, i, j % 4)` (final expressions as TVMScript).
  std::string AsLambda() const;
  // JSON text holding the variables (name, dtype) and the final
  // expressions; NotImplementedError for an expression JSON cannot hold.
  std::string ToJSON() const;
  static IndexMap FromJSON(const std::string& json);
};

}  // namespace tir
}  // namespace tessera
