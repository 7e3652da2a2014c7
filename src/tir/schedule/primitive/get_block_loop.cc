// Instruction kinds of the lookups (get_block, get_loops, get_child_blocks,
// get_producers, get_consumers): pure instructions that only create handles.
// The lookups themselves are Schedule methods (schedule.cc) since they read
// the schedule's block/loop index. TIR schedule layer.
#include "tir/schedule/schedule.h"

namespace tessera {
namespace tir {
namespace {

using Inputs = Array<Any>;
using Attrs = Array<Any>;
using Decision = std::optional<Any>;

}  // namespace

TESSERA_REGISTER_INST_KIND("GetBlock")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs&, const Attrs& attrs, const Decision&) {
      return Array<Any>{sch.GetBlock(attrs.at_any(0).cast<std::string>(), attrs.at_any(1).cast<std::string>())};
    })
    .set_as_python(PythonCall("get_block", {}, {"name", "func_name"}));
TESSERA_REGISTER_INST_KIND("GetLoops")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return AsOutputs(sch.GetLoops(in.at_any(0).cast<BlockRV>()));
    })
    .set_as_python(PythonCall("get_loops", {"block"}, {}, /*returns_list=*/true));
TESSERA_REGISTER_INST_KIND("GetChildBlocks")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return AsOutputs(sch.GetChildBlocks(in.at_any(0).cast<ObjectRef>()));
    })
    .set_as_python(PythonCall("get_child_blocks", {"block_or_loop"}, {}, /*returns_list=*/true));
TESSERA_REGISTER_INST_KIND("GetProducers")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return AsOutputs(sch.GetProducers(in.at_any(0).cast<BlockRV>()));
    })
    .set_as_python(PythonCall("get_producers", {"block"}, {}, /*returns_list=*/true));
TESSERA_REGISTER_INST_KIND("GetConsumers")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return AsOutputs(sch.GetConsumers(in.at_any(0).cast<BlockRV>()));
    })
    .set_as_python(PythonCall("get_consumers", {"block"}, {}, /*returns_list=*/true));

}  // namespace tir
}  // namespace tessera
