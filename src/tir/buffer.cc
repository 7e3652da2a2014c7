// Buffer construction and checks, reflection and FFI (see buffer.h).
#include "tir/buffer.h"

#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "tir/op.h"

namespace tessera {
namespace tir {

Buffer::Buffer(Var data, DataType dtype, Array<PrimExpr> shape, Array<PrimExpr> strides, PrimExpr elem_offset,
               std::string name, std::string scope, int data_alignment, int offset_factor, Span span) {
  TESSERA_CHECK_OR_THROW(data.defined(), ValueError) << "buffer " << name << " needs a data variable";
  for (size_t i = 0; i < shape.size(); ++i) {
    PrimExpr s = shape[i];
    TESSERA_CHECK_OR_THROW(s.defined() && (s.dtype().is_int() || s.dtype().is_uint()) && s.dtype().is_scalar(),
                           TypeError)
        << "buffer " << name << ": shape[" << i << "] must be an integer expression"
        << (s.defined() ? ", got " + s.dtype().str() : std::string());
    if (const int64_t* v = AsConstInt(s)) {
      TESSERA_CHECK_OR_THROW(*v >= 0, ValueError) << "buffer " << name << ": shape[" << i << "] is negative (" << *v << ")";
    }
  }
  TESSERA_CHECK_OR_THROW(strides.empty() || strides.size() == shape.size(), ValueError)
      << "buffer " << name << " has " << strides.size() << " strides for " << shape.size() << " dimensions";
  auto n = make_object<BufferNode>();
  n->data = std::move(data);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->strides = std::move(strides);
  n->elem_offset = elem_offset.defined() ? std::move(elem_offset) : PrimExpr(IntImm(DataType::Int(32), 0));
  n->name = std::move(name);
  n->scope = scope.empty() ? "global" : std::move(scope);
  n->data_alignment = data_alignment;
  n->offset_factor = offset_factor;
  n->span = std::move(span);
  data_ = std::move(n);
}

Buffer decl_buffer(Array<PrimExpr> shape, DataType dtype, std::string name, std::string scope, Span span) {
  Var data(name, DataType::Handle(), span);
  return Buffer(data, dtype, std::move(shape), Array<PrimExpr>(), PrimExpr(), std::move(name), std::move(scope), 64,
                1, std::move(span));
}

PrimExpr BufferAccessPtr(const Buffer& buffer, const std::string& access_mask, PrimExpr offset, PrimExpr extent) {
  int mask = 0;
  for (char c : access_mask) {
    if (c == 'r') mask |= 1;
    else if (c == 'w') mask |= 2;
    else TESSERA_THROW(ValueError) << "access_ptr mask must use 'r' and 'w', got '" << access_mask << "'";
  }
  if (!extent.defined()) {
    if (buffer->strides.empty()) {
      extent = IntImm(DataType::Int(32), 1);
      for (PrimExpr s : buffer->shape) extent = mul(extent, s);
    } else {
      extent = buffer->shape.empty() ? PrimExpr(IntImm(DataType::Int(32), 1)) : mul(buffer->shape[0], buffer->strides[0]);
    }
  }
  PrimExpr off = offset.defined() ? add(buffer->elem_offset, offset) : buffer->elem_offset;
  PrimExpr type_annotation = CallIntrin(buffer->dtype, "tir.type_annotation", {});
  return CallIntrin(DataType::Handle(), "tir.tvm_access_ptr",
                    {type_annotation, buffer->data, off, extent, IntImm(DataType::Int(32), mask)});
}

BufferLoad::BufferLoad(Buffer buffer, Array<PrimExpr> indices, Span span) {
  TESSERA_CHECK_OR_THROW(buffer.defined(), ValueError) << "BufferLoad from an undefined buffer";
  TESSERA_CHECK_OR_THROW(indices.size() == buffer->shape.size(), ValueError)
      << "buffer " << buffer->name << " has " << buffer->shape.size() << " dimensions but is indexed with "
      << indices.size() << " indices";
  int lanes = 1;
  for (PrimExpr idx : indices) {
    TESSERA_CHECK_OR_THROW(idx.defined() && (idx.dtype().is_int() || idx.dtype().is_uint()), TypeError)
        << "buffer " << buffer->name << " is indexed with a non-integer expression"
        << (idx.defined() ? " of dtype " + idx.dtype().str() : std::string());
    if (idx.dtype().lanes() > 1) lanes = idx.dtype().lanes();
  }
  auto n = make_object<BufferLoadNode>();
  n->dtype = buffer->dtype.with_lanes(buffer->dtype.lanes() * lanes);
  n->buffer = std::move(buffer);
  n->indices = std::move(indices);
  n->span = std::move(span);
  data_ = std::move(n);
}

BufferRegion::BufferRegion(Buffer buffer, Array<Range> region) {
  TESSERA_CHECK_OR_THROW(buffer.defined(), ValueError) << "BufferRegion of an undefined buffer";
  TESSERA_CHECK_OR_THROW(region.size() == buffer->shape.size(), ValueError)
      << "region of buffer " << buffer->name << " has " << region.size() << " dimensions, the buffer "
      << buffer->shape.size();
  auto n = make_object<BufferRegionNode>();
  n->buffer = std::move(buffer);
  n->region = std::move(region);
  data_ = std::move(n);
}

BufferRegion BufferRegion::FullRegion(const Buffer& buffer) {
  Array<Range> region;
  for (PrimExpr s : buffer->shape) region.push_back(Range::FromMinExtent(IntImm(s.dtype(), 0), s));
  return BufferRegion(buffer, region);
}

BufferRegion BufferRegion::FromPoint(const Buffer& buffer, const Array<PrimExpr>& indices) {
  Array<Range> region;
  for (PrimExpr i : indices) region.push_back(Range::FromMinExtent(i, IntImm(i.dtype(), 1)));
  return BufferRegion(buffer, region);
}

MatchBufferRegion::MatchBufferRegion(Buffer buffer, BufferRegion source) {
  TESSERA_CHECK_OR_THROW(buffer.defined() && source.defined(), ValueError) << "MatchBufferRegion with undefined parts";
  TESSERA_CHECK_OR_THROW(buffer->dtype == source->buffer->dtype, TypeError)
      << "match_buffer " << buffer->name << " is " << buffer->dtype << " but its source "
      << source->buffer->name << " is " << source->buffer->dtype;
  auto n = make_object<MatchBufferRegionNode>();
  n->buffer = std::move(buffer);
  n->source = std::move(source);
  data_ = std::move(n);
}

Buffer CopyAxisSeparators(const Buffer& from, Buffer to) {
  if (from->axis_separators.empty() || to->axis_separators.same_as(from->axis_separators)) return to;
  to.CopyOnWrite()->axis_separators = from->axis_separators;
  return to;
}

TESSERA_REGISTER_OBJECT_TYPE(BufferNode);
TESSERA_REGISTER_OBJECT_TYPE(BufferLoadNode);
TESSERA_REGISTER_OBJECT_TYPE(BufferRegionNode);
TESSERA_REGISTER_OBJECT_TYPE(MatchBufferRegionNode);

// A buffer is compared by content where first met and by correspondence
// afterwards; its data variable and symbolic shape/strides/offset are
// defined there (the buffer map, alloc_buffers, match_buffers, DeclBuffer).
// Its name is NOT compared, as in TVM: buffers, like variables, are
// identified by where they are defined. Storage scope, alignment and offset
// factor are compared (TVM compares the scope through the data variable's
// pointer type).
TESSERA_REGISTER_NODE(BufferNode)
    .kind(SEqualKind::kGraph)
    .def("data", &BufferNode::data)
    .field("dtype", &BufferNode::dtype)
    .def("shape", &BufferNode::shape)
    .def("strides", &BufferNode::strides)
    .def("elem_offset", &BufferNode::elem_offset)
    .ignore("name", &BufferNode::name)
    .field("scope", &BufferNode::scope)
    .field("data_alignment", &BufferNode::data_alignment)
    .field("offset_factor", &BufferNode::offset_factor)
    .field("axis_separators", &BufferNode::axis_separators)
    .ignore("span", &BufferNode::span);
TESSERA_REGISTER_NODE(BufferLoadNode).field("buffer", &BufferLoadNode::buffer).field("indices", &BufferLoadNode::indices);
TESSERA_REGISTER_NODE(BufferRegionNode).field("buffer", &BufferRegionNode::buffer).field("region", &BufferRegionNode::region);
TESSERA_REGISTER_NODE(MatchBufferRegionNode)
    .def("buffer", &MatchBufferRegionNode::buffer)
    .field("source", &MatchBufferRegionNode::source);

TESSERA_REGISTER_GLOBAL("tir.Buffer")
    .set_body_typed([](Var data, DataType dtype, Array<PrimExpr> shape, Array<PrimExpr> strides,
                       std::optional<PrimExpr> elem_offset, std::string name, std::string scope, int align,
                       int offset_factor) {
      return Buffer(data, dtype, shape, strides, elem_offset.value_or(PrimExpr()), name, scope, align, offset_factor);
    });
TESSERA_REGISTER_GLOBAL("tir.decl_buffer").set_body_typed([](Array<PrimExpr> shape, DataType dtype, std::string name, std::string scope) {
  return decl_buffer(shape, dtype, name, scope);
});
TESSERA_REGISTER_GLOBAL("tir.BufferAccessPtr").set_body_typed([](Buffer b, std::string mask, std::optional<PrimExpr> offset,
                                                                  std::optional<PrimExpr> extent) {
  return BufferAccessPtr(b, mask, offset.value_or(PrimExpr()), extent.value_or(PrimExpr()));
});
TESSERA_REGISTER_GLOBAL("tir.BufferScope").set_body_typed([](Buffer b) { return b->scope; });
TESSERA_REGISTER_GLOBAL("tir.BufferLoad").set_body_typed([](Buffer b, Array<PrimExpr> idx) { return BufferLoad(b, idx); });
TESSERA_REGISTER_GLOBAL("tir.BufferRegion").set_body_typed([](Buffer b, Array<Range> r) { return BufferRegion(b, r); });
TESSERA_REGISTER_GLOBAL("tir.BufferRegion_FullRegion").set_body_typed([](Buffer b) { return BufferRegion::FullRegion(b); });
TESSERA_REGISTER_GLOBAL("tir.MatchBufferRegion").set_body_typed([](Buffer b, BufferRegion s) { return MatchBufferRegion(b, s); });

}  // namespace tir
}  // namespace tessera
