// IsScheduled: whether a PrimFunc already carries a schedule (its
// "tir.is_scheduled" attribute, a host function, or any loop that is not
// serial: parallel, vectorized, unrolled, thread-bound). TIR analysis; the
// default schedules leave such functions alone and FuseOps does not merge
// them into others (a fused copy would lose the user's schedule).
#pragma once

#include "tir/function.h"

namespace tessera {
namespace tir {

bool IsScheduled(const PrimFunc& func);

}  // namespace tir
}  // namespace tessera
