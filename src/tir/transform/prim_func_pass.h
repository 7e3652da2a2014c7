// PrimFuncPass: a Pass (ir/transform.h) that applies a function to every
// PrimFunc of a module, leaving other functions alone; a function returning
// an undefined PrimFunc removes it from the module (as TVM). TIR layer; the
// lowering passes of src/tir/transform are built with CreatePrimFuncPass.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {
namespace transform {

using tessera::transform::Pass;
using tessera::transform::PassContext;
using tessera::transform::PassInfo;

class PrimFuncPassNode : public tessera::transform::PassNode {
 public:
  PassInfo info;
  std::function<PrimFunc(PrimFunc, IRModule, PassContext)> pass_func;
  PassInfo Info() const override { return info; }
  // Returns a new module (the input module object is not modified).
  IRModule Run(IRModule mod, const PassContext& ctx) const override;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PrimFuncPassNode, tessera::transform::PassNode, "tir.PrimFuncPass");
};

Pass CreatePrimFuncPass(std::function<PrimFunc(PrimFunc, IRModule, PassContext)> pass_func, int opt_level,
                        std::string name, Array<String> required = {}, bool traceable = false);

}  // namespace transform
}  // namespace tir
}  // namespace tessera
