// BufferScopes: the storage scope ("global", "shared", "shared.dyn",
// "local", ...) of every buffer data variable a statement uses, read from the
// data variable's PointerType and from the Buffers that view it (Tessera keeps
// the scope on the Buffer). TIR analysis; used by the CUDA code generator,
// KernelLaunchExtents and ThreadSync.
#pragma once

#include <string>
#include <unordered_map>

#include "tir/stmt.h"

namespace tessera {
namespace tir {

// data var -> scope, for variables with a non-"global" scope (absent means "global"). Raises ValueError naming
// the buffer when two views of one data variable disagree on a non-global scope.
std::unordered_map<const VarNode*, std::string> BufferScopes(const Stmt& stmt);

// The scope of `data` in `scopes` ("global" when absent).
std::string ScopeOf(const std::unordered_map<const VarNode*, std::string>& scopes, const VarNode* data);

}  // namespace tir
}  // namespace tessera
