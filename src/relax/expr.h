// Relax expressions, bindings and blocks (TVM v0.18's relax/expr.h): Var,
// DataflowVar, Constant, Tuple, TupleGetItem, Call, ShapeExpr, PrimValue,
// StringImm, DataTypeImm, ExternFunc, Function, SeqExpr, If; VarBinding,
// MatchCast; BindingBlock, DataflowBlock. Relax IR layer. Build them through
// the BlockBuilder (block_builder.h), which fills `struct_info_`.
#pragma once

#include <string>

#include "ir/op.h"
#include "relax/struct_info.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace relax {

// A shape value (R.shape([1, n])): its dims are PrimExprs.
class ShapeExprNode : public RelaxExprNode {
 public:
  Array<PrimExpr> values;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ShapeExprNode, RelaxExprNode, "relax.expr.ShapeExpr");
};
class ShapeExpr : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ShapeExpr, RelaxExpr, ShapeExprNode);
  // Raises TypeError when a dim is not an integer expression.
  explicit ShapeExpr(Array<PrimExpr> values, Span span = Span());
};

// A variable bound once (a parameter, a binding's target). Compared by its
// definition point; `name_hint` is not compared; its struct info is.
class VarNode : public RelaxExprNode {
 public:
  std::string name_hint;
  TESSERA_DECLARE_OBJECT_INFO(VarNode, RelaxExprNode, "relax.expr.Var");
};
class Var : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Var, RelaxExpr, VarNode);
  // `struct_info` may be undefined only for a var the normalizer will type (a binding's target).
  Var(std::string name_hint, std::optional<StructInfo> struct_info, Span span = Span());
};

// A variable local to a dataflow block.
class DataflowVarNode : public VarNode {
 public:
  TESSERA_DECLARE_FINAL_OBJECT_INFO(DataflowVarNode, VarNode, "relax.expr.DataflowVar");
};
class DataflowVar : public Var {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(DataflowVar, Var, DataflowVarNode);
  DataflowVar(std::string name_hint, std::optional<StructInfo> struct_info, Span span = Span());
};

// A constant tensor.
class ConstantNode : public RelaxExprNode {
 public:
  NDArray data;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ConstantNode, RelaxExprNode, "relax.expr.Constant");
};
class Constant : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Constant, RelaxExpr, ConstantNode);
  explicit Constant(NDArray data, std::optional<StructInfo> struct_info = std::nullopt, Span span = Span());
};

class TupleNode : public RelaxExprNode {
 public:
  Array<RelaxExpr> fields;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(TupleNode, RelaxExprNode, "relax.expr.Tuple");
};
class Tuple : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Tuple, RelaxExpr, TupleNode);
  explicit Tuple(Array<RelaxExpr> fields, Span span = Span());
};

class TupleGetItemNode : public RelaxExprNode {
 public:
  RelaxExpr tuple;
  int index = 0;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(TupleGetItemNode, RelaxExprNode, "relax.expr.TupleGetItem");
};
class TupleGetItem : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(TupleGetItem, RelaxExpr, TupleGetItemNode);
  TupleGetItem(RelaxExpr tuple, int index, Span span = Span());
};

// A call of an Op (with `attrs`, a Map or attribute node, may be undefined)
// or of a function value; `sinfo_args` carry struct infos some ops need
// (call_tir's output).
class CallNode : public RelaxExprNode {
 public:
  RelaxExpr op;
  Array<RelaxExpr> args;
  ObjectRef attrs;
  Array<StructInfo> sinfo_args;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(CallNode, RelaxExprNode, "relax.expr.Call");
};
class Call : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Call, RelaxExpr, CallNode);
  TESSERA_DEFINE_OBJECT_REF_COW_METHOD(CallNode);
  Call(RelaxExpr op, Array<RelaxExpr> args, ObjectRef attrs = ObjectRef(), Array<StructInfo> sinfo_args = {},
       Span span = Span());
};

// A scalar value (R.prim_value(n)).
class PrimValueNode : public RelaxExprNode {
 public:
  PrimExpr value;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PrimValueNode, RelaxExprNode, "relax.expr.PrimValue");
};
class PrimValue : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PrimValue, RelaxExpr, PrimValueNode);
  explicit PrimValue(PrimExpr value, Span span = Span());
  static PrimValue Int64(int64_t v);
};

class StringImmNode : public RelaxExprNode {
 public:
  std::string value;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(StringImmNode, RelaxExprNode, "relax.expr.StringImm");
};
class StringImm : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(StringImm, RelaxExpr, StringImmNode);
  explicit StringImm(std::string value, Span span = Span());
};

