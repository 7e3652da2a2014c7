// Vectorizable float32 exp, log, tanh, erf and sigmoid written as TIR
// arithmetic (range reduction + polynomial, no libm call), used by the LLVM
// intrinsic rules (intrin_rule_llvm.cc) unless the PassContext option
// "tir.fast_math" is false. Error bounds: docs/pipeline.md, "Fast math".
#pragma once

#include <string>

#include "runtime/packed_func.h"
#include "tir/expr.h"

namespace tessera {
namespace codegen {

// The PassContext config key; true (the default) selects the polynomials.
inline constexpr const char* kFastMathOption = "tir.fast_math";

// Each takes a float32 expression (any lanes) and returns one of the same type.
PrimExpr FastExp(PrimExpr x);
PrimExpr FastLog(PrimExpr x);
PrimExpr FastTanh(PrimExpr x);
PrimExpr FastErf(PrimExpr x);
PrimExpr FastSigmoid(PrimExpr x);

// An "llvm.FLowerIntrinsic" rule: float32 calls of `op` ("exp", "log",
// "tanh", "erf", "sigmoid") become the polynomial when fast math is on,
// every other call goes to `fallback`.
PackedFunc FastMathOr(const std::string& op, PackedFunc fallback);

}  // namespace codegen
}  // namespace tessera
