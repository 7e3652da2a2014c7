// How TIR intrinsics lower for the "cuda" target kind (op attribute
// "cuda.FLowerIntrinsic", see codegen/intrin_rule.h): CUDA's device math
// library (expf/exp for float32/float64; hexp, hsqrt, ... from cuda_fp16.h for
// float16 where CUDA has them, else computed in float32), bit counting
// through __popcll/__clzll, and the rules every target shares.
#include "codegen/intrin_rule.h"
#include "ir/op.h"
#include "tir/op.h"

namespace tessera {
namespace codegen {
namespace {

constexpr const char* kAttr = "cuda.FLowerIntrinsic";

// float16 scalars call CUDA's half function `half_name` directly; everything else goes through LibmRule.
PackedFunc HalfOrLibmRule(const std::string& name, const std::string& half_name) {
  PackedFunc libm = LibmRule(name);
  return PackedFunc::FromTyped([libm, half_name](PrimExpr e) -> PrimExpr {
    const tir::CallNode* call = AsIntrinsicCall(e);
    DataType t = call->dtype;
    if (half_name.empty() || !(t.is_float() && t.bits() == 16 && t.lanes() == 1)) return libm(e).cast<PrimExpr>();
    Array<PrimExpr> args;
    args.push_back(tir::StringImm(half_name));
    for (const PrimExpr& a : call->args) args.push_back(a);
    return tir::Call(t, Op::Get("tir.call_pure_extern"), args);
  });
}

PackedFunc BitRule(const char* fn64, const char* fn32) {
  return ExprRule([fn64, fn32](const tir::CallNode* c) {
    DataType t = c->args[0].dtype();
    bool wide = t.bits() == 64;
    DataType arg_t = wide ? DataType::UInt(64) : DataType::UInt(32);
    PrimExpr x = c->args[0];
    if (!wide && t.bits() < 32 && std::string(fn32) == "__clz") {
      // Leading zeros of a narrow value: count in 32 bits, minus the extra width.
      PrimExpr n = tir::Call(DataType::Int(32), Op::Get("tir.call_pure_extern"),
                             {tir::StringImm(fn32), tir::cast(DataType::UInt(32), tir::cast(DataType::UInt(t.bits()), x))});
      return tir::cast(c->dtype, tir::sub(n, IntImm(DataType::Int(32), 32 - t.bits())));
    }
    PrimExpr arg = tir::cast(arg_t, t.is_int() ? tir::cast(DataType::UInt(t.bits()), x) : x);
    return tir::cast(c->dtype, tir::Call(DataType::Int(32), Op::Get("tir.call_pure_extern"),
                                         {tir::StringImm(wide ? fn64 : fn32), arg}));
  });
}

[[maybe_unused]] const bool kRules = [] {
  RegisterCommonIntrinsicRules(kAttr);
  const std::tuple<const char*, const char*, const char*> math[] = {
      {"tir.exp", "exp", "hexp"},       {"tir.exp2", "exp2", "hexp2"},    {"tir.log", "log", "hlog"},
      {"tir.log2", "log2", "hlog2"},    {"tir.log10", "log10", "hlog10"}, {"tir.sqrt", "sqrt", "hsqrt"},
      {"tir.fabs", "fabs", "__habs"},   {"tir.floor", "floor", "hfloor"}, {"tir.ceil", "ceil", "hceil"},
      {"tir.trunc", "trunc", "htrunc"}, {"tir.round", "nearbyint", "hrint"}, {"tir.nearbyint", "nearbyint", "hrint"},
      {"tir.sin", "sin", "hsin"},       {"tir.cos", "cos", "hcos"},       {"tir.pow", "pow", ""},
      {"tir.tanh", "tanh", ""},         {"tir.erf", "erf", ""}};
  for (const auto& [op, fn, hfn] : math) OpRegEntry::RegisterOrGet(op).set_attr(kAttr, HalfOrLibmRule(fn, hfn));
  OpRegEntry::RegisterOrGet("tir.popcount").set_attr(kAttr, BitRule("__popcll", "__popc"));
  OpRegEntry::RegisterOrGet("tir.clz").set_attr(kAttr, BitRule("__clzll", "__clz"));
  return true;
}();

}  // namespace
}  // namespace codegen
}  // namespace tessera
