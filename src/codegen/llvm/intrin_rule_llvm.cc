// How TIR intrinsics lower for the "llvm" target kind: each op carries the
// attribute "llvm.FLowerIntrinsic", a function from the call to an equivalent
// expression that CodeGenLLVM can emit (an LLVM intrinsic through
// tir.call_llvm_pure_intrin, a libm call through tir.call_pure_extern, or
// plain arithmetic). Adding an intrinsic for LLVM is one line here; an op
// without the attribute is refused by the code generator naming op and target.
#include <cmath>

#include "codegen/llvm/fast_math.h"
#include "ir/op.h"
#include "runtime/registry.h"
#include "tir/op.h"

namespace tessera {
namespace codegen {
namespace {

using tir::Call;
using tir::CallNode;

const CallNode* AsCall(const PrimExpr& e) {
  const auto* call = e.as<CallNode>();
  TESSERA_ICHECK(call != nullptr) << "an intrinsic lowering rule was given a non-call expression";
  return call;
}

// A scalar constant of `t`'s element type (the checked builders broadcast it).
PrimExpr ElemConst(DataType t, double v) { return FloatImm(t.element_of(), v); }

// tir.X(args) -> call_llvm_pure_intrin("llvm.x", args): one LLVM intrinsic
// overloaded on the call's type.
PackedFunc LLVMPureIntrin(std::string intrin) {
  return PackedFunc::FromTyped([intrin](PrimExpr e) -> PrimExpr {
    const CallNode* call = AsCall(e);
    Array<PrimExpr> args;
    args.push_back(tir::StringImm(intrin));
    for (const PrimExpr& a : call->args) args.push_back(a);
    return Call(call->dtype, Op::Get("tir.call_llvm_pure_intrin"), args);
  });
}

// tir.X(args) -> call_pure_extern("x" / "xf", args): the C math library,
// in double for float64 and in float otherwise (half and bfloat16 are
// widened); vector calls are scalarized by the code generator.
PackedFunc Libm(std::string name) {
  return PackedFunc::FromTyped([name](PrimExpr e) -> PrimExpr {
    const CallNode* call = AsCall(e);
    DataType t = call->dtype;
    bool is_double = t.is_float() && t.bits() == 64;
    DataType ct = is_double ? DataType::Float(64, t.lanes()) : DataType::Float(32, t.lanes());
    Array<PrimExpr> args;
    args.push_back(tir::StringImm(is_double ? name : name + "f"));
    for (const PrimExpr& a : call->args) args.push_back(tir::cast(ct, a));
    return tir::cast(t, Call(ct, Op::Get("tir.call_pure_extern"), args));
  });
}

// A rule written as TIR arithmetic on the call's arguments; it returns the
// call's dtype (predicates such as isnan are cast to it).
PackedFunc Rule(std::function<PrimExpr(const CallNode*)> f) {
  return PackedFunc::FromTyped([f](PrimExpr e) -> PrimExpr { return f(AsCall(e)); });
}

PrimExpr Intrin(DataType t, const char* op, Array<PrimExpr> args) { return tir::CallIntrin(t, op, std::move(args)); }

constexpr const char* kAttr = "llvm.FLowerIntrinsic";

}  // namespace

// The LLVM intrinsic call itself: (StringImm "llvm.<name>", args...), typed
// by the call's dtype. Emitted by CodeGenLLVM.
TESSERA_REGISTER_OP("tir.call_llvm_pure_intrin")
    .set_num_inputs(-1)
    .describe("call a pure LLVM intrinsic: (\"llvm.<name>\", args...)");

TESSERA_REGISTER_OP("tir.exp").set_attr(kAttr, FastMathOr("exp", LLVMPureIntrin("llvm.exp")));
TESSERA_REGISTER_OP("tir.exp2").set_attr(kAttr, LLVMPureIntrin("llvm.exp2"));
TESSERA_REGISTER_OP("tir.log").set_attr(kAttr, FastMathOr("log", LLVMPureIntrin("llvm.log")));
TESSERA_REGISTER_OP("tir.log2").set_attr(kAttr, LLVMPureIntrin("llvm.log2"));
TESSERA_REGISTER_OP("tir.log10").set_attr(kAttr, LLVMPureIntrin("llvm.log10"));
TESSERA_REGISTER_OP("tir.sqrt").set_attr(kAttr, LLVMPureIntrin("llvm.sqrt"));
TESSERA_REGISTER_OP("tir.fabs").set_attr(kAttr, LLVMPureIntrin("llvm.fabs"));
TESSERA_REGISTER_OP("tir.floor").set_attr(kAttr, LLVMPureIntrin("llvm.floor"));
TESSERA_REGISTER_OP("tir.ceil").set_attr(kAttr, LLVMPureIntrin("llvm.ceil"));
TESSERA_REGISTER_OP("tir.trunc").set_attr(kAttr, LLVMPureIntrin("llvm.trunc"));
TESSERA_REGISTER_OP("tir.round").set_attr(kAttr, LLVMPureIntrin("llvm.nearbyint"));
TESSERA_REGISTER_OP("tir.nearbyint").set_attr(kAttr, LLVMPureIntrin("llvm.nearbyint"));
TESSERA_REGISTER_OP("tir.sin").set_attr(kAttr, LLVMPureIntrin("llvm.sin"));
TESSERA_REGISTER_OP("tir.cos").set_attr(kAttr, LLVMPureIntrin("llvm.cos"));
TESSERA_REGISTER_OP("tir.pow").set_attr(kAttr, LLVMPureIntrin("llvm.pow"));
TESSERA_REGISTER_OP("tir.popcount").set_attr(kAttr, LLVMPureIntrin("llvm.ctpop"));

TESSERA_REGISTER_OP("tir.tanh").set_attr(kAttr, FastMathOr("tanh", Libm("tanh")));
TESSERA_REGISTER_OP("tir.erf").set_attr(kAttr, FastMathOr("erf", Libm("erf")));
TESSERA_REGISTER_OP("tir.tan").set_attr(kAttr, Libm("tan"));
TESSERA_REGISTER_OP("tir.asin").set_attr(kAttr, Libm("asin"));
TESSERA_REGISTER_OP("tir.acos").set_attr(kAttr, Libm("acos"));
TESSERA_REGISTER_OP("tir.atan").set_attr(kAttr, Libm("atan"));
TESSERA_REGISTER_OP("tir.sinh").set_attr(kAttr, Libm("sinh"));
TESSERA_REGISTER_OP("tir.cosh").set_attr(kAttr, Libm("cosh"));
TESSERA_REGISTER_OP("tir.log1p").set_attr(kAttr, Libm("log1p"));
TESSERA_REGISTER_OP("tir.atan2").set_attr(kAttr, Libm("atan2"));

TESSERA_REGISTER_OP("tir.exp10").set_attr(kAttr, Rule([](const CallNode* c) {
  return tir::cast(c->dtype, tir::pow(ElemConst(c->dtype, 10.0), c->args[0]));
}));
// T.assume(cond) is a fact for the simplifier only (transform_layout's
// assumptions on padded inputs); as in TVM it costs nothing at run time.
TESSERA_REGISTER_OP("tir.assume").set_attr(kAttr, Rule([](const CallNode*) -> PrimExpr {
  return IntImm(DataType::Bool(), 1);
}));
TESSERA_REGISTER_OP("tir.fmod").set_attr(kAttr, Rule([](const CallNode* c) {
  return tir::truncmod(c->args[0], c->args[1]);
}));
TESSERA_REGISTER_OP("tir.sigmoid").set_attr(kAttr, FastMathOr("sigmoid", Rule([](const CallNode* c) {
  PrimExpr one = ElemConst(c->dtype, 1.0);
  return tir::div(one, tir::add(one, Intrin(c->dtype, "tir.exp", {tir::neg(c->args[0])})));
})));
TESSERA_REGISTER_OP("tir.rsqrt").set_attr(kAttr, Rule([](const CallNode* c) {
  return tir::div(ElemConst(c->dtype, 1.0), Intrin(c->dtype, "tir.sqrt", {c->args[0]}));
}));
TESSERA_REGISTER_OP("tir.isnan").set_attr(kAttr, Rule([](const CallNode* c) {
  return tir::cast(c->dtype, tir::not_equal(c->args[0], c->args[0]));
}));
TESSERA_REGISTER_OP("tir.isinf").set_attr(kAttr, Rule([](const CallNode* c) {
  PrimExpr x = c->args[0];
  return tir::cast(c->dtype, tir::equal(Intrin(x.dtype(), "tir.fabs", {x}), ElemConst(x.dtype(), INFINITY)));
}));
TESSERA_REGISTER_OP("tir.isfinite").set_attr(kAttr, Rule([](const CallNode* c) {
  PrimExpr x = c->args[0];
  return tir::cast(c->dtype, tir::less(Intrin(x.dtype(), "tir.fabs", {x}), ElemConst(x.dtype(), INFINITY)));
}));

}  // namespace codegen
}  // namespace tessera
