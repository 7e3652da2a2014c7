// TIR expressions: variables, arithmetic/comparison/logical nodes, casts,
// select, let, buffer loads, vector ramps/broadcasts, calls to intrinsic ops,
// and IterVar (a variable with a domain and an iteration kind). TIR layer.
// Build expressions with the checked helpers in tir/op.h (type promotion,
// constant folding); the raw constructors here only validate dtypes.
#pragma once

#include "ir/expr.h"
#include "ir/op.h"

namespace tessera {
namespace tir {


class VarNode : public PrimExprNode {
 public:
  std::string name_hint;
  // For a handle: a PointerType (ir/type.h) naming the element dtype and the
  // storage scope of the memory; undefined when not known.
  ObjectRef type_annotation;
  TESSERA_DECLARE_OBJECT_INFO(VarNode, PrimExprNode, "tir.Var");
};
class Var : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Var, PrimExpr, VarNode);
  explicit Var(std::string name_hint, DataType dtype = DataType::Int(32), Span span = Span());
  // A new variable with the same dtype and a (suffixed) name.
  Var copy_with_suffix(const std::string& suffix) const;
};

// A variable known to be non-negative (shape dimensions).
class SizeVarNode : public VarNode {
 public:
  TESSERA_DECLARE_FINAL_OBJECT_INFO(SizeVarNode, VarNode, "tir.SizeVar");
};
class SizeVar : public Var {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(SizeVar, Var, SizeVarNode);
  explicit SizeVar(std::string name_hint, DataType dtype = DataType::Int(32), Span span = Span());
};

class StringImmNode : public PrimExprNode {
 public:
  std::string value;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(StringImmNode, PrimExprNode, "tir.StringImm");
};
class StringImm : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(StringImm, PrimExpr, StringImmNode);
  explicit StringImm(std::string value, Span span = Span());
};

class CastNode : public PrimExprNode {
 public:
  PrimExpr value;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(CastNode, PrimExprNode, "tir.Cast");
};
class Cast : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Cast, PrimExpr, CastNode);
  Cast(DataType dtype, PrimExpr value, Span span = Span());
};

// Binary nodes share one layout: a, b.
class BinaryOpNode : public PrimExprNode {
 public:
  PrimExpr a, b;
  TESSERA_DECLARE_OBJECT_INFO(BinaryOpNode, PrimExprNode, "tir.BinaryOp");
};

#define TESSERA_TIR_DECLARE_BINARY(Name, Key)                                \
  class Name##Node : public BinaryOpNode {                                   \
   public:                                                                   \
    TESSERA_DECLARE_FINAL_OBJECT_INFO(Name##Node, BinaryOpNode, Key);        \
  };                                                                         \
  class Name : public PrimExpr {                                             \
   public:                                                                   \
    TESSERA_DEFINE_OBJECT_REF_METHODS(Name, PrimExpr, Name##Node);           \
    Name(PrimExpr a, PrimExpr b, Span span = Span());                        \
  };

TESSERA_TIR_DECLARE_BINARY(Add, "tir.Add")
TESSERA_TIR_DECLARE_BINARY(Sub, "tir.Sub")
TESSERA_TIR_DECLARE_BINARY(Mul, "tir.Mul")
TESSERA_TIR_DECLARE_BINARY(Div, "tir.Div")  // C semantics: truncating for integers
TESSERA_TIR_DECLARE_BINARY(Mod, "tir.Mod")  // C semantics: truncating for integers
TESSERA_TIR_DECLARE_BINARY(FloorDiv, "tir.FloorDiv")
TESSERA_TIR_DECLARE_BINARY(FloorMod, "tir.FloorMod")
TESSERA_TIR_DECLARE_BINARY(Min, "tir.Min")
TESSERA_TIR_DECLARE_BINARY(Max, "tir.Max")
TESSERA_TIR_DECLARE_BINARY(EQ, "tir.EQ")
TESSERA_TIR_DECLARE_BINARY(NE, "tir.NE")
TESSERA_TIR_DECLARE_BINARY(LT, "tir.LT")
TESSERA_TIR_DECLARE_BINARY(LE, "tir.LE")
TESSERA_TIR_DECLARE_BINARY(GT, "tir.GT")
TESSERA_TIR_DECLARE_BINARY(GE, "tir.GE")
TESSERA_TIR_DECLARE_BINARY(And, "tir.And")
TESSERA_TIR_DECLARE_BINARY(Or, "tir.Or")
#undef TESSERA_TIR_DECLARE_BINARY

class NotNode : public PrimExprNode {
 public:
  PrimExpr a;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(NotNode, PrimExprNode, "tir.Not");
};
class Not : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Not, PrimExpr, NotNode);
  explicit Not(PrimExpr a, Span span = Span());
};

class SelectNode : public PrimExprNode {
 public:
  PrimExpr condition, true_value, false_value;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(SelectNode, PrimExprNode, "tir.Select");
};
class Select : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Select, PrimExpr, SelectNode);
  Select(PrimExpr condition, PrimExpr true_value, PrimExpr false_value, Span span = Span());
};

class LetNode : public PrimExprNode {
 public:
  Var var;
  PrimExpr value, body;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(LetNode, PrimExprNode, "tir.Let");
};
class Let : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Let, PrimExpr, LetNode);
  Let(Var var, PrimExpr value, PrimExpr body, Span span = Span());
};

class RampNode : public PrimExprNode {
 public:
  PrimExpr base, stride;
  int lanes = 1;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(RampNode, PrimExprNode, "tir.Ramp");
};
class Ramp : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Ramp, PrimExpr, RampNode);
  Ramp(PrimExpr base, PrimExpr stride, int lanes, Span span = Span());
};

class BroadcastNode : public PrimExprNode {
 public:
  PrimExpr value;
  int lanes = 1;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(BroadcastNode, PrimExprNode, "tir.Broadcast");
};
class Broadcast : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Broadcast, PrimExpr, BroadcastNode);
  Broadcast(PrimExpr value, int lanes, Span span = Span());
};

// A call to an Op (intrinsic, e.g. tir.exp / tir.call_extern) or a GlobalVar.
class CallNode : public PrimExprNode {
 public:
  BaseExpr op;
  Array<PrimExpr> args;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(CallNode, PrimExprNode, "tir.Call");
};
class Call : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Call, PrimExpr, CallNode);
  Call(DataType dtype, BaseExpr op, Array<PrimExpr> args, Span span = Span());
};

// Kinds of iteration of an IterVar (TVM's IterVarType values).
enum IterVarType : int {
  kDataPar = 0,
  kThreadIndex = 1,
  kCommReduce = 2,
  kOrdered = 3,
  kOpaque = 4,
  kUnrolled = 5,
  kVectorized = 6,
  kParallelized = 7,
  kTensorized = 8,
};
const char* IterVarTypeName(int type);

class IterVarNode : public Object {
 public:
  Range dom;
  Var var;
  int iter_type = kDataPar;
  std::string thread_tag;
  Span span;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(IterVarNode, Object, "tir.IterVar");
};
class IterVar : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(IterVar, ObjectRef, IterVarNode);
  IterVar(Range dom, Var var, int iter_type, std::string thread_tag = "", Span span = Span());
};

}  // namespace tir
}  // namespace tessera
