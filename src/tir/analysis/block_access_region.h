// Block read/write region inference: computes the regions of buffers a
// block reads and writes from its body (as TVM's GetBlockReadWriteRegion), so
// blocks written without T.reads/T.writes get them filled in. TIR analysis;
// used by the TVMScript parser and by schedule primitives.
#pragma once

#include <utility>

#include "tir/function.h"

namespace tessera {
namespace tir {

// Returns {reads, writes} of `block`, as TVM does:
//  - every buffer accessed by BufferLoad/BufferStore in its init and body, in
//    order of first appearance (init first); nested blocks contribute their
//    declared reads/writes (their iteration variables replaced by their
//    bindings) and are not entered;
//  - buffers allocated inside the block (alloc_buffers, DeclBuffer,
//    Allocate) are left out; accesses to a match_buffer become accesses to
//    its source region;
//  - per buffer, the bounding box of the accessed indices with the variables
//    of loops inside the block relaxed over their ranges (block iteration
//    variables stay symbolic, so a point access A[vi] gives [vi, vi + 1));
//    an index whose bounds cannot be computed covers the whole dimension;
//  - a block with an init (a reduction) does not list the buffers it writes
//    among its reads;
//  - tvm_access_ptr of a buffer reads (mask 1) or writes (mask 2) all of it;
//    a buffer whose data variable is otherwise used directly (opaque access,
//    e.g. passed to an extern call) is listed with its full region in reads
//    and writes. Without `visible_buffers` (below) such uses are recognised
//    only for buffers the block also loads/stores or matches (match_buffers,
//    as tensor intrinsics do), since a data variable alone names no buffer.
// Indices are bounded with a small local interval evaluation over affine
// expressions (+, -, * by a constant, floordiv/floormod by a positive
// constant, min, max), with constant or symbolic loop bounds.
std::pair<Array<BufferRegion>, Array<BufferRegion>> InferBlockAccessRegions(const Block& block);

// The same, reporting only buffers visible where the block stands
// (`visible_buffers`: data variable -> buffer, e.g. the function's buffer
// map plus allocations of enclosing blocks), as TVM's detector with its
// buffer_var_map; opaque uses are recognised for those buffers only.
std::pair<Array<BufferRegion>, Array<BufferRegion>> InferBlockAccessRegions(const Block& block,
                                                                            const Map<Var, Buffer>& visible_buffers);

// Fills in reads/writes of every block in `func` marked by the TVMScript
// parser with the annotation "tir.script_infer_regions" and removes the
// marker. Its value is TVM's mask: 1 = infer reads, 2 = infer writes, 3 =
// both; a value of 1 on a block without writes also infers the writes (so a
// parser that marks "infer everything" with 1 works). The root block (an
// outermost block without iteration variables) only loses its marker, as
// in TVM. Blocks are completed innermost first, so that an enclosing block
// sees its children's regions.
PrimFunc CompleteBlockAccessRegions(const PrimFunc& func);

// The annotation key above.
inline constexpr const char* kScriptInferRegions = "tir.script_infer_regions";

}  // namespace tir
}  // namespace tessera
