// Lexical scopes of the script evaluator: a stack of name -> value maps
// (function, loop and block bodies each push one), searched innermost first,
// then the caller's resolver for free names (closure, globals). Part of
// parser/core; dialect-neutral.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/any.h"

namespace tessera {
namespace script {

// Looks up a free name: returns its value, or nullopt when it is undefined.
using NameResolver = std::function<std::optional<Any>(const std::string& name)>;

class ScopeStack {
 public:
  void Push() { scopes_.emplace_back(); }
  void Pop() { scopes_.pop_back(); }
  void Clear() { scopes_.clear(); }
  bool empty() const { return scopes_.empty(); }
  // Binds `name` in the innermost scope.
  void Bind(const std::string& name, Any value) { scopes_.back()[name] = std::move(value); }
  // The innermost binding of `name`, or nullopt.
  std::optional<Any> Find(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return found->second;
    }
    return std::nullopt;
  }

 private:
  std::vector<std::unordered_map<std::string, Any>> scopes_;
};

}  // namespace script
}  // namespace tessera
