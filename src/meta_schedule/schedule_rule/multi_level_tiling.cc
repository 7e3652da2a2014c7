// MultiLevelTiling: TVM's multi-level tiling rule (see
// multi_level_tiling.h): tiling by structure, thread binding of the outer
// levels (GPU), write and read reuse (cooperative fetch on the GPU).
// Meta-schedule layer.
#include "meta_schedule/schedule_rule/multi_level_tiling.h"

#include "runtime/registry.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

ReuseConfig ReuseConfig::FromMap(const std::optional<Map<String, Any>>& config, const char* what, size_t n_levels) {
  ReuseConfig out;
  if (!config) return out;
  for (const auto& [k, v] : config->items()) {
    std::string key = k;
    TESSERA_CHECK_OR_THROW(key == "req" || key == "levels" || key == "scope", ValueError)
        << what << ": unknown key \"" << key << "\" (expected req, levels and scope)";
  }
  TESSERA_CHECK_OR_THROW(config->count("req") && config->count("levels") && config->count("scope"), ValueError)
      << what << " must give req, levels and scope";
  std::string req = config->at("req").cast<std::string>();
  if (req == "no") {
    out.req = ReuseType::kNoReuse;
  } else if (req == "may") {
    out.req = ReuseType::kMayReuse;
  } else if (req == "must") {
    out.req = ReuseType::kMustReuse;
  } else {
    TESSERA_THROW(ValueError) << what << ": req must be \"no\", \"may\" or \"must\", got \"" << req << "\"";
  }
  for (const Any& level : config->at("levels").cast<Array<Any>>()) {
    int64_t l = level.cast<int64_t>();
    TESSERA_CHECK_OR_THROW(l >= 1 && static_cast<size_t>(l) <= n_levels, ValueError)
        << what << ": level " << l << " is outside the structure's 1.." << n_levels;
    out.levels.push_back(static_cast<int>(l));
  }
  out.scope = config->at("scope").cast<std::string>();
  return out;
}

void InitMultiLevelTiling(MultiLevelTilingNode* n, const std::string& structure, const Any& tile_binds,
                          const std::optional<int64_t>& max_innermost_factor, const Any& vector_load_lens,
                          const std::optional<Map<String, Any>>& reuse_read,
                          const std::optional<Map<String, Any>>& reuse_write, const Any& filter_fn) {
  if (!tile_binds.is_none()) {
    for (const Any& tag : tile_binds.cast<Array<Any>>()) n->tile_binds.push_back(tag.cast<std::string>());
  }
  if (!vector_load_lens.is_none()) {
    for (const Any& len : vector_load_lens.cast<Array<Any>>()) {
      int64_t v = len.cast<int64_t>();
      TESSERA_CHECK_OR_THROW(v >= 1, ValueError) << "MultiLevelTiling(vector_load_lens): lengths must be positive, got "
                                                 << v;
      n->vector_load_lens.push_back(v);
    }
  }
  TESSERA_CHECK_OR_THROW(filter_fn.is_none(), NotImplementedError)
      << "MultiLevelTiling(filter_fn=...) is not supported";
  TESSERA_CHECK_OR_THROW(!structure.empty(), ValueError) << "MultiLevelTiling: the structure is empty";
  n->structure = structure;
  for (size_t i = 0; i < structure.size(); ++i) {
    if (structure[i] == 'S') {
      n->s_indices.push_back(static_cast<int>(i));
    } else if (structure[i] == 'R') {
      n->r_indices.push_back(static_cast<int>(i));
    } else {
      TESSERA_THROW(ValueError) << "MultiLevelTiling: invalid tiling structure \"" << structure
                                << "\" (only 'S' and 'R' are allowed)";
    }
  }
  TESSERA_CHECK_OR_THROW(!n->s_indices.empty(), ValueError)
      << "MultiLevelTiling: the structure \"" << structure << "\" has no spatial level 'S'";
  const size_t n_binds = n->tile_binds.size();
  TESSERA_CHECK_OR_THROW(n_binds <= n->s_indices.size() &&
                             (n_binds == 0 || n->s_indices[n_binds - 1] == static_cast<int>(n_binds) - 1),
                         ValueError)
      << "MultiLevelTiling(tile_binds): " << n->tile_binds.size() << " thread tags need as many leading 'S' levels, "
      << "and the structure \"" << structure << "\" has fewer";
  n->max_innermost_factor = max_innermost_factor.value_or(-1);
  n->reuse_read = ReuseConfig::FromMap(reuse_read, "MultiLevelTiling(reuse_read)", structure.size());
  n->reuse_write = ReuseConfig::FromMap(reuse_write, "MultiLevelTiling(reuse_write)", structure.size());
  TESSERA_CHECK_OR_THROW(n->reuse_read.req != ReuseType::kMayReuse, ValueError)
      << "MultiLevelTiling(reuse_read): req \"may\" is not allowed for reads (as in TVM); use \"no\" or \"must\"";
}

