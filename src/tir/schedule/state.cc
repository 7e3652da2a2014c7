// ScheduleState: the sref tree of a module's loops and blocks and Replace
// (see state.h), with its tir.schedule.* FFI entries. Replace first updates
// the sref tree (reusing srefs by loop variable, by block_sref_reuse and for
// shared subtrees), then rewrites the path from the module down to the
// replaced statement: each node on it is updated in place when the path
// above it holds it alone, and copied otherwise (so a module, function or
// statement someone else holds never changes).
#include "tir/schedule/state.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "runtime/registry.h"
#include "runtime/stack_guard.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

TESSERA_REGISTER_OBJECT_TYPE(StmtSRefNode);
TESSERA_REGISTER_OBJECT_TYPE(ScheduleStateNode);

namespace {

template <typename T>
const T* As(const Object* o) {
  return dynamic_cast<const T*>(o);
}

bool IsSRefNode(const Object* n) { return n->IsInstance<ForNode>() || n->IsInstance<BlockNode>(); }

// The direct sub-statements of `s` with the SeqStmt index of each (-1 when
// `s` is not a SeqStmt); a BlockRealize's child is its block.
template <typename F>
void ForEachChild(const StmtNode* s, F&& f) {
  if (const auto* n = As<ForNode>(s)) {
    f(n->body.get(), -1);
  } else if (const auto* n = As<BlockNode>(s)) {
    if (n->init) f(n->init->get(), -1);
    f(n->body.get(), -1);
  } else if (const auto* n = As<BlockRealizeNode>(s)) {
    f(n->block.get(), -1);
  } else if (const auto* n = As<SeqStmtNode>(s)) {
    for (size_t i = 0; i < n->seq.size(); ++i) f(static_cast<const StmtNode*>(n->seq.at_any(i).raw_object().get()), static_cast<int64_t>(i));
  } else if (const auto* n = As<IfThenElseNode>(s)) {
    f(n->then_case.get(), -1);
    if (n->else_case) f(n->else_case->get(), -1);
  } else if (const auto* n = As<LetStmtNode>(s)) {
    f(n->body.get(), -1);
  } else if (const auto* n = As<AttrStmtNode>(s)) {
    f(n->body.get(), -1);
  } else if (const auto* n = As<AllocateNode>(s)) {
    f(n->body.get(), -1);
  } else if (const auto* n = As<DeclBufferNode>(s)) {
    f(n->body.get(), -1);
  } else if (const auto* n = As<WhileNode>(s)) {
    f(n->body.get(), -1);
  }
}

// The seq_index of a child of `s` (index `i` in it): its index when `s` is a
// SeqStmt, the index of the realize for a realized block, else -1.
int64_t ChildSeqIndex(const StmtNode* s, int64_t i, int64_t seq) {
  if (s->IsInstance<SeqStmtNode>()) return i;
  if (s->IsInstance<BlockRealizeNode>()) return seq;
  return -1;
}

// Every loop and block of `s` (itself included), with the sref-tree parent
// (the innermost enclosing loop or block) and the SeqStmt index of each.
template <typename F>
void WalkSRefNodes(const StmtNode* s, const StmtNode* parent, int64_t seq, F&& f) {
  CheckStack("the sref tree");
  if (IsSRefNode(s)) {
    f(s, parent, seq);
    parent = s;
  }
  ForEachChild(s, [&](const StmtNode* c, int64_t i) { WalkSRefNodes(c, parent, ChildSeqIndex(s, i, seq), f); });
}

// Whether `target` is `s` or under it without crossing another loop or block.
bool Reaches(const StmtNode* s, const StmtNode* target) {
  if (s == target) return true;
  if (IsSRefNode(s)) return false;
  bool found = false;
  ForEachChild(s, [&](const StmtNode* c, int64_t) { found = found || Reaches(c, target); });
  return found;
}

// A place holding a statement: a Stmt field, a Block field or an Array element.
struct Slot {
  enum Kind { kStmt, kBlock, kAny } kind;
  void* ptr;
  const Object* get() const {
    switch (kind) {
      case kStmt: return static_cast<Stmt*>(ptr)->get();
      case kBlock: return static_cast<Block*>(ptr)->get();
      default: return static_cast<Any*>(ptr)->raw_object().get();
    }
  }
  void set(const ObjectRef& v) const {
    switch (kind) {
      case kStmt: *static_cast<Stmt*>(ptr) = Downcast<Stmt>(v); break;
      case kBlock: *static_cast<Block*>(ptr) = Downcast<Block>(v); break;
      default: *static_cast<Any*>(ptr) = Any(v);
    }
  }
  // The node held here, made ours: itself when this slot alone holds it
  // (updated in place), else a copy put in its place.
  Object* Own() const {
    const Object* o = get();
    if (!o->unique()) set(ObjectRef(ObjectPtr<Object>(o->CloneImpl())));
    return const_cast<Object*>(get());
  }
};

template <typename RefT>
Object* OwnField(RefT* field) {
  const Object* o = field->get();
  if (!o->unique()) *field = RefT(ObjectPtr<Object>(o->CloneImpl()));
  return const_cast<Object*>(static_cast<const Object*>(field->get()));
}

// The slots of the direct sub-statements of `s`, a node we own.
std::vector<Slot> ChildSlots(Object* s) {
  std::vector<Slot> out;
  auto stmt = [&](Stmt& x) { out.push_back({Slot::kStmt, &x}); };
  if (auto* n = dynamic_cast<ForNode*>(s)) {
    stmt(n->body);
  } else if (auto* n = dynamic_cast<BlockNode*>(s)) {
    if (n->init) stmt(*n->init);
    stmt(n->body);
  } else if (auto* n = dynamic_cast<BlockRealizeNode*>(s)) {
    out.push_back({Slot::kBlock, &n->block});
  } else if (auto* n = dynamic_cast<SeqStmtNode*>(s)) {
    auto* arr = static_cast<ArrayObj*>(OwnField(&n->seq));
    for (Any& a : arr->data) out.push_back({Slot::kAny, &a});
  } else if (auto* n = dynamic_cast<IfThenElseNode*>(s)) {
    stmt(n->then_case);
    if (n->else_case) stmt(*n->else_case);
  } else if (auto* n = dynamic_cast<LetStmtNode*>(s)) {
    stmt(n->body);
  } else if (auto* n = dynamic_cast<AttrStmtNode*>(s)) {
    stmt(n->body);
  } else if (auto* n = dynamic_cast<AllocateNode*>(s)) {
    stmt(n->body);
  } else if (auto* n = dynamic_cast<DeclBufferNode*>(s)) {
    stmt(n->body);
  } else if (auto* n = dynamic_cast<WhileNode*>(s)) {
    stmt(n->body);
  }
  return out;
}

// The slot of `target` under `owner` (a node we own), owning each
// statement in between.
Slot SlotOf(Object* owner, const StmtNode* target) {
  for (const Slot& slot : ChildSlots(owner)) {
    const auto* child = static_cast<const StmtNode*>(slot.get());
    if (!Reaches(child, target)) continue;
    if (child == target) return slot;
    return SlotOf(slot.Own(), target);
  }
  TESSERA_THROW(InternalError) << "ScheduleState: the sref tree does not match the module";
}

}  // namespace

