// CommReducer construction (checked arity and dtypes), its reflection
// (operand variables are definitions in structural equality) and the
// tir.CommReducer global. See comm_reducer.h. TIR layer.
#include "tir/comm_reducer.h"

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace tir {

CommReducer::CommReducer(Array<Var> lhs, Array<Var> rhs, Array<PrimExpr> result, Array<PrimExpr> identity_element) {
  size_t n = result.size();
  TESSERA_CHECK_OR_THROW(n > 0, ValueError) << "a comm_reducer needs at least one value";
  TESSERA_CHECK_OR_THROW(lhs.size() == n && rhs.size() == n && identity_element.size() == n, ValueError)
      << "a comm_reducer of " << n << " value" << (n == 1 ? "" : "s") << " needs " << n << " left and " << n
      << " right operands and " << n << " identity element" << (n == 1 ? "" : "s") << ", got " << lhs.size() << ", "
      << rhs.size() << " and " << identity_element.size();
  for (size_t i = 0; i < n; ++i) {
    TESSERA_CHECK_OR_THROW(result[i].defined() && identity_element[i].defined(), ValueError)
        << "comm_reducer value " << i << " is undefined";
    DataType t = result[i].dtype();
    TESSERA_CHECK_OR_THROW(lhs[i].dtype() == t && rhs[i].dtype() == t && identity_element[i].dtype() == t, ValueError)
        << "comm_reducer value " << i << ": the operands (" << lhs[i].dtype().str() << ", " << rhs[i].dtype().str()
        << "), the result (" << t.str() << ") and the identity (" << identity_element[i].dtype().str()
        << ") must have the same dtype";
  }
  auto node = make_object<CommReducerNode>();
  node->lhs = std::move(lhs);
  node->rhs = std::move(rhs);
  node->result = std::move(result);
  node->identity_element = std::move(identity_element);
  data_ = std::move(node);
}

TESSERA_REGISTER_OBJECT_TYPE(CommReducerNode);
TESSERA_REGISTER_NODE(CommReducerNode)
    .def("lhs", &CommReducerNode::lhs)
    .def("rhs", &CommReducerNode::rhs)
    .field("result", &CommReducerNode::result)
    .field("identity_element", &CommReducerNode::identity_element);

TESSERA_REGISTER_GLOBAL("tir.CommReducer")
    .set_body_typed([](Array<Var> lhs, Array<Var> rhs, Array<PrimExpr> result, Array<PrimExpr> identity) {
      return CommReducer(lhs, rhs, result, identity);
    });

}  // namespace tir
}  // namespace tessera
