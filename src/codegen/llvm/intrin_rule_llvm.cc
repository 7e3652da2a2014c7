// How TIR intrinsics lower for the "llvm" target kind: each op carries the
// attribute "llvm.FLowerIntrinsic", a function from the call to an equivalent
// expression that CodeGenLLVM can emit (an LLVM intrinsic through
// tir.call_llvm_pure_intrin here; libm calls and plain arithmetic through
// the shared rules of codegen/intrin_rule.h). Adding an intrinsic for LLVM is one line here; an op
// without the attribute is refused by the code generator naming op and target.
#include <cmath>

#include "codegen/intrin_rule.h"
#include "codegen/llvm/fast_math.h"
#include "ir/op.h"
#include "runtime/registry.h"
#include "tir/op.h"

namespace tessera {
namespace codegen {
namespace {

using tir::Call;
using tir::CallNode;

// tir.X(args) -> call_llvm_pure_intrin("llvm.x", args): one LLVM intrinsic
// overloaded on the call's type.
PackedFunc LLVMPureIntrin(std::string intrin) {
  return PackedFunc::FromTyped([intrin](PrimExpr e) -> PrimExpr {
    const CallNode* call = AsIntrinsicCall(e);
    Array<PrimExpr> args;
    args.push_back(tir::StringImm(intrin));
    for (const PrimExpr& a : call->args) args.push_back(a);
    return Call(call->dtype, Op::Get("tir.call_llvm_pure_intrin"), args);
  });
}

constexpr const char* kAttr = "llvm.FLowerIntrinsic";

}  // namespace

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

// The rules every target shares (libm functions, sigmoid, isnan, ...).
[[maybe_unused]] const bool kCommonRules = (RegisterCommonIntrinsicRules(kAttr), true);
// float32 tanh, erf and sigmoid as vectorizable polynomials (fast_math.h) in
// front of the shared rules; a higher priority than theirs, so the order of
// registration does not matter.
constexpr int kFastMathPriority = 20;
TESSERA_REGISTER_OP("tir.tanh").set_attr(kAttr, FastMathOr("tanh", LibmRule("tanh")), kFastMathPriority);
TESSERA_REGISTER_OP("tir.erf").set_attr(kAttr, FastMathOr("erf", LibmRule("erf")), kFastMathPriority);
TESSERA_REGISTER_OP("tir.sigmoid").set_attr(kAttr, FastMathOr("sigmoid", SigmoidRule()), kFastMathPriority);

}  // namespace codegen
}  // namespace tessera
