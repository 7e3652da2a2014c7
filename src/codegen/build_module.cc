// The build driver (see build_module.h).
#include "codegen/build_module.h"

#include "codegen/target_build.h"
#include "runtime/registry.h"
#include "tir/transform/compact_buffer_allocation.h"
#include "tir/transform/flatten_buffer.h"
#include "tir/transform/loop_partition.h"
#include "tir/transform/lower_blocks.h"
#include "tir/transform/lower_init_block.h"
#include "tir/transform/unroll_loop.h"
#include "tir/transform/vectorize_loop.h"

namespace tessera {
namespace codegen {

tir::PrimFunc LowerPrimFunc(tir::PrimFunc func) {
  func = tir::LowerInitBlock(func);
  func = tir::LowerBlocks(func);
  func = tir::CompactBufferAllocation(func);
  func = tir::LoopPartition(func);
  func = tir::FlattenBuffer(func);
  func = tir::VectorizeLoop(func);
  func = tir::UnrollLoop(func);
  return func;
}

Module Build(const IRModule& mod, const Target& target) {
  // Lower every PrimFunc, then hand the module to the backend of the target's kind.
  IRModule lowered = mod.ShallowCopy();
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    if (auto prim = mod->Lookup(gv).as<tir::PrimFuncNode>()) {
      lowered.mutable_node()->Update(gv, LowerPrimFunc(GetRef<tir::PrimFunc>(prim)));
    }
  }
  return BuildForTarget(lowered, target);
}

TESSERA_REGISTER_GLOBAL("codegen.Build").set_body_typed([](IRModule mod, Target target) { return Build(mod, target); });
TESSERA_REGISTER_GLOBAL("codegen.LowerPrimFunc").set_body_typed([](tir::PrimFunc f) { return LowerPrimFunc(f); });

}  // namespace codegen
}  // namespace tessera
