// merge (TVM's): merges loop nests that sit side by side into one: the given
// loops (one per nest, at the same depth below their lowest common
// ancestor) and the loops above them become one chain of loops "<name>_m"
// whose body runs each nest's body in turn. Tessera also refuses nests that
// share a buffer one of them writes, and nests separated by statements that
// share buffers with them (interleaving would change the result; TVM does
// not check). Its instruction kind ("Merge"), the Schedule method and the
// FFI entry. TIR schedule layer.
#include <string>
#include <unordered_set>
#include <vector>

#include "arith/analyzer.h"
#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

const char* kPrim = "merge";

struct Access {
  std::unordered_set<const BufferNode*> reads, writes;
};

Access AccessesOf(const Stmt& s) {
  Access a;
  PostOrderVisit(s, [&](const ObjectRef& n) {
    if (const auto* load = n.as<BufferLoadNode>()) a.reads.insert(load->buffer.get());
    if (const auto* store = n.as<BufferStoreNode>()) a.writes.insert(store->buffer.get());
  });
  return a;
}

// The buffer through which `x` and `y` depend on each other, if any.
const BufferNode* Conflict(const Access& x, const Access& y) {
  for (const BufferNode* b : x.writes) {
    if (y.reads.count(b) || y.writes.count(b)) return b;
  }
  for (const BufferNode* b : y.writes) {
    if (x.reads.count(b)) return b;
  }
  return nullptr;
}

