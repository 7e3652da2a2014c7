// Scoped unique naming for the TVMScript printer (see name_table.h).
#include "script/printer/name_table.h"

#include "runtime/error.h"
#include "script/printer/python_literal.h"

namespace tessera {
namespace script {
namespace printer {

NameTable::NameTable() { scopes_.emplace_back(); }

void NameTable::Reserve(const std::string& name) { reserved_.insert(name); }

std::string NameTable::UniqueName(const std::string& hint, const std::string& fallback) const {
  std::string base = SanitizeIdentifier(hint, fallback);
  auto taken = [&](const std::string& n) { return used_.count(n) || reserved_.count(n) || IsPythonKeyword(n); };
  std::string name = base;
  for (int i = 1; taken(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

const std::string& NameTable::Define(const Object* obj, const std::string& hint, const std::string& fallback) {
  return DefineInScope(scopes_.size() - 1, obj, hint, fallback);
}

const std::string& NameTable::DefineInScope(size_t scope_index, const Object* obj, const std::string& hint,
                                            const std::string& fallback) {
  TESSERA_ICHECK(scope_index < scopes_.size()) << "name scope " << scope_index << " does not exist";
  std::string name = UniqueName(hint, fallback);
  std::string previous;
  auto it = names_.find(obj);
  if (it != names_.end()) previous = it->second;
  used_.insert(name);
  scopes_[scope_index].push_back(Entry{obj, name, previous});
  std::string& slot = names_[obj];
  slot = name;
  return slot;
}

const std::string* NameTable::Find(const Object* obj) const {
  auto it = names_.find(obj);
  return it == names_.end() ? nullptr : &it->second;
}

void NameTable::PushScope() { scopes_.emplace_back(); }

void NameTable::PopScope() {
  TESSERA_ICHECK(scopes_.size() > 1) << "popping the outermost name scope";
  std::vector<Entry>& entries = scopes_.back();
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    used_.erase(it->name);
    auto found = names_.find(it->obj);
    if (found != names_.end() && found->second == it->name) {
      if (it->previous.empty()) {
        names_.erase(found);
      } else {
        found->second = it->previous;
      }
    }
  }
  scopes_.pop_back();
}

}  // namespace printer
}  // namespace script
}  // namespace tessera
