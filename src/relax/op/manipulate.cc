// Tensor-manipulation Relax operators (TVM's relax/op/tensor/manipulate.cc):
// permute_dims, reshape (-1 inferred; shape a ShapeExpr or a shape var),
// expand_dims, squeeze, concat, split (result a tuple), flatten, broadcast_to,
// with struct-info inference over symbolic dims. Relax IR layer; legalization
// to TOPI in python/tessera/relax/op/manipulate.py.
#include <algorithm>

#include "arith/analyzer.h"
#include "relax/op/op_common.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

using tir::operator+;
using tir::operator-;
using tir::operator*;

namespace {

#define TESSERA_RELAX_MANIP_OP(NAME, NUM_INPUTS, INFER, DESC, ...)                                          \
  static auto& reg_manip_##NAME = SetAttrSignature(                                                        \
      SetRelaxOp(OpRegEntry::RegisterOrGet("relax." #NAME).set_num_inputs(NUM_INPUTS).describe(DESC), INFER, \
                 true),                                                                                    \
      __VA_ARGS__)

// ---- permute_dims(x, axes=None) ----
StructInfo InferPermuteDims(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  auto axes = AttrOptInts(call, "axes");
  if (x->IsUnknownNdim()) {
    return TensorStructInfo(x->dtype, axes ? static_cast<int>(axes->size()) : StructInfoNode::kUnknownNDim);
  }
  std::vector<int> perm;
  if (axes) {
    if (static_cast<int>(axes->size()) != x->ndim) {
      TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'axes' has " << axes->size()
                                << " entries but operand 'x' has " << x->ndim << " dimensions";
    }
    perm = NormalizeAxes(call, *axes, x->ndim, "axes", "x");
  } else {
    for (int i = x->ndim - 1; i >= 0; --i) perm.push_back(i);
  }
  auto shape = x->GetShape();
  if (!shape) return TensorStructInfo(x->dtype, x->ndim);
  Array<PrimExpr> out;
  for (int p : perm) out.push_back((*shape)[p]);
  return TensorStructInfo(ShapeExpr(out), x->dtype);
}
TESSERA_RELAX_MANIP_OP(permute_dims, 1, InferPermuteDims, "Permutes the dimensions of x (reversed when axes is None).",
                       {{"axes", Any()}});

// ---- reshape(x, shape) ----
StructInfo InferReshape(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  const auto* target = ArgSInfoAs<ShapeStructInfoNode>(call, 1, "shape", "a shape (R.shape or a shape var)");
  std::optional<Array<PrimExpr>> values = target->values;
  if (const auto* se = call->args[1].as<ShapeExprNode>()) values = se->values;
  if (!values) {
    // A shape var of unknown values: its struct info carries the result's shape.
    if (!call->args[1].as<ShapeExprNode>() && target->ndim != StructInfoNode::kUnknownNDim) {
      return TensorStructInfo(call->args[1], x->dtype);
    }
    return TensorStructInfo(x->dtype, target->ndim);
  }
  Array<PrimExpr> dims = *values;
  int infer_at = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    auto c = ConstDim(dims[i]);
    if (c && *c == -1) {
      if (infer_at >= 0) {
        TESSERA_THROW(ValueError) << OpName(call) << ": operand 'shape' has more than one -1";
      }
      infer_at = static_cast<int>(i);
    } else if (c && *c < 0) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand 'shape' has the negative dimension " << *c;
    }
  }
  auto xs = x->GetShape();
  arith::Analyzer analyzer;
  if (infer_at >= 0) {
    if (!xs) return TensorStructInfo(x->dtype, static_cast<int>(dims.size()));
    Array<PrimExpr> known;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (static_cast<int>(i) != infer_at) known.push_back(dims[i]);
    }
    PrimExpr total = ShapeProduct(*xs), part = ShapeProduct(known);
    auto ct = ConstDim(total), cp = ConstDim(part);
    if (ct && cp && (*cp == 0 || *ct % *cp != 0)) {
      TESSERA_THROW(ValueError) << OpName(call) << ": cannot reshape operand 'x' " << StructInfoText(ArgSInfo(call, 0))
                                << " (" << *ct << " elements) into " << StructInfoText(ArgSInfo(call, 1));
    }
    dims.Set(infer_at, analyzer.Simplify(tir::floordiv(total, part)));
    return TensorStructInfo(ShapeExpr(dims), x->dtype);
  }
  if (xs) {
    auto ct = ConstDim(ShapeProduct(*xs)), cn = ConstDim(ShapeProduct(dims));
    if (ct && cn && *ct != *cn) {
      TESSERA_THROW(ValueError) << OpName(call) << ": cannot reshape operand 'x' " << StructInfoText(ArgSInfo(call, 0))
                                << " (" << *ct << " elements) into shape " << StructInfoText(ArgSInfo(call, 1)) << " ("
                                << *cn << " elements)";
    }
  }
  if (call->args[1].as<ShapeExprNode>()) return TensorStructInfo(call->args[1], x->dtype);
  return TensorStructInfo(ShapeExpr(dims), x->dtype);
}
// TVMScript may give the shape as a tuple of dims, R.reshape(x, (2, -1)), as TVM's Python signature does.
static auto& reg_manip_reshape = OpRegEntry::RegisterOrGet("relax.reshape").set_attr("TScriptShapeOperands",
                                                                                   Any(Array<Any>{Any(int64_t{1})}));
