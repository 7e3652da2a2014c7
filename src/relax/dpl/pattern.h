// Dataflow patterns (TVM v0.18's relax.dpl node kinds): what a Relax
// expression must look like to match. Leaves (Expr, Var, DataflowVar,
// GlobalVar, ExternFunc, Constant, Wildcard, PrimArr), structure (Call,
// Function, Tuple, UnorderedTuple, TupleGetItem), logic (And, Or, Not) and
// refinements of an inner pattern (Attr, DataType, Shape, StructInfo).
// The matcher (matcher.h) interprets them; the rewriters index them by root op.
#pragma once

#include <string>

#include "relax/expr.h"

namespace tessera {
namespace relax {
namespace dpl {

class DFPatternNode : public Object {
 public:
  TESSERA_DECLARE_OBJECT_INFO(DFPatternNode, Object, "relax.dpl.DFPattern");
};
class DFPattern : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(DFPattern, ObjectRef, DFPatternNode);
};

// Declares a final pattern node kind `Name##Node` with the given members.
#define TESSERA_DPL_NODE(Name, Base, ...)                                              \
  class Name##Node : public Base {                                                   \
   public:                                                                           \
    __VA_ARGS__                                                                      \
    TESSERA_DECLARE_OBJECT_INFO(Name##Node, Base, "relax.dpl." #Name);              \
  };

// Matches an expression structurally equal to `expr` (is_op, is_expr).
TESSERA_DPL_NODE(ExprPattern, DFPatternNode, RelaxExpr expr;)
// A Var (any kind) named `name` ("" any name).
TESSERA_DPL_NODE(VarPattern, DFPatternNode, std::string name;)
TESSERA_DPL_NODE(DataflowVarPattern, VarPatternNode, )
TESSERA_DPL_NODE(GlobalVarPattern, DFPatternNode, std::string name;)
TESSERA_DPL_NODE(ExternFuncPattern, DFPatternNode, std::string global_symbol;)
TESSERA_DPL_NODE(ConstantPattern, DFPatternNode, )
TESSERA_DPL_NODE(WildcardPattern, DFPatternNode, )
// A call of `op` with `args`; with varg_default_wildcard, further arguments match anything.
TESSERA_DPL_NODE(CallPattern, DFPatternNode, DFPattern op; Array<DFPattern> args; bool varg_default_wildcard = false;)
TESSERA_DPL_NODE(FunctionPattern, DFPatternNode, Array<DFPattern> params; DFPattern body;)
TESSERA_DPL_NODE(TuplePattern, DFPatternNode, Array<DFPattern> fields;)
// A tuple whose fields match `fields` in some order.
TESSERA_DPL_NODE(UnorderedTuplePattern, DFPatternNode, Array<DFPattern> fields;)
// tuple[index]; index -1: any index.
TESSERA_DPL_NODE(TupleGetItemPattern, DFPatternNode, DFPattern tuple; int index = -1;)
TESSERA_DPL_NODE(AndPattern, DFPatternNode, DFPattern left; DFPattern right;)
TESSERA_DPL_NODE(OrPattern, DFPatternNode, DFPattern left; DFPattern right;)
TESSERA_DPL_NODE(NotPattern, DFPatternNode, DFPattern reject;)
// `pattern`, whose call (or function) attributes include `attrs`.
TESSERA_DPL_NODE(AttrPattern, DFPatternNode, DFPattern pattern; Map<String, Any> attrs;)
TESSERA_DPL_NODE(DataTypePattern, DFPatternNode, DFPattern pattern; DataType dtype;)
TESSERA_DPL_NODE(ShapePattern, DFPatternNode, DFPattern pattern; Array<PrimExpr> shape;)
TESSERA_DPL_NODE(StructInfoPattern, DFPatternNode, DFPattern pattern; StructInfo struct_info;)
// `pattern`, whose static type (GetStaticType of its struct info) equals `type` (TVM's has_type).
TESSERA_DPL_NODE(TypePattern, DFPatternNode, DFPattern pattern; ObjectRef type;)
// A shape value (R.shape([...])) with these dims.
TESSERA_DPL_NODE(PrimArrPattern, DFPatternNode, Array<PrimExpr> fields;)
#undef TESSERA_DPL_NODE

// A one-line rendering for messages: `relax.add(*, *)`, `Wildcard`, ...
std::string PatternText(const DFPattern& p);

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
