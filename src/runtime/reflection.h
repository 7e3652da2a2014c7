// Node registration: the one place where a node type lists its fields, each
// with its role in structural equality (a definition point, an ordinary
// field, or ignored). Python attribute access, structural equality/hash,
// generic printing and JSON serialization all read this one list.
// Runtime layer; a node registers in the file that defines it:
//   TESSERA_REGISTER_NODE(ForNode).def("loop_var", &ForNode::loop_var).field("min", &ForNode::min)...
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/any.h"

namespace tessera {

// Role of a field in structural equality and hashing.
enum class FieldRole : uint8_t {
  kField,    // compared; free variables in it must correspond
  kDef,      // a definition point: variables met in it are mapped to their counterparts
  kIgnored,  // readable (Python, JSON) but not compared (spans, variable names)
};

// How nodes of a type compare as a whole.
enum class SEqualKind : uint8_t {
  kTree,       // equal when every compared field is equal
  kVar,        // a variable: fields compared, identity matched through definitions
  kGlobalVar,  // a module-level function name: as kVar (IRModule maps them by name)
  kGraph,      // compared by content the first time it is met, then by correspondence (Buffer)
};

struct FieldInfo {
  std::string name;
  FieldRole role = FieldRole::kField;
  std::function<Any(const Object*)> getter;
  // Writes a field of a node under construction (JSON loading); raises
  // TypeError on a value of the wrong type. Empty for computed fields.
  std::function<void(Object*, const Any&)> setter;
};

// What is registered for a type, its ancestors' fields included (ancestors
// first, then in registration order).
struct NodeInfo {
  uint32_t type_index = 0;
  SEqualKind kind = SEqualKind::kTree;
  std::vector<const FieldInfo*> fields;
  // The type's own (not inherited) hook run on a node just loaded from
  // JSON: returns the node to use (a registered singleton such as an Op,
  // or the node itself after rebuilding derived state); may raise ValueError.
  std::function<ObjectRef(const ObjectRef&)> on_load;
};

class Reflection {
 public:
  static void AddField(uint32_t type_index, FieldInfo field);
  static void SetKind(uint32_t type_index, SEqualKind kind);
  static void SetOnLoad(uint32_t type_index, std::function<ObjectRef(const ObjectRef&)> hook);
  // The registration of the type; nullptr when neither it nor an ancestor
  // registered anything. Reads take no lock once a type has been looked up.
  static const NodeInfo* Find(uint32_t type_index);
  // Fields of a type including those of its ancestors (ancestors first).
  static std::vector<const FieldInfo*> ListFields(uint32_t type_index);
  // Reads a field; nullopt when the type has no field of that name.
  static std::optional<Any> GetField(const Object* obj, const std::string& name);
};

namespace reflection_detail {
template <typename M>
Any ToAny(const M& value) {
  if constexpr (std::is_enum_v<M>) {
    return Any(static_cast<std::underlying_type_t<M>>(value));
  } else {
    return Any(value);
  }
}
template <typename M>
std::function<void(Object*, const Any&)> MakeSetter(std::function<void(Object*, M)> assign) {
  if constexpr (std::is_enum_v<M>) {
    return [assign](Object* o, const Any& v) {
      assign(o, static_cast<M>(v.cast<std::underlying_type_t<M>>()));
    };
  } else if constexpr (requires(const Any& a) { AnyConverter<M>::Convert(a); }) {
    return [assign](Object* o, const Any& v) { assign(o, v.cast<M>()); };
  } else {
    return nullptr;  // a member type Any cannot produce: read-only
  }
}
}  // namespace reflection_detail

// Builder behind TESSERA_REGISTER_NODE. `member` may belong to a base class
// of NodeT (e.g. PrimExprNode::dtype), registered here to fix its position.
template <typename NodeT>
class NodeRegistration {
 public:
  static NodeRegistration& Create() {
    (void)NodeT::RuntimeTypeIndex();  // register the type key eagerly
    return *new NodeRegistration();
  }
  // An ordinary field.
  template <typename M, typename C>
  NodeRegistration& field(const char* name, M C::*member) {
    return Add(name, member, FieldRole::kField);
  }
  // A field that defines variables (loop variable, parameters, buffers).
  template <typename M, typename C>
  NodeRegistration& def(const char* name, M C::*member) {
    return Add(name, member, FieldRole::kDef);
  }
  // A field that structural equality and hashing skip (span, name hints).
  template <typename M, typename C>
  NodeRegistration& ignore(const char* name, M C::*member) {
    return Add(name, member, FieldRole::kIgnored);
  }
  // A computed, read-only field (not loadable from JSON).
  template <typename F>
  NodeRegistration& getter(const char* name, F f, FieldRole role = FieldRole::kField) {
    Reflection::AddField(NodeT::RuntimeTypeIndex(),
                         {name, role, [f](const Object* o) -> Any { return Any(f(static_cast<const NodeT*>(o))); },
                          nullptr});
    return *this;
  }
  NodeRegistration& kind(SEqualKind k) {
    Reflection::SetKind(NodeT::RuntimeTypeIndex(), k);
    return *this;
  }
  // What a node loaded from JSON becomes (see NodeInfo::on_load).
  NodeRegistration& on_load(std::function<ObjectRef(const ObjectRef&)> hook) {
    Reflection::SetOnLoad(NodeT::RuntimeTypeIndex(), std::move(hook));
    return *this;
  }
 private:
  template <typename M, typename C>
  NodeRegistration& Add(const char* name, M C::*member, FieldRole role) {
    static_assert(std::is_base_of_v<C, NodeT>, "member of an unrelated class");
    FieldInfo info;
    info.name = name;
    info.role = role;
    info.getter = [member](const Object* o) -> Any {
      return reflection_detail::ToAny(static_cast<const NodeT*>(o)->*member);
    };
    info.setter = reflection_detail::MakeSetter<M>(
        [member](Object* o, M v) { static_cast<NodeT*>(o)->*member = std::move(v); });
    Reflection::AddField(NodeT::RuntimeTypeIndex(), std::move(info));
    return *this;
  }
};

}  // namespace tessera

#define TESSERA_REFLECTION_CONCAT_(a, b) a##b
#define TESSERA_REFLECTION_CONCAT(a, b) TESSERA_REFLECTION_CONCAT_(a, b)
#define TESSERA_REGISTER_NODE(NodeT)                                                        \
  [[maybe_unused]] static auto& TESSERA_REFLECTION_CONCAT(_tessera_node_reg_, __COUNTER__) = \
      ::tessera::NodeRegistration<NodeT>::Create()
