// PatternMatcher (matcher.h): one Visit per pattern kind, memoised per
// pattern with a trail for rollback (Or/Not/unordered tuples/commutative ops
// try alternatives). Expressions are unwrapped through the var lookup first.
#include "relax/dpl/matcher.h"

#include <algorithm>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "relax/type.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace relax {
namespace dpl {

VarLookup LookupIn(const Map<Var, RelaxExpr>& var2val) {
  if (var2val.empty()) return nullptr;
  auto index = std::make_shared<std::unordered_map<const Object*, RelaxExpr>>();
  for (const auto& [var, value] : var2val.items()) index->emplace(var.get(), value);
  return [index](const Var& v) -> std::optional<RelaxExpr> {
    auto it = index->find(v.get());
    if (it == index->end()) return std::nullopt;
    return it->second;
  };
}

int64_t& PatternMatcher::Attempts() {
  static int64_t count = 0;
  return count;
}

RelaxExpr PatternMatcher::Unwrap(RelaxExpr expr) const {
  for (int guard = 0; guard < 1 << 20; ++guard) {
    if (const auto* v = expr.as<VarNode>(); v && lookup_) {
      if (auto bound = lookup_(GetRef<Var>(v))) {
        expr = *bound;
        continue;
      }
    }
    if (const auto* seq = expr.as<SeqExprNode>(); seq && seq->blocks.empty()) {
      expr = seq->body;
      continue;
    }
    return expr;
  }
  TESSERA_THROW(ValueError) << "pattern matcher: var bindings form a cycle";
}

bool PatternMatcher::Match(const DFPattern& pattern, const RelaxExpr& expr) {
  TESSERA_CHECK_OR_THROW(pattern.defined(), TypeError) << "pattern match: the pattern is None";
  TESSERA_CHECK_OR_THROW(expr.defined(), TypeError) << "pattern match: the expression is None";
  ++Attempts();
  memo_.clear();
  trail_.clear();
  return Visit(pattern, expr);
}

Map<DFPattern, RelaxExpr> PatternMatcher::Matched() const {
  Map<DFPattern, RelaxExpr> out;
  for (const DFPattern& p : trail_) out.Set(p, memo_.at(p.get()).orig);
  return out;
}

std::optional<RelaxExpr> PatternMatcher::MatchedValue(const DFPattern& pattern) const {
  auto it = memo_.find(pattern.get());
  if (it == memo_.end()) return std::nullopt;
  return it->second.value;
}

void PatternMatcher::Rollback(size_t watermark) {
  while (trail_.size() > watermark) {
    memo_.erase(trail_.back().get());
    trail_.pop_back();
  }
}

bool PatternMatcher::Visit(const DFPattern& pattern, const RelaxExpr& orig) {
  TESSERA_CHECK_OR_THROW(pattern.defined(), TypeError) << "pattern match: a sub-pattern is None";
  CheckStack("dataflow pattern");
  RelaxExpr value = Unwrap(orig);
  if (auto it = memo_.find(pattern.get()); it != memo_.end()) return it->second.value.same_as(value);
  size_t watermark = trail_.size();
  if (!VisitNode(pattern, value, orig)) {
    Rollback(watermark);
    return false;
  }
  memo_[pattern.get()] = Entry{orig, value};
  trail_.push_back(pattern);
  return true;
}

namespace {

// Attribute values compare structurally; a Python int equals an IntImm, lists elementwise.
bool AttrValueEqual(const Any& want, const Any& got) {
  if (StructuralEqual(want, got)) return true;
  if (want.kind() == Any::Kind::kInt || want.kind() == Any::Kind::kBool) {
    if (auto imm = got.try_cast<PrimExpr>(); imm && AsConstInt(*imm)) return *AsConstInt(*imm) == want.raw_int();
    return (got.kind() == Any::Kind::kInt || got.kind() == Any::Kind::kBool) && got.raw_int() == want.raw_int();
  }
  auto a = want.try_cast<Array<Any>>(), b = got.try_cast<Array<Any>>();
  if (!want.is_object() || !got.is_object() || !a || !b || a->size() != b->size()) return false;
  for (size_t i = 0; i < a->size(); ++i) {
    if (!AttrValueEqual((*a)[i], (*b)[i])) return false;
  }
  return true;
}

std::optional<Any> AttrOf(const ObjectRef& attrs, const std::string& key) {
  if (!attrs.defined()) return std::nullopt;
  if (const auto* m = attrs.as<MapObj>()) {
    for (const auto& kv : m->data) {
      if (auto k = kv.first.try_cast<std::string>(); k && *k == key) return kv.second;
    }
    return std::nullopt;
  }
  return Reflection::GetField(attrs.get(), key);
}

std::optional<StructInfo> SInfo(const RelaxExpr& e) { return MatchStructInfo(e); }

bool DimsEqual(const Array<PrimExpr>& want, const Array<PrimExpr>& got) {
  if (want.size() != got.size()) return false;
  arith::Analyzer ana;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!ana.CanProveEqual(want[i], got[i])) return false;
  }
  return true;
}

