// FuseOps: groups the call_tir bindings of each dataflow block by TVM's
// post-dominator algorithm and moves each group into a private Relax function
// with {"Primitive": 1}, called where the group's last binding was (FuseTIR
// then turns each into one PrimFunc). The block is a graph: one node per
// binding, the pattern of a call_tir its PrimFunc's "op_pattern"
// (AnnotateTIROpPattern; absent, or the PrimFunc is already scheduled,
// tir::IsScheduled: opaque), a TupleGetItem of a call_tir's
// tuple injective, anything else (packed calls, impure calls, aliases,
// match_cast, tuples) opaque. Each node may join the group of its immediate
// post-dominator when every path between them qualifies: matmul/conv into an
// elementwise/broadcast epilogue (phase 0), elementwise/broadcast into
// injective or reduction consumers (phase 0), injective chains (phase 1),
// injective ops into tuples already fused (phase 2). Outputs of the block
// (non-dataflow vars) end a group. Constants and outer values become
// parameters; structurally equal groups share one function; a group whose
// result is unused is dropped.
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "tir/analysis/is_scheduled.h"
#include "ir/int_value.h"
#include "ir/structural_equal.h"
#include "relax/transform/definable_dims.h"
#include "relax/expr_functor.h"
#include "relax/transform/fusion.h"
#include "tir/functor.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace {



constexpr int kMaxFusedNodes = 256;

OpPatternKind Weaker(OpPatternKind a, OpPatternKind b) { return a > b ? a : b; }

// The PrimFunc called by `value` when it is a call_tir of a module function.
const tir::PrimFuncNode* CallTIRCallee(const RelaxExpr& value, const IRModule& mod) {
  static const Op& call_tir = Op::Get("relax.call_tir");
  const auto* call = value.as<CallNode>();
  if (call == nullptr || !call->op.same_as(call_tir) || call->args.empty()) return nullptr;
  const auto* gv = call->args[0].as<GlobalVarNode>();
  if (gv == nullptr) return nullptr;
  auto func = mod->functions.Get(GetRef<GlobalVar>(gv));
  return func ? (*func).as<tir::PrimFuncNode>() : nullptr;
}

// The dataflow graph of one block and its partition into groups.
class BlockPartitioner {
 public:
  BlockPartitioner(const DataflowBlockNode* block, const IRModule& mod) : block_(block) {
    size_t n = block->bindings.size();
    nodes_.resize(n);
    std::unordered_map<const Object*, int> index;
    for (size_t i = 0; i < n; ++i) {
      const Binding& b = block->bindings[i];
      Node& node = nodes_[i];
      node.extern_ref = !b->var->IsInstance<DataflowVarNode>();
      std::vector<int> inputs;
      auto add_uses = [&](const RelaxExpr& e) {
        PostOrderVisit(e, [&](const RelaxExpr& x) {
          auto it = index.find(x.get());
          if (it != index.end()) inputs.push_back(it->second);
        });
      };
      const auto* vb = b.as<VarBindingNode>();
      const auto* tgi = vb ? vb->value.as<TupleGetItemNode>() : nullptr;
      if (vb != nullptr && CallTIRCallee(vb->value, mod) != nullptr) {
        const tir::PrimFuncNode* callee = CallTIRCallee(vb->value, mod);
        auto attr = callee->attrs.Get("op_pattern");
        node.pattern = kOpaque;
        if (auto kind = attr ? IntValue(*attr) : std::nullopt) node.pattern = static_cast<OpPatternKind>(*kind);
        // A scheduled kernel (tuned, or scheduled by hand) stays as it is: a
        // fused copy would lose its schedule.
        if (tir::IsScheduled(GetRef<tir::PrimFunc>(callee))) node.pattern = kOpaque;
        node.is_call_tir = true;
        node.callee = vb->value.as<CallNode>()->args[0].as<GlobalVarNode>()->name_hint;
        add_uses(vb->value.as<CallNode>()->args[1]);
      } else if (tgi != nullptr && index.count(tgi->tuple.get()) && nodes_[index[tgi->tuple.get()]].is_call_tir) {
        node.pattern = kInjective;  // one output of a multi-output call_tir
        inputs.push_back(index[tgi->tuple.get()]);
      } else {
        node.pattern = kOpaque;
        add_uses(vb ? vb->value : b.as<MatchCastNode>()->value);
      }
      for (int j : inputs) nodes_[j].outputs.push_back({static_cast<int>(i), node.pattern});
      index[b->var.get()] = static_cast<int>(i);
    }
  }

