// Operator fusion for Relax (TVM v0.18's relax.transform.AnnotateTIROpPattern,
// FuseOps and FuseTIR): PrimFuncs are classified by the access pattern of
// their TIR, call_tir bindings of dataflow blocks are grouped into
// "Primitive" Relax functions along the post-dominator tree, and each group
// becomes one PrimFunc. One pass per file: annotate_tir_op_pattern.cc,
// fuse_ops.cc, fuse_tir.cc. Runs after LegalizeOps, before the schedules.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace relax {

// How an operator maps inputs to outputs (TVM's OpPatternKind, same values);
// a larger value fuses less.
enum OpPatternKind : int {
  kElemWise = 0,         // out[i] = f(in[i])
  kBroadcast = 1,        // out[i, j] = f(in[j])
  kInjective = 2,        // any spatial index map (transpose, reshape, pad)
  kCommReduce = 3,       // a commutative reduction (sum, max)
  kOutEWiseFusable = 4,  // matmul/conv/pool: elementwise epilogues fuse into it
  kTuple = 7,            // a tuple of values
  kOpaque = 8,           // never fused
};

// The pattern of `func` from its TIR blocks (see annotate_tir_op_pattern.cc).
OpPatternKind AnalyzeOpPatternKind(const tir::PrimFunc& func);

namespace transform {

using tessera::transform::Pass;

// Every PrimFunc without an "op_pattern" attribute gets one (int, OpPatternKind).
Pass AnnotateTIROpPattern();
// Groups the call_tir bindings of each dataflow block by the post-dominator
// algorithm of TVM into private Relax functions with {"Primitive": 1} called
// from where the group's last binding was. `fuse_opt_level` -1: the
// PassContext's opt_level; below 1 nothing is fused.
Pass FuseOps(int fuse_opt_level = -1);
// Each call of a "Primitive" Relax function whose body is call_tir bindings
// becomes one call_tir of a PrimFunc that runs the group's PrimFuncs in order
// (intermediates allocated inside); the primitive functions are removed.
Pass FuseTIR();

}  // namespace transform
}  // namespace relax
}  // namespace tessera
