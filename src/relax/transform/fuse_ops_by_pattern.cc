// FuseOpsByPattern (TVM v0.18's relax.transform.FuseOpsByPattern): each
// group of dataflow bindings matched by a pattern (the root binding plus the
// bound calls/tuples its sub-patterns matched) becomes a private function
// {"Composite": name, "Primitive": 1} called where the root was. Patterns
// apply in priority order; each binding's candidates come from the root-op
// index (src/relax/dpl/root_index.h). With annotate_codegen, the composite
// function is wrapped in an outer {"Codegen": prefix} function.
#include <algorithm>
#include <unordered_set>

#include "relax/dpl/root_index.h"
#include "relax/dpl/matcher.h"
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "relax/transform/utils.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace transform {

using dpl::DFPattern;

struct FusionPattern {
  std::string name;
  DFPattern pattern;
  Map<String, DFPattern> annotations;
  std::optional<PackedFunc> check;
};

namespace {

// Replaces vars (and constants passed as parameters) by their new counterparts.
class VarSubstitutor : public ExprMutatorBase {
 public:
  explicit VarSubstitutor(const std::unordered_map<const Object*, RelaxExpr>& map) : map_(map) {}
  using ExprMutatorBase::VisitExpr_;
  RelaxExpr VisitExpr_(const VarNode* v) override { return Lookup(v); }
  RelaxExpr VisitExpr_(const DataflowVarNode* v) override { return Lookup(v); }
  RelaxExpr VisitExpr_(const ConstantNode* c) override { return Lookup(c); }

 private:
  RelaxExpr Lookup(const RelaxExprNode* v) {
    auto it = map_.find(v);
    return it == map_.end() ? GetRef<RelaxExpr>(v) : it->second;
  }
  const std::unordered_map<const Object*, RelaxExpr>& map_;
};

struct Group {
  const FusionPattern* pattern;
  std::vector<size_t> members;  // binding positions in the block, ascending; the root is the last
  std::vector<size_t> outputs;  // the root, then the members also used outside the group (ascending)
  std::vector<size_t> delayed;  // bindings between the members that use an output: moved after the call
};

bool IsStructural(const DFPattern& p) {
  return p.as<dpl::CallPatternNode>() || p.as<dpl::TuplePatternNode>() || p.as<dpl::TupleGetItemPatternNode>() ||
         p.as<dpl::UnorderedTuplePatternNode>();
}

class PatternFuser {
 public:
  PatternFuser(const std::vector<FusionPattern>& patterns, bool bind_constants, bool annotate_codegen,
               BlockBuilder builder)
      : patterns_(patterns), bind_constants_(bind_constants), annotate_codegen_(annotate_codegen),
        builder_(std::move(builder)) {
    for (size_t i = 0; i < patterns.size(); ++i) index_.Add(static_cast<int>(i), patterns[i].pattern);
  }

  Function Run(const Function& func) {
    // Whole-function var values (the matcher sees through them) and use counts.
    PostOrderVisit(func->body, [&](const RelaxExpr& e) {
      if (e.as<VarNode>()) ++uses_[e.get()];
    });
    for (const BindingBlock& block : Blocks(func)) {
      for (const Binding& b : block->bindings) {
        if (const auto* vb = b.as<VarBindingNode>()) values_[b->var.get()] = vb->value;
      }
    }
    bool changed = false;
    Array<BindingBlock> blocks;
    for (const BindingBlock& block : Blocks(func)) {
      BindingBlock fused = block.as<DataflowBlockNode>() ? FuseBlock(Downcast<DataflowBlock>(block)) : block;
      changed |= !fused.same_as(block);
      blocks.push_back(fused);
    }
    if (!changed) return func;
    const auto* seq = func->body.as<SeqExprNode>();
    return Function(func->params, SeqExpr(blocks, seq->body, seq->span), func->ret_struct_info, func->is_pure,
                    func->attrs, func->span);
  }

 private:
  static Array<BindingBlock> Blocks(const Function& func) {
    const auto* seq = func->body.as<SeqExprNode>();
    return seq ? seq->blocks : Array<BindingBlock>();
  }

