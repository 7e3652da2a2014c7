// Trace printing as Python, JSON round trip and decisions (see trace.h).
#include "tir/schedule/trace.h"

#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "tir/schedule/schedule.h"

namespace tessera {
namespace tir {
namespace {

// Names random variables in order of definition: b0, l1, v2, ...
class RVNamer {
 public:
  std::string Define(const Any& rv) {
    std::string prefix = rv.as<BlockRVNode>() ? "b" : rv.as<LoopRVNode>() ? "l" : "v";
    std::string name = prefix + std::to_string(counter_++);
    names_[rv.raw_object().get()] = name;
    return name;
  }
  std::string Render(const Any& v) const {
    if (v.is_object()) {
      auto it = names_.find(v.raw_object().get());
      if (it != names_.end()) return it->second;
      if (const auto* a = v.as<ArrayObj>()) {
        std::string out = "[";
        for (size_t i = 0; i < a->data.size(); ++i) out += (i ? ", " : "") + Render(a->data[i]);
        return out + "]";
      }
      if (const auto* m = v.as<MapObj>()) {  // an annotation value given as a dict
        std::string out = "{";
        for (size_t i = 0; i < m->data.size(); ++i) {
          out += (i ? ", " : "") + Render(m->data[i].first) + ": " + Render(m->data[i].second);
        }
        return out + "}";
      }
    }
    return PythonLiteral(v);
  }

