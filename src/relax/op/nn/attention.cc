// relax.nn.attention(query, key, value[, bias]; scale, causal_mask, window_size) (TVM's
// relax/op/nn/attention.cc): softmax(Q K^T * scale + bias) V over (batch, seq, heads, head_dim)
// tensors, the bias (batch, heads, seq, seq_kv) with dims of 1 broadcast, an optional causal mask
// aligned top-left or bottom-right. Struct-info inference here; the legalization to TE is in
// python/tessera/relax/op/nn/attention.py.
#include "arith/analyzer.h"
#include "relax/op/nn/nn_attrs.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

namespace {

StructInfo InferAttention(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 3, 4);
  static const char* const kNames[] = {"query", "key", "value", "bias"};
  std::vector<const TensorStructInfoNode*> ts;
  for (size_t i = 0; i < call->args.size(); ++i) {
    ts.push_back(ArgSInfoAs<TensorStructInfoNode>(call, static_cast<int>(i), kNames[i], "a tensor"));
    if (!ts[i]->IsUnknownNdim() && ts[i]->ndim != 4) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand '" << kNames[i] << "' must be 4-D ("
                                << (i == 3 ? "batch, heads, seq, seq_kv" : "batch, seq, heads, head_dim") << "), got "
                                << ts[i]->ndim << " dimensions";
    }
  }
  DataType dtype = SameDType(call, {ts.begin(), ts.begin() + 3}, {"query", "key", "value"});
  std::string causal = nn_attrs::Str(call, "causal_mask");
  if (!causal.empty() && causal != "TopLeft" && causal != "BottomRight") {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'causal_mask' must be None, \"TopLeft\" or "
                              << "\"BottomRight\", got \"" << causal << "\"";
  }
  if (nn_attrs::Find(call, "window_size")) {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'window_size' is not supported (only None)";
  }
  std::vector<Array<PrimExpr>> shapes;
  for (const auto* t : ts) {
    auto s = t->GetShape();
    if (!s) return TensorStructInfo(dtype, 4);
    shapes.push_back(*s);
  }
  const Array<PrimExpr>&q = shapes[0], &k = shapes[1], &v = shapes[2];
  arith::Analyzer analyzer;
  auto require = [&](const PrimExpr& a, const PrimExpr& b, const std::string& what) {
    if (analyzer.CanProve(tir::not_equal(a, b))) {
      TESSERA_THROW(ValueError) << OpName(call) << ": " << what << " differ (" << nn_attrs::DimText(a) << " vs "
                                << nn_attrs::DimText(b) << ")";
    }
  };
  require(q[0], k[0], "the batch sizes of 'query' and 'key'");
  require(q[0], v[0], "the batch sizes of 'query' and 'value'");
  require(q[2], k[2], "the head counts of 'query' and 'key'");
  require(q[2], v[2], "the head counts of 'query' and 'value'");
  require(q[3], k[3], "the head sizes of 'query' and 'key'");
  require(k[1], v[1], "the sequence lengths of 'key' and 'value'");
  if (shapes.size() == 4) {
    const Array<PrimExpr>& b = shapes[3];
    const PrimExpr want[] = {q[0], q[2], q[1], k[1]};
    static const char* const kDims[] = {"batch", "heads", "seq", "seq_kv"};
    for (int d = 0; d < 4; ++d) {
      if (!analyzer.CanProveEqual(b[d], Dim(1))) {
        require(b[d], want[d], std::string("dimension ") + std::to_string(d) + " (" + kDims[d] +
                                   ") of 'bias' and the attention's");
      }
    }
  }
  return TensorStructInfo(ShapeExpr({q[0], q[1], q[2], v[3]}), dtype);
}

static auto& reg_attention = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.nn.attention")
                   .set_num_inputs(4)
                   .describe("softmax(query key^T * scale + bias) value over (batch, seq, heads, head_dim) "
                             "tensors, optionally causal."),
               InferAttention, true),
    {{"scale", Any()}, {"causal_mask", Any()}, {"window_size", Any()}});

}  // namespace

}  // namespace relax
}  // namespace tessera