  // Groups (lists of binding indices, ascending) with more than one node.
  std::vector<std::vector<int>> Partition(int opt_level) {
    size_t n = nodes_.size();
    groups_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      groups_[i].pattern = nodes_[i].pattern;
      groups_[i].anchor = nodes_[i].pattern == kOutEWiseFusable;
    }
    if (opt_level >= 1) {
      BuildPostDominators();
      for (int phase = 0; phase < 3; ++phase) RunFuse(phase);
    }
    std::map<int, std::vector<int>> members;
    for (size_t i = 0; i < n; ++i) members[Find(static_cast<int>(i))].push_back(static_cast<int>(i));
    std::vector<std::vector<int>> out;
    for (auto& [root, list] : members) {
      if (list.size() > 1) out.push_back(list);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.back() < b.back(); });
    return out;
  }

  struct Node {
    OpPatternKind pattern = kOpaque;
    bool extern_ref = false;
    bool is_call_tir = false;
    std::string callee;
    std::vector<std::pair<int, OpPatternKind>> outputs;  // (consumer, pattern of the edge)
  };
  const std::vector<Node>& nodes() const { return nodes_; }

 private:
  struct DomNode {
    int parent = -1;
    int depth = 1;
    OpPatternKind pattern = kElemWise;  // the weakest pattern on the paths to `parent`
  };
  struct Group {
    int parent = -1;  // -1: a root
    OpPatternKind pattern = kOpaque;
    bool anchor = false;  // holds an out-elementwise-fusable op
    int num_nodes = 1;
  };

  int LeastCommonAncestor(int a, int b, OpPatternKind* pattern) {
    while (a != b) {
      if (a < 0 || b < 0) return -1;
      if (dom_[a].depth < dom_[b].depth) {
        *pattern = Weaker(*pattern, dom_[b].pattern);
        b = dom_[b].parent;
      } else if (dom_[b].depth < dom_[a].depth) {
        *pattern = Weaker(*pattern, dom_[a].pattern);
        a = dom_[a].parent;
      } else {
        *pattern = Weaker(Weaker(*pattern, dom_[a].pattern), dom_[b].pattern);
        a = dom_[a].parent;
        b = dom_[b].parent;
      }
    }
    return a;
  }

  // Bindings are in topological order, so consumers come later: walk backwards.
  void BuildPostDominators() {
    dom_.assign(nodes_.size(), DomNode());
    for (int i = static_cast<int>(nodes_.size()) - 1; i >= 0; --i) {
      const Node& node = nodes_[i];
      if (node.extern_ref || node.outputs.empty()) {
        dom_[i].pattern = node.extern_ref ? kOpaque : kElemWise;
        continue;
      }
      OpPatternKind pattern = Weaker(kElemWise, node.outputs[0].second);
      int parent = node.outputs[0].first;
      for (size_t k = 1; k < node.outputs.size(); ++k) {
        parent = LeastCommonAncestor(parent, node.outputs[k].first, &pattern);
        pattern = Weaker(pattern, node.outputs[k].second);
      }
      dom_[i].parent = parent;
      dom_[i].depth = parent >= 0 ? dom_[parent].depth + 1 : 1;
      dom_[i].pattern = pattern;
    }
  }

  int Find(int i) {
    int root = i;
    while (groups_[root].parent >= 0) root = groups_[root].parent;
    while (groups_[i].parent >= 0) {
      int next = groups_[i].parent;
      groups_[i].parent = root;
      i = next;
    }
    return root;
  }

  void MergeFromTo(int child, int parent) {
    child = Find(child);
    parent = Find(parent);
    if (child == parent) return;
    groups_[parent].num_nodes += groups_[child].num_nodes;
    groups_[child].parent = parent;
    if (groups_[child].anchor) {
      groups_[parent].anchor = true;
      groups_[parent].pattern = Weaker(groups_[child].pattern, groups_[parent].pattern);
    }
  }

  using Cond = std::function<bool(OpPatternKind, bool)>;
  // Whether every node on the paths from src to sink (sink included) satisfies
  // cond (iterative: paths may be as long as the block).
  bool CheckPath(int src, int sink, const Cond& cond) {
    std::unordered_set<int> visited;
    std::vector<int> stack;
    for (const auto& [next, edge] : nodes_[src].outputs) stack.push_back(next);
    while (!stack.empty()) {
      int node = stack.back();
      stack.pop_back();
      if (!visited.insert(node).second) continue;
      if (!cond(groups_[Find(node)].pattern, node == sink)) return false;
      if (node == sink) continue;
      for (const auto& [next, edge] : nodes_[node].outputs) stack.push_back(next);
    }
    return true;
  }
  // Merges src and every node on its paths to sink into sink's group.
  void CommitFuse(int src, int sink) {
    std::unordered_set<int> visited;
    std::vector<int> stack{src};
    while (!stack.empty()) {
      int node = stack.back();
      stack.pop_back();
      if (node == sink || !visited.insert(node).second) continue;
      MergeFromTo(node, sink);
      for (const auto& [next, edge] : nodes_[node].outputs) stack.push_back(next);
    }
  }

  void RunFuse(int phase) {
    for (size_t idx = 0; idx < nodes_.size(); ++idx) {
      int i = static_cast<int>(idx);
      OpPatternKind pattern = groups_[i].pattern;
      int parent = dom_[i].parent;
      if (pattern == kOpaque || parent < 0) continue;
      if (groups_[Find(i)].num_nodes + groups_[Find(parent)].num_nodes > kMaxFusedNodes) continue;
      if (phase == 2) {
        // Injective ops into a tuple that already joined injective consumers.
        if (pattern > kInjective) continue;
        OpPatternKind root_pattern = groups_[Find(parent)].pattern;
        if (root_pattern == kTuple) continue;
        if (groups_[parent].pattern == kTuple && root_pattern <= kInjective &&
            CheckPath(i, parent, [](OpPatternKind k, bool) { return k <= kInjective; })) {
          CommitFuse(i, parent);
        }
        continue;
      }
      if (Find(i) == Find(parent) || groups_[parent].pattern == kTuple) continue;
      if (pattern == kOutEWiseFusable) {
        if (phase == 0 && dom_[i].pattern == kElemWise &&
            CheckPath(i, parent, [](OpPatternKind k, bool) { return k <= kBroadcast; })) {
          CommitFuse(i, parent);
        }
      } else if (pattern <= kBroadcast) {
        if (dom_[i].pattern <= kInjective || dom_[i].pattern == kCommReduce) {
          auto cond = [](OpPatternKind k, bool is_sink) {
            return is_sink ? (k <= kInjective || k == kCommReduce || k == kOutEWiseFusable) : k <= kInjective;
          };
          if (CheckPath(i, parent, cond)) CommitFuse(i, parent);
        }
      } else if (pattern == kInjective || pattern == kTuple) {
        if (phase == 1 && CheckPath(i, parent, [](OpPatternKind k, bool) { return k <= kInjective; })) {
          CommitFuse(i, parent);
        }
      }
    }
  }

  const DataflowBlockNode* block_;
  std::vector<Node> nodes_;
  std::vector<DomNode> dom_;
  std::vector<Group> groups_;
};