ScheduleStateNode::~ScheduleStateNode() {
  // Srefs users still hold must not point into a module no longer kept alive.
  for (auto& [stmt, sref] : stmt2ref) {
    sref.mutable_get()->stmt = nullptr;
    sref.mutable_get()->parent = nullptr;
  }
}

ScheduleState::ScheduleState(IRModule mod, int debug_mask) {
  auto n = make_object<ScheduleStateNode>();
  n->mod = std::move(mod);
  n->debug_mask = debug_mask;
  for (const auto& [gv, func] : n->mod->functions.items()) {
    const auto* f = func.as<PrimFuncNode>();
    if (f == nullptr) continue;
    const auto* root = f->body.as<BlockRealizeNode>();
    if (root == nullptr) {
      TESSERA_THROW(ValueError) << "ScheduleState: function " << gv->name_hint
                                << " has no root block (its body must be a BlockRealize)";
    }
    WalkSRefNodes(root->block.get(), nullptr, -1, [&](const StmtNode* s, const StmtNode* parent, int64_t seq) {
      auto sref = make_object<StmtSRefNode>();
      sref->stmt = s;
      sref->parent = parent ? n->stmt2ref.at(parent).mutable_get() : nullptr;
      sref->seq_index = seq;
      n->stmt2ref.emplace(s, StmtSRef(ObjectPtr<Object>(std::move(sref))));
    });
  }
  data_ = ObjectPtr<Object>(std::move(n));
}

