// Helpers shared by Relax operator registrations (op/*.cc): the
// FInferStructInfo signature, registration of inference + purity in one
// call, and argument checks whose errors name the op and the operand.
// Relax IR layer.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/op.h"
#include "relax/block_builder.h"
#include "runtime/packed_func.h"

namespace tessera {
namespace relax {

// Infers a call's struct info; raises TypeError/ValueError naming the op and operand.
using FInferStructInfo = std::function<StructInfo(const Call& call, const BlockBuilder& ctx)>;

// Sets "FInferStructInfo" (a PackedFunc(call, block_builder)) and "FPurity" on `entry`.
inline OpRegEntry& SetRelaxOp(OpRegEntry& entry, FInferStructInfo infer, bool pure) {
  std::string name = entry.op()->name;
  entry.set_attr("FInferStructInfo",
                 PackedFunc::FromTyped([infer](Call call, BlockBuilder ctx) { return infer(call, ctx); },
                                       name + ".FInferStructInfo"));
  entry.set_attr("FPurity", pure);
  return entry;
}

// The op's name in messages.
inline std::string OpName(const Call& call) {
  if (const auto* op = call->op.as<OpNode>()) return op->name;
  return ExprKindName(call->op);
}

// TypeError unless the call has between `lo` and `hi` arguments.
void CheckNumArgs(const Call& call, size_t lo, size_t hi);
// TypeError unless the call has `n` struct-info arguments (sinfo_args).
void CheckNumSInfoArgs(const Call& call, size_t lo, size_t hi, const char* what);
// Struct info of argument `i` as T; TypeError naming op, operand and what was found.
template <typename T>
const T* ArgSInfoAs(const Call& call, size_t i, const char* operand, const char* expected);
StructInfo ArgSInfo(const Call& call, size_t i);
// The value of argument `i`, which must be a node of kind T (StringImm, DataTypeImm...).
template <typename T>
const T* ArgAs(const Call& call, size_t i, const char* operand, const char* expected) {
  const T* n = call->args[i].as<T>();
  if (n == nullptr) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand '" << operand << "' (argument " << i << ") must be "
                             << expected << ", got " << ExprKindName(call->args[i]);
  }
  return n;
}

template <typename T>
const T* ArgSInfoAs(const Call& call, size_t i, const char* operand, const char* expected) {
  StructInfo s = ArgSInfo(call, i);
  const T* n = s.as<T>();
  if (n == nullptr) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand '" << operand << "' (argument " << i << ") must be "
                             << expected << ", got " << StructInfoText(s);
  }
  return n;
}

// The struct info returned by ops with no result (an empty tuple).
inline StructInfo VoidStructInfo() { return TupleStructInfo(Array<StructInfo>()); }

// ---- Shapes (op_shape.cc) ----

// An int64 dimension constant.
PrimExpr Dim(int64_t v);
// The constant value of a dimension, if it is one.
std::optional<int64_t> ConstDim(const PrimExpr& d);
// Product of the dims (1 for none), simplified.
PrimExpr ShapeProduct(const Array<PrimExpr>& dims);
// A tensor struct info with `shape` when known, else of `ndim` dimensions (-1: unknown).
StructInfo TensorSInfo(const std::optional<Array<PrimExpr>>& shape, DataType dtype, int ndim);
// NumPy broadcast of the tensors `ts` (called `names` in messages). Sets *ndim (-1 when one is
// unknown) and returns the broadcast shape, nullopt when it is not known at compile time
// (unknown shapes, or symbolic dims not provably equal). ValueError naming the op, the operands
// and the dimensions when two constant dims cannot broadcast.
std::optional<Array<PrimExpr>> BroadcastShapes(const Call& call, const std::vector<const TensorStructInfoNode*>& ts,
                                               const std::vector<const char*>& names, int* ndim);
// The common dtype of the tensors (Void when one is unknown); TypeError naming the op and the
// first two operands whose dtypes differ.
DataType SameDType(const Call& call, const std::vector<const TensorStructInfoNode*>& ts,
                   const std::vector<const char*>& names);

// Struct info of a reduction of operand 'x' (argument 0) over attribute "axis" (None: all; a list,
// or one int when axis_is_single) with attribute "keepdims"; dtype out_dtype (Void: x's). statistical.cc;
// also used by argmax/argmin (search.cc). A reduction without an identity (max, min, argmax, argmin:
// `needs_nonempty`) over an axis of static extent 0 raises ValueError naming the op and the axis.
StructInfo InferReduction(const Call& call, DataType out_dtype, bool axis_is_single, bool needs_nonempty);

// ---- Call attributes: a Map<String, Any> keyed by TVM's attrs field names (op_attrs.cc) ----

