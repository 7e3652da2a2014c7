// The Relax lowering passes that relax.build runs before VM code generation
// (relax.get_pipeline("default_build"), pipeline.cc), in pipeline order. Each
// is a registered Pass "relax.transform.<Name>" (one file per pass in
// src/relax/transform/) and a Python constructor relax.transform.<Name>().
#pragma once

#include <optional>
#include <vector>

#include "ir/transform.h"
#include "target/target.h"

namespace tessera {
namespace relax {
class Function;
// `func` without the bindings whose var is unused and whose value has no
// side effect (relax.analysis.remove_all_unused).
Function RemoveAllUnused(const Function& func);
// RemoveAllUnused, then `lv = v; gv = lv` in a dataflow block becomes
// `gv = v` when nothing else uses lv (what DeadCodeElimination does to each function).
Function RemoveUnusedAndIntermediates(const Function& func);

namespace transform {

using tessera::transform::Pass;

// Calls of ops with a legalization ("FLegalize", or an entry of
// `customize_legalize_map` by op name, which wins) become what it returns
// (call_tir of TOPI PrimFuncs, added to the module); others are left, named on
// stderr with `enable_warning`. First pass of the default build pipeline
// (legalize_ops.cc).
Pass LegalizeOps(Map<String, PackedFunc> customize_legalize_map = {}, bool enable_warning = false);
// Dataflow blocks become ordinary binding blocks; DataflowVars become Vars.
Pass ToNonDataflow();
// Pure functions get "relax.force_pure"; call_pure_packed becomes a plain
// call of its callee, invoke_pure_closure invoke_closure.
Pass RemovePurityChecking();
// call_tir / call_dps_packed become R.builtin.alloc_tensor of each output
// plus a call of the callee with the outputs appended (call_tir with
// tir_vars: R.vm.call_tir_dyn).
Pass CallTIRRewrite();
// builtin.alloc_tensor of intermediates become memory.alloc_tensor views of
// memory.alloc_storage blocks shared between tensors whose lifetimes do not
// overlap (within one binding block); outputs are left alone.
Pass StaticPlanBlockMemory();
// Remaining builtin.alloc_tensor become alloc_storage + alloc_tensor.
Pass LowerAllocTensor();
// Memory and runtime ops become VM builtins (relax.vm.*, vm.builtin.*).
Pass VMBuiltinLower();
// Symbolic shapes: parameter checks with error contexts, a shape heap,
// match_shape / make_shape calls and a TIR function computing derived dims.
Pass VMShapeLower(bool emit_err_ctx = true);
// Every function gets its "global_symbol" attribute.
Pass AttachGlobalSymbol();

// Removes unused bindings without side effects from every Relax function,
// then the functions unreachable from the entries (functions with a
// "global_symbol", ExternFuncs, plus `entry_functions`; in a module where no
// Relax function has a "global_symbol", every Relax function is an entry).
// In the build pipeline after DefaultCPUSchedule (dead_code_elimination.cc).
Pass DeadCodeElimination(Array<String> entry_functions = {});

// TVM's "zero" pipeline: LegalizeOps, AnnotateTIROpPattern, FoldConstant,
// FuseOps, FuseTIR (pipeline.cc).
std::vector<Pass> ZeroPipelinePasses(bool enable_warning = false);
// The Sequential "relax.build_pipeline" (relax.get_pipeline("default_build")):
// the zero passes, DefaultCPUSchedule for `target` (a CPU target; none: each
// function's own, else the host), DeadCodeElimination, Normalize and the
// lowering passes above in order (pipeline.cc).
tessera::transform::Sequential DefaultBuildPipeline(std::optional<Target> target = std::nullopt);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
