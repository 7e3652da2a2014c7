// The Schedule core (see schedule.h): construction, copy, seeding, handle
// resolution, commit/record, get, apply_trace and their FFI entries. Each
// primitive's Schedule method and FFI entry live in its primitive file
// (primitive/*.cc). TIR schedule layer.
#include "tir/schedule/schedule.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <unordered_set>
#include <set>
#include <stdexcept>

#include "runtime/registry.h"
#include "tir/schedule/primitive/compute_location_candidates.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
namespace {

constexpr uint64_t kModulus = Schedule::kModulus;

uint64_t NormalizeSeed(int64_t seed) {
  if (seed < 0) seed = std::chrono::steady_clock::now().time_since_epoch().count();
  uint64_t s = static_cast<uint64_t>(seed) % kModulus;
  return s == 0 ? 1 : s;
}

// Keeps the block handles of `func` pointing at their blocks across a
// commit from `old` (null when never indexed) to `now`. A handle whose name
// is unique in `now` resolves by name, as before; one whose name is shared
// resolves by identity from then on. A handle whose block was replaced
// follows the replacement when it is certain which one it is: the only
// block of that name new in `now`, replacing the only such block lost.
// Otherwise its node is cleared and using it is an error. Never throws.
void TrackBlockHandles(ScheduleNode* n, const std::string& func, const ScheduleIndex* old,
                       const ScheduleIndex& now) {
  std::unordered_set<const Object*> in_now;
  bool have_now = false;
  auto present = [&](const Object* b) {
    if (!have_now) {
      for (const BlockLocation& l : now.blocks()) in_now.insert(l.block);
      have_now = true;
    }
    return in_now.count(b) > 0;
  };
  std::map<std::string, std::vector<ScheduleNode::BlockEntry*>> lost;
  for (auto& kv : n->blocks) {
    ScheduleNode::BlockEntry& e = kv.second;
    if (e.func != func) continue;
    if (!e.by_identity) {
      int before = 0;
      const BlockLocation* l = old ? old->FindBlock(e.name, &before) : nullptr;
      if (before == 1) e.node = GetRef<Block>(l->block);
      int after = 0;
      const BlockLocation* m = now.FindBlock(e.name, &after);
      if (after <= 1) {
        if (after == 1) e.node = GetRef<Block>(m->block);
        continue;
      }
      e.by_identity = true;
    }
    if (!e.node.defined() || present(e.node.get())) continue;
    lost[e.name].push_back(&e);
  }
  if (lost.empty()) return;
  std::unordered_set<const Object*> in_old;
  if (old) {
    for (const BlockLocation& l : old->blocks()) in_old.insert(l.block);
  }
  for (auto& [name, entries] : lost) {
    std::unordered_set<const Object*> lost_nodes;
    for (auto* e : entries) lost_nodes.insert(e->node.get());
    std::vector<const BlockNode*> fresh;
    for (const BlockLocation& l : now.blocks()) {
      if (l.block->name_hint == name && !in_old.count(l.block)) fresh.push_back(l.block);
    }
    bool certain = old != nullptr && lost_nodes.size() == 1 && fresh.size() == 1;
    for (auto* e : entries) e->node = certain ? ObjectRef(GetRef<Block>(fresh[0])) : ObjectRef();
  }
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
    // As TVM: without "main", the function worked on is the only PrimFunc;
    // with several, none until work_on names one.
    int prim_funcs = 0;
    std::string only;
    for (const GlobalVar& gv : gvs) {
      if (n->mod->Lookup(gv).as<PrimFuncNode>()) {
        ++prim_funcs;
        only = gv->name_hint;
      }
    }
    n->func_name = prim_funcs == 1 ? only : std::string();
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
  if (get()->debug_mask & 2) {
    TESSERA_ICHECK(index->SameAs(*ScheduleIndex::Build(f)))
        << "debug_mask: the cached schedule index of \"" << func << "\" differs from one rebuilt from scratch";
  }
  TrackBlockHandles(self(), func, it == get()->index.end() ? nullptr : it->second.get(), *index);
  self()->mod = next;
  self()->index[func] = std::move(index);
}

BlockRV Schedule::NewBlockRV(const std::string& func, const BlockNode* block) const {
  int count = 0;
  IndexOf(func)->FindBlock(block->name_hint, &count);
  BlockRV rv = BlockRV::Make();
  self()->blocks[rv.get()] = {func, block->name_hint, GetRef<Block>(block), count > 1};
  return rv;
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
  int count = 0;
  const BlockLocation* loc = index->FindBlock(it->second.name, &count);
  if (it->second.by_identity || count > 1) {
    // Blocks share this name (or did): the handle's own block, by identity.
    loc = nullptr;
    for (const BlockLocation& b : index->blocks()) {
      if (it->second.node.get() == b.block) loc = &b;
    }
    if (!loc) {
      ThrowScheduleError(primitive, "the block \"" + it->second.name + "\" this handle refers to " +
                                        (count > 1 ? "cannot be told apart from the other " + std::to_string(count) +
                                                         " blocks of that name (a primitive replaced it; get a "
                                                         "new handle from the primitive's result)"
                                                   : std::string("no longer exists")),
                         index->func());
    }
    return *loc;
  }
  if (!loc) {
    // The root block (not in the index): only lookups and annotations apply to it.
    if (const auto* root = index->func()->body.as<BlockRealizeNode>(); root && root->block->name_hint == it->second.name) {
      static const std::set<std::string> kRootPrimitives = {"get", "get_loops", "get_child_blocks", "annotate",
                                                            "unannotate"};
      if (!kRootPrimitives.count(primitive)) {
        ThrowScheduleError(primitive, "cannot be applied to the root block \"" + it->second.name + "\"", index->func());
      }
      BlockLocation root_loc;
      root_loc.realize = root;
      root_loc.block = root->block.get();
      return root_loc;
    }
    ThrowScheduleError(primitive, "block \"" + it->second.name + "\" no longer exists", index->func());
  }
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
  // The "root" and "inline" locations of sample_compute_location are loop
  // handles that name no loop: only compute_at / reverse_compute_at take them.
  if (!entry.var.defined() || entry.var.same_as(InlineMarkVar())) {
    ThrowScheduleError(primitive, std::string("the loop handle is the \"") + (entry.var.defined() ? "inline" : "root") +
                                      "\" location sampled by sample_compute_location; it names no loop",
                       index->func());
  }
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

void Schedule::ApplyTrace(const Trace& trace, bool remove_postproc) const {
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
    if (remove_postproc && inst->kind->name == "EnterPostproc") break;  // the rest is postprocessing
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
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleSetDebugMask").set_body_typed([](Schedule s, int64_t mask) {
  s.self()->debug_mask = static_cast<int>(mask);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleCopy").set_body_typed([](Schedule s) { return s.Copy(); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleSeed").set_body_typed([](Schedule s, int64_t seed) { s.Seed(seed); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleForkSeed").set_body_typed([](Schedule s) { return s.ForkSeed(); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleWorkOn").set_body_typed([](Schedule s, std::string f) { s.WorkOn(f); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleGet").set_body_typed([](Schedule s, ObjectRef rv) { return s.Get(rv); });
// As TVM's remove_rv: the schedule forgets a handle (not traced); using it
// afterwards is an error, as for a handle of another schedule.
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleRemoveRV").set_body_typed([](Schedule s, ObjectRef rv) {
  auto* n = const_cast<ScheduleNode*>(s.get());
  size_t erased = n->blocks.erase(rv.get()) + n->loops.erase(rv.get()) + n->values.erase(rv.get());
  TESSERA_CHECK_OR_THROW(erased > 0, IndexError)
      << "remove_rv: the " << rv->GetTypeKey() << " handle does not belong to this schedule";
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ApplyTrace").set_body_typed([](Schedule s, Trace t, bool remove_postproc) {
  s.ApplyTrace(t, remove_postproc);
});

}  // namespace tir
}  // namespace tessera
