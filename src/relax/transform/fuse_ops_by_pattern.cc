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
    std::vector<int> group_of(n, -1);
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
        if (!Fusable(block, members, group_of, i) || !Checked(patterns_[p], matcher, root)) continue;
        for (size_t m : members) group_of[m] = static_cast<int>(groups.size());
        groups.push_back(Group{&patterns_[p], members});
      }
    }
    if (groups.empty()) return block;
    Array<Binding> out;
    for (size_t i = 0; i < n; ++i) {
      int g = group_of[i];
      if (g < 0) {
        out.push_back(block->bindings[i]);
      } else if (groups[g].members.back() == i) {
        out.push_back(MakeGroupCall(block, groups[g]));
      }
    }
    return DataflowBlock(out, block->span);
  }

  // Members ungrouped, the root the last one, and no intermediate used outside the group.
  bool Fusable(const DataflowBlock& block, const std::vector<size_t>& members, const std::vector<int>& group_of,
               size_t root) {
    if (members.back() != root) return false;
    std::unordered_map<const Object*, int> inner_uses;
    for (size_t m : members) {
      if (group_of[m] >= 0) return false;
      PostOrderVisit(Downcast<VarBinding>(block->bindings[m])->value, [&](const RelaxExpr& e) {
        if (e.as<VarNode>()) ++inner_uses[e.get()];
      });
    }
    for (size_t m : members) {
      const Var& v = block->bindings[m]->var;
      if (m != root && (!block->bindings[m].as<VarBindingNode>() || inner_uses[v.get()] != uses_[v.get()])) return false;
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

  // The fused function for `group`, added to the module; the call of it that replaces the root binding.
  Binding MakeGroupCall(const DataflowBlock& block, const Group& group) {
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
    call->struct_info_ = GetStructInfo(root->var);
    return VarBinding(root->var, call, root->span);
  }

  Function Outline(const DataflowBlock& block, const Group& group, const Array<Var>& params,
                   std::unordered_map<const Object*, RelaxExpr> remap, Attrs attrs) {
    Array<Binding> inner;
    Var result;
    for (size_t m : group.members) {
      const Binding& b = block->bindings[m];
      bool last = m == group.members.back();
      Var v = last ? Var(b->var->name_hint, GetStructInfo(b->var)) : Var(DataflowVar(b->var->name_hint, GetStructInfo(b->var)));
      inner.push_back(VarBinding(v, VarSubstitutor(remap).VisitExpr(Downcast<VarBinding>(b)->value), b->span));
      remap[b->var.get()] = v;
      result = v;
    }
    SeqExpr body({DataflowBlock(inner)}, result);
    body->struct_info_ = GetStructInfo(result);
    Function f(params, body, GetStructInfo(result), true, attrs);
    return f;
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
