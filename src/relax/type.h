// Relax types (TVM's relax.ty and ir.TupleType/FuncType): the coarse, static
// view of a struct info without shapes or values, as get_static_type gives it
// (ObjectType, ShapeType(ndim), DynTensorType(ndim, dtype), TupleType,
// FuncType, PackedFuncType; a scalar is an ir.PrimType). Relax IR layer;
// used by relax.analysis.get_static_type and Expr.checked_type.
#pragma once

#include "ir/type.h"
#include "relax/struct_info.h"

namespace tessera {
namespace relax {

// Each type carries a span (ignored by structural equality) as TVM's do.
class ObjectTypeNode : public Object {
 public:
  Span span;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ObjectTypeNode, Object, "relax.ObjectType");
};
class ShapeTypeNode : public Object {
 public:
  int ndim = -1;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ShapeTypeNode, Object, "relax.ShapeType");
};
class DynTensorTypeNode : public Object {
 public:
  int ndim = -1;
  DataType dtype = DataType::Void();
  TESSERA_DECLARE_FINAL_OBJECT_INFO(DynTensorTypeNode, Object, "relax.DynTensorType");
};
class PackedFuncTypeNode : public Object {
 public:
  Span span;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PackedFuncTypeNode, Object, "relax.PackedFuncType");
};
class TupleTypeNode : public Object {
 public:
  Array<ObjectRef> fields;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(TupleTypeNode, Object, "TupleType");
};
class FuncTypeNode : public Object {
 public:
  Array<ObjectRef> arg_types;
  ObjectRef ret_type;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(FuncTypeNode, Object, "FuncType");
};

// The static type of a struct info (TVM's GetStaticType).
ObjectRef GetStaticType(const StructInfo& sinfo);

}  // namespace relax
}  // namespace tessera
