// Shape helpers shared by the Relax operator registrations (op/*.cc): int64
// dimension constants, products, NumPy broadcasting over symbolic dims with
// errors naming the op and operands, and the common dtype of operands.
// Relax IR layer.
#include <algorithm>

#include "arith/analyzer.h"
#include "relax/op/op_common.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

using tir::operator+;
using tir::operator-;
using tir::operator*;

PrimExpr Dim(int64_t v) { return IntImm(DataType::Int(64), v); }

std::optional<int64_t> ConstDim(const PrimExpr& d) {
  if (const auto* i = d.as<IntImmNode>()) return i->value;
  return std::nullopt;
}

PrimExpr ShapeProduct(const Array<PrimExpr>& dims) {
  PrimExpr p = Dim(1);
  for (const PrimExpr& d : dims) p = p * d;
  arith::Analyzer analyzer;
  return analyzer.Simplify(p);
}

StructInfo TensorSInfo(const std::optional<Array<PrimExpr>>& shape, DataType dtype, int ndim) {
  if (shape) return TensorStructInfo(ShapeExpr(*shape), dtype);
  return TensorStructInfo(dtype, ndim);
}

std::optional<Array<PrimExpr>> BroadcastShapes(const Call& call, const std::vector<const TensorStructInfoNode*>& ts,
                                               const std::vector<const char*>& names, int* ndim) {
  *ndim = 0;
  for (const auto* t : ts) {
    if (t->IsUnknownNdim()) {
      *ndim = StructInfoNode::kUnknownNDim;
      return std::nullopt;
    }
    *ndim = std::max(*ndim, t->ndim);
  }
  std::vector<Array<PrimExpr>> shapes;
  for (const auto* t : ts) {
    auto s = t->GetShape();
    if (!s) return std::nullopt;
    shapes.push_back(*s);
  }
  arith::Analyzer analyzer;
  std::vector<PrimExpr> out(*ndim);
  bool known = true;
  for (int k = 1; k <= *ndim; ++k) {
    std::optional<PrimExpr> cur;
    size_t cur_from = 0;
    for (size_t t = 0; t < shapes.size(); ++t) {
      int i = static_cast<int>(shapes[t].size()) - k;
      if (i < 0) continue;
      const PrimExpr& d = shapes[t][i];
      if (!cur || ConstDim(*cur) == 1) {
        cur = d;
        cur_from = t;
        continue;
      }
      if (ConstDim(d) == 1 || d.same_as(*cur) || analyzer.CanProveEqual(d, *cur)) continue;
      auto a = ConstDim(*cur), b = ConstDim(d);
      if (a && b) {
        TESSERA_THROW(ValueError) << OpName(call) << ": operands '" << names[cur_from] << "' "
                                  << StructInfoText(GetRef<StructInfo>(ts[cur_from])) << " and '" << names[t] << "' "
                                  << StructInfoText(GetRef<StructInfo>(ts[t]))
                                  << " cannot be broadcast: dimension " << *a << " vs " << *b << " (axis -" << k
                                  << ")";
      }
      known = false;  // symbolic dims not provably equal: TVM leaves the shape unknown
    }
    out[*ndim - k] = *cur;
  }
  if (!known) return std::nullopt;
  return Array<PrimExpr>(out.begin(), out.end());
}

DataType SameDType(const Call& call, const std::vector<const TensorStructInfoNode*>& ts,
                   const std::vector<const char*>& names) {
  for (const auto* t : ts) {
    if (t->IsUnknownDtype()) return DataType::Void();
  }
  for (size_t i = 1; i < ts.size(); ++i) {
    if (ts[i]->dtype != ts[0]->dtype) {
      TESSERA_THROW(TypeError) << OpName(call) << ": operands '" << names[0] << "' and '" << names[i]
                               << "' must have the same dtype, got " << ts[0]->dtype << " and " << ts[i]->dtype;
    }
  }
  return ts.empty() ? DataType::Void() : ts[0]->dtype;
}

}  // namespace relax
}  // namespace tessera
