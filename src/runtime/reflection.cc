// Storage of node registrations (see reflection.h). Registration takes a
// lock; the resolved view of a type (its ancestors' fields merged in) is
// built once under the lock and then read without locking.
#include "runtime/reflection.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace tessera {
namespace {

struct OwnInfo {
  std::deque<FieldInfo> fields;  // deque: stable addresses
  std::optional<SEqualKind> kind;
  std::function<ObjectRef(const ObjectRef&)> on_load;
};

constexpr uint32_t kMaxTypes = 4096;  // as the type table (object.cc)

struct NodeTable {
  std::mutex mu;
  std::unordered_map<uint32_t, OwnInfo> own;
  // Resolved views, published once built; a registration after a lookup
  // (a library loaded late) retires them (they stay allocated: readers may
  // still hold them).
  std::array<std::atomic<const NodeInfo*>, kMaxTypes> resolved{};
  std::atomic<bool> any_resolved{false};
  static NodeTable* Global() {
    static NodeTable* t = new NodeTable();  // never destroyed: used at exit
    return t;
  }
  void Retire() {
    if (!any_resolved.load(std::memory_order_acquire)) return;
    for (auto& r : resolved) r.store(nullptr, std::memory_order_release);
  }
};

}  // namespace

void Reflection::AddField(uint32_t type_index, FieldInfo field) {
  NodeTable* t = NodeTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  OwnInfo& own = t->own[type_index];
  for (const FieldInfo& f : own.fields) {
    TESSERA_ICHECK(f.name != field.name) << "field '" << field.name << "' of " << TypeRegistry::KeyOf(type_index)
                                         << " registered twice";
  }
  own.fields.push_back(std::move(field));
  t->Retire();
}

void Reflection::SetKind(uint32_t type_index, SEqualKind kind) {
  NodeTable* t = NodeTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  t->own[type_index].kind = kind;
  t->Retire();
}

void Reflection::SetOnLoad(uint32_t type_index, std::function<ObjectRef(const ObjectRef&)> hook) {
  NodeTable* t = NodeTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  t->own[type_index].on_load = std::move(hook);
  t->Retire();
}

const NodeInfo* Reflection::Find(uint32_t type_index) {
  NodeTable* t = NodeTable::Global();
  TESSERA_ICHECK(type_index < kMaxTypes) << "unknown type index " << type_index;
  if (const NodeInfo* r = t->resolved[type_index].load(std::memory_order_acquire)) {
    return r->type_index == kMaxTypes ? nullptr : r;
  }
  std::vector<uint32_t> chain;
  for (uint32_t i = type_index;; i = TypeRegistry::ParentOf(i)) {
    chain.push_back(i);
    if (i == TypeRegistry::kRootIndex) break;
  }
  std::reverse(chain.begin(), chain.end());  // root first
  std::lock_guard<std::mutex> lock(t->mu);
  auto* info = new NodeInfo();
  bool registered = false;
  for (uint32_t i : chain) {
    auto it = t->own.find(i);
    if (it == t->own.end()) continue;
    registered = true;
    if (it->second.kind) info->kind = *it->second.kind;
    for (const FieldInfo& f : it->second.fields) {
      // A type may re-register an ancestor's field to change its role (a
      // relax Var compares the struct info other expressions ignore): the
      // derived registration replaces the inherited one in place.
      auto same = std::find_if(info->fields.begin(), info->fields.end(),
                               [&](const FieldInfo* g) { return g->name == f.name; });
      if (same != info->fields.end()) {
        *same = &f;
      } else {
        info->fields.push_back(&f);
      }
    }
    if (i == type_index) info->on_load = it->second.on_load;
  }
  // An unregistered type is remembered as a marker (type_index kMaxTypes).
  info->type_index = registered ? type_index : kMaxTypes;
  t->resolved[type_index].store(info, std::memory_order_release);
  t->any_resolved.store(true, std::memory_order_release);
  return registered ? info : nullptr;
}

std::vector<const FieldInfo*> Reflection::ListFields(uint32_t type_index) {
  const NodeInfo* info = Find(type_index);
  return info ? info->fields : std::vector<const FieldInfo*>();
}

std::optional<Any> Reflection::GetField(const Object* obj, const std::string& name) {
  if (const NodeInfo* info = Find(obj->type_index())) {
    for (const FieldInfo* f : info->fields) {
      if (f->name == name) return f->getter(obj);
    }
  }
  return std::nullopt;
}

}  // namespace tessera