bool IsCommutative(const RelaxExpr& op) {
  const auto* o = op.as<OpNode>();
  return o && (o->name == "relax.add" || o->name == "relax.multiply" || o->name == "relax.maximum" ||
               o->name == "relax.minimum");
}

}  // namespace

bool PatternMatcher::MatchCall(const CallPatternNode* p, const CallNode* call) {
  if (!Visit(p->op, call->op)) return false;
  size_t n = p->args.size();
  if (p->varg_default_wildcard ? n > call->args.size() : n != call->args.size()) return false;
  size_t watermark = trail_.size();
  auto in_order = [&](bool swap) {
    for (size_t i = 0; i < n; ++i) {
      size_t j = swap && n == 2 ? 1 - i : i;
      if (!Visit(p->args[i], call->args[j])) return false;
    }
    return true;
  };
  if (in_order(false)) return true;
  Rollback(watermark);
  return n == 2 && IsCommutative(call->op) && in_order(true);
}

bool PatternMatcher::MatchUnordered(const Array<DFPattern>& fields, const Array<RelaxExpr>& exprs,
                                    std::vector<bool>& used, size_t i) {
  if (i == fields.size()) return true;
  for (size_t j = 0; j < exprs.size(); ++j) {
    if (used[j]) continue;
    size_t watermark = trail_.size();
    used[j] = true;
    if (Visit(fields[i], exprs[j]) && MatchUnordered(fields, exprs, used, i + 1)) return true;
    used[j] = false;
    Rollback(watermark);
  }
  return false;
}

