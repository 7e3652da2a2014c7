// Maps over the bindings of Relax IR, as TVM's relax.analysis:
// get_var2val (var -> bound value, over a function, block or module),
// name_to_binding (var name -> bindings), udchain (var -> the binding vars
// that use it, in a dataflow block) and post_order_visit. Relax analysis
// layer; each map lists its keys in order of first appearance.
#include <unordered_map>

#include "ir/module.h"
#include "relax/expr_functor.h"
#include "runtime/map.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace {

// A Map built in one pass from keys already known to be distinct (Map::Set is linear).
template <typename K, typename V>
Map<K, V> MapOfDistinctKeys(const std::vector<std::pair<K, V>>& entries) {
  auto n = make_object<MapObj>();
  n->data.reserve(entries.size());
  for (const auto& [k, v] : entries) n->data.emplace_back(Any(k), Any(v));
  return Map<K, V>(ObjectPtr<Object>(std::move(n)));
}

// var -> value of every VarBinding met.
class Var2Val : public ExprVisitor {
 public:
  std::vector<std::pair<Var, RelaxExpr>> entries;
  void VisitBinding_(const VarBindingNode* b) override {
    entries.emplace_back(b->var, b->value);
    ExprVisitor::VisitBinding_(b);
  }
};

Map<Var, RelaxExpr> GetVar2Val(const ObjectRef& node) {
  Var2Val v;
  if (const auto* mod = node.as<IRModuleNode>()) {
    for (const auto& kv : mod->functions.raw()) {
      if (const auto* f = kv.second.as<FunctionNode>()) v.VisitExpr(GetRef<RelaxExpr>(f));
    }
  } else if (const auto* block = node.as<BindingBlockNode>()) {
    v.VisitBindingBlock(GetRef<BindingBlock>(block));
  } else if (const auto* e = node.as<RelaxExprNode>()) {
    v.VisitExpr(GetRef<RelaxExpr>(e));
  } else {
    TESSERA_THROW(TypeError) << "relax.analysis.get_var2val expects a relax Function, expression, binding block "
                             << "or IRModule, got " << (node.defined() ? node->GetTypeKey() : "None");
  }
  return MapOfDistinctKeys(v.entries);
}

// name -> bindings whose var has that name, in order.
class NameToBinding : public ExprVisitor {
 public:
  std::vector<std::string> names;
  std::unordered_map<std::string, Array<Binding>> by_name;
  void VisitBinding(const Binding& b) override {
    const std::string& name = b->var->name_hint;
    auto [it, inserted] = by_name.try_emplace(name);
    if (inserted) names.push_back(name);
    it->second.push_back(b);
    ExprVisitor::VisitBinding(b);
  }
};

// var -> the vars of the bindings (VarBinding or MatchCast) whose value uses it.
class UseDef : public ExprVisitor {
 public:
  std::vector<Var> order;
  std::unordered_map<const Object*, std::vector<Var>> users;
  const Var* current_ = nullptr;

  void Touch(const Var& v) {
    if (users.try_emplace(v.get()).second) order.push_back(v);
  }
  void VisitVarDef(const Var& v) override { Touch(v); }
  void VisitExpr_(const VarNode* op) override {
    Var v = GetRef<Var>(op);
    Touch(v);
    if (current_ == nullptr) return;
    std::vector<Var>& u = users[op];
    if (u.empty() || !u.back().same_as(*current_)) {
      bool seen = false;
      for (const Var& x : u) seen |= x.same_as(*current_);
      if (!seen) u.push_back(*current_);
    }
  }
  void VisitBinding(const Binding& b) override {
    VisitVarDef(b->var);
    const Var* saved = current_;
    current_ = &b->var;
    if (const auto* vb = b.as<VarBindingNode>()) {
      VisitExpr(vb->value);
    } else if (const auto* mc = b.as<MatchCastNode>()) {
      VisitExpr(mc->value);
      VisitExprDepStructInfoField(mc->struct_info);
    }
    current_ = saved;
  }
};

}  // namespace

TESSERA_REGISTER_GLOBAL("relax.analysis.get_var2val").set_body_typed([](ObjectRef node) { return GetVar2Val(node); });

TESSERA_REGISTER_GLOBAL("relax.analysis.name_to_binding").set_body_typed([](RelaxExpr e) {
  NameToBinding v;
  v.VisitExpr(e);
  std::vector<std::pair<String, Array<Binding>>> entries;
  for (const std::string& n : v.names) entries.emplace_back(String(n), v.by_name[n]);
  return MapOfDistinctKeys(entries);
});

TESSERA_REGISTER_GLOBAL("relax.analysis.udchain").set_body_typed([](BindingBlock block) {
  UseDef v;
  v.VisitBindingBlock(block);
  std::vector<std::pair<Var, Array<Var>>> entries;
  for (const Var& var : v.order) entries.emplace_back(var, Array<Var>(v.users[var.get()]));
  return MapOfDistinctKeys(entries);
});

TESSERA_REGISTER_GLOBAL("relax.analysis.post_order_visit").set_body_typed([](RelaxExpr e, PackedFunc f) {
  PostOrderVisit(e, [&](const RelaxExpr& x) { f(x); });
});

}  // namespace relax
}  // namespace tessera
