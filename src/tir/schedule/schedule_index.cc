// Building the block/loop index of a PrimFunc, reusing the entries of
// blocks an earlier index already walked (see schedule_index.h).
#include "tir/schedule/schedule_index.h"

#include "runtime/stack_guard.h"

namespace tessera {
namespace tir {

// Walks statements only (blocks and loops never sit inside expressions).
class ScheduleIndex::Walker {
 public:
  Walker(ScheduleIndex* out, const ScheduleIndex* previous) : out_(out), previous_(previous) {}

  void Walk(const Stmt& s) {
    const Object* n = s.get();
    if (n == nullptr) return;
    CheckStack("statement");
    if (const auto* loop = s.as<ForNode>()) {
      if (loops_.size() >= kMaxLoopNestDepth) {
        TESSERA_THROW(ValueError) << "loop " << loop->loop_var->name_hint << " is nested inside more than "
                                  << kMaxLoopNestDepth << " loops; schedules support loop nests up to "
                                  << kMaxLoopNestDepth << " deep";
      }
      AddLoop(LoopLocation{loop, loops_, scope_});
      loops_.push_back(loop);
      Walk(loop->body);
      loops_.pop_back();
    } else if (const auto* realize = s.as<BlockRealizeNode>()) {
      VisitRealize(realize);
    } else if (const auto* seq = s.as<SeqStmtNode>()) {
      for (const Stmt& x : seq->seq) Walk(x);
    } else if (const auto* ite = s.as<IfThenElseNode>()) {
      Walk(ite->then_case);
      if (ite->else_case) Walk(*ite->else_case);
    } else if (const auto* let = s.as<LetStmtNode>()) {
      Walk(let->body);
    } else if (const auto* attr = s.as<AttrStmtNode>()) {
      Walk(attr->body);
    } else if (const auto* alloc = s.as<AllocateNode>()) {
      Walk(alloc->body);
    } else if (const auto* decl = s.as<DeclBufferNode>()) {
      Walk(decl->body);
    } else if (const auto* w = s.as<WhileNode>()) {
      Walk(w->body);
    }
  }

 private:
  void AddLoop(const LoopLocation& loc) {
    out_->by_var_.emplace(loc.loop->loop_var.get(), out_->loops_.size());
    out_->loops_.push_back(loc);
  }
  void AddBlock(const BlockLocation& loc) {
    out_->by_name_[loc.block->name_hint].push_back(out_->blocks_.size());
    out_->blocks_.push_back(loc);
  }

  void VisitRealize(const BlockRealizeNode* realize) {
    const BlockNode* block = realize->block.get();
    if (scope_ != nullptr) AddBlock(BlockLocation{realize, block, loops_, scope_});
    Extent ext{out_->blocks_.size(), 0, out_->loops_.size(), 0};
    if (previous_ != nullptr) {
      auto it = previous_->below_.find(block);
      if (it != previous_->below_.end()) {
        CopyBelow(it->second);
        ++out_->reused_blocks_;
        return;
      }
    }
    const BlockNode* saved_scope = scope_;
    std::vector<const ForNode*> saved_loops = std::move(loops_);
    loops_.clear();
    scope_ = block;
    if (block->init) Walk(*block->init);
    Walk(block->body);
    scope_ = saved_scope;
    loops_ = std::move(saved_loops);
    ext.block_end = out_->blocks_.size();
    ext.loop_end = out_->loops_.size();
    out_->below_[block] = ext;
  }

  // The block is unchanged, so everything below it sits where it sat in
  // `previous_` (loops and scopes below a block do not depend on what is
  // above it): copy the entries, and the extents of the nested blocks.
  void CopyBelow(const Extent& prev) {
    size_t block_shift = out_->blocks_.size(), loop_shift = out_->loops_.size();
    for (size_t i = prev.loop_begin; i < prev.loop_end; ++i) AddLoop(previous_->loops_[i]);
    for (size_t i = prev.block_begin; i < prev.block_end; ++i) {
      const BlockLocation& loc = previous_->blocks_[i];
      AddBlock(loc);
      auto it = previous_->below_.find(loc.block);
      if (it == previous_->below_.end()) continue;
      Extent e = it->second;
      out_->below_[loc.block] = Extent{e.block_begin - prev.block_begin + block_shift,
                                       e.block_end - prev.block_begin + block_shift,
                                       e.loop_begin - prev.loop_begin + loop_shift,
                                       e.loop_end - prev.loop_begin + loop_shift};
    }
  }