using DimMap = std::function<std::optional<PrimExpr>(const tir::Var&)>;

// Replaces vars by the given expressions and symbolic dims by `dims` (no
// normalization: the caller normalizes).
class VarReplacer : public ExprMutatorBase {
 public:
  VarReplacer(const std::unordered_map<const Object*, RelaxExpr>& map, const DimMap& dims) : map_(map), dims_(dims) {}
  using ExprMutatorBase::VisitExpr_;
  RelaxExpr VisitExpr_(const VarNode* op) override { return Lookup(op); }
  RelaxExpr VisitExpr_(const DataflowVarNode* op) override { return Lookup(op); }
  RelaxExpr VisitExpr_(const ConstantNode* op) override { return Lookup(op); }
  PrimExpr VisitPrimExpr(const PrimExpr& e) override { return tir::Substitute(e, dims_); }
  StructInfo VisitExprDepStructInfoField(const StructInfo& s) override { return SubstituteStructInfo(s, dims_); }

 private:
  RelaxExpr Lookup(const RelaxExprNode* op) {
    auto it = map_.find(op);
    return it == map_.end() ? GetRef<RelaxExpr>(op) : it->second;
  }
  const std::unordered_map<const Object*, RelaxExpr>& map_;
  const DimMap& dims_;
};