static auto& reg_manip_reshape_infer =
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.reshape").set_num_inputs(2).describe("x viewed with a new shape."),
               InferReshape, true);

// ---- expand_dims(x, axis) ----
StructInfo InferExpandDims(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  std::vector<int64_t> axes = *AttrOptInts(call, "axis");
  if (x->IsUnknownNdim()) return TensorStructInfo(x->dtype, StructInfoNode::kUnknownNDim);
  int out_ndim = x->ndim + static_cast<int>(axes.size());
  std::vector<int> norm = NormalizeAxes(call, axes, out_ndim, "axis", "x");
  auto shape = x->GetShape();
  if (!shape) return TensorStructInfo(x->dtype, out_ndim);
  std::vector<bool> is_new(out_ndim, false);
  for (int a : norm) is_new[a] = true;
  Array<PrimExpr> out;
  size_t j = 0;
  for (int i = 0; i < out_ndim; ++i) out.push_back(is_new[i] ? Dim(1) : (*shape)[j++]);
  return TensorStructInfo(ShapeExpr(out), x->dtype);
}
TESSERA_RELAX_MANIP_OP(expand_dims, 1, InferExpandDims, "Inserts unit dimensions at the given axes.", {{"axis", {}}});
static auto& list_attrs_expand_dims = SetListAttrs(OpRegEntry::RegisterOrGet("relax.expand_dims"), {"axis"});

// ---- squeeze(x, axis=None) ----
StructInfo InferSqueeze(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  auto axes = AttrOptInts(call, "axis");
  if (x->IsUnknownNdim()) return TensorStructInfo(x->dtype, StructInfoNode::kUnknownNDim);
  auto shape = x->GetShape();
  std::vector<bool> drop(x->ndim, false);
  if (axes) {
    for (int a : NormalizeAxes(call, *axes, x->ndim, "axis", "x")) {
      if (shape) {
        auto c = ConstDim((*shape)[a]);
        if (c && *c != 1) {
          TESSERA_THROW(ValueError) << OpName(call) << ": dimension " << a << " of operand 'x' "
                                    << StructInfoText(ArgSInfo(call, 0)) << " has size " << *c << ", not 1";
        }
      }
      drop[a] = true;
    }
  } else {
    if (!shape) return TensorStructInfo(x->dtype, StructInfoNode::kUnknownNDim);
    for (int i = 0; i < x->ndim; ++i) {
      auto c = ConstDim((*shape)[i]);
      if (!c) return TensorStructInfo(x->dtype, StructInfoNode::kUnknownNDim);  // may or may not be 1
      drop[i] = *c == 1;
    }
  }
  int out_ndim = static_cast<int>(std::count(drop.begin(), drop.end(), false));
  if (!shape) return TensorStructInfo(x->dtype, out_ndim);
  Array<PrimExpr> out;
  for (int i = 0; i < x->ndim; ++i) {
    if (!drop[i]) out.push_back((*shape)[i]);
  }
  return TensorStructInfo(ShapeExpr(out), x->dtype);
}
TESSERA_RELAX_MANIP_OP(squeeze, 1, InferSqueeze, "Removes unit dimensions (all, or those of axis).",
                       {{"axis", Any()}});
static auto& list_attrs_squeeze = SetListAttrs(OpRegEntry::RegisterOrGet("relax.squeeze"), {"axis"});

