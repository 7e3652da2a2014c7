// Relax pass wrappers (TVM's relax.transform.FunctionPass /
// DataflowBlockPass): a function applied to every relax Function of a
// module, or to every DataflowBlock of every relax Function. Relax IR layer;
// Relax transforms are built with CreateFunctionPass / CreateDataflowBlockPass
// or as module passes (ir/transform.h), all mixing in one Sequential.
#pragma once

#include "ir/transform.h"
#include "relax/expr.h"

namespace tessera {
namespace relax {
namespace transform {

using tessera::transform::Pass;
using tessera::transform::PassContext;
using tessera::transform::PassInfo;

class FunctionPassNode : public tessera::transform::PassNode {
 public:
  PassInfo info;
  std::function<Function(Function, IRModule, PassContext)> pass_func;
  PassInfo Info() const override { return info; }
  // A new module; the functions the pass returns are normalized (struct info filled).
  IRModule Run(IRModule mod, const PassContext& ctx) const override;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(FunctionPassNode, tessera::transform::PassNode, "relax.FunctionPass");
};

class DataflowBlockPassNode : public tessera::transform::PassNode {
 public:
  PassInfo info;
  std::function<DataflowBlock(DataflowBlock, IRModule, PassContext)> pass_func;
  PassInfo Info() const override { return info; }
  // A new module. A block's output (non-dataflow) vars must come back
  // unchanged (later bindings use them): ValueError naming the pass otherwise.
  IRModule Run(IRModule mod, const PassContext& ctx) const override;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(DataflowBlockPassNode, tessera::transform::PassNode, "relax.DataflowBlockPass");
};

Pass CreateFunctionPass(std::function<Function(Function, IRModule, PassContext)> pass_func, int opt_level,
                        std::string name, Array<String> required = {}, bool traceable = false);
Pass CreateDataflowBlockPass(std::function<DataflowBlock(DataflowBlock, IRModule, PassContext)> pass_func,
                             int opt_level, std::string name, Array<String> required = {}, bool traceable = false);

// relax.transform.Normalize: every relax Function normalized by a BlockBuilder over the module.
Pass Normalize();

}  // namespace transform
}  // namespace relax
}  // namespace tessera
