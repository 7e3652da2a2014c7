// ComputeOp construction and checks, input discovery, reflection and FFI (see compute_op.h).
#include "te/compute_op.h"

#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace te {

namespace {
// Walks a TE expression: ProducerLoads are recorded, Reduces counted.
class TEExprWalker : public tir::ExprVisitor {
 public:
  std::vector<Tensor> inputs;
  int reduces = 0;
  void VisitExprDefault_(const Object* op) override {
    if (const auto* load = dynamic_cast<const ProducerLoadNode*>(op)) {
      bool seen = false;
      for (const Tensor& t : inputs) seen = seen || (t->op.same_as(load->producer->op) &&
                                                     t->value_index == load->producer->value_index);
      if (!seen) inputs.push_back(load->producer);
      for (PrimExpr i : load->indices) VisitExpr(i);
    } else if (const auto* r = dynamic_cast<const ReduceNode*>(op)) {
      ++reduces;
      for (PrimExpr s : r->source) VisitExpr(s);
      VisitExpr(r->condition);
      for (PrimExpr s : r->init) VisitExpr(s);
    } else {
      tir::ExprVisitor::VisitExprDefault_(op);
    }
  }
};
}  // namespace

ComputeOp::ComputeOp(std::string name, std::string tag, Map<String, Any> attrs, Array<IterVar> axis,
                     Array<PrimExpr> body) {
  TESSERA_CHECK_OR_THROW(body.size() == 1, NotImplementedError)
      << "compute " << name << ": exactly one output expression is supported, got " << body.size();
  TESSERA_CHECK_OR_THROW(body[0].defined(), ValueError) << "compute " << name << ": undefined body";
  for (IterVar iv : axis) {
    TESSERA_CHECK_OR_THROW(iv.defined() && iv->iter_type == tir::kDataPar, ValueError)
        << "compute " << name << ": axis " << (iv.defined() ? iv->var->name_hint : std::string("?"))
        << " must be a data-parallel IterVar";
    const auto* lo = iv->dom->min.as<IntImmNode>();
    TESSERA_CHECK_OR_THROW(lo && lo->value == 0, ValueError)
        << "compute " << name << ": axis " << iv->var->name_hint << " must start at 0";
  }
  Array<IterVar> reduce_axis;
  TEExprWalker walker;
  if (const auto* r = body[0].as<ReduceNode>()) {
    reduce_axis = r->axis;
    for (IterVar iv : r->axis) {
      for (IterVar a : axis) {
        TESSERA_CHECK_OR_THROW(!a->var.same_as(iv->var), ValueError)
            << "compute " << name << ": " << iv->var->name_hint << " is both a spatial and a reduce axis";
      }
    }
    for (PrimExpr s : r->source) walker(s);
    walker(r->condition);
    for (PrimExpr s : r->init) walker(s);
  } else {
    walker(body[0]);
  }
  TESSERA_CHECK_OR_THROW(walker.reduces == 0, ValueError)
      << "compute " << name << ": a reduction (te.sum/max/min/comm_reducer) must be the whole body of the "
         "compute, not part of a larger expression or nested in another reduction";
  auto n = make_object<ComputeOpNode>();
  n->name = std::move(name);
  n->tag = std::move(tag);
  n->attrs = std::move(attrs);
  n->axis = std::move(axis);
  n->reduce_axis = std::move(reduce_axis);
  n->body = std::move(body);
  data_ = std::move(n);
}

std::vector<Tensor> InputTensors(const Operation& op) {
  const auto* c = op.as<ComputeOpNode>();
  if (c == nullptr) return {};
  TEExprWalker walker;
  for (PrimExpr e : c->body) walker(e);
  return walker.inputs;
}

TESSERA_REGISTER_OBJECT_TYPE(ComputeOpNode);
TESSERA_REGISTER_NODE(ComputeOpNode)
    .field("name", &ComputeOpNode::name)
    .field("tag", &ComputeOpNode::tag)
    .field("attrs", &ComputeOpNode::attrs)
    .def("axis", &ComputeOpNode::axis)
    .def("reduce_axis", &ComputeOpNode::reduce_axis)
    .field("body", &ComputeOpNode::body);

TESSERA_REGISTER_GLOBAL("te.ComputeOp").set_body_typed([](std::string name, std::string tag,
                                                          std::optional<Map<String, Any>> attrs, Array<IterVar> axis,
                                                          Array<PrimExpr> body) {
  return ComputeOp(name, tag, attrs.value_or(Map<String, Any>()), axis, body);
});
TESSERA_REGISTER_GLOBAL("te.OpOutput").set_body_typed([](Operation op, int i) {
  TESSERA_CHECK_OR_THROW(i == 0, IndexError) << "operation " << op->name << " has 1 output, asked for output " << i;
  if (const auto* p = op.as<PlaceholderOpNode>()) return Tensor(p->shape, p->dtype, op, 0);
  const auto* c = op.as<ComputeOpNode>();
  TESSERA_CHECK_OR_THROW(c != nullptr, TypeError) << "unknown operation kind " << op->GetTypeKey();
  Array<PrimExpr> shape;
  for (IterVar iv : c->axis) shape.push_back(iv->dom->extent);
  return Tensor(shape, c->body[0]->dtype, op, 0);
});
TESSERA_REGISTER_GLOBAL("te.OpInputTensors").set_body_typed([](Operation op) {
  Array<Tensor> out;
  for (const Tensor& t : InputTensors(op)) out.push_back(t);
  return out;
});

}  // namespace te
}  // namespace tessera