  BindingBlock FuseBlock(const DataflowBlock& block) {
    size_t n = block->bindings.size();
    std::unordered_map<const Object*, size_t> position;
    std::vector<std::vector<int>> candidates(n);
    for (size_t i = 0; i < n; ++i) {
      position[block->bindings[i]->var.get()] = i;
      if (const auto* vb = block->bindings[i].as<VarBindingNode>()) candidates[i] = index_.Candidates(vb->value);
    }
    std::vector<int> group_of(n, -1), delayed_by(n, -1);
    std::vector<Group> groups;
    auto lookup = [this](const Var& v) -> std::optional<RelaxExpr> {
      auto it = values_.find(v.get());
      if (it == values_.end()) return std::nullopt;
      return it->second;
    };
    for (size_t p = 0; p < patterns_.size(); ++p) {
      for (size_t i = 0; i < n; ++i) {
        const auto& c = candidates[i];
        if (group_of[i] >= 0 || !std::binary_search(c.begin(), c.end(), static_cast<int>(p))) continue;
        dpl::PatternMatcher matcher(lookup);
        const Binding& root = block->bindings[i];
        if (!matcher.Match(patterns_[p].pattern, Downcast<VarBinding>(root)->value)) continue;
        std::vector<size_t> members{i};
        for (const auto& [sub, expr] : matcher.Matched().items()) {
          auto pos = expr.as<VarNode>() ? position.find(expr.get()) : position.end();
          if (IsStructural(sub) && pos != position.end() && pos->second != i) members.push_back(pos->second);
        }
        std::sort(members.begin(), members.end());
        members.erase(std::unique(members.begin(), members.end()), members.end());
        Group group{&patterns_[p], members, {}, {}};
        if (!Fusable(block, &group, group_of) || !Checked(patterns_[p], matcher, root)) continue;
        for (size_t m : members) group_of[m] = static_cast<int>(groups.size());
        for (size_t d : group.delayed) delayed_by[d] = static_cast<int>(groups.size());
        groups.push_back(std::move(group));
      }
    }
    if (groups.empty()) return block;
    Array<Binding> out;
    for (size_t i = 0; i < n; ++i) {
      int g = group_of[i];
      if (g < 0 && delayed_by[i] < 0) {
        out.push_back(block->bindings[i]);
      } else if (g >= 0 && groups[g].members.back() == i) {
        for (const Binding& b : MakeGroupCall(block, groups[g])) out.push_back(b);
        for (size_t d : groups[g].delayed) out.push_back(block->bindings[d]);
      }
    }
    return DataflowBlock(out, block->span);
  }

  // Members ungrouped and the root the last one. Members used outside the group become outputs;
  // bindings between the members that use an output move after the call, and one that a member
  // also uses (directly or not) makes a cycle: ValueError naming it.
  bool Fusable(const DataflowBlock& block, Group* group, const std::vector<int>& group_of) {
    const std::vector<size_t>& members = group->members;
    size_t root = members.back();
    std::unordered_map<const Object*, int> inner_uses;
    std::unordered_set<const Object*> member_vars;
    for (size_t m : members) {
      if (group_of[m] >= 0 || !block->bindings[m].as<VarBindingNode>()) return false;
      member_vars.insert(block->bindings[m]->var.get());
      PostOrderVisit(Downcast<VarBinding>(block->bindings[m])->value, [&](const RelaxExpr& e) {
        if (e.as<VarNode>()) ++inner_uses[e.get()];
      });
    }
    group->outputs = {root};
    for (size_t m : members) {
      const Object* v = block->bindings[m]->var.get();
      if (m != root && inner_uses[v] != uses_[v]) group->outputs.push_back(m);
    }
    std::unordered_set<const Object*> tainted(member_vars);
    for (size_t i = members.front() + 1; i <= root; ++i) {
      const Binding& b = block->bindings[i];
      if (member_vars.count(b->var.get())) {
        bool cyclic = false;
        PostOrderVisit(Downcast<VarBinding>(b)->value, [&](const RelaxExpr& e) {
          cyclic |= e.as<VarNode>() && !member_vars.count(e.get()) && tainted.count(e.get());
        });
        TESSERA_CHECK_OR_THROW(!cyclic, ValueError)
            << "FuseOpsByPattern: A cyclic dependency detected: fusing the bindings matched by pattern '"
            << group->pattern->name << "' (root '" << block->bindings[root]->var->name_hint
            << "') would make the group use a value computed from its own outputs";
        continue;
      }
      bool uses_output = false;
      PostOrderVisit(b.as<VarBindingNode>() ? b.as<VarBindingNode>()->value : b.as<MatchCastNode>()->value,
                     [&](const RelaxExpr& e) { uses_output |= e.as<VarNode>() && tainted.count(e.get()); });
      if (uses_output) {
        if (group_of[i] >= 0) return false;  // another group would have to move
        tainted.insert(b->var.get());
        group->delayed.push_back(i);
      }
    }
    return true;
  }

