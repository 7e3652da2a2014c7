// CodeGenCUDA's 128-bit accesses (see codegen_cuda.h): a store of 4 lanes of a
// 32-bit type at consecutive elements (a vectorized loop's Ramp) is one float4 /
// int4 / uint4 store, and each load of 4 consecutive 32-bit elements in its value
// one 128-bit load, when every address is 16-byte aligned at run time (arrays
// from the allocator are; a view at an odd offset takes the lane-by-lane path
// CodeGenC prints). The default GPU schedule's elementwise rule makes such loops.
#include <vector>

#include "codegen/cuda/codegen_cuda.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

namespace {

constexpr int kLanes = 4;
constexpr size_t kMaxVectorLoads = 8;

// "float4", "int4", "uint4" for 4 lanes of a 32-bit type; "" otherwise.
std::string VectorType(DataType t) {
  if (t.lanes() != kLanes || t.bits() != 32) return "";
  if (t.is_float()) return "float4";
  if (t.is_int()) return "int4";
  if (t.is_uint()) return "uint4";
  return "";
}

}  // namespace

std::optional<PrimExpr> CodeGenCUDA::ConsecutiveBase(const Buffer& buffer, const Array<PrimExpr>& indices, DataType t) {
  if (VectorType(t).empty() || buffer->dtype.bits() != 32 || buffer->dtype.lanes() != 1) return std::nullopt;
  PrimExpr index = FlatIndex(buffer, indices);
  const auto* ramp = index.as<RampNode>();
  if (ramp == nullptr || ramp->lanes != kLanes || !IsConstInt(ramp->stride, 1)) return std::nullopt;
  return ramp->base;
}

bool CodeGenCUDA::EmitVectorStore(const BufferStoreNode* op) {
  if (bound_check_) return false;
  std::optional<PrimExpr> base = ConsecutiveBase(op->buffer, op->indices, op->value.dtype());
  if (!base || op->buffer->dtype != op->value.dtype().element_of()) return false;
  std::vector<std::pair<const BufferLoadNode*, PrimExpr>> loads;
  PostOrderVisit(op->value, [&](const ObjectRef& n) {
    const auto* load = n.as<BufferLoadNode>();
    if (load == nullptr || loads.size() >= kMaxVectorLoads) return;
    if (std::optional<PrimExpr> b = ConsecutiveBase(load->buffer, load->indices, load->dtype)) loads.emplace_back(load, *b);
  });
  const std::string elem = ValueType(op->buffer->dtype), vtype = VectorType(op->value.dtype());
  Line("{");
  ++indent_;
  std::string store_ptr = FreshName("vst");
  Line(elem + "* " + store_ptr + " = &" + LookupBuffer(op->buffer).name + "[" + VisitExpr(*base) + "];");
  std::string aligned = "(unsigned long long)" + store_ptr;
  std::vector<std::string> load_ptrs;
  for (const auto& [load, load_base] : loads) {
    std::string p = FreshName("vld");
    Line("const " + ValueType(load->dtype.element_of()) + "* " + p + " = &" + LookupBuffer(load->buffer).name + "[" +
         VisitExpr(load_base) + "];");
    aligned += " | (unsigned long long)" + p;
    load_ptrs.push_back(p);
  }
  Line("if (((" + aligned + ") & 15ULL) == 0ULL) {");
  ++indent_;
  for (size_t k = 0; k < loads.size(); ++k) {
    std::string v = FreshName("v");
    std::string t = VectorType(loads[k].first->dtype);
    Line(t + " " + v + " = *(const " + t + "*)" + load_ptrs[k] + ";");
    vector_loads_[loads[k].first] = v;
  }
  std::string values = FreshName("vval");
  lane_ = FreshName("lane");
  Line(vtype + " " + values + ";");
  Line("#pragma unroll");
  Line("for (int32_t " + lane_ + " = 0; " + lane_ + " < " + std::to_string(kLanes) + "; ++" + lane_ + ") ((" + elem +
       "*)&" + values + ")[" + lane_ + "] = " + ToStorage(VisitExpr(op->value), op->buffer->dtype) + ";");
  Line("*(" + vtype + "*)" + store_ptr + " = " + values + ";");
  lane_.clear();
  vector_loads_.clear();
  --indent_;
  Line("} else {");
  ++indent_;
  CodeGenC::VisitStmt_(op);
  --indent_;
  Line("}");
  --indent_;
  Line("}");
  return true;
}

void CodeGenCUDA::VisitStmt_(const BufferStoreNode* op) {
  if (!EmitVectorStore(op)) CodeGenC::VisitStmt_(op);
}

std::string CodeGenCUDA::VisitExpr_(const BufferLoadNode* op) {
  auto it = vector_loads_.find(op);
  if (it == vector_loads_.end() || lane_.empty()) return CodeGenC::VisitExpr_(op);
  return "((const " + ValueType(op->dtype.element_of()) + "*)&" + it->second + ")[" + lane_ + "]";
}

}  // namespace codegen
}  // namespace tessera
