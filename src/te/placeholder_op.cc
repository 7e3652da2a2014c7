// PlaceholderOp construction, reflection and FFI (see placeholder_op.h).
#include "te/placeholder_op.h"

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace te {

PlaceholderOp::PlaceholderOp(std::string name, Array<PrimExpr> shape, DataType dtype) {
  CheckShape(shape, "placeholder " + name);
  TESSERA_CHECK_OR_THROW(!dtype.is_void(), ValueError) << "placeholder " << name << " needs a dtype";
  auto n = make_object<PlaceholderOpNode>();
  n->name = std::move(name);
  n->shape = std::move(shape);
  n->dtype = dtype;
  data_ = std::move(n);
}

Tensor placeholder(Array<PrimExpr> shape, DataType dtype, std::string name) {
  PlaceholderOp op(std::move(name), shape, dtype);
  return Tensor(op->shape, op->dtype, op, 0);
}

TESSERA_REGISTER_OBJECT_TYPE(PlaceholderOpNode);
TESSERA_REGISTER_NODE(PlaceholderOpNode)
    .field("name", &PlaceholderOpNode::name)
    .field("tag", &PlaceholderOpNode::tag)
    .field("attrs", &PlaceholderOpNode::attrs)
    .field("shape", &PlaceholderOpNode::shape)
    .field("dtype", &PlaceholderOpNode::dtype);

TESSERA_REGISTER_GLOBAL("te.Placeholder").set_body_typed([](Array<PrimExpr> shape, DataType dtype, std::string name) {
  return placeholder(shape, dtype, name);
});

}  // namespace te
}  // namespace tessera
