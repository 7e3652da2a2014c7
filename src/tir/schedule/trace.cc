// Trace printing as Python, JSON round trip and decisions (see trace.h).
#include "tir/schedule/trace.h"

#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace tir {
namespace {

struct KindInfo {
  const char* kind;
  const char* method;
  std::vector<const char*> inputs;  // keyword names; {"*"} = positional varargs
  std::vector<const char*> attrs;
};

const std::vector<KindInfo>& Kinds() {
  static const std::vector<KindInfo> kinds = {
      {"GetBlock", "get_block", {}, {"name", "func_name"}},
      {"GetLoops", "get_loops", {"block"}, {}},
      {"GetChildBlocks", "get_child_blocks", {"block_or_loop"}, {}},
      {"GetProducers", "get_producers", {"block"}, {}},
      {"GetConsumers", "get_consumers", {"block"}, {}},
      {"Split", "split", {"loop", "factors"}, {"preserve_unit_iters"}},
      {"Fuse", "fuse", {"*"}, {"preserve_unit_iters"}},
      {"Reorder", "reorder", {"*"}, {}},
      {"AddUnitLoop", "add_unit_loop", {"block_or_loop"}, {}},
      {"Parallel", "parallel", {"loop"}, {}},
      {"Vectorize", "vectorize", {"loop"}, {}},
      {"Unroll", "unroll", {"loop"}, {}},
      {"Bind", "bind", {"loop"}, {"thread_axis"}},
      {"Annotate", "annotate", {"block_or_loop", "ann_val"}, {"ann_key"}},
      {"Unannotate", "unannotate", {"block_or_loop"}, {"ann_key"}},
      {"DecomposeReduction", "decompose_reduction", {"block", "loop"}, {}},
      {"ComputeAt", "compute_at", {"block", "loop"}, {"preserve_unit_loops", "index"}},
      {"ReverseComputeAt", "reverse_compute_at", {"block", "loop"}, {"preserve_unit_loops", "index"}},
      {"ComputeInline", "compute_inline", {"block"}, {}},
      {"ReverseComputeInline", "reverse_compute_inline", {"block"}, {}},
      {"CacheRead", "cache_read", {"block"}, {"read_buffer_index", "storage_scope"}},
      {"CacheWrite", "cache_write", {"block"}, {"write_buffer_index", "storage_scope"}},
      {"SetScope", "set_scope", {"block"}, {"buffer_index", "storage_scope"}},
      {"Blockize", "blockize", {"loop"}, {}},
      {"Tensorize", "tensorize", {"block_or_loop"}, {"tensor_intrin"}},
      {"TransformLayout", "_transform_layout_replay", {"block", "initial", "final"}, {"is_write", "buffer_index"}},
      {"RFactor", "rfactor", {"loop"}, {"factor_axis"}},
      {"StorageAlign", "storage_align", {"block"}, {"buffer_index", "axis", "factor", "offset"}},
      {"SampleComputeLocation", "sample_compute_location", {"block"}, {}},
      {"SamplePerfectTile", "sample_perfect_tile", {"loop"}, {"n", "max_innermost_factor"}},
      {"SampleCategorical", "sample_categorical", {}, {"candidates", "probs"}},
  };
  return kinds;
}

const KindInfo& KindOf(const std::string& kind) {
  for (const KindInfo& k : Kinds())
    if (kind == k.kind) return k;
  TESSERA_THROW(ValueError) << "unknown schedule instruction kind '" << kind << "'";
}

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
      if (const auto* s = v.as<StringObj>()) return Quote(s->data);
      if (const auto* a = v.as<ArrayObj>()) {
        std::string out = "[";
        for (size_t i = 0; i < a->data.size(); ++i) out += (i ? ", " : "") + Render(a->data[i]);
        return out + "]";
      }
      if (const auto* imm = v.as<IntImmNode>()) return std::to_string(imm->value);
      if (const auto* f = v.as<FloatImmNode>()) return Any(f->value).repr();
      return v.repr();
    }
    if (v.is_none()) return "None";
    return v.repr();
  }
  static std::string Quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  }

 private:
  int counter_ = 0;
  std::unordered_map<const Object*, std::string> names_;
};

