// PrimFunc construction, reflection and FFI (see function.h).
#include "tir/function.h"

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace tir {

PrimFunc::PrimFunc(Array<Var> params, Stmt body, Map<Var, Buffer> buffer_map, Attrs attrs, DataType ret_type,
                   Span span) {
  TESSERA_CHECK_OR_THROW(body.defined(), ValueError) << "PrimFunc needs a body";
  for (const auto& kv : buffer_map.raw()) {
    bool found = false;
    for (Var p : params) found = found || p.same_as(kv.first.raw_object());
    TESSERA_CHECK_OR_THROW(found, ValueError)
        << "buffer_map binds " << kv.first.cast<Var>()->name_hint << ", which is not a parameter";
  }
  auto n = make_object<PrimFuncNode>();
  n->params = std::move(params);
  n->body = std::move(body);
  n->buffer_map = std::move(buffer_map);
  n->attrs = std::move(attrs);
  n->ret_type = ret_type;
  n->span = std::move(span);
  data_ = std::move(n);
}

TESSERA_REGISTER_OBJECT_TYPE(PrimFuncNode);
// Parameters are definition points; the attributes (BaseFuncNode::attrs)
// are compared after the signature.
TESSERA_REGISTER_NODE(PrimFuncNode)
    .def("params", &PrimFuncNode::params)
    .field("buffer_map", &PrimFuncNode::buffer_map)
    .field("ret_type", &PrimFuncNode::ret_type)
    .field("attrs", &PrimFuncNode::attrs)
    .field("body", &PrimFuncNode::body);

TESSERA_REGISTER_GLOBAL("tir.PrimFunc").set_body_typed([](Array<Var> params, Stmt body, std::optional<Map<Var, Buffer>> bmap,
                                                          std::optional<Attrs> attrs) {
  return PrimFunc(params, body, bmap.value_or(Map<Var, Buffer>()), attrs.value_or(Attrs()));
});
TESSERA_REGISTER_GLOBAL("tir.PrimFuncWithBody").set_body_typed([](PrimFunc f, Stmt body) {
  f.CopyOnWrite()->body = body;
  return f;
});

}  // namespace tir
}  // namespace tessera
