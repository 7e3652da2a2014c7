// Helpers shared by Relax operator registrations (op/*.cc): the
// FInferStructInfo signature, registration of inference + purity in one
// call, and argument checks whose errors name the op and the operand.
// Relax IR layer.
#pragma once

#include <functional>
#include <string>

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

}  // namespace relax
}  // namespace tessera
