// Structural equality of IR: two nodes are equal when they have the same
// shape, types, constants and fields, with variables matched at their
// definition points (function parameters, loop variables, block iteration
// variables, let bindings, buffers), so names never matter. IR layer; used
// by tests (assert_structural_equal), passes and the tuning database.
//
// Each node type describes once, through StructuralTraits, which fields take
// part and which of them define variables; the equality here and the hash in
// structural_hash.h both walk those descriptions, so they always agree.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/any.h"
#include "runtime/array.h"
#include "runtime/map.h"

namespace tessera {

// ---- per-type descriptions --------------------------------------------------

// How a node type takes part in comparison.
enum class SNodeKind {
  kTree,       // equal when every listed field is equal
  kVar,        // a variable: dtype compared, identity matched through definitions
  kGlobalVar,  // a module-level function name: name compared, identity matched (IRModule maps them)
  kGraph,      // compared by content the first time it is met, then by correspondence (Buffer)
};

// A field: `def` marks a definition point (free variables in it are mapped
// to their counterparts instead of being required to be the same object).
struct SField {
  std::string name;
  std::function<Any(const Object*)> get;
  bool def = false;
};

struct SNodeTraits {
  SNodeKind kind = SNodeKind::kTree;
  std::vector<SField> fields;
};

class StructuralTraits {
 public:
  // The description of the node type (or of its nearest described ancestor);
  // nullptr when none is registered.
  static const SNodeTraits* Find(uint32_t type_index);
  // Adds a field (or sets the kind) of the description of `type_index`.
  static SNodeTraits& GetOrCreate(uint32_t type_index);
};

// Builder behind TESSERA_REGISTER_STRUCTURAL(Node):
//   .field("min", &ForNode::min).def("loop_var", &ForNode::loop_var)
//   .getter("kind", [](const ForNode* n) { return static_cast<int>(n->kind); })
template <typename NodeT>
class StructuralTraitsBuilder {
 public:
  static StructuralTraitsBuilder& Create() { return *new StructuralTraitsBuilder(); }
  StructuralTraitsBuilder& kind(SNodeKind k) {
    Entry().kind = k;
    return *this;
  }
  // `member` may belong to a base class of NodeT (e.g. PrimExprNode::dtype).
  template <typename M, typename C>
  StructuralTraitsBuilder& field(const char* name, M C::*member, bool is_def = false) {
    static_assert(std::is_base_of_v<C, NodeT>, "member of an unrelated class");
    Entry().fields.push_back(
        {name,
         [member](const Object* o) -> Any { return Any(static_cast<const NodeT*>(o)->*member); },
         is_def});
    return *this;
  }
  template <typename M, typename C>
  StructuralTraitsBuilder& def(const char* name, M C::*member) {
    return field(name, member, true);
  }
  template <typename F>
  StructuralTraitsBuilder& getter(const char* name, F f, bool is_def = false) {
    Entry().fields.push_back(
        {name, [f](const Object* o) -> Any { return Any(f(static_cast<const NodeT*>(o))); }, is_def});
    return *this;
  }

 private:
  SNodeTraits& Entry() { return StructuralTraits::GetOrCreate(NodeT::RuntimeTypeIndex()); }
};

#define TESSERA_STRUCTURAL_CONCAT_(a, b) a##b
#define TESSERA_STRUCTURAL_CONCAT(a, b) TESSERA_STRUCTURAL_CONCAT_(a, b)
#define TESSERA_REGISTER_STRUCTURAL(NodeT)                                                                \
  [[maybe_unused]] static auto& TESSERA_STRUCTURAL_CONCAT(_tessera_structural_, __COUNTER__) = \
      ::tessera::StructuralTraitsBuilder<NodeT>::Create()

// ---- equality -------------------------------------------------------------------

// True when `lhs` and `rhs` are structurally equal. Free variables (used but
// not defined inside the compared nodes) must be the same object, unless
// `map_free_vars`, in which case they are matched like definitions.
bool StructuralEqual(const Any& lhs, const Any& rhs, bool map_free_vars = false);

// The first difference found by StructuralEqual, in depth-first order.
struct StructuralMismatch {
  std::string path;    // e.g. root.functions["mm_relu"].body.block.body.seq[1].extent
  std::string reason;  // e.g. "values differ", "free variables are different objects"
  std::string lhs;     // the two sides at `path`, rendered
  std::string rhs;
  // The innermost IR nodes (not strings, arrays or maps) holding the
  // difference on each side, for underlining it in the printed IR.
  ObjectRef lhs_node;
  ObjectRef rhs_node;
};
std::optional<StructuralMismatch> GetFirstStructuralMismatch(const Any& lhs, const Any& rhs,
                                                             bool map_free_vars = false);

// Text of a node for messages: the TVMScript printer ("script.AsTVMScript")
// or "node.AsRepr" when registered, otherwise the type key and fields.
std::string RenderForMismatch(const Any& value);

}  // namespace tessera
