// Schedule state, handle resolution, sampling and the FFI of
// tvm.tir.Schedule (see schedule.h).
#include "tir/schedule/schedule.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "runtime/registry.h"
#include "tir/schedule/primitive/primitives.h"

namespace tessera {
namespace tir {
namespace {

constexpr uint64_t kModulus = 2147483647;  // 2^31 - 1 (minimal standard LCG)

uint64_t NormalizeSeed(int64_t seed) {
  if (seed < 0) seed = std::chrono::steady_clock::now().time_since_epoch().count();
  uint64_t s = static_cast<uint64_t>(seed) % kModulus;
  return s == 0 ? 1 : s;
}

}  // namespace

Schedule::Schedule(IRModule mod, int64_t seed) {
  auto n = make_object<ScheduleNode>();
  n->mod = mod.ShallowCopy();
  n->rand_state = NormalizeSeed(seed);
  auto gvs = n->mod->GetGlobalVars();
  for (const GlobalVar& gv : gvs) {
    if (n->mod->Lookup(gv).as<PrimFuncNode>() && gv->name_hint == "main") n->func_name = "main";
  }
  if (!n->mod->FindGlobalVar(n->func_name)) {
    for (const GlobalVar& gv : gvs) {
      if (n->mod->Lookup(gv).as<PrimFuncNode>()) {
        n->func_name = gv->name_hint;
        break;
      }
    }
  }
  data_ = std::move(n);
}

Schedule Schedule::Copy() const {
  auto n = make_object<ScheduleNode>(*get());
  return Schedule(ObjectPtr<Object>(std::move(n)));
}

void Schedule::Seed(int64_t seed) const { self()->rand_state = NormalizeSeed(seed); }

uint64_t Schedule::NextRandom() const {
  self()->rand_state = (self()->rand_state * 48271) % kModulus;
  return self()->rand_state;
}

int64_t Schedule::ForkSeed() const { return static_cast<int64_t>((NextRandom() * 32767) % 1999999973); }

void Schedule::WorkOn(const std::string& func_name) const {
  BaseFunc f = get()->mod->Lookup(func_name);
  TESSERA_CHECK_OR_THROW(f.as<PrimFuncNode>() != nullptr, ValueError) << "function " << func_name << " is not a PrimFunc";
  self()->func_name = func_name;
}

PrimFunc Schedule::FuncOf(const std::string& name) const {
  auto gv = get()->mod->FindGlobalVar(name);
  if (!gv) ThrowErrorOfKind("ScheduleError", "ScheduleError: the module has no function \"" + name + "\"");
  auto f = get()->mod->Lookup(*gv).as<PrimFuncNode>();
  if (f == nullptr) ThrowErrorOfKind("ScheduleError", "ScheduleError: function \"" + name + "\" is not a PrimFunc");
  return GetRef<PrimFunc>(f);
}

std::shared_ptr<const ScheduleIndex> Schedule::IndexOf(const std::string& name) const {
  PrimFunc f = FuncOf(name);
  auto& slot = self()->index[name];
  if (!slot || !slot->func().same_as(f)) slot = ScheduleIndex::Of(f, slot.get());
  return slot;
}

void Schedule::Commit(const std::string& func, const PrimFunc& f) const {
  IRModule next = get()->mod.ShallowCopy();
  next.mutable_node()->Update(*next->FindGlobalVar(func), f);
  // The new index is built (from the old one) before any state changes, so
  // a failure here leaves the module and the index as they were.
  auto it = get()->index.find(func);
  auto index = ScheduleIndex::Of(f, it == get()->index.end() ? nullptr : it->second.get());
  self()->mod = next;
  self()->index[func] = std::move(index);
}

void Schedule::Record(const std::string& kind, Array<Any> inputs, Array<Any> attrs, Array<Any> outputs,
                      std::optional<Any> decision) const {
  Instruction inst(InstructionKind::Get(kind), std::move(inputs), std::move(attrs), std::move(outputs));
  auto* t = self()->trace.CopyOnWrite();
  t->insts.push_back(inst);
  if (decision) t->decisions.emplace_back(inst, *decision);
}

BlockLocation Schedule::LocateBlock(const BlockRV& rv, const char* primitive) const {
  auto it = get()->blocks.find(rv.get());
  if (it == get()->blocks.end()) {
    ThrowErrorOfKind("ScheduleError", std::string("ScheduleError: ") + primitive +
                                          ": the block handle does not belong to this schedule");
  }
  auto index = IndexOf(it->second.func);
  const BlockLocation* loc = index->FindBlock(it->second.name);
  if (!loc) ThrowScheduleError(primitive, "block \"" + it->second.name + "\" no longer exists", index->func());
  return *loc;
}

const ScheduleNode::LoopEntry& Schedule::LoopEntryOf(const LoopRV& rv, const char* primitive) const {
  auto it = get()->loops.find(rv.get());
  if (it == get()->loops.end()) {
    ThrowErrorOfKind("ScheduleError", std::string("ScheduleError: ") + primitive +
                                          ": the loop handle does not belong to this schedule");
  }
  return it->second;
}

LoopLocation Schedule::LocateLoop(const LoopRV& rv, const char* primitive) const {
  const auto& entry = LoopEntryOf(rv, primitive);
  auto index = IndexOf(entry.func);
  const LoopLocation* loc = index->FindLoop(entry.var.get());
  if (!loc) {
    ThrowScheduleError(primitive, "loop " + entry.var->name_hint + " no longer exists (it was split, fused or removed)",
                       index->func());
  }
  return *loc;
}

Any Schedule::Get(const ObjectRef& rv) const {
  if (rv.as<BlockRVNode>()) return Any(GetRef<Block>(LocateBlock(Downcast<BlockRV>(rv), "get").block));
  if (rv.as<LoopRVNode>()) return Any(GetRef<For>(LocateLoop(Downcast<LoopRV>(rv), "get").loop));
  auto it = get()->values.find(rv.get());
  if (it != get()->values.end()) return Any(it->second);
  TESSERA_THROW(TypeError) << "sch.get expects a block, loop or sampled value of this schedule, got "
                           << rv->GetTypeKey();
}

BlockRV Schedule::GetBlock(const std::string& name, const std::optional<std::string>& func_name) const {
  std::string fname = func_name.value_or(get()->func_name);
  auto index = IndexOf(fname);
  const PrimFunc& f = index->func();
  int count = 0;
  index->FindBlock(name, &count);
  if (count == 0) {
    std::string names;
    for (const BlockLocation& loc : index->blocks()) names += (names.empty() ? "" : ", ") + loc.block->name_hint;
    ThrowScheduleError("get_block", "cannot find a block named \"" + name + "\" in function \"" + fname +
                                        "\" (its blocks: " + (names.empty() ? "none" : names) + ")",
                       f);
  }
  if (count > 1) ThrowScheduleError("get_block", "several blocks are named \"" + name + "\"", f);
  BlockRV rv = BlockRV::Make();
  self()->blocks[rv.get()] = {fname, name};
  Record("GetBlock", {}, {name, fname}, {rv});
  return rv;
}

Array<LoopRV> Schedule::GetLoops(const BlockRV& block) const {
  BlockLocation loc = LocateBlock(block, "get_loops");
  const std::string& func = get()->blocks.at(block.get()).func;
  // As in TVM, the loops stop at the enclosing block.
  const std::vector<const ForNode*>& loops = loc.loops;
  std::vector<LoopRV> out;
  for (const ForNode* l : loops) {
    LoopRV rv = LoopRV::Make();
    self()->loops[rv.get()] = {func, l->loop_var};
    out.push_back(rv);
  }
  Array<LoopRV> result(out);
  Record("GetLoops", {block}, {}, Array<Any>(out.begin(), out.end()));
  return result;
}

Array<BlockRV> Schedule::GetChildBlocks(const ObjectRef& block_or_loop) const {
  Stmt root;
  std::string func;
  if (const auto* b = block_or_loop.as<BlockRVNode>()) {
    BlockLocation loc = LocateBlock(GetRef<BlockRV>(b), "get_child_blocks");
    root = loc.block->body;
    func = get()->blocks.at(b).func;
  } else {
    LoopRV l = Downcast<LoopRV>(block_or_loop);
    root = LocateLoop(l, "get_child_blocks").loop->body;
    func = get()->loops.at(l.get()).func;
  }
  std::vector<Any> out;
  for (const BlockRealizeNode* br : ChildBlocks(root)) {
    BlockRV rv = BlockRV::Make();
    self()->blocks[rv.get()] = {func, br->block->name_hint};
    out.push_back(rv);
  }
  Record("GetChildBlocks", {block_or_loop}, {}, Array<Any>(out));
  std::vector<BlockRV> typed;
  for (const Any& a : out) typed.push_back(a.cast<BlockRV>());
  return Array<BlockRV>(typed);
}


Array<BlockRV> Schedule::GetProducers(const BlockRV& block) const {
  BlockLocation loc = LocateBlock(block, "get_producers");
  const std::string& func = get()->blocks.at(block.get()).func;
  std::vector<Any> out;
  auto index = IndexOf(func);
  for (const BlockLocation* other : index->Producers(loc.block)) {
    BlockRV rv = BlockRV::Make();
    self()->blocks[rv.get()] = {func, other->block->name_hint};
    out.push_back(rv);
  }
  Record("GetProducers", {block}, {}, Array<Any>(out));
  std::vector<BlockRV> typed;
  for (const Any& a : out) typed.push_back(a.cast<BlockRV>());
  return Array<BlockRV>(typed);
}

Array<BlockRV> Schedule::GetConsumers(const BlockRV& block) const {
  BlockLocation loc = LocateBlock(block, "get_consumers");
  const std::string& func = get()->blocks.at(block.get()).func;
  std::vector<Any> out;
  auto index = IndexOf(func);
  for (const BlockLocation* other : index->Consumers(loc.block)) {
    BlockRV rv = BlockRV::Make();
    self()->blocks[rv.get()] = {func, other->block->name_hint};
    out.push_back(rv);
  }
  Record("GetConsumers", {block}, {}, Array<Any>(out));
  std::vector<BlockRV> typed;
  for (const Any& a : out) typed.push_back(a.cast<BlockRV>());
  return Array<BlockRV>(typed);
}

Array<LoopRV> Schedule::Split(const LoopRV& loop, const Array<Any>& factors, bool preserve_unit_iters,
                              bool disable_predication) const {
  LoopLocation loc = LocateLoop(loop, "split");
  const std::string func = get()->loops.at(loop.get()).func;
  PrimFunc f = FuncOf(func);
  const int64_t* extent = AsConstInt(loc.loop->extent);
  // Resolve factors: ints, sampled values, at most one None (inferred).
  std::vector<int64_t> values;
  int none_at = -1;
  for (size_t i = 0; i < factors.size(); ++i) {
    const Any& a = factors.at_any(i);
    if (a.is_none()) {
      if (none_at >= 0) ThrowScheduleError("split", "at most one factor may be None", f);
      none_at = static_cast<int>(i);
      values.push_back(1);
    } else if (a.kind() == Any::Kind::kInt) {
      values.push_back(a.cast<int64_t>());
    } else if (const auto* imm = a.as<IntImmNode>()) {
      values.push_back(imm->value);
    } else if (a.is_object() && get()->values.count(a.raw_object().get())) {
      values.push_back(get()->values.at(a.raw_object().get()));
    } else {
      ThrowScheduleError("split", "factor " + std::to_string(i) + " is a " + a.type_name() +
                                      ", not an integer, None or a sampled value of this schedule",
                         f);
    }
  }
  if (none_at >= 0) {
    if (extent == nullptr) ThrowScheduleError("split", "cannot infer a factor of a loop with a symbolic extent", f);
    int64_t known = 1;
    for (int64_t v : values) known *= v;
    if (known <= 0) ThrowScheduleError("split", "factors must be positive", f);
    values[static_cast<size_t>(none_at)] = (*extent + known - 1) / known;
  }
  std::vector<Var> vars;
  PrimFunc out = SplitLoop(f, loc.loop, values, preserve_unit_iters, disable_predication, &vars);
  Commit(func, out);
  std::vector<LoopRV> rvs;
  std::vector<Any> outs;
  for (const Var& v : vars) {
    LoopRV rv = LoopRV::Make();
    self()->loops[rv.get()] = {func, v};
    rvs.push_back(rv);
    outs.push_back(rv);
  }
  Record("Split", {loop, factors}, {preserve_unit_iters, disable_predication}, Array<Any>(outs));
  return Array<LoopRV>(rvs);
}

LoopRV Schedule::Fuse(const Array<LoopRV>& loops, bool preserve_unit_iters) const {
  if (loops.empty()) {
    ThrowErrorOfKind("ScheduleError", "ScheduleError: fuse: no loops were given (fuse needs at least one loop)");
  }
  std::vector<const ForNode*> nodes;
  std::string func;
  for (LoopRV l : loops) {
    nodes.push_back(LocateLoop(l, "fuse").loop);
    const std::string& f = get()->loops.at(l.get()).func;
    if (!func.empty() && f != func) {
      ThrowErrorOfKind("ScheduleError", "ScheduleError: fuse: the loops belong to different functions (\"" + func +
                                            "\" and \"" + f + "\")");
    }
    func = f;
  }
  Var fused;
  PrimFunc out = FuseLoops(FuncOf(func), nodes, preserve_unit_iters, &fused);
  Commit(func, out);
  LoopRV rv = LoopRV::Make();
  self()->loops[rv.get()] = {func, fused};
  std::vector<Any> inputs(loops.begin(), loops.end());
  Record("Fuse", Array<Any>(inputs), {preserve_unit_iters}, {rv});
  return rv;
}

void Schedule::Reorder(const Array<LoopRV>& order) const {
  std::vector<const ForNode*> nodes;
  std::string func;
  for (LoopRV l : order) {
    nodes.push_back(LocateLoop(l, "reorder").loop);
    const std::string& f = get()->loops.at(l.get()).func;
    if (!func.empty() && f != func) ThrowScheduleError("reorder", "the loops are in different functions", FuncOf(f));
    func = f;
  }
  if (nodes.empty()) return;
  Commit(func, ReorderLoops(FuncOf(func), nodes));
  std::vector<Any> inputs(order.begin(), order.end());
  Record("Reorder", Array<Any>(inputs), {}, {});
}

LoopRV Schedule::AddUnitLoop(const ObjectRef& block_or_loop) const {
  const Object* target = nullptr;
  std::string func;
  if (const auto* b = block_or_loop.as<BlockRVNode>()) {
    target = LocateBlock(GetRef<BlockRV>(b), "add_unit_loop").realize;
    func = get()->blocks.at(b).func;
  } else {
    LoopRV l = Downcast<LoopRV>(block_or_loop);
    target = LocateLoop(l, "add_unit_loop").loop;
    func = get()->loops.at(l.get()).func;
  }
  Var v;
  Commit(func, tir::AddUnitLoop(FuncOf(func), target, &v));
  LoopRV rv = LoopRV::Make();
  self()->loops[rv.get()] = {func, v};
  Record("AddUnitLoop", {block_or_loop}, {}, {rv});
  return rv;
}

#define TESSERA_SCHEDULE_LOOP_KIND(Method, Kind, Name, KindName)           \
  void Schedule::Method(const LoopRV& loop) const {                         \
    LoopLocation loc = LocateLoop(loop, Name);                              \
    const std::string func = get()->loops.at(loop.get()).func;              \
    Commit(func, SetLoopKind(FuncOf(func), loc.loop, Kind, Name));          \
    Record(KindName, {loop}, {}, {});                                       \
  }
TESSERA_SCHEDULE_LOOP_KIND(Parallel, ForKind::kParallel, "parallel", "Parallel")
TESSERA_SCHEDULE_LOOP_KIND(Vectorize, ForKind::kVectorized, "vectorize", "Vectorize")
TESSERA_SCHEDULE_LOOP_KIND(Unroll, ForKind::kUnrolled, "unroll", "Unroll")
#undef TESSERA_SCHEDULE_LOOP_KIND

void Schedule::Bind(const LoopRV& loop, const std::string& thread_axis) const {
  LoopLocation loc = LocateLoop(loop, "bind");
  const std::string func = get()->loops.at(loop.get()).func;
  Commit(func, SetLoopKind(FuncOf(func), loc.loop, ForKind::kThreadBinding, "bind", thread_axis));
  Record("Bind", {loop}, {thread_axis}, {});
}

void Schedule::Annotate(const ObjectRef& block_or_loop, const std::string& key, const Any& ann_val) const {
  // A sampled value annotates with the integer it stands for (as in TVM),
  // never with the free variable of the handle.
  Any value = ann_val;
  if (ann_val.is_object()) {
    auto it = get()->values.find(ann_val.raw_object().get());
    if (it != get()->values.end()) value = Any(it->second);
  }
  if (const auto* b = block_or_loop.as<BlockRVNode>()) {
    BlockLocation loc = LocateBlock(GetRef<BlockRV>(b), "annotate");
    const std::string func = get()->blocks.at(b).func;
    Commit(func, AnnotateBlock(FuncOf(func), loc.block, key, value, false));
  } else {
    LoopRV l = Downcast<LoopRV>(block_or_loop);
    LoopLocation loc = LocateLoop(l, "annotate");
    const std::string func = get()->loops.at(l.get()).func;
    Commit(func, AnnotateLoop(FuncOf(func), loc.loop, key, value, false));
  }
  Record("Annotate", {block_or_loop, ann_val}, {key}, {});
}

void Schedule::Unannotate(const ObjectRef& block_or_loop, const std::string& key) const {
  if (const auto* b = block_or_loop.as<BlockRVNode>()) {
    BlockLocation loc = LocateBlock(GetRef<BlockRV>(b), "unannotate");
    const std::string func = get()->blocks.at(b).func;
    Commit(func, AnnotateBlock(FuncOf(func), loc.block, key, Any(), true));
  } else {
    LoopRV l = Downcast<LoopRV>(block_or_loop);
    LoopLocation loc = LocateLoop(l, "unannotate");
    const std::string func = get()->loops.at(l.get()).func;
    Commit(func, AnnotateLoop(FuncOf(func), loc.loop, key, Any(), true));
  }
  Record("Unannotate", {block_or_loop}, {key}, {});
}

BlockRV Schedule::DecomposeReduction(const BlockRV& block, const LoopRV& loop) const {
  BlockLocation bloc = LocateBlock(block, "decompose_reduction");
  LoopLocation lloc = LocateLoop(loop, "decompose_reduction");
  const std::string func = get()->blocks.at(block.get()).func;
  std::string init_name;
  PrimFunc out = tir::DecomposeReduction(FuncOf(func), bloc, lloc.loop, &init_name);
  Commit(func, out);
  self()->blocks[block.get()].name = bloc.block->name_hint + "_update";
  BlockRV init = BlockRV::Make();
  self()->blocks[init.get()] = {func, init_name};
  Record("DecomposeReduction", {block, loop}, {}, {init});
  return init;
}

#define TESSERA_SCHEDULE_MOVE(Method, Fn, Name, Kind)                                              \
  void Schedule::Method(const BlockRV& block, const LoopRV& loop, bool preserve_unit_loops, int index) const { \
    if (!LoopEntryOf(loop, Name).var.defined()) { /* the "root" location: stay */                   \
      LocateBlock(block, Name);                                                                      \
      Record(Kind, {block, loop}, {preserve_unit_loops, static_cast<int64_t>(index)}, {});           \
      return;                                                                                        \
    }                                                                                                \
    BlockLocation bloc = LocateBlock(block, Name);                                                   \
    LoopLocation lloc = LocateLoop(loop, Name);                                                      \
    const std::string func = get()->blocks.at(block.get()).func;                                     \
    Commit(func, Fn(FuncOf(func), bloc, lloc, preserve_unit_loops, index));                          \
    Record(Kind, {block, loop}, {preserve_unit_loops, static_cast<int64_t>(index)}, {});             \
  }
TESSERA_SCHEDULE_MOVE(ComputeAt, tir::ComputeAt, "compute_at", "ComputeAt")
TESSERA_SCHEDULE_MOVE(ReverseComputeAt, tir::ReverseComputeAt, "reverse_compute_at", "ReverseComputeAt")
#undef TESSERA_SCHEDULE_MOVE

void Schedule::ComputeInline(const BlockRV& block) const {
  BlockLocation loc = LocateBlock(block, "compute_inline");
  const std::string func = get()->blocks.at(block.get()).func;
  Commit(func, tir::ComputeInline(FuncOf(func), loc));
  Record("ComputeInline", {block}, {}, {});
}

void Schedule::ReverseComputeInline(const BlockRV& block) const {
  BlockLocation loc = LocateBlock(block, "reverse_compute_inline");
  const std::string func = get()->blocks.at(block.get()).func;
  Commit(func, tir::ReverseComputeInline(FuncOf(func), loc));
  Record("ReverseComputeInline", {block}, {}, {});
}

BlockRV Schedule::CacheRead(const BlockRV& block, int read_index, const std::string& scope) const {
  BlockLocation loc = LocateBlock(block, "cache_read");
  const std::string func = get()->blocks.at(block.get()).func;
  std::string name;
  Commit(func, tir::CacheRead(FuncOf(func), loc, read_index, scope, &name));
  BlockRV rv = BlockRV::Make();
  self()->blocks[rv.get()] = {func, name};
  Record("CacheRead", {block}, {static_cast<int64_t>(read_index), scope}, {rv});
  return rv;
}

BlockRV Schedule::CacheWrite(const BlockRV& block, int write_index, const std::string& scope) const {
  BlockLocation loc = LocateBlock(block, "cache_write");
  const std::string func = get()->blocks.at(block.get()).func;
  std::string name;
  Commit(func, tir::CacheWrite(FuncOf(func), loc, write_index, scope, &name));
  BlockRV rv = BlockRV::Make();
  self()->blocks[rv.get()] = {func, name};
  Record("CacheWrite", {block}, {static_cast<int64_t>(write_index), scope}, {rv});
  return rv;
}

void Schedule::SetScope(const BlockRV& block, int write_index, const std::string& scope) const {
  BlockLocation loc = LocateBlock(block, "set_scope");
  const std::string func = get()->blocks.at(block.get()).func;
  Commit(func, tir::SetScope(FuncOf(func), loc, write_index, scope));
  Record("SetScope", {block}, {static_cast<int64_t>(write_index), scope}, {});
}

BlockRV Schedule::Blockize(const LoopRV& loop, bool preserve_unit_iters) const {
  LoopLocation loc = LocateLoop(loop, "blockize");
  const std::string func = get()->loops.at(loop.get()).func;
  std::string name;
  Commit(func, tir::Blockize(FuncOf(func), loc, &name, preserve_unit_iters));
  BlockRV rv = BlockRV::Make();
  self()->blocks[rv.get()] = {func, name};
  Record("Blockize", {loop}, {preserve_unit_iters}, {rv});
  return rv;
}

void Schedule::Tensorize(const ObjectRef& block_or_loop, const std::string& intrin_name,
                         bool preserve_unit_iters) const {
  TensorIntrin intrin = TensorIntrin::Get(intrin_name);
  if (const auto* b = block_or_loop.as<BlockRVNode>()) {
    BlockLocation loc = LocateBlock(GetRef<BlockRV>(b), "tensorize");
    const std::string func = get()->blocks.at(b).func;
    Commit(func, tir::Tensorize(FuncOf(func), loc, intrin));
  } else {
    LoopRV l = Downcast<LoopRV>(block_or_loop);
    LoopLocation loc = LocateLoop(l, "tensorize");
    const std::string func = get()->loops.at(l.get()).func;
    std::string name;
    PrimFunc blocked = tir::Blockize(FuncOf(func), loc, &name, preserve_unit_iters);
    auto bloc = FindBlock(blocked, name);
    Commit(func, tir::Tensorize(blocked, *bloc, intrin));
  }
  Record("Tensorize", {block_or_loop}, {intrin_name, preserve_unit_iters}, {});
}

BlockRV Schedule::RFactor(const LoopRV& loop, int factor_axis) const {
  LoopLocation lloc = LocateLoop(loop, "rfactor");
  const std::string func = get()->loops.at(loop.get()).func;
  PrimFunc f = FuncOf(func);
  auto blocks = ChildBlocks(GetRef<Stmt>(lloc.loop));
  if (blocks.size() != 1) {
    ThrowScheduleError("rfactor", "loop " + lloc.loop->loop_var->name_hint + " must hold exactly one block", f);
  }
  const BlockLocation* bloc = IndexOf(func)->FindBlock(blocks[0]->block->name_hint);
  std::string name;
  Commit(func, tir::RFactor(f, *bloc, lloc.loop, factor_axis, &name));
  BlockRV rv = BlockRV::Make();
  self()->blocks[rv.get()] = {func, name};
  Record("RFactor", {loop}, {static_cast<int64_t>(factor_axis)}, {rv});
  return rv;
}

void Schedule::StorageAlign(const BlockRV& block, int buffer_index, int axis, int factor, int offset) const {
  BlockLocation loc = LocateBlock(block, "storage_align");
  const std::string func = get()->blocks.at(block.get()).func;
  PrimFunc f = FuncOf(func);
  if (buffer_index < 0 || buffer_index >= static_cast<int>(loc.block->writes.size())) {
    ThrowScheduleError("storage_align", "block \"" + loc.block->name_hint + "\" has no written buffer " +
                                            std::to_string(buffer_index), f);
  }
  Buffer buf = loc.block->writes[buffer_index]->buffer;
  int ndim = static_cast<int>(buf->shape.size());
  if (axis < 0) axis += ndim;
  if (axis < 0 || axis >= ndim) {
    ThrowScheduleError("storage_align", "axis " + std::to_string(axis) + " is out of range for " + buf->name, f);
  }
  if (factor <= 0 || offset < 0 || offset >= factor) {
    ThrowScheduleError("storage_align", "need factor > 0 and 0 <= offset < factor", f);
  }
  for (const auto& kv : f->buffer_map.raw()) {
    if (kv.second.raw_object().same_as(buf)) {
      ThrowScheduleError("storage_align", "buffer " + buf->name + " is a function parameter; its strides are fixed", f);
    }
  }
  Array<Any> entries;
  if (auto existing = loc.block->annotations.Get("buffer_dim_align")) entries = existing->cast<Array<Any>>();
  entries.push_back(Array<Any>{static_cast<int64_t>(buffer_index), static_cast<int64_t>(axis), static_cast<int64_t>(factor),
                               static_cast<int64_t>(offset)});
  Commit(func, AnnotateBlock(f, loc.block, "buffer_dim_align", entries, false));
  Record("StorageAlign", {block}, {static_cast<int64_t>(buffer_index), static_cast<int64_t>(axis),
                                    static_cast<int64_t>(factor), static_cast<int64_t>(offset)}, {});
}

void Schedule::TransformLayout(const BlockRV& block, bool is_write, int buffer_index, const IndexMap& index_map) const {
  BlockLocation loc = LocateBlock(block, "transform_layout");
  const std::string func = get()->blocks.at(block.get()).func;
  Commit(func, tir::TransformLayout(FuncOf(func), loc, is_write, buffer_index, index_map));
  Record("TransformLayout", {block}, {is_write, static_cast<int64_t>(buffer_index), index_map}, {});
}

LoopRV Schedule::SampleComputeLocation(const BlockRV& block, const std::optional<int64_t>& decision) const {
  BlockLocation loc = LocateBlock(block, "sample_compute_location");
  const std::string func = get()->blocks.at(block.get()).func;
  PrimFunc f = FuncOf(func);
  // Candidates: loops of the block's scope where compute_at succeeds, in program order.
  std::vector<Var> candidates;
  std::vector<const ForNode*> loops_in_order;
  std::function<void(const Stmt&)> walk = [&](const Stmt& s) {
    if (const auto* l = s.as<ForNode>()) {
      loops_in_order.push_back(l);
      walk(l->body);
    } else if (const auto* seq = s.as<SeqStmtNode>()) {
      for (Stmt x : seq->seq) walk(x);
    } else if (const auto* ite = s.as<IfThenElseNode>()) {
      walk(ite->then_case);
      if (ite->else_case) walk(*ite->else_case);
    }
  };
  walk(loc.scope->body);
  auto func_index = IndexOf(func);
  for (const ForNode* l : loops_in_order) {
    const LoopLocation* lloc = func_index->FindLoop(l->loop_var.get());
    if (!lloc) continue;
    try {
      tir::ComputeAt(f, loc, *lloc, false);
      candidates.push_back(l->loop_var);
    } catch (const Error& e) {
      if (e.kind() != "ScheduleError") throw;
    }
  }
  int64_t index = -1;
  if (decision) {
    index = *decision;
    TESSERA_CHECK_OR_THROW(index >= -1 && index < static_cast<int64_t>(candidates.size()), ValueError)
        << "sample_compute_location decision " << index << " is out of range (" << candidates.size() << " candidates)";
  } else {
    index = static_cast<int64_t>(NextRandom() % (candidates.size() + 1)) - 1;
  }
  LoopRV rv = LoopRV::Make();
  self()->loops[rv.get()] = {func, index < 0 ? Var() : candidates[static_cast<size_t>(index)]};
  Record("SampleComputeLocation", {block}, {}, {rv}, Any(index));
  return rv;
}

namespace {
// The most factors sample_perfect_tile draws (each becomes a loop of the split).
constexpr int kMaxTileFactors = 128;
// Counts saturate here; any count at the cap is larger than every random draw.
constexpr uint64_t kCountCap = uint64_t{1} << 62;

// Tilings of an extent into `parts` ordered factors whose innermost is at most
// `max_inner` (<= 0: unbounded), counted per divisor of the extent and
// unranked in lexicographic order, so one tiling is drawn without listing
// them all: time O(divisors^2 * parts), not O(number of tilings).
class TilingCounter {
 public:
  TilingCounter(int64_t extent, int parts, int64_t max_inner) : parts_(parts), max_inner_(max_inner) {
    std::vector<int64_t> high;
    for (int64_t d = 1; d <= extent / d; ++d) {
      if (extent % d) continue;
      divs_.push_back(d);
      if (d != extent / d) high.push_back(extent / d);
    }
    divs_.insert(divs_.end(), high.rbegin(), high.rend());
    // sub_[m]: (divisor index j, index of divs_[m] / divs_[j]) for divisors of divs_[m], ascending.
    sub_.resize(divs_.size());
    for (size_t m = 0; m < divs_.size(); ++m) {
      for (size_t j = 0; j <= m; ++j) {
        if (divs_[m] % divs_[j]) continue;
        sub_[m].emplace_back(j, IndexOf(divs_[m] / divs_[j]));
      }
    }
    memo_.assign(divs_.size() * static_cast<size_t>(parts + 1), kUnknown);
  }
  uint64_t Total() { return Count(divs_.size() - 1, parts_); }
  // The k-th tiling (k < Total()) in lexicographic order.
  std::vector<int64_t> Unrank(uint64_t k) {
    std::vector<int64_t> out;
    size_t m = divs_.size() - 1;
    for (int p = parts_; p > 1; --p) {
      for (const auto& [j, q] : sub_[m]) {
        uint64_t c = Count(q, p - 1);
        if (k < c) {
          out.push_back(divs_[j]);
          m = q;
          break;
        }
        k -= c;
      }
    }
    out.push_back(divs_[m]);
    return out;
  }