  ScheduleIndex* out_;
  const ScheduleIndex* previous_;
  std::vector<const ForNode*> loops_;
  const BlockNode* scope_ = nullptr;
};

std::shared_ptr<const ScheduleIndex> ScheduleIndex::Build(const PrimFunc& func, const ScheduleIndex* previous) {
  auto index = std::make_shared<ScheduleIndex>();
  index->func_ = func;
  Walker(index.get(), previous).Walk(func->body);
  return index;
}

std::shared_ptr<const ScheduleIndex> ScheduleIndex::Of(const PrimFunc& func, const ScheduleIndex* previous) {
  constexpr size_t kMemo = 8;
  thread_local std::vector<std::shared_ptr<const ScheduleIndex>> memo;  // most recent last
  for (size_t i = memo.size(); i-- > 0;) {
    if (memo[i]->func_.same_as(func)) return memo[i];
  }
  if (previous == nullptr && !memo.empty()) previous = memo.back().get();
  auto index = Build(func, previous);
  if (memo.size() == kMemo) memo.erase(memo.begin());
  memo.push_back(index);
  return index;
}

const BlockLocation* ScheduleIndex::FindBlock(const std::string& name, int* count) const {
  auto it = by_name_.find(name);
  if (count != nullptr) *count = it == by_name_.end() ? 0 : static_cast<int>(it->second.size());
  return it == by_name_.end() ? nullptr : &blocks_[it->second.front()];
}

const LoopLocation* ScheduleIndex::FindLoop(const VarNode* loop_var) const {
  auto it = by_var_.find(loop_var);
  return it == by_var_.end() ? nullptr : &loops_[it->second];
}

namespace {
bool Touches(const Array<BufferRegion>& regions, const Array<BufferRegion>& others) {
  for (BufferRegion r : regions)
    for (BufferRegion o : others)
      if (r->buffer.same_as(o->buffer)) return true;
  return false;
}
}  // namespace

void ScheduleIndex::ComputeRelations() const {
  std::call_once(relations_once_, [this] {
    std::unordered_map<const BlockNode*, std::vector<const BlockLocation*>> by_scope;
    for (const BlockLocation& loc : blocks_) by_scope[loc.scope].push_back(&loc);
    for (const BlockLocation& loc : blocks_) {
      auto& producers = producers_[loc.block];
      auto& consumers = consumers_[loc.block];
      for (const BlockLocation* other : by_scope[loc.scope]) {
        if (other->block == loc.block) continue;
        if (Touches(loc.block->reads, other->block->writes)) producers.push_back(other);
        if (Touches(loc.block->writes, other->block->reads)) consumers.push_back(other);
      }
    }
  });
}

const std::vector<const BlockLocation*>& ScheduleIndex::Producers(const BlockNode* block) const {
  static const std::vector<const BlockLocation*> kNone;
  ComputeRelations();
  auto it = producers_.find(block);
  return it == producers_.end() ? kNone : it->second;
}

const std::vector<const BlockLocation*>& ScheduleIndex::Consumers(const BlockNode* block) const {
  static const std::vector<const BlockLocation*> kNone;
  ComputeRelations();
  auto it = consumers_.find(block);
  return it == consumers_.end() ? kNone : it->second;
}

bool ScheduleIndex::SameAs(const ScheduleIndex& other) const {
  if (blocks_.size() != other.blocks_.size() || loops_.size() != other.loops_.size()) return false;
  for (size_t i = 0; i < blocks_.size(); ++i) {
    const BlockLocation &a = blocks_[i], &b = other.blocks_[i];
    if (a.realize != b.realize || a.block != b.block || a.loops != b.loops || a.scope != b.scope) return false;
  }
  for (size_t i = 0; i < loops_.size(); ++i) {
    const LoopLocation &a = loops_[i], &b = other.loops_[i];
    if (a.loop != b.loop || a.ancestors != b.ancestors || a.scope != b.scope) return false;
  }
  return true;
}

}  // namespace tir
}  // namespace tessera