// ---- concat(tensors, axis=0) ----
StructInfo InferConcat(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* tup = ArgSInfoAs<TupleStructInfoNode>(call, 0, "tensors", "a tuple of tensors");
  if (tup->fields.empty()) TESSERA_THROW(ValueError) << OpName(call) << ": operand 'tensors' is an empty tuple";
  std::vector<const TensorStructInfoNode*> ts;
  std::vector<std::string> names;
  for (size_t i = 0; i < tup->fields.size(); ++i) {
    const auto* t = tup->fields[i].as<TensorStructInfoNode>();
    if (t == nullptr) {
      TESSERA_THROW(TypeError) << OpName(call) << ": operand 'tensors' field " << i << " must be a tensor, got "
                               << StructInfoText(tup->fields[i]);
    }
    ts.push_back(t);
    names.push_back("tensors[" + std::to_string(i) + "]");
  }
  std::vector<const char*> cnames;
  for (const auto& n : names) cnames.push_back(n.c_str());
  DataType dtype = SameDType(call, ts, cnames);
  std::optional<int64_t> axis_opt = AttrOptInt(call, "axis");
  if (!axis_opt) {
    // axis None: the tensors are joined flattened, which TVM (and Tessera) take only of 1-D tensors.
    for (size_t i = 0; i < ts.size(); ++i) {
      if (!ts[i]->IsUnknownNdim() && ts[i]->ndim != 1) {
        TESSERA_THROW(ValueError) << OpName(call) << ": with axis None every tensor must be 1-D, operand '"
                                  << names[i] << "' has " << ts[i]->ndim << " dimensions";
      }
    }
  }
  int ndim = StructInfoNode::kUnknownNDim;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (ts[i]->IsUnknownNdim()) continue;
    if (ndim == StructInfoNode::kUnknownNDim) {
      ndim = ts[i]->ndim;
    } else if (ts[i]->ndim != ndim) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand '" << names[i] << "' has " << ts[i]->ndim
                                << " dimensions, the others " << ndim;
    }
  }
  // One tensor: itself (as TVM), once the checks above passed.
  if (ts.size() == 1) {
    if (axis_opt && ndim > 0) NormalizeAxis(call, *axis_opt, ndim, "axis", "tensors");
    return GetRef<StructInfo>(ts[0]);
  }
  if (!axis_opt) ndim = 1;
  int64_t axis_attr = axis_opt.value_or(0);
  if (ndim == StructInfoNode::kUnknownNDim) return TensorStructInfo(dtype, ndim);
  if (ndim == 0) TESSERA_THROW(ValueError) << OpName(call) << ": cannot concatenate 0-d tensors";
  int axis = NormalizeAxis(call, axis_attr, ndim, "axis", "tensors");
  std::vector<Array<PrimExpr>> shapes;
  for (const auto* t : ts) {
    auto s = t->GetShape();
    if (!s) return TensorStructInfo(dtype, ndim);
    shapes.push_back(*s);
  }
  arith::Analyzer analyzer;
  Array<PrimExpr> out = shapes[0];
  PrimExpr total = Dim(0);
  bool known = true;
  for (size_t i = 0; i < shapes.size(); ++i) {
    for (int d = 0; d < ndim; ++d) {
      if (d == axis) continue;
      auto a = ConstDim(shapes[0][d]), b = ConstDim(shapes[i][d]);
      if (a && b && *a != *b) {
        TESSERA_THROW(ValueError) << OpName(call) << ": operand '" << names[i] << "' "
                                  << StructInfoText(GetRef<StructInfo>(ts[i])) << " differs from '" << names[0]
                                  << "' " << StructInfoText(GetRef<StructInfo>(ts[0])) << " in dimension " << d
                                  << " (only axis " << axis << " may differ)";
      }
      if (!(a && b) && !analyzer.CanProveEqual(shapes[0][d], shapes[i][d])) known = false;
    }
    total = total + shapes[i][axis];
  }
  if (!known) return TensorStructInfo(dtype, ndim);
  out.Set(axis, analyzer.Simplify(total));
  return TensorStructInfo(ShapeExpr(out), dtype);
}
TESSERA_RELAX_MANIP_OP(concat, 1, InferConcat, "Joins a tuple of tensors along axis (None: of 1-D tensors, 0).",
                       {{"axis", AttrDefaultInt(0)}});

