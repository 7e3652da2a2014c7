// Registers tir.default_schedule.parallel_chunks (default_schedule_chunks.h):
// the switch between at least kChunksPerCore parallel iterations per core
// and the earlier one per core in DefaultCPUSchedule's rules.
#include "tir/transform/default_schedule_chunks.h"

#include "ir/transform.h"

namespace tessera {
namespace tir {

TESSERA_REGISTER_PASS_CONFIG_OPTION(kParallelChunksOption, bool);

}  // namespace tir
}  // namespace tessera
