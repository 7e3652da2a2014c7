// CommReducer and Reduce: validation, combination, reflection and FFI (see reduce.h).
#include "te/reduce.h"

#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace te {

CommReducer::CommReducer(Array<Var> lhs, Array<Var> rhs, Array<PrimExpr> result, Array<PrimExpr> identity_element) {
  TESSERA_CHECK_OR_THROW(lhs.size() == 1 && rhs.size() == 1 && result.size() == 1 && identity_element.size() == 1,
                         NotImplementedError)
      << "te.comm_reducer: only single-value reducers are supported (got " << lhs.size() << " lhs, " << rhs.size()
      << " rhs, " << result.size() << " results, " << identity_element.size() << " identity elements)";
  TESSERA_CHECK_OR_THROW(result[0].defined() && identity_element[0].defined(), ValueError)
      << "te.comm_reducer: undefined combiner result or identity element";
  TESSERA_CHECK_OR_THROW(result[0]->dtype == lhs[0]->dtype && identity_element[0]->dtype == lhs[0]->dtype, ValueError)
      << "te.comm_reducer: combiner of " << lhs[0]->dtype << " values gives " << result[0]->dtype
      << " with identity element of dtype " << identity_element[0]->dtype;
  auto n = make_object<CommReducerNode>();
  n->lhs = std::move(lhs);
  n->rhs = std::move(rhs);
  n->result = std::move(result);
  n->identity_element = std::move(identity_element);
  data_ = std::move(n);
}

namespace {
class SubstituteTwo : public tir::ExprMutator {
 public:
  SubstituteTwo(const VarNode* x, PrimExpr a, const VarNode* y, PrimExpr b) : x_(x), y_(y), a_(a), b_(b) {}
  PrimExpr VisitExpr_(const VarNode* op) override {
    if (op == x_) return a_;
    if (op == y_) return b_;
    return GetRef<PrimExpr>(op);
  }

 private:
  const VarNode *x_, *y_;
  PrimExpr a_, b_;
};
}  // namespace

PrimExpr CommReducer::Combine(const PrimExpr& a, const PrimExpr& b) const {
  return SubstituteTwo(get()->lhs[0].get(), a, get()->rhs[0].get(), b)(get()->result[0]);
}

Reduce::Reduce(CommReducer combiner, Array<PrimExpr> source, Array<IterVar> axis, PrimExpr condition, int value_index,
               Array<PrimExpr> init) {
  TESSERA_CHECK_OR_THROW(combiner.defined(), ValueError) << "Reduce needs a combiner";
  TESSERA_CHECK_OR_THROW(source.size() == 1 && source[0].defined(), ValueError)
      << "Reduce needs exactly one source expression, got " << source.size();
  TESSERA_CHECK_OR_THROW(!axis.empty(), ValueError) << "a reduction needs at least one te.reduce_axis";
  for (IterVar iv : axis) {
    TESSERA_CHECK_OR_THROW(iv.defined() && iv->iter_type == tir::kCommReduce, ValueError)
        << "reduction axis " << (iv.defined() ? iv->var->name_hint : std::string("?"))
        << " is not a reduce axis (create it with te.reduce_axis)";
  }
  DataType dt = combiner->lhs[0]->dtype;
  TESSERA_CHECK_OR_THROW(source[0]->dtype == dt, ValueError)
      << "reduction of a " << source[0]->dtype << " expression with a combiner of " << dt << " values";
  if (!condition.defined()) condition = IntImm(DataType::Bool(), 1);
  TESSERA_CHECK_OR_THROW(condition->dtype.is_bool(), TypeError)
      << "the where= condition of a reduction must be boolean, got " << condition->dtype;
  TESSERA_CHECK_OR_THROW(value_index == 0, ValueError) << "Reduce value_index must be 0, got " << value_index;
  TESSERA_CHECK_OR_THROW(init.empty() || (init.size() == 1 && init[0].defined() && init[0]->dtype == dt), ValueError)
      << "the init= value of a reduction must be one " << dt << " expression";
  auto n = make_object<ReduceNode>();
  n->dtype = dt;
  n->combiner = std::move(combiner);
  n->source = std::move(source);
  n->axis = std::move(axis);
  n->condition = std::move(condition);
  n->value_index = value_index;
  n->init = std::move(init);
  data_ = std::move(n);
}

TESSERA_REGISTER_OBJECT_TYPE(CommReducerNode);
TESSERA_REGISTER_OBJECT_TYPE(ReduceNode);
TESSERA_REGISTER_NODE(CommReducerNode)
    .def("lhs", &CommReducerNode::lhs)
    .def("rhs", &CommReducerNode::rhs)
    .field("result", &CommReducerNode::result)
    .field("identity_element", &CommReducerNode::identity_element);
TESSERA_REGISTER_NODE(ReduceNode)
    .field("combiner", &ReduceNode::combiner)
    .field("source", &ReduceNode::source)
    .def("axis", &ReduceNode::axis)
    .field("condition", &ReduceNode::condition)
    .field("value_index", &ReduceNode::value_index)
    .field("init", &ReduceNode::init);

TESSERA_REGISTER_GLOBAL("te.CommReducer").set_body_typed([](Array<Var> lhs, Array<Var> rhs, Array<PrimExpr> result,
                                                            Array<PrimExpr> identity) {
  return CommReducer(lhs, rhs, result, identity);
});
TESSERA_REGISTER_GLOBAL("te.CommReducerCombine").set_body_typed([](CommReducer c, PrimExpr a, PrimExpr b) {
  return c.Combine(a, b);
});
TESSERA_REGISTER_GLOBAL("te.Reduce").set_body_typed([](CommReducer c, Array<PrimExpr> source, Array<IterVar> axis,
                                                      std::optional<PrimExpr> cond, int value_index,
                                                      Array<PrimExpr> init) {
  return Reduce(c, source, axis, cond.value_or(PrimExpr()), value_index, init);
});

}  // namespace te
}  // namespace tessera
