// BufferScopes (see buffer_scopes.h): one post-order walk.
#include "tir/analysis/buffer_scopes.h"

#include "ir/type.h"
#include "tir/functor.h"

namespace tessera {
namespace tir {

std::unordered_map<const VarNode*, std::string> BufferScopes(const Stmt& stmt) {
  std::unordered_map<const VarNode*, std::string> out;
  auto note = [&](const VarNode* data, const std::string& scope, const std::string& name) {
    if (data == nullptr || scope.empty() || scope == "global") return;
    auto [it, inserted] = out.emplace(data, scope);
    TESSERA_CHECK_OR_THROW(inserted || it->second == scope, ValueError)
        << "buffer " << name << " is viewed with two storage scopes, \"" << it->second << "\" and \"" << scope << "\"";
  };
  auto note_buffer = [&](const Buffer& b) { note(b->data.get(), b->scope, b->name); };
  auto note_var = [&](const Var& v) {
    if (const auto* ptr = v->type_annotation.as<PointerTypeNode>()) note(v.get(), ptr->storage_scope, v->name_hint);
  };
  PostOrderVisit(stmt, [&](const ObjectRef& n) {
    if (const auto* a = n.as<AllocateNode>()) note_var(a->buffer_var);
    else if (const auto* s = n.as<BufferStoreNode>()) note_buffer(s->buffer);
    else if (const auto* l = n.as<BufferLoadNode>()) note_buffer(l->buffer);
    else if (const auto* d = n.as<DeclBufferNode>()) note_buffer(d->buffer);
    else if (const auto* b = n.as<BlockNode>()) {
      for (const Buffer& buf : b->alloc_buffers) note_buffer(buf);
    }
  });
  return out;
}

std::string ScopeOf(const std::unordered_map<const VarNode*, std::string>& scopes, const VarNode* data) {
  auto it = scopes.find(data);
  return it == scopes.end() ? std::string("global") : it->second;
}

}  // namespace tir
}  // namespace tessera
