// MultiLevelTiling (TVM's ScheduleRule.MultiLevelTiling): tiles the loop
// nest of a block that needs it (block_analysis.h: NeedsMultiLevelTiling)
// following a structure such as "SSRSRS" (each spatial loop split into as
// many tiles as there are S, each reduction loop as many as R, tile sizes
// from sample_perfect_tile with max_innermost_factor, tiles reordered level
// by level), then optionally adds a write cache (reuse_write: "no" / "may" /
// "must", reverse-computed at the given levels) and read caches
// (reuse_read, "must" only). The block is annotated
// meta_schedule.tiling_structure. Each sub-rule may branch: the rule
// returns one schedule per resulting state. The GPU variant is the same rule
// with TVM's GPU parameters: tile_binds fuses the first levels' tiles and
// binds them (e.g. blockIdx.x, vthread.x, threadIdx.x), vector_load_lens
// makes each read cache a cooperative fetch (its fused loop annotated
// meta_schedule.cooperative_fetch = a sampled vector length, realized by the
// RewriteCooperativeFetch postprocessor). Meta-schedule layer.
#pragma once

#include <string>
#include <vector>

#include "meta_schedule/schedule_rule/schedule_rule.h"

namespace tessera {
namespace meta_schedule {

enum class ReuseType { kNoReuse, kMayReuse, kMustReuse };

// {"req": "no"|"may"|"must", "levels": [1, 2], "scope": "global"}.
struct ReuseConfig {
  ReuseType req = ReuseType::kNoReuse;
  std::vector<int> levels;
  std::string scope;
  static ReuseConfig FromMap(const std::optional<Map<String, Any>>& config, const char* what, size_t n_levels);
};

// One branch of the rule being built: the schedule, the block and its tiles
// (tiles[level] = the loops of that level, outermost first).
struct TilingState {
  tir::Schedule sch;
  tir::BlockRV block;
  std::vector<std::vector<tir::LoopRV>> tiles;
  TilingState Copy() const { return {sch.Copy(), block, tiles}; }
};

class MultiLevelTilingNode : public ScheduleRuleNode {
 public:
  std::string structure;
  int64_t max_innermost_factor = -1;
  ReuseConfig reuse_read;
  ReuseConfig reuse_write;
  std::vector<int> s_indices;  // positions of 'S' in structure
  std::vector<int> r_indices;  // positions of 'R'
  std::vector<std::string> tile_binds;     // thread tags of the first levels (GPU)
  std::vector<int64_t> vector_load_lens;   // cooperative fetch vector lengths (GPU)

  Array<tir::Schedule> Apply(const tir::Schedule& sch, const tir::BlockRV& block) const override;
  ScheduleRule Clone() const override;

  // The sub-rules, in order; each maps a state to the states it leads to.
  std::vector<TilingState> TileLoopNest(TilingState state) const;
  std::vector<TilingState> AddWriteReuse(TilingState state) const;
  std::vector<TilingState> AddReadReuse(TilingState state) const;

  TESSERA_DECLARE_OBJECT_INFO(MultiLevelTilingNode, ScheduleRuleNode, "meta_schedule.MultiLevelTiling");
};

// Fills the common fields from TVM's constructor arguments; refuses what
// Tessera cannot honour (filter_fn).
void InitMultiLevelTiling(MultiLevelTilingNode* n, const std::string& structure, const Any& tile_binds,
                          const std::optional<int64_t>& max_innermost_factor, const Any& vector_load_lens,
                          const std::optional<Map<String, Any>>& reuse_read,
                          const std::optional<Map<String, Any>>& reuse_write, const Any& filter_fn);

}  // namespace meta_schedule
}  // namespace tessera