  bool Checked(const FusionPattern& fp, const dpl::PatternMatcher& matcher, const Binding& root) {
    if (!fp.check) return true;
    Map<String, RelaxExpr> annotated;
    Map<DFPattern, RelaxExpr> matched = matcher.Matched();
    for (const auto& [name, pat] : fp.annotations.items()) {
      if (auto e = matched.Get(pat)) annotated.Set(name, *e);
    }
    Any r = (*fp.check)(Downcast<VarBinding>(root)->value, annotated, root->var);
    TESSERA_CHECK_OR_THROW(r.kind() == Any::Kind::kBool || r.kind() == Any::Kind::kInt, TypeError)
        << "FuseOpsByPattern: the check of pattern '" << fp.name << "' must return a bool, got " << r.type_name();
    return r.raw_int() != 0;
  }

  // The fused function for `group`, added to the module; the bindings replacing the root's: the call
  // (then, for several outputs, each output var bound to its tuple field).
  std::vector<Binding> MakeGroupCall(const DataflowBlock& block, const Group& group) {
    std::unordered_set<const Object*> defined;
    for (size_t m : group.members) defined.insert(block->bindings[m]->var.get());
    Array<RelaxExpr> args;
    Array<Var> params;
    std::unordered_map<const Object*, RelaxExpr> remap;
    std::string name = "fused";
    for (size_t m : group.members) {
      RelaxExpr value = Downcast<VarBinding>(block->bindings[m])->value;
      if (const auto* call = value.as<CallNode>(); call && call->op.as<OpNode>()) {
        std::string op = call->op.as<OpNode>()->name;
        std::replace(op.begin(), op.end(), '.', '_');
        name += "_" + op;
      }
      PostOrderVisit(value, [&](const RelaxExpr& e) {
        bool is_input = (e.as<VarNode>() && !defined.count(e.get())) || (!bind_constants_ && e.as<ConstantNode>());
        if (!is_input || remap.count(e.get())) return;
        const auto* v = e.as<VarNode>();
        Var p(v ? v->name_hint : "param", GetStructInfo(e));
        remap[e.get()] = p;
        params.push_back(p);
        args.push_back(e);
      });
    }
    Function composite = Outline(block, group, params, remap, annotate_codegen_ ? Attrs{{"Composite", group.pattern->name}}
                                                                            : Attrs{{"Composite", group.pattern->name},
                                                                                    {"Primitive", Any(1)}});
    BaseFunc callee = composite;
    if (annotate_codegen_) {
      std::string codegen = group.pattern->name.substr(0, group.pattern->name.find('.'));
      name += "_" + codegen;
      callee = WrapForCodegen(composite, codegen, builder_->GetUniqueName(name));
      name = callee->attrs.Get("global_symbol")->cast<std::string>();
    }
    GlobalVar gv = builder_->AddFunction(callee, name);
    const Binding& root = block->bindings[group.members.back()];
    Call call(gv, args);
    call->struct_info_ = composite->ret_struct_info;
    if (group.outputs.size() == 1) return {VarBinding(root->var, call, root->span)};
    DataflowVar result("lv", composite->ret_struct_info);
    std::vector<Binding> out{VarBinding(result, call, root->span)};
    std::vector<size_t> in_order = group.outputs;
    std::sort(in_order.begin(), in_order.end());
    for (size_t m : in_order) {
      int field = static_cast<int>(std::find(group.outputs.begin(), group.outputs.end(), m) - group.outputs.begin());
      TupleGetItem item(result, field);
      item->struct_info_ = GetStructInfo(block->bindings[m]->var);
      out.push_back(VarBinding(block->bindings[m]->var, item, block->bindings[m]->span));
    }
    return out;
  }

