// The registry of schedule instruction kinds and the Python printing
// helpers kinds share (see instruction_kind.h). TIR schedule layer.
#include "tir/schedule/instruction_kind.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace tir {
namespace {

// Registration happens during static initialization (one thread); lookups
// afterwards only read, so the map needs no lock once main() has started.
std::map<std::string, InstructionKindRegEntry*>& Registry() {
  static std::map<std::string, InstructionKindRegEntry*> kinds;
  return kinds;
}

}  // namespace

InstructionKindRegEntry& InstructionKindRegEntry::Register(const std::string& name) {
  auto& kinds = Registry();
  auto it = kinds.find(name);
  TESSERA_ICHECK(it == kinds.end()) << "schedule instruction kind " << name << " is registered twice";
  auto* entry = new InstructionKindRegEntry();  // lives as long as the process
  auto n = make_object<InstructionKindNode>();
  n->name = name;
  entry->kind = InstructionKind(ObjectPtr<Object>(std::move(n)));
  kinds[name] = entry;
  return *entry;
}

#define TESSERA_INST_KIND_SETTER(Method, Field, Type)                      \
  InstructionKindRegEntry& InstructionKindRegEntry::Method(Type value) {   \
    const_cast<InstructionKindNode*>(kind.get())->Field = std::move(value); \
    return *this;                                                          \
  }
TESSERA_INST_KIND_SETTER(set_is_pure, is_pure, bool)
TESSERA_INST_KIND_SETTER(set_apply, f_apply, InstructionKindNode::FApply)
TESSERA_INST_KIND_SETTER(set_as_python, f_as_python, InstructionKindNode::FAsPython)
TESSERA_INST_KIND_SETTER(set_attrs_as_json, f_attrs_as_json, InstructionKindNode::FAttrsConvert)
TESSERA_INST_KIND_SETTER(set_attrs_from_json, f_attrs_from_json, InstructionKindNode::FAttrsConvert)
#undef TESSERA_INST_KIND_SETTER

InstructionKind InstructionKind::Get(const std::string& name) {
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    std::string known;
    for (const auto& [k, _] : Registry()) known += (known.empty() ? "" : ", ") + k;
    TESSERA_THROW(ValueError) << "unknown schedule instruction kind '" << name << "' (known kinds: " << known << ")";
  }
  return it->second->kind;
}

std::vector<std::string> InstructionKind::ListNames() {
  std::vector<std::string> names;
  for (const auto& [k, _] : Registry()) names.push_back(k);
  return names;
}

std::string PythonLiteral(const Any& v) {
  switch (v.kind()) {
    case Any::Kind::kNone: return "None";
    case Any::Kind::kBool: return v.cast<bool>() ? "True" : "False";
    default: break;
  }
  if (const auto* s = v.as<StringObj>()) {
    std::string out = "\"";
    for (char c : s->data) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  }
  if (const auto* a = v.as<ArrayObj>()) {
    std::string out = "[";
    for (size_t i = 0; i < a->data.size(); ++i) out += (i ? ", " : "") + PythonLiteral(a->data[i]);
    return out + "]";
  }
  if (const auto* imm = v.as<IntImmNode>()) return std::to_string(imm->value);
  if (const auto* f = v.as<FloatImmNode>()) return Any(f->value).repr();
  return v.repr();
}

InstructionKindNode::FAsPython PythonCall(std::string method, std::vector<std::string> input_names,
                                          std::vector<std::string> attr_names, bool returns_list) {
  return [method = std::move(method), input_names = std::move(input_names), attr_names = std::move(attr_names),
          returns_list](
             const std::vector<std::string>& inputs, const Array<Any>& attrs,
             const std::optional<std::string>& decision, const std::vector<std::string>& outputs) {
    std::vector<std::string> args;
    if (!input_names.empty() && input_names[0] == "*") {
      args = inputs;
    } else {
      for (size_t i = 0; i < input_names.size() && i < inputs.size(); ++i) args.push_back(input_names[i] + "=" + inputs[i]);
    }
    for (size_t i = 0; i < attr_names.size() && i < attrs.size(); ++i) {
      args.push_back(attr_names[i] + "=" + PythonLiteral(attrs.at_any(i)));
    }
    if (decision) args.push_back("decision=" + *decision);
    std::string out;
    for (size_t i = 0; i < outputs.size(); ++i) out += (i ? ", " : "") + outputs[i];
    if (returns_list && outputs.size() == 1) out += ",";  // as TVM: "l1, = sch.get_loops(...)"
    if (!out.empty()) out += " = ";
    out += "sch." + method + "(";
    for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
    return out + ")";
  };
}

TESSERA_REGISTER_OBJECT_TYPE(InstructionKindNode);
TESSERA_REGISTER_NODE(InstructionKindNode)
    .getter("name", [](const InstructionKindNode* n) { return n->name; })
    .getter("is_pure", [](const InstructionKindNode* n) { return n->is_pure; });
TESSERA_REGISTER_GLOBAL("tir.schedule.InstructionKindGet").set_body_typed([](std::string name) {
  return InstructionKind::Get(name);
});
TESSERA_REGISTER_GLOBAL("tir.schedule.ListInstructionKinds").set_body_typed([]() {
  std::vector<std::string> names = InstructionKind::ListNames();
  return Array<String>(std::vector<String>(names.begin(), names.end()));
});

}  // namespace tir
}  // namespace tessera
