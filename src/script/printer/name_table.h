// Scoped, unique names for the variables and buffers a TVMScript printout
// defines. A name is taken from the object's hint, made a valid identifier,
// and suffixed (_1, _2, ...) while another live definition holds it; names
// are released when their scope closes, so sibling loops can both use `i`.
// Script layer (printer).
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/object.h"

namespace tessera {
namespace script {
namespace printer {

class NameTable {
 public:
  NameTable();

  // Keeps `name` from ever being handed out (e.g. the "T" prefix).
  void Reserve(const std::string& name);
  // Defines `obj` in the innermost scope (or in scope `scope_index`, counted
  // from the outermost) under a unique name derived from `hint`.
  const std::string& Define(const Object* obj, const std::string& hint, const std::string& fallback = "v");
  const std::string& DefineInScope(size_t scope_index, const Object* obj, const std::string& hint,
                                   const std::string& fallback = "v");
  // The live name of `obj`, or nullptr.
  const std::string* Find(const Object* obj) const;
  bool IsDefined(const Object* obj) const { return Find(obj) != nullptr; }

  void PushScope();
  // Releases the names defined in the innermost scope (restoring a previous
  // definition of the same object, if it was redefined).
  void PopScope();
  size_t depth() const { return scopes_.size(); }

 private:
  struct Entry {
    const Object* obj;
    std::string name;
    std::string previous;  // the object's name before this definition ("" if none)
  };
  std::string UniqueName(const std::string& hint, const std::string& fallback) const;

  std::unordered_map<const Object*, std::string> names_;
  std::unordered_set<std::string> used_;
  std::unordered_set<std::string> reserved_;
  std::vector<std::vector<Entry>> scopes_;
};

// Opens a NameTable scope for the lifetime of the guard.
class NameScope {
 public:
  explicit NameScope(NameTable* table) : table_(table) { table_->PushScope(); }
  ~NameScope() { table_->PopScope(); }
  NameScope(const NameScope&) = delete;
  NameScope& operator=(const NameScope&) = delete;

 private:
  NameTable* table_;
};

}  // namespace printer
}  // namespace script
}  // namespace tessera
