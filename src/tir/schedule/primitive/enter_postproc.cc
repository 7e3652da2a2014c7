// enter_postproc: a no-op instruction marking where a trace's postprocessing
// begins (TVM's meta-schedule records it before postprocessors run);
// Trace.simplified(remove_postproc=True) and apply_to_schedule(remove_postproc=True)
// cut the trace there. Instruction kind, Schedule entry and FFI.
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

TESSERA_REGISTER_INST_KIND("EnterPostproc")
    .set_apply([](const Schedule& sch, const Inputs&, const Attrs&, const Decision&) {
      sch.Record("EnterPostproc", {}, {}, {});
      return Array<Any>();
    })
    .set_as_python(PythonCall("enter_postproc", {}, {}));

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.EnterPostproc").set_body_typed([](Schedule s) {
  s.Record("EnterPostproc", {}, {}, {});
});

}  // namespace tir
}  // namespace tessera
