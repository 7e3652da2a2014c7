// The Relax graph-rewriting passes that are not part of relax.build's
// lowering pipeline (TVM's relax.transform optimizations): each is a
// registered Pass "relax.transform.<Name>" (one file per pass in
// src/relax/transform/) and a Python constructor relax.transform.<Name>().
#pragma once

#include "ir/transform.h"

namespace tessera {
namespace relax {
namespace transform {

using tessera::transform::Pass;

// Within each scope (function body, If branch, dataflow block), a binding
// whose side-effect-free value equals (structurally, same operands) an
// earlier binding's value becomes `var = earlier_var`, and later uses of
// `var` use `earlier_var`. Values bound in a dataflow block are reused after
// it only through its output vars; nothing is shared into or out of a local
// function. Impure calls and allocations are never merged. `call_only`:
// only calls are merged.
Pass EliminateCommonSubexpr(bool call_only = false);

// Var-to-var bindings and trivial match_casts (the value's struct info
// already is the target) are removed and their uses renamed; an output var
// bound to a dataflow var of its block takes over that var's definition;
// `w = t[i]` with `t` bound to a tuple literal becomes a use of the field.
Pass CanonicalizeBindings();

// Evaluates at compile time every call_tir whose arguments are all constants
// (building the PrimFunc for llvm) and, in dataflow blocks, every high-level
// op call whose inputs are constants (through the op's legalization);
// tensor_to_shape of a constant and shape_of a tensor of static shape become
// shapes. Results over a size limit are left unfolded (see fold_constant.cc).
Pass FoldConstant();

// Maximal runs of side-effect-free bindings outside dataflow blocks with at
// least `min_size` bindings, or next to a dataflow block, become (or join)
// dataflow blocks; their vars not used after the block become DataflowVars.
Pass ConvertToDataflow(int min_size = 2);

// Private functions called only directly lose the parameters they never read
// (keeping those that alone define a symbolic dim); call sites follow.
Pass RemoveUnusedParameters();

// Private functions returning a tuple literal whose callers read only some
// elements (through var[i]) return only those; callers' indices follow.
Pass RemoveUnusedOutputs();

// Private functions called only directly take each tuple parameter as one
// parameter per element (nested tuples flattened); call sites follow.
Pass ExpandTupleArguments();

// Local functions become private module functions `<outer>_<name>`; captured
// vars become trailing parameters passed at every call (NotImplementedError
// for a capturing function used as a value: closures are not supported).
Pass LambdaLift();

// Inference batch_norm(conv2d(x, W) [+ b], gamma, beta, mean, var)[0] with
// every parameter a float constant (NCHW/OIHW, channel axis 1) becomes
// conv2d(x, W * s) + ((b - mean) * s + beta), s = gamma / sqrt(var + eps),
// the constants computed by the pass; other batch_norms are left alone.
Pass FoldBatchnormToConv2d();

}  // namespace transform
}  // namespace relax
}  // namespace tessera
