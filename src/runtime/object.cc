// Type registry of the object system (see object.h). Registration takes a
// lock; lookups by index read a fixed table without locking, since entries
// are written once before their index is published and never move.
#include "runtime/object.h"

#include <array>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tessera {
namespace {

struct TypeInfo {
  std::string key;
  uint32_t parent = 0;
  uint32_t depth = 0;
  bool final = false;
  Object* (*create)() = nullptr;
};

constexpr uint32_t kMaxTypes = 4096;

struct TypeTable {
  std::mutex mu;
  std::array<TypeInfo, kMaxTypes> infos;
  std::atomic<uint32_t> size{1};
  std::unordered_map<std::string, uint32_t> by_key{{"runtime.Object", 0}};
  TypeTable() { infos[0] = {"runtime.Object", 0, 0, false}; }
  static TypeTable* Global() {
    static TypeTable* table = new TypeTable();  // never destroyed: used at exit
    return table;
  }
  const TypeInfo& At(uint32_t index) const {
    TESSERA_ICHECK(index < size.load(std::memory_order_acquire)) << "unknown type index " << index;
    return infos[index];
  }
};

}  // namespace

namespace {
thread_local bool tls_destroying = false;
thread_local std::vector<const Object*>* tls_destroy_queue = nullptr;
}  // namespace

void Object::Destroy(const Object* obj) {
  if (tls_destroying) {
    if (tls_destroy_queue == nullptr) tls_destroy_queue = new std::vector<const Object*>();
    tls_destroy_queue->push_back(obj);
    return;
  }
  tls_destroying = true;
  delete obj;
  while (tls_destroy_queue != nullptr && !tls_destroy_queue->empty()) {
    const Object* next = tls_destroy_queue->back();
    tls_destroy_queue->pop_back();
    delete next;
  }
  if (tls_destroy_queue != nullptr && tls_destroy_queue->capacity() > 4096) {  // give back a deep chain's queue
    delete tls_destroy_queue;
    tls_destroy_queue = nullptr;
  }
  tls_destroying = false;
}

Object* Object::CloneImpl() const {
  TESSERA_ICHECK(false) << "objects of type " << GetTypeKey() << " cannot be copied";
  return nullptr;
}

uint32_t TypeRegistry::Register(const std::string& key, uint32_t parent, bool final, Object* (*create)()) {
  TypeTable* t = TypeTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->by_key.find(key);
  if (it != t->by_key.end()) {
    if (t->infos[it->second].create == nullptr) t->infos[it->second].create = create;
    return it->second;
  }
  uint32_t n = t->size.load(std::memory_order_relaxed);
  TESSERA_ICHECK(n < kMaxTypes) << "too many object types";
  TESSERA_ICHECK(parent < n) << "unknown parent type for " << key;
  TESSERA_ICHECK(!t->infos[parent].final)
      << "type " << key << " derives from final type " << t->infos[parent].key;
  t->infos[n] = {key, parent, t->infos[parent].depth + 1, final, create};
  t->by_key.emplace(key, n);
  t->size.store(n + 1, std::memory_order_release);
  return n;
}

Object* TypeRegistry::CreateDefault(uint32_t index) {
  Object* (*create)() = nullptr;
  {
    TypeTable* t = TypeTable::Global();
    std::lock_guard<std::mutex> lock(t->mu);
    if (index < t->size.load(std::memory_order_relaxed)) create = t->infos[index].create;
  }
  return create != nullptr ? create() : nullptr;
}

const std::string& TypeRegistry::KeyOf(uint32_t index) { return TypeTable::Global()->At(index).key; }

int64_t TypeRegistry::IndexOf(const std::string& key) {
  TypeTable* t = TypeTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->by_key.find(key);
  return it == t->by_key.end() ? -1 : static_cast<int64_t>(it->second);
}

uint32_t TypeRegistry::ParentOf(uint32_t index) { return TypeTable::Global()->At(index).parent; }

bool TypeRegistry::IsDerivedFrom(uint32_t child, uint32_t parent) {
  if (parent == kRootIndex) return true;
  const TypeTable* t = TypeTable::Global();
  uint32_t n = t->size.load(std::memory_order_acquire);
  if (child >= n || parent >= n) return false;
  uint32_t target_depth = t->infos[parent].depth;
  while (t->infos[child].depth > target_depth) child = t->infos[child].parent;
  return child == parent;
}

uint32_t TypeRegistry::NumTypes() { return TypeTable::Global()->size.load(std::memory_order_acquire); }

}  // namespace tessera
