// Reflection: per node type, the named fields readable from outside C++
// (Python attribute access, generic printing/serialization). A node type
// lists its fields once with TESSERA_REGISTER_REFLECTION(Node).def_ro(...).
// Runtime layer; the bindings use it for `obj.field` in Python.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/any.h"

namespace tessera {

struct FieldInfo {
  std::string name;
  std::function<Any(const Object*)> getter;
};

class Reflection {
 public:
  static void AddField(uint32_t type_index, FieldInfo field);
  // Fields of a type including those of its ancestors (ancestors first).
  static std::vector<const FieldInfo*> ListFields(uint32_t type_index);
  // Reads a field; nullopt when the type has no field of that name.
  static std::optional<Any> GetField(const Object* obj, const std::string& name);
};

template <typename NodeT>
class ReflectionBuilder {
 public:
  static ReflectionBuilder& Create() { return *new ReflectionBuilder(); }
  template <typename M>
  ReflectionBuilder& def_ro(const char* name, M NodeT::*member) {
    Reflection::AddField(NodeT::RuntimeTypeIndex(),
                         {name, [member](const Object* o) -> Any {
                            return Any(static_cast<const NodeT*>(o)->*member);
                          }});
    return *this;
  }
  // A computed field.
  template <typename F>
  ReflectionBuilder& def_getter(const char* name, F f) {
    Reflection::AddField(NodeT::RuntimeTypeIndex(),
                         {name, [f](const Object* o) -> Any { return Any(f(static_cast<const NodeT*>(o))); }});
    return *this;
  }
};

}  // namespace tessera

#define TESSERA_REGISTER_REFLECTION(NodeT)                                                        \
  [[maybe_unused]] static auto& TESSERA_REFLECTION_CONCAT(_tessera_reflection_, __COUNTER__) = \
      ::tessera::ReflectionBuilder<NodeT>::Create()
#define TESSERA_REFLECTION_CONCAT_(a, b) a##b
#define TESSERA_REFLECTION_CONCAT(a, b) TESSERA_REFLECTION_CONCAT_(a, b)