bool PatternMatcher::VisitNode(const DFPattern& pattern, const RelaxExpr& expr, const RelaxExpr& orig) {
  if (pattern.as<WildcardPatternNode>()) return true;
  if (const auto* p = pattern.as<ExprPatternNode>()) {
    return p->expr.same_as(expr) || p->expr.same_as(orig) || StructuralEqual(p->expr, expr);
  }
  if (const auto* p = pattern.as<DataflowVarPatternNode>()) {
    const auto* v = expr.as<DataflowVarNode>();
    return v && (p->name.empty() || p->name == v->name_hint);
  }
  if (const auto* p = pattern.as<VarPatternNode>()) {
    const auto* v = expr.as<VarNode>();
    return v && (p->name.empty() || p->name == v->name_hint);
  }
  if (const auto* p = pattern.as<GlobalVarPatternNode>()) {
    const auto* g = expr.as<GlobalVarNode>();
    return g && (p->name.empty() || p->name == g->name_hint);
  }
  if (const auto* p = pattern.as<ExternFuncPatternNode>()) {
    const auto* f = expr.as<ExternFuncNode>();
    return f && (p->global_symbol.empty() || p->global_symbol == f->global_symbol);
  }
  if (pattern.as<ConstantPatternNode>()) return expr.as<ConstantNode>() != nullptr;
  if (const auto* p = pattern.as<CallPatternNode>()) {
    const auto* call = expr.as<CallNode>();
    return call && MatchCall(p, call);
  }
  if (const auto* p = pattern.as<FunctionPatternNode>()) {
    const auto* f = expr.as<FunctionNode>();
    if (!f || f->params.size() != p->params.size()) return false;
    for (size_t i = 0; i < f->params.size(); ++i) {
      if (!Visit(p->params[i], f->params[i])) return false;
    }
    return Visit(p->body, f->body);
  }
  if (const auto* p = pattern.as<TuplePatternNode>()) {
    const auto* t = expr.as<TupleNode>();
    if (!t || t->fields.size() != p->fields.size()) return false;
    for (size_t i = 0; i < t->fields.size(); ++i) {
      if (!Visit(p->fields[i], t->fields[i])) return false;
    }
    return true;
  }
  if (const auto* p = pattern.as<UnorderedTuplePatternNode>()) {
    const auto* t = expr.as<TupleNode>();
    if (!t || t->fields.size() != p->fields.size()) return false;
    std::vector<bool> used(t->fields.size(), false);
    return MatchUnordered(p->fields, t->fields, used, 0);
  }
  if (const auto* p = pattern.as<TupleGetItemPatternNode>()) {
    const auto* g = expr.as<TupleGetItemNode>();
    return g && (p->index == -1 || p->index == g->index) && Visit(p->tuple, g->tuple);
  }
  if (const auto* p = pattern.as<AndPatternNode>()) return Visit(p->left, orig) && Visit(p->right, orig);
  if (const auto* p = pattern.as<OrPatternNode>()) {
    size_t watermark = trail_.size();
    if (Visit(p->left, orig)) return true;
    Rollback(watermark);
    return Visit(p->right, orig);
  }
  if (const auto* p = pattern.as<NotPatternNode>()) {
    size_t watermark = trail_.size();
    bool rejected = Visit(p->reject, orig);
    Rollback(watermark);
    return !rejected;
  }
  if (const auto* p = pattern.as<AttrPatternNode>()) {
    if (!Visit(p->pattern, orig)) return false;
    ObjectRef attrs;
    if (const auto* call = expr.as<CallNode>()) attrs = call->attrs;
    if (const auto* f = expr.as<FunctionNode>()) attrs = f->attrs;
    for (const auto& [key, want] : p->attrs.items()) {
      auto got = AttrOf(attrs, key);
      if (!got || !AttrValueEqual(want, *got)) return false;
    }
    return true;
  }
  if (const auto* p = pattern.as<DataTypePatternNode>()) {
    auto s = SInfo(expr);
    if (!Visit(p->pattern, orig) || !s) return false;
    if (const auto* t = s->as<TensorStructInfoNode>()) return t->dtype == p->dtype;
    if (const auto* t = s->as<PrimStructInfoNode>()) return t->dtype == p->dtype;
    return false;
  }
  if (const auto* p = pattern.as<ShapePatternNode>()) {
    auto s = SInfo(expr);
    if (!Visit(p->pattern, orig) || !s) return false;
    const auto* t = s->as<TensorStructInfoNode>();
    auto dims = t ? t->GetShape() : std::nullopt;
    return dims && DimsEqual(p->shape, *dims);
  }
  if (const auto* p = pattern.as<StructInfoPatternNode>()) {
    auto s = SInfo(expr);
    return Visit(p->pattern, orig) && s && IsBaseOf(p->struct_info, *s);
  }
  if (const auto* p = pattern.as<TypePatternNode>()) {
    auto s = SInfo(expr);
    return Visit(p->pattern, orig) && s && StructuralEqual(Any(p->type), Any(GetStaticType(*s)));
  }
  if (const auto* p = pattern.as<PrimArrPatternNode>()) {
    const auto* shape = expr.as<ShapeExprNode>();
    return shape && DimsEqual(p->fields, shape->values);
  }
  TESSERA_THROW(TypeError) << "pattern match: " << pattern->GetTypeKey() << " is not a dataflow pattern";
}

bool MatchExpr(const DFPattern& pattern, const RelaxExpr& expr, const Map<Var, RelaxExpr>& var2val) {
  return PatternMatcher(LookupIn(var2val)).Match(pattern, expr);
}

namespace {
Map<Var, RelaxExpr> OptionalMap(const Any& a) {
  return a.is_none() ? Map<Var, RelaxExpr>() : a.cast<Map<Var, RelaxExpr>>();
}
}  // namespace

TESSERA_REGISTER_GLOBAL("relax.dpl.match_expr").set_body_typed([](DFPattern p, RelaxExpr e, Any var2val) {
  return MatchExpr(p, e, OptionalMap(var2val));
});
TESSERA_REGISTER_GLOBAL("relax.dpl.extract_matched_expr").set_body_typed([](DFPattern p, RelaxExpr e, Any var2val) -> Any {
  PatternMatcher m(LookupIn(OptionalMap(var2val)));
  if (!m.Match(p, e)) return Any();
  return m.Matched();
});
TESSERA_REGISTER_GLOBAL("relax.dpl.match_attempts").set_body_typed([]() { return PatternMatcher::Attempts(); });

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
