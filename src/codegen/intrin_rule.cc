// Shared intrinsic lowering rules (see intrin_rule.h).
#include "codegen/intrin_rule.h"

#include <cmath>

#include "ir/op.h"
#include "tir/op.h"

namespace tessera {
namespace codegen {
namespace {

using tir::Call;
using tir::CallNode;

// A scalar constant of `t`'s element type (the checked builders broadcast it).
PrimExpr ElemConst(DataType t, double v) { return FloatImm(t.element_of(), v); }

PrimExpr Intrin(DataType t, const char* op, Array<PrimExpr> args) { return tir::CallIntrin(t, op, std::move(args)); }

}  // namespace

const CallNode* AsIntrinsicCall(const PrimExpr& e) {
  const auto* call = e.as<CallNode>();
  TESSERA_ICHECK(call != nullptr) << "an intrinsic lowering rule was given a non-call expression";
  return call;
}

// The LLVM intrinsic call itself: (StringImm "llvm.<name>", args...), typed
// by the call's dtype. Emitted by CodeGenLLVM; registered here, with every
// backend, so that other generators (and builds without LLVM) refuse it by name.
TESSERA_REGISTER_OP("tir.call_llvm_pure_intrin")
    .set_num_inputs(-1)
    .describe("call a pure LLVM intrinsic: (\"llvm.<name>\", args...)");

PackedFunc LibmRule(std::string name) {
  return PackedFunc::FromTyped([name](PrimExpr e) -> PrimExpr {
    const CallNode* call = AsIntrinsicCall(e);
    DataType t = call->dtype;
    bool is_double = t.is_float() && t.bits() == 64;
    DataType ct = is_double ? DataType::Float(64, t.lanes()) : DataType::Float(32, t.lanes());
    Array<PrimExpr> args;
    args.push_back(tir::StringImm(is_double ? name : name + "f"));
    for (const PrimExpr& a : call->args) args.push_back(tir::cast(ct, a));
    return tir::cast(t, Call(ct, Op::Get("tir.call_pure_extern"), args));
  });
}

PackedFunc ExprRule(std::function<PrimExpr(const CallNode*)> f) {
  return PackedFunc::FromTyped([f](PrimExpr e) -> PrimExpr { return f(AsIntrinsicCall(e)); });
}

PackedFunc SigmoidRule() {
  return ExprRule([](const CallNode* c) {
    PrimExpr one = ElemConst(c->dtype, 1.0);
    return tir::div(one, tir::add(one, Intrin(c->dtype, "tir.exp", {tir::neg(c->args[0])})));
  });
}

void RegisterCommonIntrinsicRules(const std::string& attr) {
  auto set = [&](const char* op, PackedFunc rule) { OpRegEntry::RegisterOrGet(op).set_attr(attr, rule); };
  for (const char* name : {"tanh", "erf", "tan", "asin", "acos", "atan", "sinh", "cosh", "log1p", "atan2"}) {
    set((std::string("tir.") + name).c_str(), LibmRule(name));
  }
  set("tir.exp10", ExprRule([](const CallNode* c) {
        return tir::cast(c->dtype, tir::pow(ElemConst(c->dtype, 10.0), c->args[0]));
      }));
  // T.assume(cond) is a fact for the simplifier only (transform_layout's
  // assumptions on padded inputs); as in TVM it costs nothing at run time.
  set("tir.assume", ExprRule([](const CallNode*) -> PrimExpr { return IntImm(DataType::Bool(), 1); }));
  set("tir.fmod", ExprRule([](const CallNode* c) { return tir::truncmod(c->args[0], c->args[1]); }));
  set("tir.sigmoid", SigmoidRule());
  set("tir.rsqrt", ExprRule([](const CallNode* c) {
        return tir::div(ElemConst(c->dtype, 1.0), Intrin(c->dtype, "tir.sqrt", {c->args[0]}));
      }));
  set("tir.isnan", ExprRule([](const CallNode* c) {
        return tir::cast(c->dtype, tir::not_equal(c->args[0], c->args[0]));
      }));
  set("tir.isinf", ExprRule([](const CallNode* c) {
        PrimExpr x = c->args[0];
        return tir::cast(c->dtype, tir::equal(Intrin(x.dtype(), "tir.fabs", {x}), ElemConst(x.dtype(), INFINITY)));
      }));
  set("tir.isfinite", ExprRule([](const CallNode* c) {
        PrimExpr x = c->args[0];
        return tir::cast(c->dtype, tir::less(Intrin(x.dtype(), "tir.fabs", {x}), ElemConst(x.dtype(), INFINITY)));
      }));
}

}  // namespace codegen
}  // namespace tessera
