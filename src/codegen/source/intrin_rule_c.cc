// How TIR intrinsics lower for the "c" target kind: each op carries the
// attribute "c.FLowerIntrinsic" (see codegen/intrin_rule.h): math functions
// become C math library calls (tir.call_pure_extern), popcount a compiler
// builtin, the rest the shared rules. Adding an intrinsic for C is one line
// here; an op without the attribute is refused naming op and target.
#include "codegen/intrin_rule.h"
#include "ir/op.h"
#include "tir/op.h"

namespace tessera {
namespace codegen {
namespace {

constexpr const char* kAttr = "c.FLowerIntrinsic";

[[maybe_unused]] const bool kRules = [] {
  RegisterCommonIntrinsicRules(kAttr);
  const std::pair<const char*, const char*> libm[] = {
      {"tir.exp", "exp"},   {"tir.exp2", "exp2"},   {"tir.log", "log"},       {"tir.log2", "log2"},
      {"tir.log10", "log10"}, {"tir.sqrt", "sqrt"}, {"tir.fabs", "fabs"},     {"tir.floor", "floor"},
      {"tir.ceil", "ceil"}, {"tir.trunc", "trunc"}, {"tir.round", "nearbyint"}, {"tir.nearbyint", "nearbyint"},
      {"tir.sin", "sin"},   {"tir.cos", "cos"},     {"tir.pow", "pow"}};
  for (const auto& [op, fn] : libm) OpRegEntry::RegisterOrGet(op).set_attr(kAttr, LibmRule(fn));
  OpRegEntry::RegisterOrGet("tir.popcount").set_attr(kAttr, ExprRule([](const tir::CallNode* c) {
    Array<PrimExpr> args = {tir::StringImm("__builtin_popcountll"), tir::cast(DataType::UInt(64), c->args[0])};
    return tir::cast(c->dtype, tir::Call(DataType::Int(32), Op::Get("tir.call_pure_extern"), args));
  }));
  return true;
}();

}  // namespace
}  // namespace codegen
}  // namespace tessera
