// PrimType and PointerType: construction, reflection (structural equality,
// JSON) and the ir.PrimType / ir.PointerType globals. See type.h. IR layer.
#include "ir/type.h"

#include "runtime/error.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {

PrimType::PrimType(DataType dtype) {
  auto n = make_object<PrimTypeNode>();
  n->dtype = dtype;
  data_ = std::move(n);
}

PointerType::PointerType(ObjectRef element_type, std::string storage_scope) {
  TESSERA_CHECK_OR_THROW(!storage_scope.empty(), ValueError) << "a pointer's storage scope cannot be empty";
  TESSERA_CHECK_OR_THROW(!element_type.defined() || element_type.as<PrimTypeNode>(), TypeError)
      << "a pointer's element type must be a PrimType, got " << element_type->GetTypeKey();
  auto n = make_object<PointerTypeNode>();
  n->element_type = std::move(element_type);
  n->storage_scope = std::move(storage_scope);
  data_ = std::move(n);
}

std::optional<DataType> PointerType::element_dtype() const {
  if (const auto* p = get()->element_type.as<PrimTypeNode>()) return p->dtype;
  return std::nullopt;
}

TESSERA_REGISTER_OBJECT_TYPE(PrimTypeNode);
TESSERA_REGISTER_OBJECT_TYPE(PointerTypeNode);
TESSERA_REGISTER_NODE(PrimTypeNode).field("dtype", &PrimTypeNode::dtype);
TESSERA_REGISTER_NODE(PointerTypeNode)
    .field("element_type", &PointerTypeNode::element_type)
    .field("storage_scope", &PointerTypeNode::storage_scope);

TESSERA_REGISTER_GLOBAL("ir.PrimType").set_body_typed([](DataType dtype) { return PrimType(dtype); });
TESSERA_REGISTER_GLOBAL("ir.PointerType").set_body_typed([](PrimType element, std::string scope) {
  return PointerType(element, scope);
});

}  // namespace tessera
