// Global function registry storage (see registry.h).
#include "runtime/registry.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace tessera {
namespace {

struct RegistryTable {
  std::mutex mu;
  std::unordered_map<std::string, PackedFunc> funcs;
  static RegistryTable* Global() {
    static RegistryTable* t = new RegistryTable();  // intentionally leaked: used at exit
    return t;
  }
};

}  // namespace

void Registry::Set(const std::string& name, PackedFunc f, bool override) {
  TESSERA_CHECK_OR_THROW(f.defined(), ValueError) << "cannot register an undefined function as '" << name << "'";
  RegistryTable* t = RegistryTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->funcs.find(name);
  if (it != t->funcs.end() && !override) {
    TESSERA_THROW(ValueError) << "global function '" << name
                              << "' is already registered (pass override=True to replace it)";
  }
  t->funcs[name] = std::move(f);
}

std::optional<PackedFunc> Registry::Get(const std::string& name) {
  RegistryTable* t = RegistryTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->funcs.find(name);
  if (it == t->funcs.end()) return std::nullopt;
  return it->second;
}

PackedFunc Registry::GetOrThrow(const std::string& name) {
  auto f = Get(name);
  if (!f) TESSERA_THROW(ValueError) << "global function '" << name << "' is not registered";
  return *f;
}

bool Registry::Remove(const std::string& name) {
  RegistryTable* t = RegistryTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  return t->funcs.erase(name) > 0;
}

std::vector<std::string> Registry::ListNames() {
  RegistryTable* t = RegistryTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  std::vector<std::string> names;
  names.reserve(t->funcs.size());
  for (const auto& kv : t->funcs) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tessera
