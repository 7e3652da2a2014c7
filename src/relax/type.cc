// Relax types: construction, reflection (structural equality, JSON), the
// relax.* / ir.* constructors, and GetStaticType (struct info -> type). See type.h.
#include "relax/type.h"

#include "runtime/error.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {

namespace {

template <typename T>
ObjectPtr<T> Make() {
  return make_object<T>();
}

ObjectRef ShapeType(int ndim) {
  TESSERA_CHECK_OR_THROW(ndim >= -1, ValueError) << "relax.ShapeType: ndim must be >= -1, got " << ndim;
  auto n = Make<ShapeTypeNode>();
  n->ndim = ndim;
  return ObjectRef(n);
}

ObjectRef DynTensorType(int ndim, DataType dtype) {
  TESSERA_CHECK_OR_THROW(ndim >= -1, ValueError) << "relax.DynTensorType: ndim must be >= -1, got " << ndim;
  auto n = Make<DynTensorTypeNode>();
  n->ndim = ndim;
  n->dtype = dtype;
  return ObjectRef(n);
}

ObjectRef TupleType(Array<ObjectRef> fields) {
  auto n = Make<TupleTypeNode>();
  n->fields = std::move(fields);
  return ObjectRef(n);
}

ObjectRef FuncType(Array<ObjectRef> args, ObjectRef ret) {
  auto n = Make<FuncTypeNode>();
  n->arg_types = std::move(args);
  n->ret_type = std::move(ret);
  return ObjectRef(n);
}

}  // namespace

ObjectRef GetStaticType(const StructInfo& sinfo) {
  if (!sinfo.defined() || sinfo.as<ObjectStructInfoNode>()) return ObjectRef(Make<ObjectTypeNode>());
  if (const auto* p = sinfo.as<PrimStructInfoNode>()) return PrimType(p->dtype);
  if (const auto* s = sinfo.as<ShapeStructInfoNode>()) return ShapeType(s->ndim);
  if (const auto* t = sinfo.as<TensorStructInfoNode>()) return DynTensorType(t->ndim, t->dtype);
  if (const auto* tu = sinfo.as<TupleStructInfoNode>()) {
    Array<ObjectRef> fields;
    for (const StructInfo& f : tu->fields) fields.push_back(GetStaticType(f));
    return TupleType(fields);
  }
  if (const auto* f = sinfo.as<FuncStructInfoNode>()) {
    if (f->IsOpaque()) return ObjectRef(Make<PackedFuncTypeNode>());
    Array<ObjectRef> args;
    for (const StructInfo& p : *f->params) args.push_back(GetStaticType(p));
    return FuncType(args, GetStaticType(f->ret));
  }
  TESSERA_THROW(TypeError) << "relax.analysis.get_static_type: unsupported struct info " << sinfo->GetTypeKey();
}

TESSERA_REGISTER_OBJECT_TYPE(ObjectTypeNode);
TESSERA_REGISTER_OBJECT_TYPE(ShapeTypeNode);
TESSERA_REGISTER_OBJECT_TYPE(DynTensorTypeNode);
TESSERA_REGISTER_OBJECT_TYPE(PackedFuncTypeNode);
TESSERA_REGISTER_OBJECT_TYPE(TupleTypeNode);
TESSERA_REGISTER_OBJECT_TYPE(FuncTypeNode);
TESSERA_REGISTER_NODE(ObjectTypeNode).ignore("span", &ObjectTypeNode::span);
TESSERA_REGISTER_NODE(PackedFuncTypeNode).ignore("span", &PackedFuncTypeNode::span);
TESSERA_REGISTER_NODE(ShapeTypeNode).field("ndim", &ShapeTypeNode::ndim);
TESSERA_REGISTER_NODE(DynTensorTypeNode).field("ndim", &DynTensorTypeNode::ndim).field("dtype", &DynTensorTypeNode::dtype);
TESSERA_REGISTER_NODE(TupleTypeNode).field("fields", &TupleTypeNode::fields);
TESSERA_REGISTER_NODE(FuncTypeNode).field("arg_types", &FuncTypeNode::arg_types).field("ret_type", &FuncTypeNode::ret_type);

TESSERA_REGISTER_GLOBAL("relax.ObjectType").set_body_typed([]() { return ObjectRef(Make<ObjectTypeNode>()); });
TESSERA_REGISTER_GLOBAL("relax.PackedFuncType").set_body_typed([]() { return ObjectRef(Make<PackedFuncTypeNode>()); });
TESSERA_REGISTER_GLOBAL("relax.ShapeType").set_body_typed([](int ndim) { return ShapeType(ndim); });
TESSERA_REGISTER_GLOBAL("relax.DynTensorType").set_body_typed([](int ndim, DataType dtype) {
  return DynTensorType(ndim, dtype);
});
TESSERA_REGISTER_GLOBAL("ir.TupleType").set_body_typed([](Array<ObjectRef> fields) { return TupleType(fields); });
TESSERA_REGISTER_GLOBAL("ir.FuncType").set_body_typed([](Array<ObjectRef> args, ObjectRef ret) {
  return FuncType(args, ret);
});
TESSERA_REGISTER_GLOBAL("relax.analysis.get_static_type").set_body_typed([](StructInfo s) { return GetStaticType(s); });

}  // namespace relax
}  // namespace tessera
