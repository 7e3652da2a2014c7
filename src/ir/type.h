// Types of IR values beyond their DataType, as TVM's ir.Type: PrimType (a
// scalar/vector dtype) and PointerType (what a handle points to and the
// storage scope of that memory, e.g. "shared"). A tir.Var of dtype handle may
// carry a PointerType as its type_annotation (T.handle("float32", "shared"),
// the buffer variable of T.allocate(..., scope="shared")). IR layer.
#pragma once

#include <optional>
#include <string>

#include "runtime/data_type.h"
#include "runtime/object.h"

namespace tessera {

class PrimTypeNode : public Object {
 public:
  DataType dtype;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PrimTypeNode, Object, "PrimType");
};
class PrimType : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PrimType, ObjectRef, PrimTypeNode);
  explicit PrimType(DataType dtype);
};

class PointerTypeNode : public Object {
 public:
  ObjectRef element_type;     // a PrimType
  std::string storage_scope;  // "global", "shared", "local", ...
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PointerTypeNode, Object, "PointerType");
};
class PointerType : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PointerType, ObjectRef, PointerTypeNode);
  // ValueError for an empty storage scope.
  PointerType(ObjectRef element_type, std::string storage_scope = "global");
  // The element dtype when the element type is a PrimType.
  std::optional<DataType> element_dtype() const;
};

}  // namespace tessera
