// Buffer: a named multi-dimensional view of memory (data pointer, dtype,
// shape, strides, element offset, storage scope), plus the pieces that
// reference one: BufferLoad (an expression), BufferRegion (a rectangular
// sub-region, used by block reads/writes) and MatchBufferRegion. TIR layer.
#pragma once

#include "tir/expr.h"

namespace tessera {
namespace tir {

class BufferNode : public Object {
 public:
  Var data;                    // handle variable of the underlying allocation
  DataType dtype;
  Array<PrimExpr> shape;
  Array<PrimExpr> strides;     // empty: compact row-major
  PrimExpr elem_offset;
  std::string name;
  std::string scope = "global";
  int data_alignment = 64;
  int offset_factor = 1;
  Span span;
  // TVM's axis_separators: ascending positions in (0, ndim) that split the
  // axes into groups; FlattenBuffer flattens each group to one axis (empty:
  // flatten to 1-d). Kept by passes that rebuild a buffer (CopyAxisSeparators).
  Array<IntImm> axis_separators;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(BufferNode, Object, "tir.Buffer");
};

class Buffer : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Buffer, ObjectRef, BufferNode);
  TESSERA_DEFINE_OBJECT_REF_COW_METHOD(BufferNode);
  Buffer(Var data, DataType dtype, Array<PrimExpr> shape, Array<PrimExpr> strides, PrimExpr elem_offset,
         std::string name, std::string scope = "global", int data_alignment = 64, int offset_factor = 1,
         Span span = Span());
  const std::string& scope() const { return get()->scope; }
};

// `to` with `from`'s axis_separators (for passes that rebuild a buffer with
// the same axes); `to` unchanged when `from` has none.
Buffer CopyAxisSeparators(const Buffer& from, Buffer to);

// A pointer to the buffer's data for external calls (TVM's Buffer.access_ptr):
// tvm_access_ptr(type_annotation(dtype), data, elem_offset + offset, extent,
// mask) where mask is 1 for "r", 2 for "w", 3 for "rw".
PrimExpr BufferAccessPtr(const Buffer& buffer, const std::string& access_mask, PrimExpr offset = PrimExpr(),
                         PrimExpr extent = PrimExpr());

// A buffer with a fresh data variable (named after the buffer).
Buffer decl_buffer(Array<PrimExpr> shape, DataType dtype, std::string name, std::string scope = "global",
                  Span span = Span());

class BufferLoadNode : public PrimExprNode {
 public:
  Buffer buffer;
  Array<PrimExpr> indices;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(BufferLoadNode, PrimExprNode, "tir.BufferLoad");
};
class BufferLoad : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(BufferLoad, PrimExpr, BufferLoadNode);
  // Raises ValueError naming the buffer when the index count is wrong.
  BufferLoad(Buffer buffer, Array<PrimExpr> indices, Span span = Span());
};

class BufferRegionNode : public Object {
 public:
  Buffer buffer;
  Array<Range> region;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(BufferRegionNode, Object, "tir.BufferRegion");
};
class BufferRegion : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(BufferRegion, ObjectRef, BufferRegionNode);
  BufferRegion(Buffer buffer, Array<Range> region);
  static BufferRegion FullRegion(const Buffer& buffer);
  // The single point region[i] = [indices[i], indices[i] + 1).
  static BufferRegion FromPoint(const Buffer& buffer, const Array<PrimExpr>& indices);
};

class MatchBufferRegionNode : public Object {
 public:
  Buffer buffer;
  BufferRegion source;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(MatchBufferRegionNode, Object, "tir.MatchBufferRegion");
};
class MatchBufferRegion : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(MatchBufferRegion, ObjectRef, MatchBufferRegionNode);
  MatchBufferRegion(Buffer buffer, BufferRegion source);
};

}  // namespace tir
}  // namespace tessera
