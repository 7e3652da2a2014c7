// IndexMap: mapping indices and shapes, inverting bijective affine maps,
// printing as a lambda and the JSON form schedule traces store (see
// index_map.h). TIR layer.
#include "tir/index_map.h"

#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "ir/structural_equal.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

Map<Var, Range> DomainOf(const Array<Var>& vars, const Array<PrimExpr>& shape) {
  TESSERA_CHECK_OR_THROW(vars.size() == shape.size(), ValueError)
      << "the index map takes " << vars.size() << " indices but the shape has " << shape.size() << " dimensions";
  Map<Var, Range> dom;
  for (size_t i = 0; i < vars.size(); ++i) {
    dom.Set(vars[i], Range::FromMinExtent(IntImm(shape[i].dtype(), 0), shape[i]));
  }
  return dom;
}

using Builder = PrimExpr (*)(PrimExpr, PrimExpr, Span);
const std::unordered_map<std::string, Builder>& BinaryBuilders() {
  static const std::unordered_map<std::string, Builder> table = {
      {"tir.Add", [](PrimExpr a, PrimExpr b, Span s) -> PrimExpr { return Add(a, b, s); }},
      {"tir.Sub", [](PrimExpr a, PrimExpr b, Span s) -> PrimExpr { return Sub(a, b, s); }},
      {"tir.Mul", [](PrimExpr a, PrimExpr b, Span s) -> PrimExpr { return Mul(a, b, s); }},
      {"tir.Div", [](PrimExpr a, PrimExpr b, Span s) -> PrimExpr { return Div(a, b, s); }},
      {"tir.Mod", [](PrimExpr a, PrimExpr b, Span s) -> PrimExpr { return Mod(a, b, s); }},
      {"tir.FloorDiv", [](PrimExpr a, PrimExpr b, Span s) -> PrimExpr { return FloorDiv(a, b, s); }},
      {"tir.FloorMod", [](PrimExpr a, PrimExpr b, Span s) -> PrimExpr { return FloorMod(a, b, s); }},
      {"tir.Min", [](PrimExpr a, PrimExpr b, Span s) -> PrimExpr { return Min(a, b, s); }},
      {"tir.Max", [](PrimExpr a, PrimExpr b, Span s) -> PrimExpr { return Max(a, b, s); }},
  };
  return table;
}

nlohmann::json ExprToJSON(const PrimExpr& e, const std::unordered_map<const VarNode*, size_t>& vars) {
  if (const auto* v = e.as<VarNode>()) {
    auto it = vars.find(v);
    TESSERA_CHECK_OR_THROW(it != vars.end(), ValueError)
        << "the index map's final indices use " << v->name_hint << ", which is not one of its initial indices";
    return nlohmann::json::array({"var", it->second});
  }
  if (const auto* imm = e.as<IntImmNode>()) return nlohmann::json::array({"int", imm->value, imm->dtype.str()});
  if (const auto* c = e.as<CastNode>()) return nlohmann::json::array({"cast", c->dtype.str(), ExprToJSON(c->value, vars)});
  if (const auto* b = e.as<BinaryOpNode>()) {
    std::string key = b->GetTypeKey();
    if (BinaryBuilders().count(key)) return nlohmann::json::array({key, ExprToJSON(b->a, vars), ExprToJSON(b->b, vars)});
  }
  TESSERA_THROW(NotImplementedError) << "an index map holding a " << e->GetTypeKey()
                                     << " has no JSON form (supported: variables, integers, casts, + - * / % // min max)";
}

PrimExpr ExprFromJSON(const nlohmann::json& j, const Array<Var>& vars) {
  TESSERA_CHECK_OR_THROW(j.is_array() && !j.empty() && j[0].is_string(), ValueError)
      << "malformed index map JSON expression: " << j.dump();
  std::string tag = j[0].get<std::string>();
  if (tag == "var" && j.size() == 2) {
    size_t idx = j[1].get<size_t>();
    TESSERA_CHECK_OR_THROW(idx < vars.size(), ValueError) << "index map JSON names variable " << idx << " of " << vars.size();
    return vars[idx];
  }
  if (tag == "int" && j.size() == 3) return IntImm(DataType(j[2].get<std::string>()), j[1].get<int64_t>());
  if (tag == "cast" && j.size() == 3) return Cast(DataType(j[1].get<std::string>()), ExprFromJSON(j[2], vars));
  auto it = BinaryBuilders().find(tag);
  if (it != BinaryBuilders().end() && j.size() == 3) {
    return it->second(ExprFromJSON(j[1], vars), ExprFromJSON(j[2], vars), Span());
  }
  TESSERA_THROW(ValueError) << "malformed index map JSON expression: " << j.dump();
}

}  // namespace