// One attribute of an op's signature: its name and default (nullopt: required).
struct AttrParam {
  std::string name;
  std::optional<Any> default_value;
};
// Default values written as the TVMScript parser makes them (ints as IntImm, bools as bool IntImm).
Any AttrDefaultInt(int64_t v);
Any AttrDefaultBool(bool v);
// Declares the op's attributes in the order of TVM's Python signature (op attribute
// "TScriptAttrSignature": a list of [name, default] or [name] for a required one). The TVMScript
// parser reads positional arguments beyond the op's num_inputs as these attributes, fills in the
// defaults and refuses unknown keywords; inference reads a missing attribute as its default.
OpRegEntry& SetAttrSignature(OpRegEntry& entry, const std::vector<AttrParam>& params);
// An op whose TVMScript form names its expression operands, as TVM's Python constructor does
// (`R.vm.alloc_storage(R.shape([64]), runtime_device_index=0, dtype="uint8")`): each operand's name,
// how a plain Python value becomes it ("expr"; "prim": an int as an int64 PrimValue; "dtype": a string
// as a DataTypeImm; "str": a StringImm) and its default (nullopt: required). The parser binds
// positional and keyword arguments to the operands by it ("TScriptOperandSignature").
struct OperandParam {
  std::string name;
  std::string kind;
  std::optional<Any> default_value;
};
OpRegEntry& SetOperandSignature(OpRegEntry& entry, const std::vector<OperandParam>& params);
// Operands that are scalars (PrimValue): the TVMScript parser makes a plain number there a PrimValue
// (an int as int64, a float as float64, as the Python constructors do), not a constant tensor
// ("TScriptPrimOperands": R.clip(x, 0.1, 0.5), R.tril(x, 1), R.arange(0, 20, 1)).
OpRegEntry& SetPrimOperands(OpRegEntry& entry, const std::vector<int64_t>& indices);
// Attributes that are lists of axes: one int given alone is the list of it, as TVM's Python
// constructors make it (R.expand_dims(x, axis=1) is axis=[1]; "TScriptListAttrs", read by MakeOpAttrs).
OpRegEntry& SetListAttrs(OpRegEntry& entry, const std::vector<std::string>& names);
// Per-dimension list attributes of a fixed length: a shorter list (or an int alone) whose length
// divides it is repeated to that length, as TVM's C++ constructors complete them (R.nn.conv3d's
// strides=[1] is [1, 1, 1], padding=[1, 2, 3] is [1, 2, 3, 1, 2, 3]; "TScriptExpandAttrs", read by
// MakeOpAttrs).
OpRegEntry& SetExpandAttrs(OpRegEntry& entry, const std::vector<std::pair<std::string, int64_t>>& lengths);
// Attributes whose missing (or None) value is another attribute's, as TVM's Python constructors fill
// them (conv2d's out_layout=None is data_layout; "TScriptDefaultFrom", read by MakeOpAttrs; the
// source attribute comes earlier in the signature).
OpRegEntry& SetDefaultFrom(OpRegEntry& entry, const std::vector<std::pair<std::string, std::string>>& sources);
// Attributes that are floats (or lists of floats): an int given there is stored as a float, as TVM's
// typed attrs hold it (R.image.resize2d(..., extrapolation_value=0) is 0.0; "TScriptFloatAttrs").
OpRegEntry& SetFloatAttrs(OpRegEntry& entry, const std::vector<std::string>& names);
// Attributes that are dtypes: "" (TVM's printed form of an unset DataType) is stored as "void", the
// form the constructors give ("TScriptDTypeAttrs").
OpRegEntry& SetDTypeAttrs(OpRegEntry& entry, const std::vector<std::string>& names);
// The op's attribute signature; nullopt when it has none.
std::optional<std::vector<AttrParam>> AttrSignature(const Op& op);
// The signature default of attribute `name` of the call's op; nullopt when it has none (required,
// unknown, or no signature).
std::optional<Any> SignatureDefault(const Call& call, const std::string& name);
// An attribute value in canonical form, as the TVMScript parser writes it: ints as IntImm (int32,
// int64 when out of range), bools as bool IntImm, floats as FloatImm, lists element by element.
Any NormalizeAttrValue(const Any& v);
// THE constructor of a call's attrs Map ("relax.op.MakeAttrs"; used by the TVMScript parser, the
// Python op constructors and C++ rewrites): for an op with a signature, every signature attribute
// in order, the given value else its default, each normalized; an unknown name is a TypeError and a
// missing required one a ValueError, both naming op and attribute. Without a signature, `given`
// normalized.
Map<String, Any> MakeOpAttrs(const Op& op, const Map<String, Any>& given);
// The call's attribute `name`, else its signature default; ValueError naming op and attribute
// when it is required and absent.
Any CallAttr(const Call& call, const std::string& name);
// Typed readers; TypeError naming op and attribute when the value has another kind.
std::optional<int64_t> AttrOptInt(const Call& call, const std::string& name);  // None -> nullopt
int64_t AttrInt(const Call& call, const std::string& name);
bool AttrBool(const Call& call, const std::string& name);
std::string AttrStr(const Call& call, const std::string& name);
// A list of ints (an int alone is a list of one); None -> nullopt.
std::optional<std::vector<int64_t>> AttrOptInts(const Call& call, const std::string& name);
// A dtype given as a string or DataType; "" and "void" are DataType::Void() (unset).
DataType AttrDType(const Call& call, const std::string& name);
// `axis` in [-ndim, ndim) made non-negative; ValueError naming op, attribute and operand.
int NormalizeAxis(const Call& call, int64_t axis, int ndim, const std::string& attr, const char* operand);
// The axes (each normalized, no repeats); ValueError naming op, attribute and operand.
std::vector<int> NormalizeAxes(const Call& call, const std::vector<int64_t>& axes, int ndim, const std::string& attr,
                               const char* operand);
// ValueError unless the dtype is known and an integer type (for indices); names op and operand.
void CheckIntDType(const Call& call, const TensorStructInfoNode* t, const char* operand);

}  // namespace relax
}  // namespace tessera