class OperatorFusor {
 public:
  OperatorFusor(const IRModule& mod, int opt_level)
      : mod_(mod), builder_(BlockBuilder::Create(mod.ShallowCopy())), opt_level_(opt_level) {}

  IRModule Run() {
    for (const auto& [gv, func] : mod_->functions.items()) {
      const auto* fn = func.as<FunctionNode>();
      if (fn == nullptr || fn->attrs.Get("Primitive") || fn->attrs.Get("Codegen")) continue;
      RelaxExpr body = RewriteSeq(fn->body);
      if (body.same_as(fn->body)) continue;
      Function updated(fn->params, body, fn->ret_struct_info, fn->is_pure, fn->attrs, fn->span);
      builder_->UpdateFunction(gv, Downcast<Function>(builder_->Normalize(updated)));
    }
    return builder_->GetContextIRModule();
  }

 private:
  RelaxExpr RewriteSeq(const RelaxExpr& expr) {
    const auto* seq = expr.as<SeqExprNode>();
    if (seq == nullptr) return expr;
    bool changed = false;
    Array<BindingBlock> blocks;
    for (const BindingBlock& block : seq->blocks) {
      BindingBlock nb = block;
      if (const auto* df = block.as<DataflowBlockNode>()) {
        nb = RewriteBlock(df);
      } else {
        nb = RewriteNested(block);
      }
      changed = changed || !nb.same_as(block);
      blocks.push_back(nb);
    }
    if (!changed) return expr;
    return SeqExpr(blocks, seq->body, seq->span);
  }

  // If branches of a binding block may hold dataflow blocks of their own.
  BindingBlock RewriteNested(const BindingBlock& block) {
    bool changed = false;
    Array<Binding> bindings;
    for (const Binding& b : block->bindings) {
      const auto* vb = b.as<VarBindingNode>();
      const auto* ife = vb ? vb->value.as<IfNode>() : nullptr;
      if (ife == nullptr) {
        bindings.push_back(b);
        continue;
      }
      RelaxExpr t = RewriteSeq(ife->true_branch), f = RewriteSeq(ife->false_branch);
      if (t.same_as(ife->true_branch) && f.same_as(ife->false_branch)) {
        bindings.push_back(b);
        continue;
      }
      changed = true;
      bindings.push_back(VarBinding(vb->var, If(ife->cond, t, f, ife->span), vb->span));
    }
    return changed ? BindingBlock(bindings, block->span) : block;
  }

  BindingBlock RewriteBlock(const DataflowBlockNode* block) {
    BlockPartitioner partitioner(block, mod_);
    std::vector<std::vector<int>> groups = partitioner.Partition(opt_level_);
    const auto& nodes = partitioner.nodes();
    // Where each binding goes: -1 stays, g >= 0 belongs to group g.
    std::vector<int> group_of(block->bindings.size(), -1);
    std::vector<std::vector<int>> valid;
    for (const std::vector<int>& g : groups) {
      bool has_call_tir = std::any_of(g.begin(), g.end(), [&](int i) { return nodes[i].is_call_tir; });
      std::unordered_set<int> in(g.begin(), g.end());
      // A member used by an outside binding placed before the group's call would be used before it is defined.
      bool ordered = true;
      for (int m : g) {
        for (const auto& [consumer, edge] : nodes[m].outputs) ordered = ordered && (in.count(consumer) || consumer > g.back());
      }
      if (!has_call_tir || !ordered) continue;
      for (int m : g) group_of[m] = static_cast<int>(valid.size());
      valid.push_back(g);
    }
    if (valid.empty()) return GetRef<BindingBlock>(block);
    std::vector<Binding> out;
    for (size_t i = 0; i < block->bindings.size(); ++i) {
      int g = group_of[i];
      if (g < 0) {
        out.push_back(block->bindings[i]);
      } else if (static_cast<int>(i) == valid[g].back()) {
        EmitGroup(block, valid[g], nodes, group_of, &out);
      }
    }
    return DataflowBlock(Array<Binding>(out), block->span);
  }