  Function Outline(const DataflowBlock& block, const Group& group, const Array<Var>& params,
                   std::unordered_map<const Object*, RelaxExpr> remap, Attrs attrs) {
    Array<Binding> inner;
    for (size_t m : group.members) {
      const Binding& b = block->bindings[m];
      bool output = std::find(group.outputs.begin(), group.outputs.end(), m) != group.outputs.end();
      Var v = output ? Var(b->var->name_hint, GetStructInfo(b->var))
                     : Var(DataflowVar(b->var->name_hint, GetStructInfo(b->var)));
      inner.push_back(VarBinding(v, VarSubstitutor(remap).VisitExpr(Downcast<VarBinding>(b)->value), b->span));
      remap[b->var.get()] = v;
    }
    RelaxExpr result = remap[block->bindings[group.outputs[0]]->var.get()];
    if (group.outputs.size() > 1) {
      Array<RelaxExpr> fields;
      for (size_t m : group.outputs) fields.push_back(remap[block->bindings[m]->var.get()]);
      result = Tuple(fields);
    }
    SeqExpr body({DataflowBlock(inner)}, result);
    body->struct_info_ = GetStructInfo(result);
    return Function(params, body, GetStructInfo(result), true, attrs);
  }

  // fn(params') { composite = <composite>; out = composite(params'); return out } with {"Codegen", "global_symbol"}.
  Function WrapForCodegen(const Function& composite, const std::string& codegen, const std::string& name) {
    Array<Var> params;
    Array<RelaxExpr> args;
    for (const Var& p : composite->params) {
      Var q(p->name_hint, GetStructInfo(p));
      params.push_back(q);
      args.push_back(q);
    }
    Var local("gv", GetStructInfo(composite));
    Call call(local, args);
    call->struct_info_ = composite->ret_struct_info;
    Var out("gv1", composite->ret_struct_info);
    SeqExpr body({BindingBlock({VarBinding(local, composite), VarBinding(out, call)})}, out);
    body->struct_info_ = composite->ret_struct_info;
    return Function(params, body, composite->ret_struct_info, true,
                    Attrs{{"Codegen", codegen}, {"global_symbol", name}});
  }

  const std::vector<FusionPattern>& patterns_;
  bool bind_constants_, annotate_codegen_;
  BlockBuilder builder_;
  dpl::RootOpIndex index_;
  std::unordered_map<const Object*, RelaxExpr> values_;
  std::unordered_map<const Object*, int> uses_;
};

bool IsFusedAlready(const Function& f) {
  return f->attrs.Get("Composite") || f->attrs.Get("Primitive") || f->attrs.Get("Codegen");
}

}  // namespace

Pass FuseOpsByPattern(std::vector<FusionPattern> patterns, bool bind_constants, bool annotate_codegen) {
  return tessera::transform::CreateModulePass(
      [patterns, bind_constants, annotate_codegen](IRModule mod, tessera::transform::PassContext) {
        // A copy: the builder adds the fused functions to its module.
        BlockBuilder builder = BlockBuilder::Create(mod.ShallowCopy());
        std::vector<std::pair<GlobalVar, Function>> updates;
        for (const auto& [gv, func] : mod->functions.items()) {
          const auto* f = func.as<FunctionNode>();
          if (!f || IsFusedAlready(GetRef<Function>(f))) continue;
          PatternFuser fuser(patterns, bind_constants, annotate_codegen, builder);
          Function fused = fuser.Run(GetRef<Function>(f));
          if (!fused.same_as(func)) updates.emplace_back(gv, fused);
        }
        for (const auto& [gv, f] : updates) builder->UpdateFunction(gv, f);
        return builder->GetContextIRModule();
      },
      0, "FuseOpsByPattern");
}

TESSERA_REGISTER_GLOBAL("relax.transform.FuseOpsByPattern")
    .set_body_typed([](Array<Array<Any>> specs, bool bind_constants, bool annotate_codegen) {
      std::vector<FusionPattern> patterns;
      for (size_t i = 0; i < specs.size(); ++i) {
        const Array<Any>& s = specs[i];
        FusionPattern fp;
        fp.name = s[0].cast<std::string>();
        fp.pattern = s[1].cast<DFPattern>();
        if (s.size() > 2 && !s[2].is_none()) fp.annotations = s[2].cast<Map<String, DFPattern>>();
        if (s.size() > 3 && !s[3].is_none()) fp.check = s[3].cast<PackedFunc>();
        patterns.push_back(std::move(fp));
      }
      return FuseOpsByPattern(std::move(patterns), bind_constants, annotate_codegen);
    });

}  // namespace transform
}  // namespace relax
}  // namespace tessera
