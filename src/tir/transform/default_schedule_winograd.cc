// DefaultCPUSchedule's Winograd rule (see default_schedule_winograd.h): the
// stages of topi.nn.conv2d_nchw_winograd (blocks "winograd_*", python/tessera/
// topi/nn/conv2d_winograd.py), recognised by name. The batched GEMM is left to
// the packed matmul rule (default_schedule_matmul.cc).
#include "tir/transform/default_schedule_winograd.h"

#include "ir/transform.h"

namespace tessera {
namespace tir {

// Legalization switch (python/tessera/relax/op/nn/convolution.py): True takes
// Winograd for every legal 3x3 conv2d, False for none; unset, the shapes
// where it measured faster than the packed kernel.
TESSERA_REGISTER_PASS_CONFIG_OPTION("relax.conv2d_winograd", bool);

}  // namespace tir
}  // namespace tessera