std::optional<StmtSRef> ScheduleState::GetSRef(const Stmt& stmt) const {
  auto it = self()->stmt2ref.find(stmt.get());
  if (it == self()->stmt2ref.end()) return std::nullopt;
  return it->second;
}

void ScheduleState::Replace(const StmtSRef& src_ref, const Stmt& tgt, const Map<Block, Block>& block_sref_reuse) const {
  ScheduleStateNode* st = self();
  StmtSRefNode* src = src_ref.mutable_get();
  if (src->stmt == nullptr) TESSERA_THROW(ValueError) << "ScheduleState.replace: the sref has expired";
  auto own_it = st->stmt2ref.find(src->stmt);
  if (own_it == st->stmt2ref.end() || own_it->second.get() != src) {
    TESSERA_THROW(ValueError) << "ScheduleState.replace: the sref does not belong to this state";
  }
  if (!tgt.defined()) TESSERA_THROW(ValueError) << "ScheduleState.replace: the target statement is None";
  const bool src_is_block = src->stmt->IsInstance<BlockNode>();
  if (src_is_block && !tgt->IsInstance<BlockNode>()) {
    TESSERA_THROW(TypeError) << "ScheduleState.replace: a block can only be replaced by a Block, got "
                             << tgt->GetTypeKey();
  }
  if (!src_is_block && !tgt->IsInstance<ForNode>() && !tgt->IsInstance<BlockRealizeNode>()) {
    TESSERA_THROW(TypeError) << "ScheduleState.replace: a loop can only be replaced by a For or a BlockRealize, got "
                             << tgt->GetTypeKey();
  }
  if (src->stmt == tgt.get()) return;
  std::vector<StmtSRefNode*> chain;  // root ... src
  for (StmtSRefNode* p = src; p != nullptr; p = p->parent) chain.push_back(p);
  std::reverse(chain.begin(), chain.end());
  std::vector<const StmtNode*> chain_stmts;  // before Step 1 expires or moves srefs
  for (StmtSRefNode* p : chain) chain_stmts.push_back(p->stmt);
  // The function whose root block heads the chain.
  std::optional<GlobalVar> g_var;
  for (const auto& [gv, func] : st->mod->functions.items()) {
    const auto* f = func.as<PrimFuncNode>();
    const auto* root = f ? f->body.as<BlockRealizeNode>() : nullptr;
    if (root && root->block.get() == chain[0]->stmt) g_var = gv;
  }
  TESSERA_ICHECK(g_var.has_value()) << "ScheduleState: no function holds the sref's root block";

  // Step 1: the sref tree. Srefs under src, and the loop variables of its loops.
  std::vector<StmtSRef> old_refs;
  std::unordered_map<const Object*, StmtSRef> by_loop_var;
  WalkSRefNodes(src->stmt, nullptr, -1, [&](const StmtNode* s, const StmtNode*, int64_t) {
    auto it = st->stmt2ref.find(s);
    if (it == st->stmt2ref.end()) return;
    old_refs.push_back(it->second);
    if (const auto* loop = As<ForNode>(s)) by_loop_var.emplace(loop->loop_var.get(), it->second);
  });
  std::unordered_map<const Object*, StmtSRef> by_new_block;
  for (const auto& [old_block, new_block] : block_sref_reuse.items()) {
    auto it = st->stmt2ref.find(old_block.get());
    if (it == st->stmt2ref.end()) {
      TESSERA_THROW(ValueError) << "ScheduleState.replace: block_sref_reuse maps block " << old_block->name_hint
                                << ", which is not in the module";
    }
    by_new_block.emplace(new_block.get(), it->second);
  }
  std::unordered_set<const StmtSRefNode*> kept;
  StmtSRefNode* const src_parent = src->parent;
  const int64_t src_seq = src->seq_index;
  std::function<void(const StmtNode*, StmtSRefNode*, int64_t)> assign = [&](const StmtNode* s, StmtSRefNode* parent,
                                                                            int64_t seq) {
    CheckStack("ScheduleState.replace");
    if (!IsSRefNode(s)) {
      ForEachChild(s, [&](const StmtNode* c, int64_t i) { assign(c, parent, ChildSeqIndex(s, i, seq)); });
      return;
    }
    auto existing = st->stmt2ref.find(s);
    if (existing != st->stmt2ref.end()) {  // a subtree of the old tree, unchanged: its srefs stay
      StmtSRefNode* r = existing->second.mutable_get();
      r->parent = parent;
      r->seq_index = seq;
      WalkSRefNodes(s, nullptr, -1, [&](const StmtNode* x, const StmtNode*, int64_t) {
        auto it = st->stmt2ref.find(x);
        if (it != st->stmt2ref.end()) kept.insert(it->second.get());
      });
      return;
    }
    std::optional<StmtSRef> reuse;
    if (const auto* loop = As<ForNode>(s)) {
      auto it = by_loop_var.find(loop->loop_var.get());
      if (it != by_loop_var.end() && !kept.count(it->second.get())) reuse = it->second;
    } else {
      auto it = by_new_block.find(s);
      if (it != by_new_block.end() && !kept.count(it->second.get())) reuse = it->second;
    }
    StmtSRef ref;
    if (reuse) {
      ref = *reuse;
      auto old = st->stmt2ref.find(ref->stmt);
      if (old != st->stmt2ref.end() && old->second.same_as(ref)) st->stmt2ref.erase(old);
      kept.insert(ref.get());
    } else {
      ref = StmtSRef(ObjectPtr<Object>(make_object<StmtSRefNode>()));
    }
    StmtSRefNode* r = ref.mutable_get();
    r->stmt = s;
    r->parent = parent;
    r->seq_index = seq;
    st->stmt2ref[s] = ref;
    ForEachChild(s, [&](const StmtNode* c, int64_t) { assign(c, r, -1); });
  };
  assign(tgt.get(), src_parent, src_seq);
  for (const StmtSRef& ref : old_refs) {
    if (kept.count(ref.get())) continue;
    StmtSRefNode* r = ref.mutable_get();
    auto it = st->stmt2ref.find(r->stmt);
    if (it != st->stmt2ref.end() && it->second.same_as(ref)) st->stmt2ref.erase(it);
    r->stmt = nullptr;
    r->parent = nullptr;
  }

  // Step 2: the path from the module to src, owned node by node.
  auto moved = [&](StmtSRefNode* r, const Object* now) {
    if (r->stmt == now) return;
    auto it = st->stmt2ref.find(r->stmt);
    StmtSRef ref = it->second;
    st->stmt2ref.erase(it);
    r->stmt = static_cast<const StmtNode*>(now);
    st->stmt2ref[r->stmt] = ref;
  };
  auto* mod = static_cast<IRModuleNode*>(OwnField(&st->mod));
  auto* funcs = static_cast<MapObj*>(OwnField(&mod->functions));
  Any* func_slot = nullptr;
  for (auto& kv : funcs->data)
    if (kv.first.raw_object().same_as(*g_var)) func_slot = &kv.second;
  auto* func = static_cast<PrimFuncNode*>(Slot{Slot::kAny, func_slot}.Own());
  auto* realize = static_cast<BlockRealizeNode*>(OwnField(&func->body));
  Slot slot{Slot::kBlock, &realize->block};
  for (size_t k = 0;; ++k) {
    if (k + 1 == chain.size()) {
      slot.set(tgt);
      break;
    }
    Object* node = slot.Own();
    moved(chain[k], node);
    slot = SlotOf(node, chain_stmts[k + 1]);
  }
  if (st->debug_mask & 1) VerifySRefTree();
}