Array<Schedule> MultiLevelTilingNode::Apply(const Schedule& sch, const BlockRV& block) const {
  BlockLocation loc = Locate(sch, block);
  if (loc.scope == nullptr || !NeedsMultiLevelTiling(loc)) return {sch};
  sch.Annotate(block, kTilingStructure, Any(String(structure)));
  std::vector<TilingState> states{{sch, block, {}}};
  auto sub_rule = [&](auto f) {
    std::vector<TilingState> next;
    for (TilingState& s : states) {
      for (TilingState& r : f(std::move(s))) next.push_back(std::move(r));
    }
    states = std::move(next);
  };
  sub_rule([&](TilingState s) { return TileLoopNest(std::move(s)); });
  sub_rule([&](TilingState s) { return AddWriteReuse(std::move(s)); });
  sub_rule([&](TilingState s) { return AddReadReuse(std::move(s)); });
  std::vector<Schedule> out;
  for (const TilingState& s : states) out.push_back(s.sch);
  return Array<Schedule>(out);
}

ScheduleRule MultiLevelTilingNode::Clone() const { return ScheduleRule(make_object<MultiLevelTilingNode>(*this)); }

std::vector<TilingState> MultiLevelTilingNode::TileLoopNest(TilingState state) const {
  const Schedule& sch = state.sch;
  Array<LoopRV> loops = sch.GetLoops(state.block);
  BlockLocation loc = Locate(sch, state.block);
  std::vector<int> iter_types;
  for (const IterVar& iv : loc.block->iter_vars) iter_types.push_back(iv->iter_type);
  std::vector<std::vector<LoopRV>> tiles(structure.size());
  for (size_t i = 0; i < loops.size() && i < iter_types.size(); ++i) {
    const std::vector<int>* idx = nullptr;
    if (iter_types[i] == kDataPar) {
      idx = &s_indices;
    } else if (iter_types[i] == kCommReduce) {
      idx = &r_indices;
    } else {
      continue;
    }
    if (idx->empty()) continue;
    if (idx->size() == 1) {
      tiles[idx->at(0)].push_back(loops[i]);
      continue;
    }
    Array<Var> factors = sch.SamplePerfectTile(loops[i], static_cast<int>(idx->size()),
                                               static_cast<int>(max_innermost_factor), std::nullopt);
    Array<LoopRV> splits = sch.Split(loops[i], Array<Any>(factors.begin(), factors.end()), true);
    for (size_t j = 0; j < idx->size(); ++j) tiles[idx->at(j)].push_back(splits[j]);
  }
  std::vector<LoopRV> order;
  for (const auto& level : tiles) order.insert(order.end(), level.begin(), level.end());
  sch.Reorder(Array<LoopRV>(order));
  for (size_t i = 0; i < tile_binds.size(); ++i) {
    if (tiles[i].empty()) continue;
    LoopRV fused = tiles[i].size() == 1 ? tiles[i][0] : sch.Fuse(Array<LoopRV>(tiles[i]), true);
    sch.Bind(fused, tile_binds[i]);
    tiles[i] = {fused};
  }
  state.tiles = std::move(tiles);
  return {std::move(state)};
}

namespace {
// TVM's IsWriteCache: a block that copies one buffer into another through an
// injective and ordered index map (each written element read from one place,
// dimensions in order). A copy through div/mod (an unpacking layout change)
// is not one: reverse_compute_at of it at a tile fails unless the tile sizes
// happen to align with the divisor, so sampled decisions would break it.
bool IsWriteCache(const BlockNode* block) {
  if (block->reads.size() != 1 || block->writes.size() != 1) return false;
  const auto* store = block->body.as<BufferStoreNode>();
  if (!store || !store->value.as<BufferLoadNode>() ||
      !store->value.as<BufferLoadNode>()->buffer.same_as(block->reads[0]->buffer)) {
    return false;
  }
  bool injective = false, ordered = false;
  ReadWritePattern(block->reads[0], block->writes[0], &injective, &ordered);
  return injective && ordered;
}
}  // namespace

