// Building blocks of the per-target intrinsic lowering rules: each op carries
// the attribute "<target kind>.FLowerIntrinsic", a function from the call to
// an equivalent expression the kind's code generator can emit. The helpers
// here (a libm call, a rule written as TIR arithmetic) and the rules every
// target shares (sigmoid, rsqrt, isnan, ...) serve every backend's
// intrin_rule_<kind>.cc. Codegen layer.
#pragma once

#include <functional>
#include <string>

#include "runtime/packed_func.h"
#include "tir/expr.h"

namespace tessera {
namespace codegen {

// The call a rule is given (InternalError for anything else).
const tir::CallNode* AsIntrinsicCall(const PrimExpr& e);
// tir.X(args) -> call_pure_extern("x" / "xf", args): the C math library, in
// double for float64 and in float otherwise (half and bfloat16 widened);
// vector calls are scalarized by the code generators.
PackedFunc LibmRule(std::string name);
// A rule written as TIR arithmetic on the call's arguments.
PackedFunc ExprRule(std::function<PrimExpr(const tir::CallNode*)> f);

// sigmoid(x) = 1 / (1 + exp(-x)) in the call's type.
PackedFunc SigmoidRule();

// Registers, under the op attribute `attr` ("c.FLowerIntrinsic"), the rules
// that need nothing of a target: exp10, assume, fmod, sigmoid, rsqrt, isnan,
// isinf, isfinite, and the libm functions tanh, erf, tan, asin, acos, atan,
// sinh, cosh, log1p, atan2.
void RegisterCommonIntrinsicRules(const std::string& attr);

}  // namespace codegen
}  // namespace tessera