  void EmitGroup(const DataflowBlockNode* block, const std::vector<int>& members,
                 const std::vector<BlockPartitioner::Node>& nodes, const std::vector<int>& group_of,
                 std::vector<Binding>* out) {
    int self = group_of[members[0]];
    std::unordered_set<const Object*> defined;
    for (int m : members) defined.insert(block->bindings[m]->var.get());
    // The function gets its own copies of the symbolic dims (a tir.Var belongs to one function).
    std::unordered_map<const Object*, PrimExpr> fresh_dims;
    DimMap dims = [&](const tir::Var& v) -> std::optional<PrimExpr> {
      auto it = fresh_dims.find(v.get());
      if (it == fresh_dims.end()) it = fresh_dims.emplace(v.get(), v.copy_with_suffix("")).first;
      return it->second;
    };
    // Parameters: outer vars and constants in order of first use.
    std::unordered_map<const Object*, RelaxExpr> remap;
    Array<Var> params;
    Array<RelaxExpr> args;
    for (int m : members) {
      const auto* vb = block->bindings[m].as<VarBindingNode>();
      PostOrderVisit(vb->value, [&](const RelaxExpr& e) {
        bool leaf = e->IsInstance<VarNode>() || e->IsInstance<ConstantNode>();
        if (!leaf || defined.count(e.get()) || remap.count(e.get())) return;
        std::string name = e.as<VarNode>() ? e.as<VarNode>()->name_hint : "param_" + std::to_string(params.size());
        Var p(name, SubstituteStructInfo(GetStructInfo(e), dims));
        remap[e.get()] = p;
        params.push_back(p);
        args.push_back(e);
      });
    }
    // Outputs: members used after the group or outside the block.
    std::vector<int> outputs;
    for (int m : members) {
      bool used_outside = nodes[m].extern_ref;
      for (const auto& [consumer, edge] : nodes[m].outputs) used_outside = used_outside || group_of[consumer] != self;
      if (used_outside) outputs.push_back(m);
    }
    if (outputs.empty()) return;  // nothing reads the group's results
    // call_tir's outputs are flat: a tuple-valued output must be the only one.
    bool nested = outputs.size() > 1 && std::any_of(outputs.begin(), outputs.end(), [&](int m) {
      return !GetStructInfo(block->bindings[m]->var)->IsInstance<TensorStructInfoNode>();
    });
    if (nested) {
      for (int m : members) out->push_back(block->bindings[m]);
      return;
    }
    // Symbolic dims used inside but not defined by a parameter (a whole dimension of one: n of
    // (n, 4), not of (n * 2, 4)) come in as a shape.
    std::unordered_set<const Object*> dims_defined;
    for (const RelaxExpr& a : args) {
      CollectDefinableDims(GetStructInfo(a), &dims_defined);
    }
    Array<PrimExpr> extra_dims;
    std::unordered_set<const Object*> seen;
    auto need = [&](const tir::Var& v) {
      if (!dims_defined.count(v.get()) && seen.insert(v.get()).second) extra_dims.push_back(v);
    };
    for (int m : members) {
      const Binding& b = block->bindings[m];
      for (const tir::Var& v : TIRVarsInStructInfo(GetStructInfo(b->var))) need(v);
      PostOrderVisit(b.as<VarBindingNode>()->value, [&](const RelaxExpr& e) {  // tir_vars, prim values
        Array<PrimExpr> values;
        if (const auto* shape = e.as<ShapeExprNode>()) values = shape->values;
        if (const auto* prim = e.as<PrimValueNode>()) values.push_back(prim->value);
        for (const PrimExpr& value : values) {
          tir::PostOrderVisit(value, [&](const ObjectRef& n) {
            if (const auto* v = n.as<tir::VarNode>()) need(GetRef<tir::Var>(v));
          });
        }
      });
    }
    if (!extra_dims.empty()) {
      Var shape_param("s", SubstituteStructInfo(ShapeStructInfo(extra_dims), dims));
      params.push_back(shape_param);
      args.push_back(ShapeExpr(extra_dims));
    }
    // The body: the members with renamed vars in one dataflow block.
    Array<Binding> inner;
    std::string name = "fused";
    for (int m : members) {
      const auto* vb = block->bindings[m].as<VarBindingNode>();
      bool is_output = std::find(outputs.begin(), outputs.end(), m) != outputs.end();
      StructInfo sinfo = SubstituteStructInfo(GetStructInfo(vb->var), dims);
      Var v = is_output ? Var(vb->var->name_hint, sinfo) : Var(DataflowVar(vb->var->name_hint, sinfo));
      inner.push_back(VarBinding(v, VarReplacer(remap, dims).VisitExpr(vb->value)));
      remap[vb->var.get()] = v;
      if (nodes[m].is_call_tir) name += "_" + nodes[m].callee;
    }
    RelaxExpr ret;
    if (outputs.size() == 1) {
      ret = remap[block->bindings[outputs[0]]->var.get()];
    } else {
      Array<RelaxExpr> fields;
      for (int m : outputs) fields.push_back(remap[block->bindings[m]->var.get()]);
      ret = Tuple(fields);
    }
    Attrs attrs;
    attrs.Set("Primitive", IntImm(DataType::Int(32), 1));
    Function func(params, SeqExpr(Array<BindingBlock>{DataflowBlock(inner)}, ret), std::nullopt, true, attrs);
    func = Downcast<Function>(builder_->Normalize(func));
    GlobalVar gv = AddDeduplicated(func, name);
    // The call, bound to the group's output var (or a tuple split into them).
    Call call(gv, args);
    if (outputs.size() == 1) {
      out->push_back(VarBinding(block->bindings[outputs[0]]->var, call));
      return;
    }
    Array<StructInfo> fields;
    for (int m : outputs) fields.push_back(GetStructInfo(block->bindings[m]->var));
    DataflowVar tuple_var("lv", TupleStructInfo(fields));
    out->push_back(VarBinding(tuple_var, call));
    for (size_t k = 0; k < outputs.size(); ++k) {
      out->push_back(VarBinding(block->bindings[outputs[k]]->var, TupleGetItem(tuple_var, static_cast<int>(k))));
    }
  }

