// PerStoreFeature (see per_store_feature.h): the collector that walks a lowered
// module, keeps the loop nest and the allocations in scope, and runs the
// feature groups on every store.
#include "meta_schedule/feature_extractor/per_store_feature.h"

#include <cstring>
#include <unordered_map>

#include "meta_schedule/feature_extractor/lower_for_features.h"
#include "meta_schedule/feature_extractor/workload_embedding.h"
#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {
namespace {

using namespace tir;

class PerStoreCollector : public StmtExprVisitor {
 public:
  explicit PerStoreCollector(const PerStoreFeatureConfig& config) : config_(config) {}

  std::vector<std::vector<double>> Run(const IRModule& mod) {
    for (const auto& [gv, base] : mod->functions.items()) {
      const auto* func = base.as<PrimFuncNode>();
      if (!func) continue;
      for (const auto& [var, buf] : func->buffer_map.items()) RecordAlloc(buf);
      VisitStmt(func->body);
      touched_.clear();
    }
    std::vector<std::vector<double>> rows;
    rows.reserve(order_.size());
    for (const BufferNode* buf : order_) rows.push_back(std::move(rows_[buf]));
    return rows;
  }

 private:
  using StmtExprVisitor::VisitStmt_;

  void RecordAlloc(const Buffer& buf) {
    AllocInfo info;
    info.numel = 1;
    for (double d : ConstBufferShape(buf.get(), &analyzer_)) info.numel *= d;
    info.bytes = info.numel * buf->dtype.bytes();
    info.outer_prod = nest_.prod;
    allocs_[buf.get()] = info;
  }

  void VisitStmt_(const ForNode* op) override {
    ForVec* kind_list = nest_.Push(op);
    VisitStmt(op->body);
    nest_.Pop(op, kind_list);
  }
  void VisitStmt_(const DeclBufferNode* op) override {
    RecordAlloc(op->buffer);
    VisitStmt(op->body);
  }
  void VisitStmt_(const BlockNode* op) override {
    for (const Buffer& buf : op->alloc_buffers) RecordAlloc(buf);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (op->value.as<IntImmNode>() || op->value.as<FloatImmNode>()) return;  // initialization, not computation
    const BufferNode* buf = op->buffer.get();
    auto it = allocs_.find(buf);
    StoreContext ctx{config_, op, nest_, &analyzer_, &touched_, it == allocs_.end() ? nullptr : &it->second, {}, {}};
    std::vector<double> row;
    for (const FeatureGroup& g : PerStoreFeatureGroups()) {
      size_t before = row.size();
      g.compute(&ctx, &row);
      TESSERA_ICHECK(row.size() - before == static_cast<size_t>(g.count(config_)))
          << "feature group " << g.name << " wrote " << row.size() - before << " values";
    }
    if (!rows_.count(buf)) order_.push_back(buf);
    rows_[buf] = std::move(row);
  }

  const PerStoreFeatureConfig& config_;
  arith::Analyzer analyzer_;
  LoopNest nest_;
  TouchedUnderLoop touched_;
  std::unordered_map<const BufferNode*, AllocInfo> allocs_;
  std::unordered_map<const BufferNode*, std::vector<double>> rows_;
  std::vector<const BufferNode*> order_;
};

}  // namespace

void CheckPerStoreFeatureConfig(const PerStoreFeatureConfig& c) {
  TESSERA_CHECK_OR_THROW(c.buffers_per_store >= 1 && c.buffers_per_store <= 64, ValueError)
      << "PerStoreFeature: buffers_per_store must lie in [1, 64], got " << c.buffers_per_store;
  TESSERA_CHECK_OR_THROW(c.arith_intensity_curve_num_samples >= 1 && c.arith_intensity_curve_num_samples <= 1024,
                         ValueError)
      << "PerStoreFeature: arith_intensity_curve_num_samples must lie in [1, 1024], got "
      << c.arith_intensity_curve_num_samples;
  TESSERA_CHECK_OR_THROW(c.cache_line_bytes >= 1 && c.cache_line_bytes <= (1 << 20), ValueError)
      << "PerStoreFeature: cache_line_bytes must lie in [1, 1048576], got " << c.cache_line_bytes;
}

int PerStoreFeatureLength(const PerStoreFeatureConfig& config, bool extract_workload) {
  CheckPerStoreFeatureConfig(config);
  int n = 0;
  for (const FeatureGroup& g : PerStoreFeatureGroups()) n += g.count(config);
  return n + (extract_workload ? kWorkloadEmbeddingLength : 0);
}

std::vector<std::vector<double>> CollectPerStoreFeatures(const IRModule& lowered, const PerStoreFeatureConfig& config) {
  CheckPerStoreFeatureConfig(config);
  return PerStoreCollector(config).Run(lowered);
}

std::vector<std::vector<double>> ExtractPerStoreFeatures(const IRModule& mod, const PerStoreFeatureConfig& config) {
  return CollectPerStoreFeatures(LowerForFeatureExtraction(mod), config);
}

NDArray FeatureRowsToNDArray(const std::vector<std::vector<double>>& rows, int n_features) {
  NDArray arr =
      NDArray::Empty({static_cast<int64_t>(rows.size()), n_features}, DataType::Float(64), CPU());
  auto* data = static_cast<double*>(arr.DataPtr());
  for (const std::vector<double>& row : rows) {
    TESSERA_ICHECK(static_cast<int>(row.size()) == n_features) << "feature row of " << row.size() << " values";
    std::memcpy(data, row.data(), sizeof(double) * row.size());
    data += row.size();
  }
  return arr;
}

}  // namespace meta_schedule
}  // namespace tessera