// ---- split(x, indices_or_sections, axis=0) ----
StructInfo InferSplit(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  Any ios = CallAttr(call, "indices_or_sections");
  int64_t axis_attr = AttrInt(call, "axis");
  bool is_sections = ios.kind() == Any::Kind::kInt || (ios.as<IntImmNode>() != nullptr);
  std::vector<int64_t> vals = *AttrOptInts(call, "indices_or_sections");
  size_t n_out = is_sections ? 0 : vals.size() + 1;
  if (is_sections) {
    if (vals[0] <= 0) {
      TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'indices_or_sections' must be a positive number of "
                                << "sections, got " << vals[0];
    }
    n_out = static_cast<size_t>(vals[0]);
  }
  auto unknown = [&](int ndim) {
    Array<StructInfo> fields;
    for (size_t i = 0; i < n_out; ++i) fields.push_back(TensorStructInfo(x->dtype, ndim));
    return TupleStructInfo(fields);
  };
  if (x->IsUnknownNdim()) return unknown(StructInfoNode::kUnknownNDim);
  int axis = NormalizeAxis(call, axis_attr, x->ndim, "axis", "x");
  auto shape = x->GetShape();
  if (!shape) return unknown(x->ndim);
  PrimExpr len = (*shape)[axis];
  auto clen = ConstDim(len);
  arith::Analyzer analyzer;
  Array<StructInfo> fields;
  if (is_sections) {
    // As TVM: sections of ceil(len / n) elements, the last one what remains.
    int64_t n = static_cast<int64_t>(n_out);
    PrimExpr part = analyzer.Simplify(tir::floordiv(len + Dim(n - 1), Dim(n)));
    for (int64_t i = 0; i < n; ++i) {
      Array<PrimExpr> s = *shape;
      if (clen) {
        int64_t p = (*clen + n - 1) / n;
        s.Set(axis, Dim(std::max<int64_t>(0, std::min<int64_t>(p, *clen - p * i))));
      } else {
        s.Set(axis, i + 1 < n ? part : analyzer.Simplify(len - part * Dim(n - 1)));
      }
      fields.push_back(TensorStructInfo(ShapeExpr(s), x->dtype));
    }
    return TupleStructInfo(fields);
  }
  if (!clen) return unknown(x->ndim);  // slices of a symbolic dim: lengths unknown
  int64_t prev = 0;
  for (size_t i = 0; i <= vals.size(); ++i) {
    int64_t end = i < vals.size() ? std::clamp<int64_t>(vals[i] < 0 ? vals[i] + *clen : vals[i], 0, *clen) : *clen;
    int64_t size = std::max<int64_t>(0, end - prev);
    Array<PrimExpr> s = *shape;
    s.Set(axis, Dim(size));
    fields.push_back(TensorStructInfo(ShapeExpr(s), x->dtype));
    prev = end;  // as NumPy and TVM: indices need not ascend (a part between decreasing ones is empty)
  }
  return TupleStructInfo(fields);
}
TESSERA_RELAX_MANIP_OP(split, 1, InferSplit, "Splits x along axis into sections or at indices (a tuple).",
                       {{"indices_or_sections", {}}, {"axis", AttrDefaultInt(0)}});

// ---- flatten(x) ----
StructInfo InferFlatten(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  auto shape = x->GetShape();
  if (!shape) return TensorStructInfo(x->dtype, 1);
  return TensorStructInfo(ShapeExpr(Array<PrimExpr>{ShapeProduct(*shape)}), x->dtype);
}
static auto& reg_manip_flatten =
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.flatten").set_num_inputs(1).describe("x as a 1-D tensor."),
               InferFlatten, true);

// ---- broadcast_to(x, shape) ----
StructInfo InferBroadcastTo(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  const auto* target = ArgSInfoAs<ShapeStructInfoNode>(call, 1, "shape", "a shape (R.shape or a shape var)");
  std::optional<Array<PrimExpr>> values = target->values;
  if (const auto* se = call->args[1].as<ShapeExprNode>()) values = se->values;
  if (!x->IsUnknownNdim() && target->ndim != StructInfoNode::kUnknownNDim && target->ndim < x->ndim) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand 'shape' has " << target->ndim
                              << " dimensions, fewer than operand 'x' " << StructInfoText(ArgSInfo(call, 0));
  }
  auto xs = x->GetShape();
  if (values && xs) {
    size_t lead = values->size() - xs->size();
    for (size_t i = 0; i < xs->size(); ++i) {
      auto a = ConstDim((*xs)[i]), b = ConstDim((*values)[lead + i]);
      if (a && b && *a != 1 && *a != *b) {
        TESSERA_THROW(ValueError) << OpName(call) << ": operand 'x' " << StructInfoText(ArgSInfo(call, 0))
                                  << " cannot be broadcast to " << StructInfoText(ArgSInfo(call, 1)) << ": dimension "
                                  << i << " is " << *a << ", the target " << *b;
      }
    }
  }
  if (call->args[1].as<ShapeExprNode>() || target->ndim != StructInfoNode::kUnknownNDim) {
    return TensorStructInfo(call->args[1], x->dtype);
  }
  return TensorStructInfo(x->dtype, StructInfoNode::kUnknownNDim);
}
static auto& reg_manip_broadcast_to_shape = OpRegEntry::RegisterOrGet("relax.broadcast_to")
                                                 .set_attr("TScriptShapeOperands", Any(Array<Any>{Any(int64_t{1})}));
static auto& reg_manip_broadcast_to = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.broadcast_to").set_num_inputs(2).describe("x broadcast (NumPy rules) to shape."),
    InferBroadcastTo, true);

}  // namespace

}  // namespace relax
}  // namespace tessera
