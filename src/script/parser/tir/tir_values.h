// Values of the TIR dialect (parser/tir) that the evaluator carries between
// expressions and statements but that are not IR nodes themselves:
// sub-regions of buffers (A[i, 0:16]), loop specifications (range, T.grid,
// T.thread_binding...), bound methods (A.access_ptr), statements made by
// builtins (T.evaluate) and allocations waiting for their name (T.allocate,
// T.decl_buffer). Script parser internals; they never escape into the IR.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "script/parser/core/values.h"
#include "tir/stmt.h"

namespace tessera {
namespace script {

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

// T.allocate(...) or T.decl_buffer(...) before it is bound by `x = ...` or
// `with ... as x:`; the statement it makes wraps the rest of the body (or
// the with body). For T.decl_buffer(..., data=X) only a DeclBuffer is made.
class AllocValueObj : public Object {
 public:
  tir::Var data;  // the handle the Allocate defines
  DataType dtype;
  Array<PrimExpr> extents;
  PrimExpr condition;
  Map<String, Any> annotations;
  std::string scope = "global";       // T.allocate: the storage scope (the data variable's PointerType)
  std::optional<tir::Buffer> buffer;  // T.decl_buffer: the declared buffer
  bool allocates = true;              // false for T.decl_buffer(..., data=X)
  TESSERA_DECLARE_FINAL_OBJECT_INFO(AllocValueObj, Object, "script.AllocValue");
};

// A statement that encloses what follows it: the rest of the body for a bare
// T.attr(...) / T.launch_thread(...) / x = T.launch_thread(...), the with body
// for `with T.attr(...):`, `with T.launch_thread(...) as x:`,
// `with T.LetStmt(v) as x:`, `with T.realize(...)`.
class ScopeStmtValueObj : public Object {
 public:
  std::function<tir::Stmt(tir::Stmt)> wrap;
  Any bound;         // what `as x` / `x = ...` names (a thread or let variable); None when nothing
  std::string what;  // the builtin, for messages
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ScopeStmtValueObj, Object, "script.ScopeStmtValue");
};

}  // namespace script
}  // namespace tessera
