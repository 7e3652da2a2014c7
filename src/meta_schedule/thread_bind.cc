// BindBlockThreadIdx and the GPU limits of a target (see thread_bind.h).
// Meta-schedule layer.
#include "meta_schedule/thread_bind.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

GPUThreadLimits GPUThreadLimits::FromTarget(const Target& target) {
  bool gpu = false;
  for (const std::string& key : target->keys) gpu |= key == "gpu";
  TESSERA_CHECK_OR_THROW(gpu, ValueError) << "the GPU schedule rules and postprocessors (AutoBind, "
                                             "RewriteUnboundBlock) need a GPU target (keys include \"gpu\"), got "
                                          << target->str;
  GPUThreadLimits limits;
  if (auto v = target.GetInt("max_threads_per_block")) {
    limits.max_threads_per_block = *v;
  } else if (auto w = target.GetInt("max_num_threads")) {
    limits.max_threads_per_block = *w;
  }
  if (auto v = target.GetInt("thread_warp_size")) limits.thread_warp_size = *v;
  TESSERA_CHECK_OR_THROW(limits.max_threads_per_block > 0 && limits.thread_warp_size > 0, ValueError)
      << "target " << target->str << ": max_threads_per_block and thread_warp_size must be positive";
  return limits;
}

bool IsUnboundTopLevelBlock(const Schedule& sch, const BlockRV& block) {
  BlockLocation loc = Locate(sch, block);
  if (loc.scope == nullptr) return false;  // the root itself
  const std::string& func = sch->blocks.at(block.get()).func;
  const auto* root = sch.FuncOf(func)->body.as<BlockRealizeNode>();
  if (root == nullptr || loc.scope != root->block.get()) return false;
  for (const ForNode* loop : loc.loops) {
    if (loop->kind == ForKind::kThreadBinding || loop->thread_binding.has_value()) return false;
  }
  return true;
}

bool BindBlockIdxAboveThreads(const Schedule& sch, const BlockRV& block) {
  BlockLocation loc = Locate(sch, block);
  if (loc.scope == nullptr) return false;
  const auto* root = sch.FuncOf(sch->blocks.at(block.get()).func)->body.as<BlockRealizeNode>();
  if (root == nullptr || loc.scope != root->block.get()) return false;
  size_t first_thread = loc.loops.size();
  for (size_t i = 0; i < loc.loops.size(); ++i) {
    const ForNode* loop = loc.loops[i];
    if (!loop->thread_binding.has_value()) continue;
    const std::string& tag = (*loop->thread_binding)->thread_tag;
    if (tag.rfind("blockIdx", 0) == 0) return false;
    if (tag.rfind("threadIdx", 0) == 0) first_thread = std::min(first_thread, i);
  }
  if (first_thread == loc.loops.size()) return false;
  std::vector<int> types = LoopIterTypes(loc);
  Array<LoopRV> loops = sch.GetLoops(block);
  std::vector<LoopRV> outer;
  for (size_t i = 0; i < first_thread; ++i) {
    const ForNode* loop = loc.loops[i];
    if (types[i] != kDataPar || loop->kind != ForKind::kSerial || !loop->annotations.empty()) break;
    outer.push_back(loops[i]);
    if (loop->body.get() != loc.loops[i + 1]) break;  // several children: no fusing past it
  }
  LoopRV fused = outer.empty()       ? sch.AddUnitLoop(ObjectRef(loops[0]))
                 : outer.size() == 1 ? outer[0]
                                     : sch.Fuse(Array<LoopRV>(outer), true);
  sch.Bind(fused, "blockIdx.x");
  return true;
}

bool BindBlockThreadIdx(const Schedule& sch, const BlockRV& block, int64_t max_threadblocks,
                        int64_t max_threads_per_block, const std::function<Any(int64_t)>& thread_extent) {
  BlockLocation loc = Locate(sch, block);
  std::vector<int> types = LoopIterTypes(loc);
  Array<LoopRV> loops = sch.GetLoops(block);
  std::vector<LoopRV> spatial;
  for (size_t i = 0; i < loops.size() && i < types.size(); ++i) {
    const ForNode* loop = loc.loops[i];
    if (types[i] != kDataPar || loop->kind != ForKind::kSerial || !loop->annotations.empty()) break;
    spatial.push_back(loops[i]);
  }
  int64_t extent = 1;
  for (size_t i = 0; i < spatial.size(); ++i) {
    std::optional<int64_t> e = ConstExtent(loc.loops[i]);
    if (!e) return false;
    extent *= *e;
  }
  // No leading spatial loop (a reduction to a scalar): a unit loop above all of them.
  LoopRV fused = spatial.empty()       ? sch.AddUnitLoop(loops.empty() ? ObjectRef(block) : ObjectRef(loops[0]))
                 : spatial.size() == 1 ? spatial[0]
                                       : sch.Fuse(Array<LoopRV>(spatial), true);
  if (extent <= max_threadblocks * max_threads_per_block) {
    Any threads = thread_extent(std::min(extent, max_threads_per_block));
    Array<LoopRV> splits = sch.Split(fused, {Any(), threads}, true);
    sch.Bind(splits[0], "blockIdx.x");
    sch.Bind(splits[1], "threadIdx.x");
  } else {
    Array<LoopRV> splits = sch.Split(
        fused, {Any(), Any(IntImm(DataType::Int(32), max_threadblocks)), Any(IntImm(DataType::Int(32), max_threads_per_block))},
        true);
    sch.Reorder({splits[1], splits[2], splits[0]});
    sch.Bind(splits[1], "blockIdx.x");
    sch.Bind(splits[2], "threadIdx.x");
  }
  return true;
}

}  // namespace meta_schedule
}  // namespace tessera