 private:
  static constexpr uint64_t kUnknown = ~uint64_t{0};
  size_t IndexOf(int64_t v) const {
    return static_cast<size_t>(std::lower_bound(divs_.begin(), divs_.end(), v) - divs_.begin());
  }
  uint64_t Count(size_t m, int p) {
    uint64_t& slot = memo_[m * static_cast<size_t>(parts_ + 1) + static_cast<size_t>(p)];
    if (slot != kUnknown) return slot;
    uint64_t total = 0;
    if (p == 1) {
      total = (max_inner_ <= 0 || divs_[m] <= max_inner_) ? 1 : 0;
    } else {
      for (const auto& [j, q] : sub_[m]) total = std::min(kCountCap, total + Count(q, p - 1));
    }
    return slot = total;
  }
  int parts_;
  int64_t max_inner_;
  std::vector<int64_t> divs_;
  std::vector<std::vector<std::pair<size_t, size_t>>> sub_;
  std::vector<uint64_t> memo_;
};
}  // namespace

Array<Var> Schedule::SamplePerfectTile(const LoopRV& loop, int n, int max_innermost_factor,
                                       const std::optional<Array<Any>>& decision) const {
  LoopLocation loc = LocateLoop(loop, "sample_perfect_tile");
  const std::string func = get()->loops.at(loop.get()).func;
  PrimFunc f = FuncOf(func);
  const int64_t* extent = AsConstInt(loc.loop->extent);
  if (extent == nullptr) ThrowScheduleError("sample_perfect_tile", "the loop has a symbolic extent", f);
  if (n < 1) ThrowScheduleError("sample_perfect_tile", "n must be at least 1", f);
  TESSERA_CHECK_OR_THROW(n <= kMaxTileFactors, ValueError)
      << "sample_perfect_tile: n=" << n << " factors exceeds the limit of " << kMaxTileFactors;
  if (*extent < 1) ThrowScheduleError("sample_perfect_tile", "the loop's extent " + std::to_string(*extent) + " is not positive", f);
  std::vector<int64_t> chosen;
  if (decision && !decision->empty()) {
    int64_t prod = 1;
    bool overflow = false;
    for (const Any& a : decision->to_vector()) {
      chosen.push_back(a.cast<int64_t>());
      TESSERA_CHECK_OR_THROW(chosen.back() >= 1, ValueError)
          << "sample_perfect_tile: decision factor " << chosen.back() << " is not positive";
      overflow = overflow || __builtin_mul_overflow(prod, chosen.back(), &prod);
    }
    if (overflow || static_cast<int>(chosen.size()) != n || prod != *extent) {
      ThrowScheduleError("sample_perfect_tile", "the decision does not tile the loop's extent " +
                                                    std::to_string(*extent) + " into " + std::to_string(n) + " factors",
                         f);
    }
  } else {
    TilingCounter counter(*extent, n, max_innermost_factor);
    uint64_t total = counter.Total();
    if (total == 0) ThrowScheduleError("sample_perfect_tile", "no perfect tiling satisfies max_innermost_factor", f);
    chosen = counter.Unrank(NextRandom() % total);
  }
  std::vector<Var> vars;
  std::vector<Any> outs, dec;
  for (int64_t v : chosen) {
    Var rv("v", DataType::Int(64));
    self()->values[rv.get()] = v;
    vars.push_back(rv);
    outs.push_back(rv);
    dec.push_back(v);
  }
  Record("SamplePerfectTile", {loop}, {static_cast<int64_t>(n), static_cast<int64_t>(max_innermost_factor)},
         Array<Any>(outs), Any(Array<Any>(dec)));
  return Array<Var>(vars);
}

Var Schedule::SampleCategorical(const Array<Any>& candidates, const Array<Any>& probs,
                                const std::optional<Any>& decision) const {
  TESSERA_CHECK_OR_THROW(!candidates.empty() && candidates.size() == probs.size(), ValueError)
      << "sample_categorical needs as many probabilities as candidates (got " << candidates.size() << " and "
      << probs.size() << ")";
  // Every candidate is an integer and every probability a finite, non-negative
  // number, checked before anything is drawn (TypeError/ValueError naming the entry).
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Any& c = candidates.at_any(i);
    TESSERA_CHECK_OR_THROW(c.kind() == Any::Kind::kInt, TypeError)
        << "sample_categorical: candidates[" << i << "] must be an integer, got " << c.type_name();
    const Any& p = probs.at_any(i);
    TESSERA_CHECK_OR_THROW(p.try_cast<double>().has_value(), TypeError)
        << "sample_categorical: probs[" << i << "] must be a number, got " << p.type_name();
    double v = p.cast<double>();
    TESSERA_CHECK_OR_THROW(std::isfinite(v) && v >= 0, ValueError)
        << "sample_categorical: probs[" << i << "] = " << v << " is not a finite non-negative number";
  }
  int64_t index = 0;
  if (decision && !decision->is_none()) {
    TESSERA_CHECK_OR_THROW(decision->kind() == Any::Kind::kInt, TypeError)
        << "sample_categorical: decision must be an integer, got " << decision->type_name();
    index = decision->cast<int64_t>();
    TESSERA_CHECK_OR_THROW(index >= 0 && index < static_cast<int64_t>(candidates.size()), ValueError)
        << "sample_categorical decision " << index << " is out of range";
  } else {
    double total = 0;
    for (const Any& p : probs.to_vector()) total += p.cast<double>();
    TESSERA_CHECK_OR_THROW(total > 0 && std::isfinite(total), ValueError)
        << "sample_categorical probabilities sum to " << total << " (need a finite positive sum)";
    double r = static_cast<double>(NextRandom()) / static_cast<double>(kModulus) * total;
    index = static_cast<int64_t>(candidates.size()) - 1;
    for (size_t i = 0; i < probs.size(); ++i) {
      r -= probs.at_any(i).cast<double>();
      if (r < 0) {
        index = static_cast<int64_t>(i);
        break;
      }
    }
  }
  Var rv("v", DataType::Int(64));
  self()->values[rv.get()] = candidates.at_any(static_cast<size_t>(index)).cast<int64_t>();
  Record("SampleCategorical", {}, {candidates, probs}, {rv}, Any(index));
  return rv;
}

void Schedule::ApplyTrace(const Trace& trace, bool remove_postproc) const {
  (void)remove_postproc;  // no postprocessors are recorded yet
  // Replays on a copy and adopts its state only when every instruction
  // succeeded, so a trace that does not fit leaves this schedule unchanged.
  Schedule work = Copy();
  std::unordered_map<const Object*, Any> rv_map;
  std::function<Any(const Any&)> map = [&](const Any& v) -> Any {
    if (v.is_object()) {
      auto it = rv_map.find(v.raw_object().get());
      if (it != rv_map.end()) return it->second;
      if (const auto* a = v.as<ArrayObj>()) {
        std::vector<Any> out;
        for (const Any& x : a->data) out.push_back(map(x));
        return Any(Array<Any>(out));
      }
    }
    return v;
  };
  size_t position = 0;
  for (const Instruction& inst : trace->insts) {
    ++position;
    std::vector<Any> in;
    for (const Any& x : inst->inputs.to_vector()) in.push_back(map(x));
    const auto& attrs = inst->attrs;
    const InstructionKindNode* kind = inst->kind.get();
    TESSERA_CHECK_OR_THROW(kind->f_apply != nullptr, NotImplementedError)
        << "replaying instruction " << kind->name << " is not supported";
    Array<Any> outs;
    // Errors name the instruction; the core's InternalError (a handle of the
    // trace that this schedule cannot resolve) is the trace's fault here, so
    // it becomes a ValueError without the C++ location.
    const std::string where = "apply_trace: instruction " + std::to_string(position) + " of " +
                              std::to_string(trace->insts.size()) + " (" + kind->name + ")";
    try {
      outs = kind->f_apply(work, Array<Any>(in), attrs, trace->GetDecision(inst));
    } catch (const std::out_of_range&) {
      TESSERA_THROW(ValueError) << where << ": the trace gives it " << in.size() << " inputs and " << attrs.size()
                                << " attributes, too few for this kind";
    } catch (const InternalError& e) {
      std::string msg = e.what();
      if (msg.rfind("Check failed", 0) == 0) {
        size_t colon = msg.find(": ", msg.find(") at "));
        if (colon != std::string::npos) msg = msg.substr(colon + 2);
      }
      TESSERA_THROW(ValueError) << where << " does not fit this schedule: " << msg;
    } catch (const Error& e) {
      ThrowErrorOfKind(e.kind(), where + " failed: " + e.what(), e.payload());
    }
    TESSERA_CHECK_OR_THROW(outs.size() == inst->outputs.size(), ValueError)
        << where << " gave " << outs.size() << " outputs where the trace records " << inst->outputs.size()
        << " (the trace does not fit this module)";
    for (size_t i = 0; i < outs.size(); ++i) rv_map[inst->outputs.at_any(i).raw_object().get()] = outs.at_any(i);
  }
  ScheduleNode* dst = self();
  const ScheduleNode* src = work.get();
  dst->mod = src->mod;
  dst->func_name = src->func_name;
  dst->rand_state = src->rand_state;
  dst->trace = src->trace;
  dst->blocks = src->blocks;
  dst->loops = src->loops;
  dst->values = src->values;
  dst->index = src->index;
}

TESSERA_REGISTER_OBJECT_TYPE(ScheduleNode);

// ---- FFI -------------------------------------------------------------------------
namespace {
// Registers a tir.schedule.* entry whose first argument is the schedule: the
// call holds that schedule's lock, so threads sharing one schedule take turns
// (each primitive still either commits fully or leaves the schedule as it was).
struct LockedScheduleEntry {
  std::string name;
  static LockedScheduleEntry& Create(std::string name) { return *new LockedScheduleEntry{std::move(name)}; }
  template <typename F>
  LockedScheduleEntry& set_body_typed(F f) {
    PackedFunc inner = PackedFunc::FromTyped(std::move(f), name);
    Registry::Set(name, PackedFunc(
                            [inner](PackedArgs args) -> Any {
                              const ScheduleNode* s = args.size() > 0 ? args[0].as<ScheduleNode>() : nullptr;
                              if (s == nullptr) return inner.CallPacked(args);
                              std::lock_guard<std::recursive_mutex> guard(s->lock.mu);
                              return inner.CallPacked(args);
                            },
                            name));
    return *this;
  }
};
}  // namespace
#define TESSERA_REGISTER_SCHEDULE_API(Name)                                                 \
  [[maybe_unused]] static LockedScheduleEntry& TESSERA_REGISTRY_CONCAT(_tessera_sched_entry_, \
                                                                      __COUNTER__) = LockedScheduleEntry::Create(Name)

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Schedule").set_body_typed([](IRModule mod, int64_t seed) { return Schedule(mod, seed); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleMod").set_body_typed([](Schedule s) { return s->mod; });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleTrace").set_body_typed([](Schedule s) { return s->trace; });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleFuncName").set_body_typed([](Schedule s) { return s->func_name; });
// Test hook: whether the cached index of the current function equals one
// built from scratch, and how many blocks it reused from its predecessor.
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleIndexCheck").set_body_typed([](Schedule s) {
  auto cached = s.IndexOf(s->func_name);
  bool same = cached->SameAs(*ScheduleIndex::Build(cached->func()));
  return Array<Any>{same, static_cast<int64_t>(cached->reused_blocks())};
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleCopy").set_body_typed([](Schedule s) { return s.Copy(); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleSeed").set_body_typed([](Schedule s, int64_t seed) { s.Seed(seed); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleForkSeed").set_body_typed([](Schedule s) { return s.ForkSeed(); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleWorkOn").set_body_typed([](Schedule s, std::string f) { s.WorkOn(f); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleGet").set_body_typed([](Schedule s, ObjectRef rv) { return s.Get(rv); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetBlock").set_body_typed([](Schedule s, std::string name, std::optional<std::string> f) {
  return s.GetBlock(name, f);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetLoops").set_body_typed([](Schedule s, BlockRV b) { return s.GetLoops(b); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetChildBlocks").set_body_typed([](Schedule s, ObjectRef x) { return s.GetChildBlocks(x); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetProducers").set_body_typed([](Schedule s, BlockRV b) { return s.GetProducers(b); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetConsumers").set_body_typed([](Schedule s, BlockRV b) { return s.GetConsumers(b); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Split")
    .set_body_typed([](Schedule s, LoopRV l, Array<Any> factors, bool preserve, bool disable_predication) {
      return s.Split(l, factors, preserve, disable_predication);
    });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Fuse").set_body_typed([](Schedule s, Array<LoopRV> loops, bool preserve) {
  return s.Fuse(loops, preserve);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Reorder").set_body_typed([](Schedule s, Array<LoopRV> loops) { s.Reorder(loops); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.AddUnitLoop").set_body_typed([](Schedule s, ObjectRef x) { return s.AddUnitLoop(x); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Parallel").set_body_typed([](Schedule s, LoopRV l) { s.Parallel(l); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Vectorize").set_body_typed([](Schedule s, LoopRV l) { s.Vectorize(l); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Unroll").set_body_typed([](Schedule s, LoopRV l) { s.Unroll(l); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Bind").set_body_typed([](Schedule s, LoopRV l, std::string t) { s.Bind(l, t); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Annotate").set_body_typed([](Schedule s, ObjectRef x, std::string k, Any v) {
  s.Annotate(x, k, v);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Unannotate").set_body_typed([](Schedule s, ObjectRef x, std::string k) {
  s.Unannotate(x, k);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.DecomposeReduction").set_body_typed([](Schedule s, BlockRV b, LoopRV l) {
  return s.DecomposeReduction(b, l);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ComputeAt").set_body_typed([](Schedule s, BlockRV b, LoopRV l, bool p, int i) {
  s.ComputeAt(b, l, p, i);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ReverseComputeAt").set_body_typed([](Schedule s, BlockRV b, LoopRV l, bool p, int i) {
  s.ReverseComputeAt(b, l, p, i);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ComputeInline").set_body_typed([](Schedule s, BlockRV b) { s.ComputeInline(b); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ReverseComputeInline").set_body_typed([](Schedule s, BlockRV b) {
  s.ReverseComputeInline(b);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.CacheRead").set_body_typed([](Schedule s, BlockRV b, int i, std::string scope) {
  return s.CacheRead(b, i, scope);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.CacheWrite").set_body_typed([](Schedule s, BlockRV b, int i, std::string scope) {
  return s.CacheWrite(b, i, scope);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SetScope").set_body_typed([](Schedule s, BlockRV b, int i, std::string scope) {
  s.SetScope(b, i, scope);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Blockize").set_body_typed([](Schedule s, LoopRV l, bool preserve) {
  return s.Blockize(l, preserve);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Tensorize").set_body_typed([](Schedule s, ObjectRef x, std::string name, bool preserve) {
  s.Tensorize(x, name, preserve);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.RFactor").set_body_typed([](Schedule s, LoopRV l, int axis) { return s.RFactor(l, axis); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.StorageAlign").set_body_typed([](Schedule s, BlockRV b, int i, int axis, int f, int o) {
  s.StorageAlign(b, i, axis, f, o);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.TransformLayout")
    .set_body_typed([](Schedule s, BlockRV b, bool is_write, int idx, IndexMap index_map) {
      s.TransformLayout(b, is_write, idx, index_map);
    });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SampleComputeLocation")
    .set_body_typed([](Schedule s, BlockRV b, std::optional<int64_t> decision) { return s.SampleComputeLocation(b, decision); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SamplePerfectTile")
    .set_body_typed([](Schedule s, LoopRV l, int n, int max_inner, std::optional<Array<Any>> decision) {
      return s.SamplePerfectTile(l, n, max_inner, decision);
    });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SampleCategorical")
    .set_body_typed([](Schedule s, Array<Any> candidates, Array<Any> probs, std::optional<Any> decision) {
      return s.SampleCategorical(candidates, probs, decision);
    });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ApplyTrace").set_body_typed([](Schedule s, Trace t, bool remove_postproc) {
  s.ApplyTrace(t, remove_postproc);
});

}  // namespace tir
}  // namespace tessera
