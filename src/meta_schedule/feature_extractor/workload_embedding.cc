// WorkloadEmbedding (see workload_embedding.h).
#include "meta_schedule/feature_extractor/workload_embedding.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {

std::vector<double> WorkloadEmbedding(const IRModule& mod) {
  std::vector<double> flags(kWorkloadEmbeddingLength, 0.0);
  auto classify = [&flags](std::string name) {
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    auto has = [&name](const char* s) { return name.find(s) != std::string::npos; };
    // First match wins, most specific names first.
    if (has("softmax")) flags[0] = 1;
    else if (has("max") || has("min")) flags[1] = 1;
    else if (has("add")) flags[2] = 1;
    else if (has("batch_matmul")) flags[3] = 1;
    else if (has("matmul")) flags[4] = 1;
    else if (has("depthwiseconv2d")) flags[5] = 1;
    else if (has("conv2d_winograd")) flags[6] = 1;
    else if (has("conv2d")) flags[7] = 1;
  };
  if (!mod.defined()) return flags;
  for (const auto& [gv, base] : mod->functions.items()) {
    const auto* func = base.as<tir::PrimFuncNode>();
    if (!func) continue;
    tir::PostOrderVisit(func->body, [&classify](const ObjectRef& n) {
      if (const auto* block = n.as<tir::BlockNode>()) classify(block->name_hint);
    });
  }
  return flags;
}

}  // namespace meta_schedule
}  // namespace tessera
