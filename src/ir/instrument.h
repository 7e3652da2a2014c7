// Pass instruments written in C++ (IR layer): PassTimingInstrument records
// how long each pass runs (nested passes of a Sequential under their
// parent) for the current thread; RenderPassProfiles prints the record.
// Instruments that print IR live in Python (tvm.ir.instrument), as in TVM.
#pragma once

#include <string>

#include "ir/transform.h"

namespace tessera {
namespace instrument {

// Records wall time per pass between entering and leaving its PassContext
// (the record is cleared on enter_pass_ctx and exit_pass_ctx).
transform::PassInstrument PassTimingInstrument();

// One line per pass run under the innermost timing instrument of this
// thread, in run order, children indented under their parent:
//   "<name>: <total>us [<self>us] (<% of all>; <% of parent>)"
std::string RenderPassProfiles();

}  // namespace instrument
}  // namespace tessera