nlohmann::json ToJSONValue(const Any& v, const std::unordered_map<const Object*, std::string>& names) {
  if (v.is_object()) {
    auto it = names.find(v.raw_object().get());
    if (it != names.end()) return nlohmann::json{{"rv", it->second}};
    if (const auto* s = v.as<StringObj>()) return s->data;
    if (const auto* a = v.as<ArrayObj>()) {
      nlohmann::json arr = nlohmann::json::array();
      for (const Any& x : a->data) arr.push_back(ToJSONValue(x, names));
      return arr;
    }
    if (const auto* imm = v.as<IntImmNode>()) return imm->value;
    TESSERA_THROW(NotImplementedError) << "cannot serialize a " << v.type_name()
                                       << " in a trace (transform_layout traces have no JSON form yet)";
  }
  switch (v.kind()) {
    case Any::Kind::kNone: return nullptr;
    case Any::Kind::kBool: return v.cast<bool>();
    case Any::Kind::kInt: return v.cast<int64_t>();
    case Any::Kind::kFloat: return v.cast<double>();
    default: TESSERA_THROW(TypeError) << "cannot serialize a " << v.type_name() << " in a trace";
  }
}

Any FromJSONValue(const nlohmann::json& j, std::unordered_map<std::string, Any>& rvs) {
  if (j.is_null()) return Any();
  if (j.is_boolean()) return Any(j.get<bool>());
  if (j.is_number_integer()) return Any(j.get<int64_t>());
  if (j.is_number()) return Any(j.get<double>());
  if (j.is_string()) return Any(j.get<std::string>());
  if (j.is_array()) {
    std::vector<Any> out;
    for (const auto& x : j) out.push_back(FromJSONValue(x, rvs));
    return Any(Array<Any>(out));
  }
  if (j.is_object() && j.contains("rv")) {
    std::string name = j.at("rv").get<std::string>();
    auto it = rvs.find(name);
    if (it != rvs.end()) return it->second;
    Any rv;
    if (name[0] == 'b') rv = Any(BlockRV::Make());
    else if (name[0] == 'l') rv = Any(LoopRV::Make());
    else rv = Any(Var(name, DataType::Int(64)));
    rvs[name] = rv;
    return rv;
  }
  TESSERA_THROW(ValueError) << "malformed trace JSON value: " << j.dump();
}

}  // namespace