IndexMap::IndexMap(Array<Var> initial_indices, Array<PrimExpr> final_indices, ObjectRef inverse_index_map) {
  auto n = make_object<IndexMapNode>();
  n->initial_indices = std::move(initial_indices);
  n->final_indices = std::move(final_indices);
  n->inverse_index_map = std::move(inverse_index_map);
  data_ = std::move(n);
}

Array<PrimExpr> IndexMap::MapIndices(const Array<PrimExpr>& indices) const {
  const auto& initial = get()->initial_indices;
  TESSERA_CHECK_OR_THROW(indices.size() == initial.size(), ValueError)
      << "the index map takes " << initial.size() << " indices, got " << indices.size();
  std::unordered_map<const VarNode*, PrimExpr> m;
  for (size_t i = 0; i < initial.size(); ++i) m[initial[i].get()] = indices[i];
  arith::Analyzer ana;
  std::vector<PrimExpr> out;
  for (PrimExpr f : get()->final_indices) {
    out.push_back(ana.Simplify(Substitute(f, [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = m.find(v.get());
      if (it == m.end()) return std::nullopt;
      return it->second;
    })));
  }
  return Array<PrimExpr>(out);
}

Array<PrimExpr> IndexMap::MapShape(const Array<PrimExpr>& shape) const {
  DomainOf(get()->initial_indices, shape);  // checks the arity
  arith::Analyzer ana;
  std::unordered_map<const Object*, arith::IntSet> sets;
  for (size_t i = 0; i < get()->initial_indices.size(); ++i) {
    Var v = get()->initial_indices[i];
    Range r = Range::FromMinExtent(IntImm(shape[i].dtype(), 0), shape[i]);
    ana.Bind(v, r);
    sets[v.get()] = arith::IntSet::FromRange(r);
  }
  std::vector<PrimExpr> out;
  for (size_t k = 0; k < get()->final_indices.size(); ++k) {
    PrimExpr f = get()->final_indices[k];
    arith::IntSet s = arith::EvalSet(f, sets, &ana);
    std::optional<int64_t> lo = ConstIntValue(ana.Simplify(s.min()));
    TESSERA_CHECK_OR_THROW(lo.has_value() && s.HasUpperBound(), ValueError)
        << "cannot derive an extent for final index " << k << " of the index map";
    TESSERA_CHECK_OR_THROW(*lo >= 0, ValueError) << "final index " << k << " of the index map can be negative";
    // A symbolic shape maps to a symbolic extent (`n` stays `n` under a transpose).
    PrimExpr hi = ana.Simplify(s.max());
    const int64_t* c = AsConstInt(hi);
    out.push_back(c != nullptr ? PrimExpr(IntImm(f.dtype(), *c + 1)) : ana.Simplify(add(hi, IntImm(hi.dtype(), 1))));
  }
  return Array<PrimExpr>(out);
}

