// MatchDataflowBlock and RewriteBindings (graph_match.h). A BlockGraph
// lists a block's vars, each bound var's var operands (in order: the
// `index` of an edge) and each var's users; a backtracking Solver assigns
// patterns to vars. Rebuilt blocks place the rewritten bindings where the
// last of them was, after everything they use, and delay bindings that
// depend on them.
#include "relax/dpl/graph_match.h"

#include <algorithm>
#include <unordered_set>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "relax/dpl/rewrite.h"
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace dpl {

namespace {

struct BlockGraph {
  std::vector<Var> vars;  // candidates: free vars and bound vars, in order of appearance
  Map<Var, RelaxExpr> var2val;
  std::unordered_map<const Object*, std::vector<const Object*>> operands, users;
  std::unordered_map<const Object*, size_t> position;  // bound var -> binding index

  explicit BlockGraph(const BindingBlock& block) {
    std::unordered_set<const Object*> seen;
    auto add = [&](const Var& v) {
      if (seen.insert(v.get()).second) vars.push_back(v);
    };
    for (size_t i = 0; i < block->bindings.size(); ++i) {
      const Binding& b = block->bindings[i];
      RelaxExpr value = b.as<VarBindingNode>() ? b.as<VarBindingNode>()->value : b.as<MatchCastNode>()->value;
      std::vector<const Object*>& ops = operands[b->var.get()];
      PostOrderVisit(value, [&](const RelaxExpr& e) {
        if (!e.as<VarNode>()) return;
        ops.push_back(e.get());
        add(Downcast<Var>(e));
        auto& u = users[e.get()];
        if (std::find(u.begin(), u.end(), b->var.get()) == u.end()) u.push_back(b->var.get());
      });
      add(b->var);
      position[b->var.get()] = i;
      if (b.as<VarBindingNode>()) var2val.Set(b->var, value);
    }
  }
};

class Solver {
 public:
  Solver(const GraphPattern& graph, const BlockGraph& g)
      : nodes_(graph.nodes), edges_(graph.edges), same_shape_(graph.same_shape), g_(g),
        assign_(graph.nodes.size(), -1), used_(g.vars.size(), false) {
    for (size_t i = 0; i < nodes_.size(); ++i) id_[nodes_[i].get()] = static_cast<int>(i);
    lookup_ = LookupIn(g.var2val);
  }

  std::optional<Map<DFPattern, Var>> Solve() {
    if (nodes_.empty() || !Assign(0)) return std::nullopt;
    Map<DFPattern, Var> out;
    for (size_t i = 0; i < nodes_.size(); ++i) out.Set(nodes_[i], g_.vars[assign_[i]]);
    return out;
  }

 private:
  bool Assign(size_t k) {
    if (k == nodes_.size()) return true;
    for (size_t c = 0; c < g_.vars.size(); ++c) {
      if (used_[c] || !PatternMatcher(lookup_).Match(nodes_[k], g_.vars[c])) continue;
      assign_[k] = static_cast<int>(c);
      used_[c] = true;
      if (EdgesHold(k) && ShapesAgree() && Assign(k + 1)) return true;
      used_[c] = false;
      assign_[k] = -1;
    }
    return false;
  }

  const Object* VarOf(const DFPattern& p) const {
    int a = assign_[id_.at(p.get())];
    return a < 0 ? nullptr : g_.vars[a].get();
  }

  bool EdgesHold(size_t k) const {
    for (const UseEdge& e : edges_) {
      if (e.src.get() != nodes_[k].get() && e.dst.get() != nodes_[k].get()) continue;
      const Object *src = VarOf(e.src), *dst = VarOf(e.dst);
      if (!src || !dst) continue;
      auto ops = g_.operands.find(dst);
      if (ops == g_.operands.end()) return false;  // dst is not bound in the block
      const auto& o = ops->second;
      if (e.index >= 0 ? (static_cast<size_t>(e.index) >= o.size() || o[e.index] != src)
                       : std::find(o.begin(), o.end(), src) == o.end()) {
        return false;
      }
      if (e.only) {
        const auto& u = g_.users.at(src);
        // A bound var that is not a DataflowVar is also used after the block.
        bool escapes = g_.position.count(src) && !static_cast<const VarNode*>(src)->IsInstance<DataflowVarNode>();
        if (escapes || u.size() != 1 || u[0] != dst) return false;
      }
    }
    return true;
  }

  // Every same_shape group whose vars are all assigned has provably equal shapes.
  bool ShapesAgree() const {
    for (const auto& group : same_shape_) {
      std::optional<Array<PrimExpr>> first;
      for (const DFPattern& p : group) {
        const Object* v = VarOf(p);
        if (!v) break;
        const auto* t = GetStructInfo(GetRef<Var>(static_cast<const VarNode*>(v))).as<TensorStructInfoNode>();
        auto dims = t ? t->GetShape() : std::nullopt;
        if (!dims) return false;
        if (!first) {
          first = dims;
          continue;
        }
        if (first->size() != dims->size()) return false;
        arith::Analyzer ana;
        for (size_t i = 0; i < dims->size(); ++i) {
          if (!ana.CanProveEqual((*first)[i], (*dims)[i])) return false;
        }
      }
    }
    return true;
  }

  const std::vector<DFPattern>& nodes_;
  const std::vector<UseEdge>& edges_;
  const std::vector<std::vector<DFPattern>>& same_shape_;
  const BlockGraph& g_;
  std::unordered_map<const Object*, int> id_;
  std::vector<int> assign_;
  std::vector<bool> used_;
  VarLookup lookup_;
};

// The block with the bindings of `repl`'s vars replaced (nullopt: nothing changes).
std::optional<DataflowBlock> Rebuild(const DataflowBlock& block, const BlockGraph& g, const Map<Var, RelaxExpr>& repl,
                                     const Array<Var>& params) {
  std::unordered_set<const Object*> rewritten;
  size_t last = 0;
  bool any = false;
  for (const auto& [var, value] : repl.items()) {
    auto pos = g.position.find(var.get());
    TESSERA_CHECK_OR_THROW(pos != g.position.end() && g.var2val.count(var), ValueError)
        << "rewrite_bindings: the rewriter returned a new value for '" << var->name_hint
        << "', which is not a var bound in the dataflow block";
    TESSERA_CHECK_OR_THROW(value.defined(), TypeError)
        << "rewrite_bindings: the rewriter returned None as the new value of '" << var->name_hint << "'";
    rewritten.insert(var.get());
    last = std::max(last, pos->second);
    any |= !StructuralEqual(value, g.var2val[var]);
  }
  if (!any) return std::nullopt;
  // Bindings before `last` that use a rewritten var (transitively) move after the rewritten ones.
  std::unordered_set<const Object*> tainted = rewritten;
  std::vector<Binding> delayed;
  for (size_t i = 0; i < last; ++i) {
    const Binding& b = block->bindings[i];
    if (rewritten.count(b->var.get())) continue;
    const auto& ops = g.operands.at(b->var.get());
    if (std::any_of(ops.begin(), ops.end(), [&](const Object* o) { return tainted.count(o) > 0; })) {
      tainted.insert(b->var.get());
      delayed.push_back(b);
    }
  }
  BlockBuilder builder = BlockBuilder::Create();
  builder->BeginScope(params);
  builder->BeginDataflowBlock();
  for (size_t i = 0; i < block->bindings.size(); ++i) {
    const Binding& b = block->bindings[i];
    if (i < last && tainted.count(b->var.get())) continue;
    if (i != last) {
      builder->EmitNormalized(b);
      continue;
    }
    for (const Binding& r : block->bindings) {
      if (!rewritten.count(r->var.get())) continue;
      RelaxExpr value = builder->Normalize(repl[r->var]);
      CheckReplacementStructInfo(g.var2val[r->var], value, "rewrite_bindings: binding '" + r->var->name_hint + "'");
      builder->EmitNormalized(VarBinding(r->var, value, r->span));
    }
    for (const Binding& d : delayed) builder->EmitNormalized(d);
  }
  BindingBlock out = builder->EndBlock();
  builder->EndScope();
  return Downcast<DataflowBlock>(out);
}

constexpr int kMaxRounds = 1000;

}  // namespace

std::optional<Map<DFPattern, Var>> MatchDataflowBlock(const GraphPattern& graph, const DataflowBlock& block) {
  BlockGraph g(block);
  return Solver(graph, g).Solve();
}

Function RewriteBindings(const GraphPattern& graph, const BindingsRewriter& rewriter, const Function& func) {
  const auto* seq = func->body.as<SeqExprNode>();
  if (!seq) return func;
  Array<BindingBlock> blocks;
  bool changed = false;
  for (const BindingBlock& block : seq->blocks) {
    const auto* df = block.as<DataflowBlockNode>();
    if (!df) {
      blocks.push_back(block);
      continue;
    }
    DataflowBlock current = GetRef<DataflowBlock>(df);
    for (int round = 0;; ++round) {
      TESSERA_CHECK_OR_THROW(round < kMaxRounds, ValueError)
          << "rewrite_bindings: no fixed point after " << kMaxRounds << " rounds (the rewriter keeps producing "
          << "new matches)";
      BlockGraph g(current);
      auto matched = Solver(graph, g).Solve();
      if (!matched) break;
      auto next = Rebuild(current, g, rewriter(*matched, g.var2val), func->params);
      if (!next) break;
      current = *next;
      changed = true;
    }
    blocks.push_back(current);
  }
  if (!changed) return func;
  Function out(func->params, SeqExpr(blocks, seq->body, seq->span), func->ret_struct_info, func->is_pure,
               func->attrs, func->span);
  return RemoveAllUnused(out);
}

namespace {

GraphPattern ReadContext(const Array<DFPattern>& nodes, const Array<Array<Any>>& edges,
                         const Array<Array<DFPattern>>& same_shape) {
  GraphPattern graph;
  graph.nodes.assign(nodes.begin(), nodes.end());
  for (const Array<Any>& edge : edges) {
    graph.edges.push_back(UseEdge{edge[0].cast<DFPattern>(), edge[1].cast<DFPattern>(),
                                  static_cast<int>(edge[2].cast<int64_t>()), edge[3].cast<bool>()});
  }
  for (const Array<DFPattern>& group : same_shape) graph.same_shape.emplace_back(group.begin(), group.end());
  return graph;
}

}  // namespace

TESSERA_REGISTER_GLOBAL("relax.dpl.match_dfb")
    .set_body_typed([](Array<DFPattern> nodes, Array<Array<Any>> edges, Array<Array<DFPattern>> same_shape,
                       DataflowBlock block) -> Any {
      auto m = MatchDataflowBlock(ReadContext(nodes, edges, same_shape), block);
      if (!m) return Any();
      return *m;
    });

TESSERA_REGISTER_GLOBAL("relax.dpl.rewrite_bindings")
    .set_body_typed([](Array<DFPattern> nodes, Array<Array<Any>> edges, Array<Array<DFPattern>> same_shape,
                       PackedFunc f, Function func) {
      BindingsRewriter rewriter = [f](const Map<DFPattern, Var>& matches, const Map<Var, RelaxExpr>& var2val) {
        Any r = f(matches, var2val);
        auto out = r.is_none() ? std::optional<Map<Var, RelaxExpr>>(Map<Var, RelaxExpr>())
                               : r.try_cast<Map<Var, RelaxExpr>>();
        TESSERA_CHECK_OR_THROW(out.has_value(), TypeError)
            << "rewrite_bindings: the rewriter must return a dict of relax Var -> Expr, got " << r.type_name();
        return *out;
      };
      return RewriteBindings(ReadContext(nodes, edges, same_shape), rewriter, func);
    });

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
