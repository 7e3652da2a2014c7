// Padding for transform_layout (layout_transformation.cc): when an index
// map does not tile a buffer's shape exactly (14 -> (4, 4)), the padded
// inverse of the map and its padding predicate, and the rewrite that fills
// the padding with pad_value the way TVM does (an assumption block for an
// input, the producer's loops widened with if_then_else, or a separate
// padding block after the producer). TIR schedule layer.
#pragma once

#include <optional>
#include <string>

#include "tir/buffer.h"
#include "tir/index_map.h"
#include "tir/stmt.h"

namespace tessera {
namespace tir {

struct LayoutPadding {
  Array<PrimExpr> new_shape;  // the padded shape of the transformed buffer
  IndexMap inverse;           // new indices -> old indices
  PrimExpr predicate;         // true on the padding, over inverse's initial indices
};

// The padded layout of `buf` under `map`: each old index divided by constant
// factors is padded (at its end, or at its start when the map adds an
// offset) up to a multiple of the factors so that the map becomes a
// bijective affine map of the padded domain. std::nullopt (with the reason
// in *why) when no such padding exists.
std::optional<LayoutPadding> AnalyzeLayoutPadding(const Buffer& buf, const IndexMap& map, std::string* why);

// Rewrites `body` (a PrimFunc's body, still accessing `from`) so that the
// padding of `to` receives `pad_value` (an IndexMap of the new indices to
// one value): TVM's plans, in order of preference — no writer of `from`:
// a "buffer_<name>_assumptions" block of T.assume at the start of the
// scope; a writer whose loops traverse `from` row-major and write nothing
// else: its loops replaced by loops over the new shape storing
// if_then_else(padding, pad_value, value); otherwise a
// "buffer_<name>_padding" block after the last writer. Accesses of `from`
// left in place are for the caller to remap. Throws ScheduleError-worthy
// ValueError when a writer is outside any loop and block.
Stmt ApplyLayoutPadding(const Stmt& body, const Buffer& from, const Buffer& to, const LayoutPadding& pad,
                        const IndexMap& pad_value);

}  // namespace tir
}  // namespace tessera