LoopRV Merge(const Schedule& sch, const std::vector<LoopRV>& loop_rvs) {
  if (loop_rvs.size() < 2) {
    ThrowErrorOfKind("ScheduleError", "ScheduleError: merge: needs at least two loops, got " +
                                          std::to_string(loop_rvs.size()));
  }
  const std::string func = sch.LoopEntryOf(loop_rvs[0], kPrim).func;
  std::vector<LoopLocation> locs;
  for (const LoopRV& rv : loop_rvs) {
    if (sch.LoopEntryOf(rv, kPrim).func != func) {
      ThrowScheduleError(kPrim, "the loops are in different functions", sch.FuncOf(func));
    }
    locs.push_back(sch.LocateLoop(rv, kPrim));
  }
  PrimFunc f = sch.FuncOf(func);
  for (size_t i = 1; i < locs.size(); ++i) {
    if (locs[i].scope != locs[0].scope) {
      ThrowScheduleError(kPrim, "loops " + locs[0].loop->loop_var->name_hint + " and " +
                                    locs[i].loop->loop_var->name_hint + " are under different blocks",
                         f, {locs[i].loop});
    }
  }
  // The lowest common ancestor: the longest common prefix of the ancestor chains.
  size_t common = locs[0].ancestors.size();
  for (const LoopLocation& l : locs) {
    size_t k = 0;
    while (k < common && k < l.ancestors.size() && l.ancestors[k] == locs[0].ancestors[k]) ++k;
    common = k;
  }
  std::vector<std::vector<const ForNode*>> chains;
  for (const LoopLocation& l : locs) {
    std::vector<const ForNode*> chain(l.ancestors.begin() + common, l.ancestors.end());
    chain.push_back(l.loop);
    chains.push_back(chain);
  }
  const Stmt lca_body = common == 0 ? locs[0].scope->body : locs[0].ancestors[common - 1]->body;
  std::vector<Stmt> items;
  if (const auto* seq = lca_body.as<SeqStmtNode>()) {
    for (const Stmt& s : seq->seq) items.push_back(s);
  } else {
    items.push_back(lca_body);
  }
  arith::Analyzer ana;
  std::vector<size_t> positions;
  for (size_t i = 0; i < chains.size(); ++i) {
    const auto& chain = chains[i];
    const std::string name = "loop " + chain.back()->loop_var->name_hint;
    if (chain.size() != chains[0].size()) {
      ThrowScheduleError(kPrim, name + " is at another depth below the loops' common ancestor than loop " +
                                    chains[0].back()->loop_var->name_hint,
                         f, {chain.back()});
    }
    for (size_t d = 0; d < chain.size(); ++d) {
      const ForNode* l = chain[d];
      if (d + 1 < chain.size() && l->body.get() != chain[d + 1]) {
        ThrowScheduleError(kPrim, "loop " + l->loop_var->name_hint + " holds more than loop " +
                                      chain[d + 1]->loop_var->name_hint + "; only single-child loop chains merge",
                           f, {l});
      }
      const int64_t* m = AsConstInt(l->min);
      if (m == nullptr || *m != 0) {
        ThrowScheduleError(kPrim, "loop " + l->loop_var->name_hint + " does not start at 0", f, {l});
      }
      if (!l->annotations.empty() || l->thread_binding) {
        ThrowScheduleError(kPrim, "loop " + l->loop_var->name_hint + " has annotations or a thread binding", f, {l});
      }
      const ForNode* ref = chains[0][d];
      if (!ana.CanProveEqual(l->extent, ref->extent) || l->kind != ref->kind) {
        ThrowScheduleError(kPrim, "loop " + l->loop_var->name_hint + " differs from loop " + ref->loop_var->name_hint +
                                      " in extent or kind",
                           f, {l});
      }
    }
    size_t pos = items.size();
    for (size_t k = 0; k < items.size(); ++k) pos = items[k].get() == chain[0] ? k : pos;
    if (pos == items.size()) {
      ThrowScheduleError(kPrim, "loop " + chain[0]->loop_var->name_hint + " is not directly under the loops' common "
                                    "ancestor",
                         f, {chain[0]});
    }
    for (size_t p : positions) {
      if (p == pos) ThrowScheduleError(kPrim, name + " is in the same loop nest as another given loop", f, {chain.back()});
    }
    positions.push_back(pos);
  }
  // Interleaving the nests must not change what each computes.
  std::vector<Access> acc;
  for (size_t p : positions) acc.push_back(AccessesOf(items[p]));
  for (size_t i = 0; i < acc.size(); ++i) {
    for (size_t j = i + 1; j < acc.size(); ++j) {
      if (const BufferNode* b = Conflict(acc[i], acc[j])) {
        ThrowScheduleError(kPrim, "the nests of loops " + chains[i].back()->loop_var->name_hint + " and " +
                                      chains[j].back()->loop_var->name_hint + " both access buffer " + b->name +
                                      " and one writes it; merging them would reorder those accesses",
                           f, {chains[j].back()});
      }
    }
  }
  size_t first = *std::min_element(positions.begin(), positions.end());
  size_t last = *std::max_element(positions.begin(), positions.end());
  for (size_t k = first + 1; k < last; ++k) {
    if (std::find(positions.begin(), positions.end(), k) != positions.end()) continue;
    Access between = AccessesOf(items[k]);
    for (size_t i = 0; i < acc.size(); ++i) {
      if (const BufferNode* b = Conflict(between, acc[i])) {
        ThrowScheduleError(kPrim, "a statement between the nests accesses buffer " + std::string(b->name) +
                                      " as the nest of loop " + chains[i].back()->loop_var->name_hint +
                                      " does; merging would move that nest across it",
                           f, {items[k].get()});
      }
    }
  }

  // The merged chain: one variable per level, the bodies in the given order.
  const size_t depth = chains[0].size();
  std::vector<Var> vars;
  for (size_t d = 0; d < depth; ++d) vars.emplace_back(chains[0][d]->loop_var->name_hint + "_m", chains[0][d]->loop_var.dtype());
  std::vector<Stmt> bodies;
  for (const auto& chain : chains) {
    Map<Var, PrimExpr> subst;
    for (size_t d = 0; d < depth; ++d) subst.Set(chain[d]->loop_var, vars[d]);
    bodies.push_back(Substitute(chain.back()->body, subst));
  }
  Stmt merged = SeqStmt::Flatten(bodies);
  for (size_t d = depth; d-- > 0;) {
    merged = For(vars[d], chains[0][d]->min, chains[0][d]->extent, chains[0][d]->kind, merged);
  }
  std::vector<Stmt> out;
  for (size_t k = 0; k < items.size(); ++k) {
    if (k == first) {
      out.push_back(merged);
    } else if (std::find(positions.begin(), positions.end(), k) == positions.end()) {
      out.push_back(items[k]);
    }
  }
  Stmt new_body = SeqStmt::Flatten(out);
  PrimFunc next;
  if (common == 0) {
    Block scope = GetRef<Block>(locs[0].scope);
    scope.CopyOnWrite()->body = new_body;
    next = ReplaceInFunc(f, locs[0].scope, scope);
  } else {
    For lca = GetRef<For>(locs[0].ancestors[common - 1]);
    lca.CopyOnWrite()->body = new_body;
    next = ReplaceInFunc(f, locs[0].ancestors[common - 1], lca);
  }
  sch.Commit(func, next);
  LoopRV rv = LoopRV::Make();
  sch.self()->loops[rv.get()] = {func, vars.back()};
  sch.Record("Merge", Array<Any>(std::vector<Any>(loop_rvs.begin(), loop_rvs.end())), {}, {rv});
  return rv;
}

}  // namespace

TESSERA_REGISTER_INST_KIND("Merge")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      std::vector<LoopRV> loops;
      for (const Any& x : in.to_vector()) loops.push_back(x.cast<LoopRV>());
      return Array<Any>{Merge(sch, loops)};
    })
    .set_as_python(PythonCall("merge", {"*"}, {}));

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Merge").set_body_typed([](Schedule s, Array<LoopRV> loops) {
  return Merge(s, loops.to_vector());
});

}  // namespace tir
}  // namespace tessera