class DataTypeImmNode : public RelaxExprNode {
 public:
  DataType value;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(DataTypeImmNode, RelaxExprNode, "relax.expr.DataTypeImm");
};
class DataTypeImm : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(DataTypeImm, RelaxExpr, DataTypeImmNode);
  explicit DataTypeImm(DataType value, Span span = Span());
};

// A function known by its global symbol only (a registered PackedFunc).
class ExternFuncNode : public BaseFuncNode {
 public:
  std::string global_symbol;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ExternFuncNode, BaseFuncNode, "relax.expr.ExternFunc");
};
class ExternFunc : public BaseFunc {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ExternFunc, BaseFunc, ExternFuncNode);
  explicit ExternFunc(std::string global_symbol, std::optional<StructInfo> struct_info = std::nullopt,
                      Span span = Span());
};

// ---- bindings and blocks -----------------------------------------------------------

class BindingNode : public Object {
 public:
  Var var;
  Span span;
  TESSERA_DECLARE_OBJECT_INFO(BindingNode, Object, "relax.expr.Binding");
};
class Binding : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Binding, ObjectRef, BindingNode);
};

// var = value
class VarBindingNode : public BindingNode {
 public:
  RelaxExpr value;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(VarBindingNode, BindingNode, "relax.expr.VarBinding");
};
class VarBinding : public Binding {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(VarBinding, Binding, VarBindingNode);
  VarBinding(Var var, RelaxExpr value, Span span = Span());
};

// var = R.match_cast(value, struct_info): checks at run time and defines
// the symbolic vars first met in struct_info.
class MatchCastNode : public BindingNode {
 public:
  RelaxExpr value;
  StructInfo struct_info;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(MatchCastNode, BindingNode, "relax.expr.MatchCast");
};
class MatchCast : public Binding {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(MatchCast, Binding, MatchCastNode);
  MatchCast(Var var, RelaxExpr value, StructInfo struct_info, Span span = Span());
};

class BindingBlockNode : public Object {
 public:
  Array<Binding> bindings;
  Span span;
  TESSERA_DECLARE_OBJECT_INFO(BindingBlockNode, Object, "relax.expr.BindingBlock");
};
class BindingBlock : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(BindingBlock, ObjectRef, BindingBlockNode);
  TESSERA_DEFINE_OBJECT_REF_COW_METHOD(BindingBlockNode);
  explicit BindingBlock(Array<Binding> bindings, Span span = Span());
};

class DataflowBlockNode : public BindingBlockNode {
 public:
  TESSERA_DECLARE_FINAL_OBJECT_INFO(DataflowBlockNode, BindingBlockNode, "relax.expr.DataflowBlock");
};
class DataflowBlock : public BindingBlock {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(DataflowBlock, BindingBlock, DataflowBlockNode);
  explicit DataflowBlock(Array<Binding> bindings, Span span = Span());
};

// Blocks followed by a result expression.
class SeqExprNode : public RelaxExprNode {
 public:
  Array<BindingBlock> blocks;
  RelaxExpr body;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(SeqExprNode, RelaxExprNode, "relax.expr.SeqExpr");
};
class SeqExpr : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(SeqExpr, RelaxExpr, SeqExprNode);
  SeqExpr(Array<BindingBlock> blocks, RelaxExpr body, Span span = Span());
};

class IfNode : public RelaxExprNode {
 public:
  RelaxExpr cond;
  RelaxExpr true_branch;
  RelaxExpr false_branch;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(IfNode, RelaxExprNode, "relax.expr.If");
};
class If : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(If, RelaxExpr, IfNode);
  If(RelaxExpr cond, RelaxExpr true_branch, RelaxExpr false_branch, Span span = Span());
};

// A Relax function. `ret_struct_info` may be left undefined for the
// normalizer to infer from the body.
class FunctionNode : public BaseFuncNode {
 public:
  Array<Var> params;
  RelaxExpr body;
  StructInfo ret_struct_info;
  bool is_pure = true;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(FunctionNode, BaseFuncNode, "relax.expr.Function");
};
class Function : public BaseFunc {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Function, BaseFunc, FunctionNode);
  TESSERA_DEFINE_OBJECT_REF_COW_METHOD(FunctionNode);
  // Raises TypeError when a parameter has no struct info.
  Function(Array<Var> params, RelaxExpr body, std::optional<StructInfo> ret_struct_info = std::nullopt,
           bool is_pure = true, Attrs attrs = Attrs(), Span span = Span());
};

// Whether `e` is a leaf (may appear as a call argument in A-normal form):
// a var, constant, shape/prim/string/dtype value, global var, op, extern
// function, or a tuple (whose fields are not looked at: O(1), as TVM).
bool IsLeafOrTuple(const RelaxExpr& e);

// Name of the node kind for messages ("relax.Call", ...).
std::string ExprKindName(const ObjectRef& e);

}  // namespace relax
}  // namespace tessera