  GlobalVar AddDeduplicated(const Function& func, const std::string& name) {
    for (const auto& [existing, gv] : created_) {
      if (StructuralEqual(existing, func)) return gv;
    }
    GlobalVar gv = builder_->AddFunction(func, name);
    created_.push_back({func, gv});
    return gv;
  }

  IRModule mod_;
  BlockBuilder builder_;
  int opt_level_;
  std::vector<std::pair<Function, GlobalVar>> created_;
};

}  // namespace

namespace transform {

Pass FuseOps(int fuse_opt_level) {
  TESSERA_CHECK_OR_THROW(fuse_opt_level >= -1, ValueError)
      << "FuseOps: fuse_opt_level must be -1 (the PassContext's opt_level) or >= 0, got " << fuse_opt_level;
  return tessera::transform::CreateModulePass(
      [fuse_opt_level](IRModule mod, tessera::transform::PassContext ctx) {
        int level = fuse_opt_level == -1 ? ctx->opt_level : fuse_opt_level;
        return OperatorFusor(mod, level).Run();
      },
      0, "FuseOps");
}
TESSERA_REGISTER_PASS("relax.transform.FuseOps", [] { return FuseOps(-1); });
TESSERA_REGISTER_GLOBAL("relax.transform.FuseOpsWith").set_body_typed([](int64_t level) {
  return FuseOps(static_cast<int>(level));
});

}  // namespace transform
}  // namespace relax
}  // namespace tessera