 private:
  int counter_ = 0;
  std::unordered_map<const Object*, std::string> names_;
};

// Random variables are written as their bare names ("b0", "l1", "v2"), as
// TVM's Trace.as_json; the {"rv": name} objects of Tessera's earlier
// dict-form traces are still read.
nlohmann::json ToJSONValue(const Any& v, const std::unordered_map<const Object*, std::string>& names) {
  if (v.is_object()) {
    auto it = names.find(v.raw_object().get());
    if (it != names.end()) return it->second;
    if (const auto* s = v.as<StringObj>()) return s->data;
    if (const auto* a = v.as<ArrayObj>()) {
      nlohmann::json arr = nlohmann::json::array();
      for (const Any& x : a->data) arr.push_back(ToJSONValue(x, names));
      return arr;
    }
    if (const auto* imm = v.as<IntImmNode>()) return imm->value;
    if (const auto* imm = v.as<FloatImmNode>()) return imm->value;
    if (const auto* m = v.as<MapObj>()) {  // {"map": [[key, value], ...]}, keys in order
      nlohmann::json items = nlohmann::json::array();
      for (const auto& [k, x] : m->data) items.push_back({ToJSONValue(k, names), ToJSONValue(x, names)});
      return nlohmann::json{{"map", items}};
    }
    TESSERA_THROW(NotImplementedError) << "cannot serialize a " << v.type_name()
                                       << " in a trace (its instruction kind needs set_attrs_as_json)";
  }
  switch (v.kind()) {
    case Any::Kind::kNone: return nullptr;
    case Any::Kind::kBool: return v.cast<bool>();
    case Any::Kind::kInt: return v.cast<int64_t>();
    case Any::Kind::kFloat: return v.cast<double>();
    default: TESSERA_THROW(TypeError) << "cannot serialize a " << v.type_name() << " in a trace";
  }
}

// `resolve_names`: a string naming a random variable defined earlier is
// that variable (instruction inputs and decisions; attributes stay strings).
Any FromJSONValue(const nlohmann::json& j, std::unordered_map<std::string, Any>& rvs, bool resolve_names = false) {
  if (j.is_null()) return Any();
  if (j.is_boolean()) return Any(j.get<bool>());
  if (j.is_number_integer()) return Any(j.get<int64_t>());
  if (j.is_number()) return Any(j.get<double>());
  if (j.is_string()) {
    if (resolve_names) {
      auto it = rvs.find(j.get<std::string>());
      if (it != rvs.end()) return it->second;
    }
    return Any(j.get<std::string>());
  }
  if (j.is_array()) {
    std::vector<Any> out;
    for (const auto& x : j) out.push_back(FromJSONValue(x, rvs, resolve_names));
    return Any(Array<Any>(out));
  }
  if (j.is_object() && j.contains("map")) {
    Map<Any, Any> m;
    for (const auto& kv : j.at("map")) m.Set(FromJSONValue(kv.at(0), rvs), FromJSONValue(kv.at(1), rvs));
    return Any(m);
  }
  if (j.is_object() && j.contains("rv")) {
    std::string name = j.at("rv").get<std::string>();
    auto it = rvs.find(name);
    if (it != rvs.end()) return it->second;
    Any rv;
    if (name[0] == 'b') rv = Any(BlockRV::Make());
    else if (name[0] == 'l') rv = Any(LoopRV::Make());
    else rv = Any(Var(name, DataType::Int(32)));
    rvs[name] = rv;
    return rv;
  }
  TESSERA_THROW(ValueError) << "malformed trace JSON value: " << j.dump();
}

}  // namespace

Instruction::Instruction(InstructionKind kind, Array<Any> inputs, Array<Any> attrs, Array<Any> outputs) {
  TESSERA_CHECK_OR_THROW(kind.defined(), ValueError) << "an instruction needs a kind";
  auto n = make_object<InstructionNode>();
  n->kind = std::move(kind);
  n->inputs = std::move(inputs);
  n->attrs = std::move(attrs);
  n->outputs = std::move(outputs);
  data_ = std::move(n);
}

std::optional<Any> TraceNode::GetDecision(const Instruction& inst) const {
  for (const auto& [i, d] : decisions)
    if (i.same_as(inst)) return d;
  return std::nullopt;
}

std::string Trace::AsPython() const {
  RVNamer namer;
  std::ostringstream os;
  os << "# from tvm import tir\n";
  os << "def apply_trace(sch: tir.Schedule) -> None:\n";
  if (get()->insts.empty()) os << "  pass\n";
  for (const Instruction& inst : get()->insts) {
    std::vector<std::string> inputs, outputs;
    for (const Any& in : inst->inputs.to_vector()) inputs.push_back(namer.Render(in));
    std::optional<std::string> decision;
    if (auto d = get()->GetDecision(inst)) decision = namer.Render(*d);
    for (const Any& out : inst->outputs.to_vector()) outputs.push_back(namer.Define(out));
    const InstructionKindNode* kind = inst->kind.get();
    TESSERA_CHECK_OR_THROW(kind->f_as_python != nullptr, NotImplementedError)
        << "instruction kind " << kind->name << " cannot be printed as Python";
    os << "  " << kind->f_as_python(inputs, inst->attrs, decision, outputs) << "\n";
  }
  return os.str();
}

std::string Trace::ToJSON() const {
  std::unordered_map<const Object*, std::string> names;
  int counter = 0;
  nlohmann::json insts = nlohmann::json::array();
  nlohmann::json decisions = nlohmann::json::array();
  for (size_t idx = 0; idx < get()->insts.size(); ++idx) {
    const Instruction& inst = get()->insts[idx];
    nlohmann::json inputs = nlohmann::json::array(), attrs = nlohmann::json::array(), outputs = nlohmann::json::array();
    for (const Any& in : inst->inputs.to_vector()) inputs.push_back(ToJSONValue(in, names));
    Array<Any> raw_attrs = inst->kind->f_attrs_as_json ? inst->kind->f_attrs_as_json(inst->attrs) : inst->attrs;
    for (const Any& a : raw_attrs.to_vector()) attrs.push_back(ToJSONValue(a, names));
    for (const Any& out : inst->outputs.to_vector()) {
      std::string prefix = out.as<BlockRVNode>() ? "b" : out.as<LoopRVNode>() ? "l" : "v";
      std::string name = prefix + std::to_string(counter++);
      names[out.raw_object().get()] = name;
      outputs.push_back(name);
    }
    insts.push_back({inst->kind->name, inputs, attrs, outputs});
    if (auto d = get()->GetDecision(inst)) decisions.push_back({idx, ToJSONValue(*d, names)});
  }
  return nlohmann::json::array({insts, decisions}).dump();  // TVM's [insts, decisions]
}

Trace Trace::FromJSON(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    TESSERA_THROW(ValueError) << "malformed trace JSON: " << e.what();
  }
  std::unordered_map<std::string, Any> rvs;
  Trace trace = Trace::Empty();
  auto* n = trace.CopyOnWrite();
  try {
  // TVM's [insts, decisions], or the {"insts": ..., "decisions": ...} of
  // traces Tessera wrote before (tuning databases on disk).
  const bool is_list = j.is_array();
  TESSERA_CHECK_OR_THROW(is_list ? j.size() == 2 : j.is_object(), ValueError)
      << "malformed trace JSON: expected [insts, decisions]";
  const nlohmann::json& insts_json = is_list ? j.at(0) : j.at("insts");
  const nlohmann::json& decisions_json = is_list ? j.at(1) : j.at("decisions");
  for (const auto& ij : insts_json) {
    std::vector<Any> inputs, attrs, outputs;
    InstructionKind kind = InstructionKind::Get(ij.at(0).get<std::string>());
    for (const auto& x : ij.at(1)) inputs.push_back(FromJSONValue(x, rvs, true));
    for (const auto& x : ij.at(2)) attrs.push_back(FromJSONValue(x, rvs));
    for (const auto& x : ij.at(3)) outputs.push_back(FromJSONValue(nlohmann::json{{"rv", x.get<std::string>()}}, rvs));
    Array<Any> attr_array(attrs);
    if (kind->f_attrs_from_json) attr_array = kind->f_attrs_from_json(attr_array);
    n->insts.push_back(Instruction(kind, Array<Any>(inputs), attr_array, Array<Any>(outputs)));
  }
  for (const auto& dj : decisions_json) {
    size_t idx = dj.at(0).get<size_t>();
    TESSERA_CHECK_OR_THROW(idx < n->insts.size(), ValueError) << "trace decision for missing instruction " << idx;
    n->decisions.emplace_back(n->insts[idx], FromJSONValue(dj.at(1), rvs, true));
  }
  } catch (const nlohmann::json::exception& e) {
    TESSERA_THROW(ValueError) << "malformed trace JSON: " << e.what();
  }
  return trace;
}

Trace Trace::WithDecision(const Instruction& inst, const Any& decision) const {
  Trace t = *this;
  auto* n = t.CopyOnWrite();
  bool found = false;
  for (auto& [i, d] : n->decisions) {
    if (i.same_as(inst)) {
      d = decision;
      found = true;
    }
  }
  if (!found) n->decisions.emplace_back(inst, decision);
  return t;
}

TESSERA_REGISTER_OBJECT_TYPE(BlockRVNode);
TESSERA_REGISTER_OBJECT_TYPE(LoopRVNode);
TESSERA_REGISTER_OBJECT_TYPE(InstructionNode);
TESSERA_REGISTER_OBJECT_TYPE(TraceNode);
TESSERA_REGISTER_NODE(InstructionNode)
    .field("kind", &InstructionNode::kind)
    .field("inputs", &InstructionNode::inputs)
    .field("attrs", &InstructionNode::attrs)
    .field("outputs", &InstructionNode::outputs);
TESSERA_REGISTER_NODE(TraceNode)
    .getter("insts", [](const TraceNode* n) { return Array<Instruction>(n->insts); })
    .getter("decisions", [](const TraceNode* n) {
      Map<Instruction, Any> m;
      for (const auto& [i, d] : n->decisions) m.Set(i, d);
      return m;
    });
TESSERA_REGISTER_GLOBAL("tir.schedule.Instruction")
    .set_body_typed([](InstructionKind kind, Array<Any> inputs, Array<Any> attrs, Array<Any> outputs) {
      return Instruction(kind, inputs, attrs, outputs);
    });
TESSERA_REGISTER_GLOBAL("tir.schedule.BlockRV").set_body_typed([]() { return BlockRV::Make(); });
TESSERA_REGISTER_GLOBAL("tir.schedule.LoopRV").set_body_typed([]() { return LoopRV::Make(); });
TESSERA_REGISTER_GLOBAL("tir.schedule.Trace").set_body_typed([](Array<Instruction> insts, Map<Instruction, Any> decisions) {
  Trace t = Trace::Empty();
  for (const Instruction& inst : insts) t.CopyOnWrite()->insts.push_back(inst);
  for (const auto& [inst, d] : decisions.items()) t.CopyOnWrite()->decisions.emplace_back(inst, d);
  return t;
});
// Trace.append / Trace.pop mutate the trace in place, as TVM's do.
TESSERA_REGISTER_GLOBAL("tir.schedule.TraceAppend").set_body_typed([](Trace t, Instruction inst, Any decision) {
  auto* n = const_cast<TraceNode*>(t.get());
  n->insts.push_back(inst);
  if (!decision.is_none()) n->decisions.emplace_back(inst, decision);
});
TESSERA_REGISTER_GLOBAL("tir.schedule.TracePop").set_body_typed([](Trace t) -> Any {
  auto* n = const_cast<TraceNode*>(t.get());
  if (n->insts.empty()) return Any();
  Instruction last = n->insts.back();
  n->insts.pop_back();
  for (auto it = n->decisions.begin(); it != n->decisions.end(); ++it) {
    if (it->first.same_as(last)) {
      n->decisions.erase(it);
      break;
    }
  }
  return Any(last);
});
TESSERA_REGISTER_GLOBAL("tir.schedule.TraceAsPython").set_body_typed([](Trace t) { return t.AsPython(); });
TESSERA_REGISTER_GLOBAL("tir.schedule.TraceToJSON").set_body_typed([](Trace t) { return t.ToJSON(); });
TESSERA_REGISTER_GLOBAL("tir.schedule.TraceFromJSON").set_body_typed([](std::string s) { return Trace::FromJSON(s); });
TESSERA_REGISTER_GLOBAL("tir.schedule.TraceWithDecision").set_body_typed([](Trace t, Instruction inst, Any d) {
  return t.WithDecision(inst, d);
});

}  // namespace tir
}  // namespace tessera