Instruction::Instruction(std::string kind, Array<Any> inputs, Array<Any> attrs, Array<Any> outputs) {
  KindOf(kind);  // validates
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
    if (inst->kind == "TransformLayout") {
      // sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i, j: (i // 4, j, i % 4))
      auto printer = Registry::Get("script.AsTVMScript");
      auto render = [&](const Any& e) { return printer ? (*printer)(e).cast<std::string>() : e.repr(); };
      std::string params, results;
      for (const Any& v : inst->inputs.at_any(1).cast<Array<Any>>().to_vector())
        params += (params.empty() ? "" : ", ") + v.cast<tir::Var>()->name_hint;
      for (const Any& e : inst->inputs.at_any(2).cast<Array<Any>>().to_vector())
        results += (results.empty() ? "" : ", ") + render(e);
      os << "  sch.transform_layout(block=" << namer.Render(inst->inputs.at_any(0)) << ", buffer=(\""
         << (inst->attrs.at_any(0).cast<bool>() ? "write" : "read") << "\", " << inst->attrs.at_any(1).cast<int64_t>()
         << "), index_map=lambda " << params << ": (" << results << (inst->inputs.at_any(2).cast<Array<Any>>().size() == 1 ? "," : "")
         << "))\n";
      continue;
    }
    const KindInfo& info = KindOf(inst->kind);
    std::vector<std::string> args;
    if (!info.inputs.empty() && std::string(info.inputs[0]) == "*") {
      for (const Any& in : inst->inputs.to_vector()) args.push_back(namer.Render(in));
    } else {
      for (size_t i = 0; i < info.inputs.size() && i < inst->inputs.size(); ++i) {
        args.push_back(std::string(info.inputs[i]) + "=" + namer.Render(inst->inputs.at_any(i)));
      }
    }
    for (size_t i = 0; i < info.attrs.size() && i < inst->attrs.size(); ++i) {
      const Any& a = inst->attrs.at_any(i);
      std::string rendered = a.kind() == Any::Kind::kBool ? (a.cast<bool>() ? "True" : "False") : namer.Render(a);
      args.push_back(std::string(info.attrs[i]) + "=" + rendered);
    }
    if (auto d = get()->GetDecision(inst)) args.push_back("decision=" + namer.Render(*d));
    std::string lhs;
    for (const Any& out : inst->outputs.to_vector()) lhs += (lhs.empty() ? "" : ", ") + namer.Define(out);
    os << "  ";
    if (!lhs.empty()) os << lhs << " = ";
    os << "sch." << info.method << "(";
    for (size_t i = 0; i < args.size(); ++i) os << (i ? ", " : "") << args[i];
    os << ")\n";
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
    for (const Any& a : inst->attrs.to_vector()) attrs.push_back(ToJSONValue(a, names));
    for (const Any& out : inst->outputs.to_vector()) {
      std::string prefix = out.as<BlockRVNode>() ? "b" : out.as<LoopRVNode>() ? "l" : "v";
      std::string name = prefix + std::to_string(counter++);
      names[out.raw_object().get()] = name;
      outputs.push_back(name);
    }
    insts.push_back({inst->kind, inputs, attrs, outputs});
    if (auto d = get()->GetDecision(inst)) decisions.push_back({idx, ToJSONValue(*d, names)});
  }
  return nlohmann::json{{"insts", insts}, {"decisions", decisions}}.dump();
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
  for (const auto& ij : j.at("insts")) {
    std::vector<Any> inputs, attrs, outputs;
    for (const auto& x : ij.at(1)) inputs.push_back(FromJSONValue(x, rvs));
    for (const auto& x : ij.at(2)) attrs.push_back(FromJSONValue(x, rvs));
    for (const auto& x : ij.at(3)) outputs.push_back(FromJSONValue(nlohmann::json{{"rv", x.get<std::string>()}}, rvs));
    n->insts.push_back(Instruction(ij.at(0).get<std::string>(), Array<Any>(inputs), Array<Any>(attrs), Array<Any>(outputs)));
  }
  for (const auto& dj : j.at("decisions")) {
    size_t idx = dj.at(0).get<size_t>();
    TESSERA_CHECK_OR_THROW(idx < n->insts.size(), ValueError) << "trace decision for missing instruction " << idx;
    n->decisions.emplace_back(n->insts[idx], FromJSONValue(dj.at(1), rvs));
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
TESSERA_REGISTER_REFLECTION(InstructionNode)
    .def_getter("kind", [](const InstructionNode* n) { return n->kind; })
    .def_ro("inputs", &InstructionNode::inputs)
    .def_ro("attrs", &InstructionNode::attrs)
    .def_ro("outputs", &InstructionNode::outputs);
TESSERA_REGISTER_REFLECTION(TraceNode)
    .def_getter("insts", [](const TraceNode* n) { return Array<Instruction>(n->insts); })
    .def_getter("decisions", [](const TraceNode* n) {
      Map<Instruction, Any> m;
      for (const auto& [i, d] : n->decisions) m.Set(i, d);
      return m;
    });
TESSERA_REGISTER_GLOBAL("tir.schedule.TraceAsPython").set_body_typed([](Trace t) { return t.AsPython(); });
TESSERA_REGISTER_GLOBAL("tir.schedule.TraceToJSON").set_body_typed([](Trace t) { return t.ToJSON(); });
TESSERA_REGISTER_GLOBAL("tir.schedule.TraceFromJSON").set_body_typed([](std::string s) { return Trace::FromJSON(s); });
TESSERA_REGISTER_GLOBAL("tir.schedule.TraceWithDecision").set_body_typed([](Trace t, Instruction inst, Any d) {
  return t.WithDecision(inst, d);
});

}  // namespace tir
}  // namespace tessera
