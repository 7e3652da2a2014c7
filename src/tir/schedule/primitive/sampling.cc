// Instruction kinds of the sampling primitives (sample_perfect_tile,
// sample_categorical, sample_compute_location): pure instructions whose
// decision the trace records and replay reuses. The samplers are Schedule
// methods (schedule.cc) since they draw from the schedule's random state.
// TIR schedule layer.
#include "tir/schedule/schedule.h"

namespace tessera {
namespace tir {
namespace {

using Inputs = Array<Any>;
using Attrs = Array<Any>;
using Decision = std::optional<Any>;

}  // namespace

TESSERA_REGISTER_INST_KIND("SamplePerfectTile")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision& d) {
      return AsOutputs(sch.SamplePerfectTile(in.at_any(0).cast<LoopRV>(), attrs.at_any(0).cast<int>(),
                                             attrs.at_any(1).cast<int>(),
                                             d ? std::optional<Array<Any>>(d->cast<Array<Any>>()) : std::nullopt));
    })
    .set_as_python(PythonCall("sample_perfect_tile", {"loop"}, {"n", "max_innermost_factor"}, /*returns_list=*/true));
TESSERA_REGISTER_INST_KIND("SampleCategorical")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs&, const Attrs& attrs, const Decision& d) {
      return Array<Any>{sch.SampleCategorical(attrs.at_any(0).cast<Array<Any>>(), attrs.at_any(1).cast<Array<Any>>(), d)};
    })
    .set_as_python(PythonCall("sample_categorical", {}, {"candidates", "probs"}));
TESSERA_REGISTER_INST_KIND("SampleComputeLocation")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision& d) {
      return Array<Any>{sch.SampleComputeLocation(in.at_any(0).cast<BlockRV>(),
                                                  d ? std::optional<int64_t>(d->cast<int64_t>()) : std::nullopt)};
    })
    .set_as_python(PythonCall("sample_compute_location", {"block"}, {}));

}  // namespace tir
}  // namespace tessera