IndexMap IndexMap::Inverse(const Array<PrimExpr>& shape) const {
  const Array<Var>& initial = get()->initial_indices;
  const Array<PrimExpr>& finals = get()->final_indices;
  Map<Var, Range> dom = DomainOf(initial, shape);
  arith::Analyzer ana;
  auto detected = arith::DetectIterMap(finals, dom, IntImm(DataType::Bool(), 1), arith::IterMapLevel::kBijective, &ana);
  if (detected->indices.empty()) {
    std::string why = detected->errors.empty() ? "not an affine map" : detected->errors[0].str();
    TESSERA_THROW(ValueError) << "the index map is not a bijective affine map of its domain, so it has no inverse: "
                              << why;
  }
  Array<PrimExpr> out_shape = MapShape(shape);
  std::vector<Var> outputs;
  arith::Analyzer out_ana;
  for (size_t k = 0; k < finals.size(); ++k) {
    outputs.emplace_back("axis" + std::to_string(k), finals[k].dtype());
    out_ana.Bind(outputs.back(), Range::FromMinExtent(IntImm(out_shape[k].dtype(), 0), out_shape[k]));
  }
  // Each output is a mixed-radix sum of splits of iterator marks: recover
  // each split's value, then each mark's value from its splits; a fused mark
  // (a sum of splits of other marks) passes its value on to those.
  std::vector<const arith::IterMarkNode*> order;
  std::unordered_map<const arith::IterMarkNode*, std::vector<PrimExpr>> parts;  // split value * lower_factor
  auto add_sum = [&](const arith::IterSumExpr& sum, const PrimExpr& value) {
    PrimExpr rest = value - sum->base;
    for (arith::IterSplitExpr split : sum->args) {
      // TVM's canonical form of a split: (x % (scale * extent)) // scale.
      PrimExpr v = floordiv(floormod(rest, split->scale * split->extent), split->scale);
      const arith::IterMarkNode* mark = split->source.get();
      if (!parts.count(mark)) order.push_back(mark);
      parts[mark].push_back(v * split->lower_factor);
    }
  };
  for (size_t k = 0; k < finals.size(); ++k) add_sum(detected->indices[k], outputs[k]);
  // A mark may be split both by an output and inside a fused mark: take the
  // marks parents first (Kahn's order over "fused mark -> marks it sums"),
  // so that each has all its parts when its value is formed.
  std::unordered_map<const arith::IterMarkNode*, int> pending;  // fused marks not yet expanded that split it
  {
    std::vector<const arith::IterMarkNode*> stack(order.begin(), order.end());
    std::unordered_set<const arith::IterMarkNode*> seen(order.begin(), order.end());
    while (!stack.empty()) {
      const arith::IterMarkNode* m = stack.back();
      stack.pop_back();
      const auto* fused = m->source.as<arith::IterSumExprNode>();
      if (!fused) continue;
      for (const arith::IterSplitExpr& split : fused->args) {
        const arith::IterMarkNode* child = split->source.get();
        ++pending[child];
        if (seen.insert(child).second) stack.push_back(child);
      }
    }
  }
  std::vector<const arith::IterMarkNode*> ready;
  for (const arith::IterMarkNode* m : order)
    if (pending[m] == 0) ready.push_back(m);
  order.clear();
  std::unordered_map<const VarNode*, PrimExpr> inverse;
  while (!ready.empty()) {
    const arith::IterMarkNode* mark = ready.back();
    ready.pop_back();
    if (const auto* fused = mark->source.as<arith::IterSumExprNode>()) {
      for (const arith::IterSplitExpr& split : fused->args)
        if (--pending[split->source.get()] == 0) ready.push_back(split->source.get());
    }
    PrimExpr value;
    for (const PrimExpr& p : parts[mark]) value = value.defined() ? value + p : p;
    if (const auto* v = mark->source.as<VarNode>()) {
      inverse[v] = value;
    } else if (const auto* fused = mark->source.as<arith::IterSumExprNode>()) {
      add_sum(GetRef<arith::IterSumExpr>(fused), value);
    } else {
      TESSERA_THROW(ValueError) << "cannot invert the index map: unexpected iterator " << mark->source->GetTypeKey();
    }
  }
  std::vector<PrimExpr> result;
  for (size_t i = 0; i < initial.size(); ++i) {
    auto it = inverse.find(initial[i].get());
    if (it == inverse.end()) {
      // Iterators of extent 1 are folded to 0 by the detection.
      std::optional<int64_t> ext = ConstIntValue(shape[i]);
      TESSERA_CHECK_OR_THROW(ext.has_value() && *ext == 1, ValueError)
          << "cannot invert the index map: index " << initial[i]->name_hint << " does not reach the final indices";
      result.push_back(IntImm(initial[i].dtype(), 0));
    } else {
      result.push_back(out_ana.Simplify(cast(initial[i].dtype(), it->second)));
    }
  }
  return IndexMap(Array<Var>(outputs), Array<PrimExpr>(result), *this);
}

std::string IndexMap::AsLambda() const {
  auto printer = Registry::Get("script.AsTVMScript");
  auto render = [&](const PrimExpr& e) { return printer ? (*printer)(e).cast<std::string>() : Any(e).repr(); };
  std::string params, results;
  for (Var v : get()->initial_indices) params += (params.empty() ? "" : ", ") + v->name_hint;
  for (PrimExpr e : get()->final_indices) results += (results.empty() ? "" : ", ") + render(e);
  if (get()->final_indices.size() == 1) results += ",";
  return "lambda " + params + ": (" + results + ")";
}

