// Relax structure information (StructInfo): what is statically known about a
// value — a tensor's dtype/ndim/shape (with symbolic dims as tir.Var), a
// shape's values, a tuple's fields, a scalar, a function's signature, or
// nothing (Object). Relax IR layer (src/relax); used by the normalizer
// (block_builder.h), op inference (op/*.cc) and the analyses.
#pragma once

#include <functional>
#include <optional>

#include "ir/expr.h"
#include "ir/global_info.h"
#include "runtime/data_type.h"
#include "tir/expr.h"

namespace tessera {
namespace relax {

using Expr = RelaxExpr;

// Base of every StructInfo node.
class StructInfoNode : public Object {
 public:
  Span span;
  static constexpr int kUnknownNDim = -1;
  TESSERA_DECLARE_OBJECT_INFO(StructInfoNode, Object, "relax.StructInfo");
};
class StructInfo : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(StructInfo, ObjectRef, StructInfoNode);
};

// Any value (the top of the lattice).
class ObjectStructInfoNode : public StructInfoNode {
 public:
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ObjectStructInfoNode, StructInfoNode, "relax.ObjectStructInfo");
};
class ObjectStructInfo : public StructInfo {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ObjectStructInfo, StructInfo, ObjectStructInfoNode);
  explicit ObjectStructInfo(Span span);
  static ObjectStructInfo Make() { return ObjectStructInfo(Span()); }
};

// A scalar of `dtype`, optionally with a known value (a PrimExpr over symbolic vars).
class PrimStructInfoNode : public StructInfoNode {
 public:
  PrimExpr value;  // may be undefined
  DataType dtype;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PrimStructInfoNode, StructInfoNode, "relax.PrimStructInfo");
};
class PrimStructInfo : public StructInfo {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PrimStructInfo, StructInfo, PrimStructInfoNode);
  explicit PrimStructInfo(DataType dtype, Span span = Span());
  static PrimStructInfo FromValue(PrimExpr value, Span span = Span());
};

// A shape tuple: its values when known (then ndim = their count), else only ndim (-1: unknown).
class ShapeStructInfoNode : public StructInfoNode {
 public:
  std::optional<Array<PrimExpr>> values;
  int ndim = kUnknownNDim;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ShapeStructInfoNode, StructInfoNode, "relax.ShapeStructInfo");
};
class ShapeStructInfo : public StructInfo {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ShapeStructInfo, StructInfo, ShapeStructInfoNode);
  explicit ShapeStructInfo(Array<PrimExpr> values, Span span = Span());
  explicit ShapeStructInfo(int ndim, Span span = Span());
};

// A tensor: dtype (Void = unknown), ndim (-1 = unknown) and optionally its
// shape, a relax Expr (a ShapeExpr, or a Var of ShapeStructInfo), and the
// virtual device it lives on (undefined: not said).
class TensorStructInfoNode : public StructInfoNode {
 public:
  std::optional<RelaxExpr> shape;
  DataType dtype = DataType::Void();
  int ndim = kUnknownNDim;
  VDevice vdevice;
  bool IsUnknownNdim() const { return ndim == kUnknownNDim; }
  bool IsUnknownDtype() const { return dtype.is_void(); }
  // The shape's values when it is a ShapeExpr (or a var whose struct info knows them).
  std::optional<Array<PrimExpr>> GetShape() const;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(TensorStructInfoNode, StructInfoNode, "relax.TensorStructInfo");
};
class TensorStructInfo : public StructInfo {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(TensorStructInfo, StructInfo, TensorStructInfoNode);
  // With a known shape (a ShapeExpr or an expression of ShapeStructInfo); ndim from it.
  TensorStructInfo(RelaxExpr shape, DataType dtype, Span span = Span());
  // Without a shape.
  TensorStructInfo(DataType dtype, int ndim, Span span = Span());
  // This struct info on `vdevice` (undefined: none).
  TensorStructInfo WithVDevice(VDevice vdevice) const;
};

class TupleStructInfoNode : public StructInfoNode {
 public:
  Array<StructInfo> fields;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(TupleStructInfoNode, StructInfoNode, "relax.TupleStructInfo");
};
class TupleStructInfo : public StructInfo {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(TupleStructInfo, StructInfo, TupleStructInfoNode);
  explicit TupleStructInfo(Array<StructInfo> fields, Span span = Span());
};

// A function: parameter struct infos (absent: opaque, any arguments), the
// return struct info and purity.
class FuncStructInfoNode : public StructInfoNode {
 public:
  std::optional<Array<StructInfo>> params;
  StructInfo ret;
  bool purity = true;
  bool IsOpaque() const { return !params.has_value(); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(FuncStructInfoNode, StructInfoNode, "relax.FuncStructInfo");
};
class FuncStructInfo : public StructInfo {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(FuncStructInfo, StructInfo, FuncStructInfoNode);
  FuncStructInfo(Array<StructInfo> params, StructInfo ret, bool purity = true, Span span = Span());
  static FuncStructInfo OpaqueFunc(StructInfo ret = StructInfo(), bool purity = false, Span span = Span());
};

// ---- helpers ------------------------------------------------------------------------

// The struct info of a normalized expression; TypeError naming the
// expression's kind when it has none (it did not go through the normalizer).
StructInfo GetStructInfo(const RelaxExpr& expr);
// The struct info or nullopt.
std::optional<StructInfo> MatchStructInfo(const RelaxExpr& expr);
bool HasStructInfo(const RelaxExpr& expr);
void UpdateStructInfo(const RelaxExpr& expr, const StructInfo& sinfo);

// Result of checking whether `base` accepts every value of `derived`.
enum class BaseCheckResult : int {
  kFailL0 = 0,  // statically impossible (ndim/dtype/kind differ)
  kFailL1 = 1,  // possible only if runtime values (shape values) agree; unprovable statically
  kFailL2 = 2,  // differs only in symbolic relations that need a runtime check
  kPass = 3,
};
// PrimExprs are compared after simplification (arith::Analyzer).
BaseCheckResult StructInfoBaseCheck(const StructInfo& base, const StructInfo& derived);
bool IsBaseOf(const StructInfo& base, const StructInfo& derived);
// Least upper bound of two struct infos (used for If branches).
StructInfo StructInfoLCA(const StructInfo& lhs, const StructInfo& rhs);

// Symbolic variables (tir.Var) appearing in a struct info, in first-occurrence order.
std::vector<tir::Var> TIRVarsInStructInfo(const StructInfo& sinfo);
// Replaces symbolic variables by `fmap`'s values (nullopt: kept).
StructInfo SubstituteStructInfo(const StructInfo& sinfo,
                                const std::function<std::optional<PrimExpr>(const tir::Var&)>& fmap);
// Keeps only what is defined in terms of variables for which `is_defined`
// holds (shape dims over other vars become unknown, keeping ndim): the
// struct info seen outside the scope that defines those vars.
StructInfo EraseToWellDefined(const StructInfo& sinfo, const std::function<bool(const tir::Var& var)>& is_defined);

// The struct info an operator's call gets from its arguments' virtual
// devices: when the inferred `sinfo` (a tensor, or a tuple's tensors) says no
// device and the tensor arguments (or the tensors of tuple arguments) name
// one, it gets that one; TypeError naming `op_name` when they name different ones.
StructInfo PropagateVDevice(const std::string& op_name, const Array<RelaxExpr>& args, const StructInfo& sinfo);

// Text of a struct info in TVMScript form (R.Tensor((1, n), "float32")), for messages.
std::string StructInfoText(const StructInfo& sinfo);

}  // namespace relax
}  // namespace tessera
