// CommReducer and Reduce: validation, combination, reflection and FFI (see reduce.h).
#include "te/reduce.h"

#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace te {

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

PrimExpr CombineReducer(const CommReducer& reducer, const PrimExpr& a, const PrimExpr& b) {
  return SubstituteTwo(reducer->lhs[0].get(), a, reducer->rhs[0].get(), b)(reducer->result[0]);
}

Reduce::Reduce(CommReducer combiner, Array<PrimExpr> source, Array<IterVar> axis, PrimExpr condition, int value_index,
               Array<PrimExpr> init) {
  TESSERA_CHECK_OR_THROW(combiner.defined(), ValueError) << "Reduce needs a combiner";
  TESSERA_CHECK_OR_THROW(combiner->result.size() == 1, NotImplementedError)
      << "te: only single-value reducers are supported (got " << combiner->result.size() << " values)";
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

TESSERA_REGISTER_OBJECT_TYPE(ReduceNode);
TESSERA_REGISTER_NODE(ReduceNode)
    .field("combiner", &ReduceNode::combiner)
    .field("source", &ReduceNode::source)
    .def("axis", &ReduceNode::axis)
    .field("condition", &ReduceNode::condition)
    .field("value_index", &ReduceNode::value_index)
    .field("init", &ReduceNode::init);

TESSERA_REGISTER_GLOBAL("te.CommReducer").set_body_typed([](Array<Var> lhs, Array<Var> rhs, Array<PrimExpr> result,
                                                            Array<PrimExpr> identity) {
  TESSERA_CHECK_OR_THROW(lhs.size() == 1 && rhs.size() == 1 && result.size() == 1 && identity.size() == 1,
                         NotImplementedError)
      << "te.comm_reducer: only single-value reducers are supported (got " << lhs.size() << " lhs, " << rhs.size()
      << " rhs, " << result.size() << " results, " << identity.size() << " identity elements)";
  return CommReducer(lhs, rhs, result, identity);
});
TESSERA_REGISTER_GLOBAL("te.CommReducerCombine").set_body_typed([](CommReducer c, PrimExpr a, PrimExpr b) {
  return CombineReducer(c, a, b);
});
TESSERA_REGISTER_GLOBAL("te.Reduce").set_body_typed([](CommReducer c, Array<PrimExpr> source, Array<IterVar> axis,
                                                      std::optional<PrimExpr> cond, int value_index,
                                                      Array<PrimExpr> init) {
  return Reduce(c, source, axis, cond.value_or(PrimExpr()), value_index, init);
});

}  // namespace te
}  // namespace tessera