void ScheduleState::VerifySRefTree() const {
  const ScheduleStateNode* st = self();
  size_t count = 0;
  for (const auto& [gv, func] : st->mod->functions.items()) {
    const auto* f = func.as<PrimFuncNode>();
    const auto* root = f ? f->body.as<BlockRealizeNode>() : nullptr;
    if (root == nullptr) continue;
    WalkSRefNodes(root->block.get(), nullptr, -1, [&](const StmtNode* s, const StmtNode* parent, int64_t seq) {
      ++count;
      auto it = st->stmt2ref.find(s);
      TESSERA_ICHECK(it != st->stmt2ref.end()) << "sref tree: a " << s->GetTypeKey() << " of " << gv->name_hint
                                               << " has no sref";
      const StmtSRefNode* r = it->second.get();
      TESSERA_ICHECK(r->stmt == s) << "sref tree: an sref points elsewhere than its statement";
      TESSERA_ICHECK((r->parent ? r->parent->stmt : nullptr) == parent) << "sref tree: wrong parent";
      TESSERA_ICHECK(r->seq_index == seq) << "sref tree: seq_index " << r->seq_index << ", expected " << seq;
    });
  }
  TESSERA_ICHECK(count == st->stmt2ref.size())
      << "sref tree: " << st->stmt2ref.size() << " srefs for " << count << " loops and blocks";
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_GLOBAL("tir.schedule.ScheduleState").set_body_typed([](IRModule mod, int debug_mask) {
  return ScheduleState(std::move(mod), debug_mask);
});
TESSERA_REGISTER_GLOBAL("tir.schedule.ScheduleStateMod").set_body_typed([](ScheduleState s) { return s->mod; });
TESSERA_REGISTER_GLOBAL("tir.schedule.ScheduleStateGetSRef").set_body_typed([](ScheduleState s, Stmt stmt) {
  return s.GetSRef(stmt);
});
TESSERA_REGISTER_GLOBAL("tir.schedule.ScheduleStateReplace")
    .set_body_typed([](ScheduleState s, StmtSRef src, Stmt tgt, std::optional<Map<Block, Block>> reuse) {
      s.Replace(src, tgt, reuse.value_or(Map<Block, Block>()));
    });
TESSERA_REGISTER_GLOBAL("tir.schedule.ScheduleStateVerify").set_body_typed([](ScheduleState s) {
  s.VerifySRefTree();
});
TESSERA_REGISTER_GLOBAL("tir.schedule.StmtSRefStmt").set_body_typed([](StmtSRef r) -> std::optional<Stmt> {
  if (r->stmt == nullptr) return std::nullopt;
  return GetRef<Stmt>(r->stmt);
});
TESSERA_REGISTER_GLOBAL("tir.schedule.StmtSRefParent").set_body_typed([](StmtSRef r) -> std::optional<StmtSRef> {
  if (r->parent == nullptr) return std::nullopt;
  return GetRef<StmtSRef>(r->parent);
});
TESSERA_REGISTER_GLOBAL("tir.schedule.StmtSRefSeqIndex").set_body_typed([](StmtSRef r) { return r->seq_index; });

}  // namespace tir
}  // namespace tessera
