// Op registry and per-op attribute tables (see op.h).
#include "ir/op.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace {

struct OpTable {
  std::mutex mu;
  std::unordered_map<std::string, OpRegEntry*> entries;
  // attr name -> (op node -> (value, plevel))
  std::unordered_map<std::string, std::unordered_map<const Object*, std::pair<Any, int>>> attrs;
  static OpTable* Global() {
    static OpTable* t = new OpTable();
    return t;
  }
};

}  // namespace

OpRegEntry& OpRegEntry::RegisterOrGet(const std::string& name) {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->entries.find(name);
  if (it != t->entries.end()) return *it->second;
  auto n = make_object<OpNode>();
  n->name = name;
  auto* entry = new OpRegEntry(Op(ObjectPtr<Object>(std::move(n))));
  t->entries.emplace(name, entry);
  return *entry;
}

OpRegEntry& OpRegEntry::describe(const std::string& d) {
  const_cast<OpNode*>(op_.get())->description = d;
  return *this;
}

OpRegEntry& OpRegEntry::set_num_inputs(int n) {
  const_cast<OpNode*>(op_.get())->num_inputs = n;
  return *this;
}

OpRegEntry& OpRegEntry::set_attr(const std::string& attr, Any value, int plevel) {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto& table = t->attrs[attr];
  auto it = table.find(op_.get());
  if (it != table.end() && it->second.second > plevel) return *this;
  table[op_.get()] = {std::move(value), plevel};
  return *this;
}

Op Op::Get(const std::string& name) {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->entries.find(name);
  if (it == t->entries.end()) TESSERA_THROW(ValueError) << "operator '" << name << "' is not registered";
  return it->second->op();
}

bool Op::Exists(const std::string& name) {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  return t->entries.count(name) > 0;
}

std::vector<std::string> Op::ListNames() {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  std::vector<std::string> names;
  for (const auto& kv : t->entries) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<Any> Op::GetAttr(const std::string& attr) const {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->attrs.find(attr);
  if (it == t->attrs.end()) return std::nullopt;
  auto jt = it->second.find(get());
  if (jt == it->second.end()) return std::nullopt;
  return jt->second.first;
}

TESSERA_REGISTER_OBJECT_TYPE(OpNode);
TESSERA_REGISTER_REFLECTION(OpNode)
    .def_ro("name", &OpNode::name)
    .def_ro("description", &OpNode::description)
    .def_ro("num_inputs", &OpNode::num_inputs);
TESSERA_REGISTER_GLOBAL("ir.GetOp").set_body_typed([](std::string name) { return Op::Get(name); });
TESSERA_REGISTER_GLOBAL("ir.ListOpNames").set_body_typed([]() {
  std::vector<std::string> names = Op::ListNames();
  return Array<String>(names.begin(), names.end());
});
TESSERA_REGISTER_GLOBAL("ir.OpGetAttr").set_body_typed([](Op op, std::string attr) -> Any {
  auto v = op.GetAttr(attr);
  return v ? *v : Any();
});

}  // namespace tessera