std::vector<TilingState> MultiLevelTilingNode::AddWriteReuse(TilingState state) const {
  if (reuse_write.req == ReuseType::kNoReuse) return {std::move(state)};
  std::vector<TilingState> results;
  if (reuse_write.req == ReuseType::kMayReuse) {
    // A write cache already there (a single consumer copying the output) is reused.
    BlockLocation loc = Locate(state.sch, state.block);
    auto index = state.sch.IndexOf(state.sch->blocks.at(state.block.get()).func);
    const auto& consumers = index->Consumers(loc.block);
    if (consumers.size() == 1 && IsWriteCache(consumers[0]->block)) {
      BlockRV cache = state.sch.GetBlock(consumers[0]->block->name_hint, std::nullopt);
      for (int level : reuse_write.levels) {
        TilingState s = state.Copy();
        s.sch.ReverseComputeAt(cache, s.tiles[level - 1].back(), true, -1);
        results.push_back(std::move(s));
      }
      results.push_back(std::move(state));
      return results;
    }
    results.push_back(state.Copy());  // no write cache
  }
  BlockRV cache = state.sch.CacheWrite(state.block, 0, reuse_write.scope);
  for (int level : reuse_write.levels) {
    if (state.tiles[level - 1].empty()) continue;
    TilingState s = state.Copy();
    s.sch.ReverseComputeAt(cache, s.tiles[level - 1].back(), true, -1);
    results.push_back(std::move(s));
  }
  return results;
}

std::vector<TilingState> MultiLevelTilingNode::AddReadReuse(TilingState state) const {
  if (reuse_read.req == ReuseType::kNoReuse) return {std::move(state)};
  std::vector<TilingState> results;
  for (int level : reuse_read.levels) {
    if (state.tiles[level - 1].empty()) continue;
    TilingState s = state.Copy();
    const LoopRV& at = s.tiles[level - 1].back();
    BlockLocation loc = Locate(s.sch, s.block);
    const Object* written = loc.block->writes[0]->buffer.get();
    std::vector<std::pair<int, int>> reads;  // (read index, buffer rank)
    for (size_t i = 0; i < loc.block->reads.size(); ++i) {
      const Buffer& buf = loc.block->reads[i]->buffer;
      if (buf.get() != written) reads.emplace_back(static_cast<int>(i), static_cast<int>(buf->shape.size()));
    }
    for (const auto& [i, ndim] : reads) {
      BlockRV cache = s.sch.CacheRead(s.block, i, reuse_read.scope);
      s.sch.ComputeAt(cache, at, true, -1);
      Array<LoopRV> cache_loops = s.sch.GetLoops(cache);
      if (cache_loops.size() < static_cast<size_t>(std::max(ndim, 1))) continue;
      std::vector<LoopRV> all = cache_loops.to_vector();
      LoopRV fused = all.back();
      if (ndim > 1) {
        std::vector<LoopRV> inner(all.end() - ndim, all.end());
        fused = s.sch.Fuse(Array<LoopRV>(inner), true);
      }
      if (!vector_load_lens.empty()) {
        // A cooperative fetch: the block's threads share the copy (RewriteCooperativeFetch).
        std::vector<Any> lens, probs;
        for (int64_t v : vector_load_lens) lens.push_back(Any(v));
        probs.assign(lens.size(), Any(1.0 / static_cast<double>(lens.size())));
        Var len = s.sch.SampleCategorical(Array<Any>(lens), Array<Any>(probs), std::nullopt);
        s.sch.Annotate(fused, kCooperativeFetch, Any(len));
      }
    }
    results.push_back(std::move(s));
  }
  return results;
}

TESSERA_REGISTER_NODE(MultiLevelTilingNode)
    .field("structure", &MultiLevelTilingNode::structure)
    .field("max_innermost_factor", &MultiLevelTilingNode::max_innermost_factor)
    .getter("tile_binds", [](const MultiLevelTilingNode* n) {
      return Array<String>(n->tile_binds.begin(), n->tile_binds.end());
    });

TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleMultiLevelTiling")
    .set_body_typed([](std::string structure, Any tile_binds, std::optional<int64_t> max_innermost_factor,
                       Any vector_load_lens, std::optional<Map<String, Any>> reuse_read,
                       std::optional<Map<String, Any>> reuse_write, Any filter_fn) {
      auto n = make_object<MultiLevelTilingNode>();
      InitMultiLevelTiling(n.get(), structure, tile_binds, max_innermost_factor, vector_load_lens, reuse_read,
                           reuse_write, filter_fn);
      return ScheduleRule(n);
    });

}  // namespace meta_schedule
}  // namespace tessera