std::string IndexMap::ToJSON() const {
  std::unordered_map<const VarNode*, size_t> index;
  nlohmann::json vars = nlohmann::json::array(), finals = nlohmann::json::array();
  for (size_t i = 0; i < get()->initial_indices.size(); ++i) {
    Var v = get()->initial_indices[i];
    index[v.get()] = i;
    vars.push_back(nlohmann::json::array({v->name_hint, v.dtype().str()}));
  }
  // Variables that are not initial indices (a symbolic extent, a sampled
  // integer of a schedule trace) are listed after them, in order of first
  // use, under "free_vars"; reading gives fresh variables of those names.
  nlohmann::json free_vars = nlohmann::json::array();
  for (PrimExpr f : get()->final_indices) {
    PostOrderVisit(f, [&](const ObjectRef& obj) {
      const auto* v = obj.as<VarNode>();
      if (v == nullptr || index.count(v)) return;
      index[v] = index.size();
      free_vars.push_back(nlohmann::json::array({v->name_hint, v->dtype.str()}));
    });
  }
  for (PrimExpr f : get()->final_indices) finals.push_back(ExprToJSON(f, index));
  nlohmann::json out{{"initial_indices", vars}, {"final_indices", finals}};
  if (!free_vars.empty()) out["free_vars"] = free_vars;
  return out.dump();
}

IndexMap IndexMap::FromJSON(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    TESSERA_THROW(ValueError) << "malformed index map JSON: " << e.what();
  }
  TESSERA_CHECK_OR_THROW(j.is_object() && j.contains("initial_indices") && j.contains("final_indices"), ValueError)
      << "malformed index map JSON (needs initial_indices and final_indices): " << text;
  std::vector<Var> vars;
  for (const auto& v : j.at("initial_indices")) {
    TESSERA_CHECK_OR_THROW(v.is_array() && v.size() == 2, ValueError) << "malformed index map JSON variable " << v.dump();
    vars.emplace_back(v[0].get<std::string>(), DataType(v[1].get<std::string>()));
  }
  Array<Var> initial(vars);
  if (j.contains("free_vars")) {
    for (const auto& v : j.at("free_vars")) {
      TESSERA_CHECK_OR_THROW(v.is_array() && v.size() == 2 && v[0].is_string() && v[1].is_string(), ValueError)
          << "malformed index map JSON free variable " << v.dump();
      vars.emplace_back(v[0].get<std::string>(), DataType(v[1].get<std::string>()));
    }
  }
  std::vector<PrimExpr> finals;
  for (const auto& f : j.at("final_indices")) finals.push_back(ExprFromJSON(f, Array<Var>(vars)));
  return IndexMap(initial, Array<PrimExpr>(finals));
}

TESSERA_REGISTER_OBJECT_TYPE(IndexMapNode);
// Initial indices define variables; the inverse is not compared (as in TVM).
TESSERA_REGISTER_NODE(IndexMapNode)
    .def("initial_indices", &IndexMapNode::initial_indices)
    .field("final_indices", &IndexMapNode::final_indices)
    .ignore("inverse_index_map", &IndexMapNode::inverse_index_map);

TESSERA_REGISTER_GLOBAL("tir.IndexMap")
    .set_body_typed([](Array<Var> initial, Array<PrimExpr> final_indices, std::optional<IndexMap> inverse) {
      return IndexMap(initial, final_indices, inverse ? ObjectRef(*inverse) : ObjectRef());
    });
TESSERA_REGISTER_GLOBAL("tir.IndexMapMapIndices").set_body_typed([](IndexMap m, Array<PrimExpr> indices) {
  return m.MapIndices(indices);
});
TESSERA_REGISTER_GLOBAL("tir.IndexMapMapShape").set_body_typed([](IndexMap m, Array<PrimExpr> shape) {
  return m.MapShape(shape);
});
TESSERA_REGISTER_GLOBAL("tir.IndexMapInverse").set_body_typed([](IndexMap m, Array<PrimExpr> shape) {
  return m.Inverse(shape);
});
TESSERA_REGISTER_GLOBAL("tir.IndexMapAsLambda").set_body_typed([](IndexMap m) { return m.AsLambda(); });
TESSERA_REGISTER_GLOBAL("tir.IndexMapToJSON").set_body_typed([](IndexMap m) { return m.ToJSON(); });
TESSERA_REGISTER_GLOBAL("tir.IndexMapFromJSON").set_body_typed([](std::string s) { return IndexMap::FromJSON(s); });

}  // namespace tir
}  // namespace tessera
