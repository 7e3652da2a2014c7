// BindTarget(target): the pass setting the "target" attribute of every
// PrimFunc that has none (TVM's tir.transform.BindTarget), which is how
// SplitHostDevice and backends learn what each function is compiled for.
// Codegen layer.
#pragma once

#include "ir/transform.h"
#include "target/target.h"

namespace tessera {
namespace codegen {
namespace transform {

tessera::transform::Pass BindTarget(Target target);

}  // namespace transform
}  // namespace codegen
}  // namespace tessera
