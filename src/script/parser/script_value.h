// Values the TVMScript builders compute while walking the AST that are not
// IR nodes themselves: namespaces (T, T.axis, I, ...), Python slices,
// sub-regions of buffers (A[i, 0:16]), loop specifications (range, T.grid,
// T.thread_binding...) and bound methods (A.access_ptr). Script parser
// internals; they never escape into the IR.
#pragma once

#include <string>
#include <vector>

#include "tir/stmt.h"

namespace tessera {
namespace script {

// A dotted namespace path in canonical spelling ("T", "T.axis", "I", "R").
class NamespaceObj : public Object {
 public:
  std::string path;
  explicit NamespaceObj(std::string p) : path(std::move(p)) {}
  TESSERA_DECLARE_FINAL_OBJECT_INFO(NamespaceObj, Object, "script.Namespace");
};

// A Python slice lo:hi:step (each may be None).
class SliceObj : public Object {
 public:
  Any start, stop, step;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(SliceObj, Object, "script.Slice");
};

// A buffer indexed with at least one slice: A[vi, 0:128]. Becomes a
// BufferRegion in T.reads/T.writes, a vector load elsewhere.
class BufferSliceObj : public Object {
 public:
  tir::Buffer buffer;
  std::vector<PrimExpr> starts;
  std::vector<PrimExpr> extents;  // undefined for point indices
  std::vector<int64_t> steps;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(BufferSliceObj, Object, "script.BufferSlice");
};

// What a for loop iterates over: one or more ranges of one loop kind.
class LoopSpecObj : public Object {
 public:
  tir::ForKind kind = tir::ForKind::kSerial;
  std::vector<PrimExpr> mins, extents;
  std::string thread;
  Map<String, Any> annotations;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(LoopSpecObj, Object, "script.LoopSpec");
};

// `obj.method` waiting for its call (A.access_ptr, A.scope).
class BoundMethodObj : public Object {
 public:
  Any self;
  std::string name;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(BoundMethodObj, Object, "script.BoundMethod");
};

// A statement produced by a builtin call (T.evaluate).
class StmtValueObj : public Object {
 public:
  tir::Stmt stmt;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(StmtValueObj, Object, "script.StmtValue");
};

template <typename T>
ObjectRef AsRef(ObjectPtr<T> p) {
  return ObjectRef(ObjectPtr<Object>(std::move(p)));
}

}  // namespace script
}  // namespace tessera
