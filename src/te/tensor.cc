// Tensor, Operation and ProducerLoad: construction, reflection and FFI (see tensor.h).
#include "te/tensor.h"

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace te {

void CheckShape(const Array<PrimExpr>& shape, const std::string& what) {
  for (size_t i = 0; i < shape.size(); ++i) {
    PrimExpr d = shape[i];
    TESSERA_CHECK_OR_THROW(d.defined(), ValueError) << what << ": dimension " << i << " is undefined";
    TESSERA_CHECK_OR_THROW(d->dtype.is_int() || d->dtype.is_uint(), TypeError)
        << what << ": dimension " << i << " must be an integer expression, got dtype " << d->dtype;
    if (const auto* imm = d.as<IntImmNode>()) {
      TESSERA_CHECK_OR_THROW(imm->value >= 0, ValueError)
          << what << ": dimension " << i << " is negative (" << imm->value << ")";
    }
  }
}

Tensor::Tensor(Array<PrimExpr> shape, DataType dtype, Operation op, int value_index) {
  auto n = make_object<TensorNode>();
  n->shape = std::move(shape);
  n->dtype = dtype;
  n->op = std::move(op);
  n->value_index = value_index;
  data_ = std::move(n);
}

ProducerLoad::ProducerLoad(Tensor producer, Array<PrimExpr> indices) {
  TESSERA_CHECK_OR_THROW(producer.defined(), ValueError) << "ProducerLoad from an undefined tensor";
  const std::string& name = producer->op.defined() ? producer->op->name : std::string("?");
  TESSERA_CHECK_OR_THROW(indices.size() == producer->shape.size(), IndexError)
      << "tensor " << name << " has " << producer->shape.size() << " dimensions but is indexed with "
      << indices.size() << " indices";
  for (size_t i = 0; i < indices.size(); ++i) {
    PrimExpr idx = indices[i];
    TESSERA_CHECK_OR_THROW(idx.defined() && (idx->dtype.is_int() || idx->dtype.is_uint()), TypeError)
        << "index " << i << " of tensor " << name << " must be an integer expression"
        << (idx.defined() ? ", got dtype " : "") << (idx.defined() ? idx->dtype : DataType::Void());
  }
  auto n = make_object<ProducerLoadNode>();
  n->dtype = producer->dtype;
  n->producer = std::move(producer);
  n->indices = std::move(indices);
  data_ = std::move(n);
}

TESSERA_REGISTER_OBJECT_TYPE(OperationNode);
TESSERA_REGISTER_OBJECT_TYPE(TensorNode);
TESSERA_REGISTER_OBJECT_TYPE(ProducerLoadNode);

TESSERA_REGISTER_NODE(TensorNode)
    .field("shape", &TensorNode::shape)
    .field("dtype", &TensorNode::dtype)
    .field("op", &TensorNode::op)
    .field("value_index", &TensorNode::value_index);
TESSERA_REGISTER_NODE(ProducerLoadNode)
    .field("producer", &ProducerLoadNode::producer)
    .field("indices", &ProducerLoadNode::indices);

TESSERA_REGISTER_GLOBAL("te.ProducerLoad").set_body_typed([](Tensor t, Array<PrimExpr> indices) {
  return ProducerLoad(t, indices);
});
TESSERA_REGISTER_GLOBAL("te.TensorEqual").set_body_typed([](Tensor a, Tensor b) {
  return a.same_as(b) || (a->op.same_as(b->op) && a->value_index == b->value_index);
});

}  // namespace te
}  // namespace tessera
