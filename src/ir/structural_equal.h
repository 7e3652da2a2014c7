// Structural equality of IR: two nodes are equal when they have the same
// shape, types, constants and fields, with variables matched at their
// definition points (function parameters, loop variables, block iteration
// variables, let bindings, buffers), so names never matter. IR layer; used
// by tests (assert_structural_equal), passes and the tuning database.
//
// Each node type registers its fields once (TESSERA_REGISTER_NODE,
// runtime/reflection.h) with their role: compared, defining variables, or
// ignored; the equality here and the hash in structural_hash.h both walk
// that registration, so they always agree.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/any.h"
#include "runtime/array.h"
#include "runtime/map.h"
#include "runtime/reflection.h"

namespace tessera {

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
