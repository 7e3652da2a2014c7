// Storage of reflected fields (see reflection.h).
#include "runtime/reflection.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace tessera {
namespace {

struct FieldTable {
  std::mutex mu;
  std::unordered_map<uint32_t, std::deque<FieldInfo>> fields;  // deque: stable addresses
  static FieldTable* Global() {
    static FieldTable* t = new FieldTable();
    return t;
  }
};

}  // namespace

void Reflection::AddField(uint32_t type_index, FieldInfo field) {
  FieldTable* t = FieldTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  t->fields[type_index].push_back(std::move(field));
}

std::vector<const FieldInfo*> Reflection::ListFields(uint32_t type_index) {
  std::vector<uint32_t> chain;
  for (uint32_t i = type_index;; i = TypeRegistry::ParentOf(i)) {
    chain.push_back(i);
    if (i == TypeRegistry::kRootIndex) break;
  }
  std::reverse(chain.begin(), chain.end());
  FieldTable* t = FieldTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  std::vector<const FieldInfo*> out;
  for (uint32_t i : chain) {
    auto it = t->fields.find(i);
    if (it == t->fields.end()) continue;
    for (const FieldInfo& f : it->second) out.push_back(&f);
  }
  return out;
}

std::optional<Any> Reflection::GetField(const Object* obj, const std::string& name) {
  for (const FieldInfo* f : ListFields(obj->type_index())) {
    if (f->name == name) return f->getter(obj);
  }
  return std::nullopt;
}

}  // namespace tessera
