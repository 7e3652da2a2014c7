// Workload embedding (TVM's feature group 6, with extract_workload=True): eight
// flags saying which kinds of block names the tuned workload has (softmax,
// min/max, add, batch_matmul, matmul, depthwise conv2d, winograd conv2d, conv2d),
// appended to every row of every candidate of that workload.
#pragma once

#include <vector>

#include "ir/module.h"

namespace tessera {
namespace meta_schedule {

constexpr int kWorkloadEmbeddingLength = 8;

std::vector<double> WorkloadEmbedding(const IRModule& mod);

}  // namespace meta_schedule
}  // namespace tessera
