// The Winograd rule of DefaultCPUSchedule (default_cpu_schedule.cc): the
// stages of topi.nn.conv2d_nchw_winograd ("winograd_*" blocks) on the CPU.
#pragma once

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {}  // namespace tir
}  // namespace tessera
