// StructInfo constructors, registrations and the helpers of struct_info.h:
// the base (subtype) check used by match checks and the normalizer, the
// least upper bound for If, symbolic-var collection/substitution and the
// erasure of what is not defined outside a scope.
#include "relax/struct_info.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/expr_string.h"
#include "ir/structural_equal.h"
#include "relax/expr.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "runtime/stack_guard.h"
#include "tir/functor.h"

namespace tessera {
namespace relax {

ObjectStructInfo::ObjectStructInfo(Span span) {
  auto n = make_object<ObjectStructInfoNode>();
  n->span = std::move(span);
  data_ = std::move(n);
}

PrimStructInfo::PrimStructInfo(DataType dtype, Span span) {
  auto n = make_object<PrimStructInfoNode>();
  n->dtype = dtype;
  n->span = std::move(span);
  data_ = std::move(n);
}

PrimStructInfo PrimStructInfo::FromValue(PrimExpr value, Span span) {
  TESSERA_CHECK_OR_THROW(value.defined(), TypeError) << "PrimStructInfo: value is None";
  auto n = make_object<PrimStructInfoNode>();
  n->dtype = value.dtype();
  n->value = std::move(value);
  n->span = std::move(span);
  return PrimStructInfo(ObjectPtr<Object>(std::move(n)));
}

ShapeStructInfo::ShapeStructInfo(Array<PrimExpr> values, Span span) {
  for (size_t i = 0; i < values.size(); ++i) {
    TESSERA_CHECK_OR_THROW(values[i].defined(), TypeError) << "ShapeStructInfo: value " << i << " is None";
    TESSERA_CHECK_OR_THROW(values[i].dtype().is_int() || values[i].dtype().is_uint(), TypeError)
        << "ShapeStructInfo: value " << i << " must be an integer expression, got dtype " << values[i].dtype();
  }
  auto n = make_object<ShapeStructInfoNode>();
  n->ndim = static_cast<int>(values.size());
  n->values = std::move(values);
  n->span = std::move(span);
  data_ = std::move(n);
}

ShapeStructInfo::ShapeStructInfo(int ndim, Span span) {
  TESSERA_CHECK_OR_THROW(ndim >= -1, ValueError) << "ShapeStructInfo: ndim must be >= -1, got " << ndim;
  auto n = make_object<ShapeStructInfoNode>();
  n->ndim = ndim;
  n->span = std::move(span);
  data_ = std::move(n);
}

TensorStructInfo::TensorStructInfo(RelaxExpr shape, DataType dtype, Span span) {
  TESSERA_CHECK_OR_THROW(shape.defined(), TypeError) << "TensorStructInfo: shape is None";
  auto n = make_object<TensorStructInfoNode>();
  if (const auto* s = shape.as<ShapeExprNode>()) {
    n->ndim = static_cast<int>(s->values.size());
  } else {
    const auto* sinfo = shape->struct_info_.as<ShapeStructInfoNode>();
    TESSERA_CHECK_OR_THROW(sinfo != nullptr, TypeError)
        << "TensorStructInfo: shape must be a ShapeExpr or an expression of ShapeStructInfo, got "
        << ExprKindName(shape);
    n->ndim = sinfo->ndim;
  }
  n->shape = std::move(shape);
  n->dtype = dtype;
  n->span = std::move(span);
  data_ = std::move(n);
}

TensorStructInfo::TensorStructInfo(DataType dtype, int ndim, Span span) {
  TESSERA_CHECK_OR_THROW(ndim >= -1, ValueError) << "TensorStructInfo: ndim must be >= -1, got " << ndim;
  auto n = make_object<TensorStructInfoNode>();
  n->dtype = dtype;
  n->ndim = ndim;
  n->span = std::move(span);
  data_ = std::move(n);
}

TensorStructInfo TensorStructInfo::WithVDevice(VDevice vdevice) const {
  if ((*this)->vdevice.same_as(vdevice)) return *this;
  auto n = make_object<TensorStructInfoNode>(*get());
  n->vdevice = std::move(vdevice);
  return TensorStructInfo(ObjectPtr<Object>(std::move(n)));
}

std::optional<Array<PrimExpr>> TensorStructInfoNode::GetShape() const {
  if (!shape) return std::nullopt;
  if (const auto* s = shape->as<ShapeExprNode>()) return s->values;
  if (const auto* si = (*shape)->struct_info_.as<ShapeStructInfoNode>()) return si->values;
  return std::nullopt;
}

TupleStructInfo::TupleStructInfo(Array<StructInfo> fields, Span span) {
  for (size_t i = 0; i < fields.size(); ++i) {
    TESSERA_CHECK_OR_THROW(fields[i].defined(), TypeError) << "TupleStructInfo: field " << i << " is None";
  }
  auto n = make_object<TupleStructInfoNode>();
  n->fields = std::move(fields);
  n->span = std::move(span);
  data_ = std::move(n);
}

FuncStructInfo::FuncStructInfo(Array<StructInfo> params, StructInfo ret, bool purity, Span span) {
  for (size_t i = 0; i < params.size(); ++i) {
    TESSERA_CHECK_OR_THROW(params[i].defined(), TypeError) << "FuncStructInfo: parameter " << i << " is None";
  }
  auto n = make_object<FuncStructInfoNode>();
  n->params = std::move(params);
  n->ret = ret.defined() ? ret : StructInfo(ObjectStructInfo::Make());
  n->purity = purity;
  n->span = std::move(span);
  data_ = std::move(n);
}

FuncStructInfo FuncStructInfo::OpaqueFunc(StructInfo ret, bool purity, Span span) {
  auto n = make_object<FuncStructInfoNode>();
  n->ret = ret.defined() ? ret : StructInfo(ObjectStructInfo::Make());
  n->purity = purity;
  n->span = std::move(span);
  return FuncStructInfo(ObjectPtr<Object>(std::move(n)));
}

// ---- helpers ---------------------------------------------------------------------------

std::optional<StructInfo> MatchStructInfo(const RelaxExpr& expr) {
  if (!expr.defined() || !expr->struct_info_.defined()) return std::nullopt;
  return Downcast<StructInfo>(expr->struct_info_);
}
bool HasStructInfo(const RelaxExpr& expr) { return expr.defined() && expr->struct_info_.defined(); }

StructInfo GetStructInfo(const RelaxExpr& expr) {
  TESSERA_CHECK_OR_THROW(expr.defined(), TypeError) << "GetStructInfo of None";
  TESSERA_CHECK_OR_THROW(expr->struct_info_.defined(), TypeError)
      << ExprKindName(expr)
      << (expr.as<VarNode>() ? " '" + expr.as<VarNode>()->name_hint + "'" : std::string())
      << " has no struct info (build it through a BlockBuilder or annotate it)";
  return Downcast<StructInfo>(expr->struct_info_);
}

void UpdateStructInfo(const RelaxExpr& expr, const StructInfo& sinfo) { expr->struct_info_ = sinfo; }

namespace {

// Equality of dims: kPass proven equal, kFailL0 proven different, kFailL2 unknown.
BaseCheckResult CompareDim(arith::Analyzer* ana, const PrimExpr& base, const PrimExpr& derived) {
  if (base.same_as(derived)) return BaseCheckResult::kPass;
  const int64_t* a = AsConstInt(base);
  const int64_t* b = AsConstInt(derived);
  if (a && b) return *a == *b ? BaseCheckResult::kPass : BaseCheckResult::kFailL0;
  if (base.dtype().is_int() && derived.dtype().is_int() && base.dtype() != derived.dtype()) {
    // Compare in int64 by value when both are symbolic but of different widths.
    return BaseCheckResult::kFailL2;
  }
  if (ana->CanProveEqual(base, derived)) return BaseCheckResult::kPass;
  return BaseCheckResult::kFailL2;
}

BaseCheckResult Combine(BaseCheckResult a, BaseCheckResult b) { return std::min(a, b); }

BaseCheckResult CompareDims(arith::Analyzer* ana, const Array<PrimExpr>& base, const Array<PrimExpr>& derived) {
  if (base.size() != derived.size()) return BaseCheckResult::kFailL0;
  BaseCheckResult r = BaseCheckResult::kPass;
  for (size_t i = 0; i < base.size(); ++i) r = Combine(r, CompareDim(ana, base[i], derived[i]));
  return r;
}

BaseCheckResult BaseCheck(arith::Analyzer* ana, const StructInfo& base, const StructInfo& derived) {
  CheckStack("relax struct info");
  if (base.as<ObjectStructInfoNode>()) return BaseCheckResult::kPass;
  // A value known only as an Object may turn out to be anything at run time.
  if (derived.as<ObjectStructInfoNode>()) return BaseCheckResult::kFailL1;
  if (const auto* b = base.as<PrimStructInfoNode>()) {
    const auto* d = derived.as<PrimStructInfoNode>();
    if (!d) return BaseCheckResult::kFailL0;
    if (b->dtype != d->dtype) return BaseCheckResult::kFailL0;
    if (!b->value.defined()) return BaseCheckResult::kPass;
    if (!d->value.defined()) return BaseCheckResult::kFailL1;
    return CompareDim(ana, b->value, d->value);
  }
  if (const auto* b = base.as<ShapeStructInfoNode>()) {
    const auto* d = derived.as<ShapeStructInfoNode>();
    if (!d) return BaseCheckResult::kFailL0;
    if (b->ndim != StructInfoNode::kUnknownNDim && b->ndim != d->ndim) {
      return d->ndim == StructInfoNode::kUnknownNDim ? BaseCheckResult::kFailL1 : BaseCheckResult::kFailL0;
    }
    if (!b->values) return BaseCheckResult::kPass;
    if (!d->values) return BaseCheckResult::kFailL1;
    return CompareDims(ana, *b->values, *d->values);
  }
  if (const auto* b = base.as<TensorStructInfoNode>()) {
    const auto* d = derived.as<TensorStructInfoNode>();
    if (!d) return BaseCheckResult::kFailL0;
    BaseCheckResult r = BaseCheckResult::kPass;
    if (!b->IsUnknownDtype() && b->dtype != d->dtype) {
      if (!d->IsUnknownDtype()) return BaseCheckResult::kFailL0;
      r = BaseCheckResult::kFailL1;
    }
    if (!b->IsUnknownNdim() && b->ndim != d->ndim) {
      if (!d->IsUnknownNdim()) return BaseCheckResult::kFailL0;
      r = Combine(r, BaseCheckResult::kFailL1);
    }
    // A tensor said to be on a device accepts only tensors on that device.
    if (b->vdevice.defined()) {
      if (!d->vdevice.defined()) {
        r = Combine(r, BaseCheckResult::kFailL1);
      } else if (!StructuralEqual(b->vdevice, d->vdevice)) {
        return BaseCheckResult::kFailL0;
      }
    }
    if (!b->shape) return r;
    std::optional<Array<PrimExpr>> bs = b->GetShape();
    std::optional<Array<PrimExpr>> ds = d->GetShape();
    if (bs && ds) return Combine(r, CompareDims(ana, *bs, *ds));
    if (d->shape && d->shape->same_as(*b->shape)) return r;
    return Combine(r, d->shape ? BaseCheckResult::kFailL2 : BaseCheckResult::kFailL1);
  }
  if (const auto* b = base.as<TupleStructInfoNode>()) {
    const auto* d = derived.as<TupleStructInfoNode>();
    if (!d || b->fields.size() != d->fields.size()) return BaseCheckResult::kFailL0;
    BaseCheckResult r = BaseCheckResult::kPass;
    for (size_t i = 0; i < b->fields.size(); ++i) r = Combine(r, BaseCheck(ana, b->fields[i], d->fields[i]));
    return r;
  }
  if (const auto* b = base.as<FuncStructInfoNode>()) {
    const auto* d = derived.as<FuncStructInfoNode>();
    if (!d) return BaseCheckResult::kFailL0;
    // A pure function is expected: an impure one does not qualify.
    if (b->purity && !d->purity) return BaseCheckResult::kFailL0;
    BaseCheckResult r = BaseCheck(ana, b->ret, d->ret);
    if (b->IsOpaque()) return r;
    if (d->IsOpaque()) return Combine(r, BaseCheckResult::kFailL2);
    if (b->params->size() != d->params->size()) return BaseCheckResult::kFailL0;
    // Parameters are contravariant: the derived function must accept what the base does.
    for (size_t i = 0; i < b->params->size(); ++i) {
      r = Combine(r, BaseCheck(ana, (*d->params)[i], (*b->params)[i]));
    }
    return r;
  }
  return BaseCheckResult::kFailL0;
}

}  // namespace

BaseCheckResult StructInfoBaseCheck(const StructInfo& base, const StructInfo& derived) {
  TESSERA_CHECK_OR_THROW(base.defined() && derived.defined(), TypeError) << "StructInfoBaseCheck of None";
  arith::Analyzer ana;
  return BaseCheck(&ana, base, derived);
}

bool IsBaseOf(const StructInfo& base, const StructInfo& derived) {
  return StructInfoBaseCheck(base, derived) == BaseCheckResult::kPass;
}

StructInfo StructInfoLCA(const StructInfo& lhs, const StructInfo& rhs) {
  CheckStack("relax struct info");
  if (lhs.same_as(rhs)) return lhs;
  if (IsBaseOf(lhs, rhs)) return lhs;
  if (IsBaseOf(rhs, lhs)) return rhs;
  if (const auto* a = lhs.as<PrimStructInfoNode>()) {
    if (const auto* b = rhs.as<PrimStructInfoNode>()) {
      if (a->dtype == b->dtype) return PrimStructInfo(a->dtype);
    }
  }
  if (const auto* a = lhs.as<ShapeStructInfoNode>()) {
    if (const auto* b = rhs.as<ShapeStructInfoNode>()) {
      return ShapeStructInfo(a->ndim == b->ndim ? a->ndim : StructInfoNode::kUnknownNDim);
    }
  }
  if (const auto* a = lhs.as<TensorStructInfoNode>()) {
    if (const auto* b = rhs.as<TensorStructInfoNode>()) {
      DataType dtype = a->dtype == b->dtype ? a->dtype : DataType::Void();
      int ndim = a->ndim == b->ndim ? a->ndim : StructInfoNode::kUnknownNDim;
      bool same_device = a->vdevice.defined() && b->vdevice.defined() && StructuralEqual(a->vdevice, b->vdevice);
      return TensorStructInfo(dtype, ndim).WithVDevice(same_device ? a->vdevice : VDevice());
    }
  }
  if (const auto* a = lhs.as<TupleStructInfoNode>()) {
    if (const auto* b = rhs.as<TupleStructInfoNode>()) {
      if (a->fields.size() == b->fields.size()) {
        Array<StructInfo> fields;
        for (size_t i = 0; i < a->fields.size(); ++i) fields.push_back(StructInfoLCA(a->fields[i], b->fields[i]));
        return TupleStructInfo(fields);
      }
    }
  }
  if (const auto* a = lhs.as<FuncStructInfoNode>()) {
    if (const auto* b = rhs.as<FuncStructInfoNode>()) {
      return FuncStructInfo::OpaqueFunc(StructInfoLCA(a->ret, b->ret), a->purity && b->purity);
    }
  }
  return ObjectStructInfo::Make();
}

namespace {

void CollectVars(const PrimExpr& e, std::vector<tir::Var>* out, std::unordered_set<const Object*>* seen) {
  if (!e.defined()) return;
  tir::PostOrderVisit(e, [&](const ObjectRef& n) {
    if (const auto* v = n.as<tir::VarNode>()) {
      if (seen->insert(v).second) out->push_back(Downcast<tir::Var>(n));
    }
  });
}

void CollectSInfo(const StructInfo& s, std::vector<tir::Var>* out, std::unordered_set<const Object*>* seen) {
  CheckStack("relax struct info");
  if (!s.defined()) return;
  if (const auto* p = s.as<PrimStructInfoNode>()) {
    CollectVars(p->value, out, seen);
  } else if (const auto* sh = s.as<ShapeStructInfoNode>()) {
    if (sh->values) {
      for (const PrimExpr& v : *sh->values) CollectVars(v, out, seen);
    }
  } else if (const auto* t = s.as<TensorStructInfoNode>()) {
    if (auto dims = t->GetShape()) {
      if (t->shape->as<ShapeExprNode>()) {
        for (const PrimExpr& v : *dims) CollectVars(v, out, seen);
      }
    }
  } else if (const auto* tu = s.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : tu->fields) CollectSInfo(f, out, seen);
  } else if (const auto* f = s.as<FuncStructInfoNode>()) {
    if (f->params) {
      for (const StructInfo& p : *f->params) CollectSInfo(p, out, seen);
    }
    CollectSInfo(f->ret, out, seen);
  }
}

}  // namespace

std::vector<tir::Var> TIRVarsInStructInfo(const StructInfo& sinfo) {
  std::vector<tir::Var> out;
  std::unordered_set<const Object*> seen;
  CollectSInfo(sinfo, &out, &seen);
  return out;
}

StructInfo SubstituteStructInfo(const StructInfo& sinfo,
                                const std::function<std::optional<PrimExpr>(const tir::Var&)>& fmap) {
  CheckStack("relax struct info");
  if (!sinfo.defined()) return sinfo;
  auto sub = [&](const PrimExpr& e) { return e.defined() ? tir::Substitute(e, fmap) : e; };
  auto sub_all = [&](const Array<PrimExpr>& vals, bool* changed) {
    Array<PrimExpr> out;
    for (const PrimExpr& v : vals) {
      PrimExpr nv = sub(v);
      *changed |= !nv.same_as(v);
      out.push_back(nv);
    }
    return out;
  };
  if (const auto* p = sinfo.as<PrimStructInfoNode>()) {
    if (!p->value.defined()) return sinfo;
    PrimExpr v = sub(p->value);
    return v.same_as(p->value) ? sinfo : StructInfo(PrimStructInfo::FromValue(v, p->span));
  }
  if (const auto* sh = sinfo.as<ShapeStructInfoNode>()) {
    if (!sh->values) return sinfo;
    bool changed = false;
    Array<PrimExpr> vals = sub_all(*sh->values, &changed);
    return changed ? StructInfo(ShapeStructInfo(vals, sh->span)) : sinfo;
  }
  if (const auto* t = sinfo.as<TensorStructInfoNode>()) {
    if (!t->shape) return sinfo;
    const auto* se = t->shape->as<ShapeExprNode>();
    if (!se) return sinfo;
    bool changed = false;
    Array<PrimExpr> vals = sub_all(se->values, &changed);
    return changed ? StructInfo(TensorStructInfo(ShapeExpr(vals, se->span), t->dtype, t->span).WithVDevice(t->vdevice))
                   : sinfo;
  }
  if (const auto* tu = sinfo.as<TupleStructInfoNode>()) {
    bool changed = false;
    Array<StructInfo> fields;
    for (const StructInfo& f : tu->fields) {
      StructInfo nf = SubstituteStructInfo(f, fmap);
      changed |= !nf.same_as(f);
      fields.push_back(nf);
    }
    return changed ? StructInfo(TupleStructInfo(fields, tu->span)) : sinfo;
  }
  if (const auto* f = sinfo.as<FuncStructInfoNode>()) {
    StructInfo ret = SubstituteStructInfo(f->ret, fmap);
    if (!f->params) return ret.same_as(f->ret) ? sinfo : StructInfo(FuncStructInfo::OpaqueFunc(ret, f->purity));
    Array<StructInfo> params;
    bool changed = !ret.same_as(f->ret);
    for (const StructInfo& p : *f->params) {
      StructInfo np = SubstituteStructInfo(p, fmap);
      changed |= !np.same_as(p);
      params.push_back(np);
    }
    return changed ? StructInfo(FuncStructInfo(params, ret, f->purity, f->span)) : sinfo;
  }
  return sinfo;
}

StructInfo EraseToWellDefined(const StructInfo& sinfo, const std::function<bool(const tir::Var&)>& is_defined) {
  CheckStack("relax struct info");
  if (!sinfo.defined()) return sinfo;
  auto defined = [&](const PrimExpr& e) {
    std::vector<tir::Var> vars;
    std::unordered_set<const Object*> seen;
    CollectVars(e, &vars, &seen);
    for (const tir::Var& v : vars) {
      if (!is_defined(v)) return false;
    }
    return true;
  };
  if (const auto* p = sinfo.as<PrimStructInfoNode>()) {
    if (!p->value.defined() || defined(p->value)) return sinfo;
    return PrimStructInfo(p->dtype, p->span);
  }
  if (const auto* sh = sinfo.as<ShapeStructInfoNode>()) {
    if (!sh->values) return sinfo;
    for (const PrimExpr& v : *sh->values) {
      if (!defined(v)) return ShapeStructInfo(sh->ndim, sh->span);
    }
    return sinfo;
  }
  if (const auto* t = sinfo.as<TensorStructInfoNode>()) {
    if (!t->shape) return sinfo;
    const auto* se = t->shape->as<ShapeExprNode>();
    bool ok = true;
    if (se) {
      for (const PrimExpr& v : se->values) ok = ok && defined(v);
    }
    if (ok) return sinfo;
    return TensorStructInfo(t->dtype, t->ndim, t->span).WithVDevice(t->vdevice);
  }
  if (const auto* tu = sinfo.as<TupleStructInfoNode>()) {
    bool changed = false;
    Array<StructInfo> fields;
    for (const StructInfo& f : tu->fields) {
      StructInfo nf = EraseToWellDefined(f, is_defined);
      changed |= !nf.same_as(f);
      fields.push_back(nf);
    }
    return changed ? StructInfo(TupleStructInfo(fields, tu->span)) : sinfo;
  }
  if (const auto* f = sinfo.as<FuncStructInfoNode>()) {
    // Symbolic vars of the parameters are bound by the call: only the
    // return is erased, with the parameters' vars counted as defined.
    std::unordered_set<const Object*> param_vars;
    if (f->params) {
      for (const StructInfo& p : *f->params) {
        for (const tir::Var& v : TIRVarsInStructInfo(p)) param_vars.insert(v.get());
      }
    }
    StructInfo ret = EraseToWellDefined(
        f->ret, [&](const tir::Var& v) { return param_vars.count(v.get()) > 0 || is_defined(v); });
    if (ret.same_as(f->ret)) return sinfo;
    if (!f->params) return FuncStructInfo::OpaqueFunc(ret, f->purity, f->span);
    return FuncStructInfo(*f->params, ret, f->purity, f->span);
  }
  return sinfo;
}

namespace {
std::string DimText(const PrimExpr& e) {
  if (const int64_t* c = AsConstInt(e)) return std::to_string(*c);
  return arith::ExprToString(e);
}
}  // namespace

std::string StructInfoText(const StructInfo& sinfo) {
  CheckStack("relax struct info");
  std::ostringstream os;
  if (!sinfo.defined()) return "None";
  if (sinfo.as<ObjectStructInfoNode>()) {
    os << "R.Object";
  } else if (const auto* p = sinfo.as<PrimStructInfoNode>()) {
    if (p->value.defined()) {
      os << "R.Prim(value=" << DimText(p->value) << ")";
    } else {
      os << "R.Prim(\"" << p->dtype << "\")";
    }
  } else if (const auto* sh = sinfo.as<ShapeStructInfoNode>()) {
    if (sh->values) {
      os << "R.Shape([";
      for (size_t i = 0; i < sh->values->size(); ++i) os << (i ? ", " : "") << DimText((*sh->values)[i]);
      os << "])";
    } else {
      os << "R.Shape(ndim=" << sh->ndim << ")";
    }
  } else if (const auto* t = sinfo.as<TensorStructInfoNode>()) {
    os << "R.Tensor(";
    if (auto dims = t->GetShape()) {
      os << "(";
      for (size_t i = 0; i < dims->size(); ++i) os << (i ? ", " : "") << DimText((*dims)[i]);
      os << (dims->size() == 1 ? ",)" : ")");
      if (!t->IsUnknownDtype()) os << ", dtype=\"" << t->dtype << "\"";
    } else {
      bool first = true;
      if (!t->IsUnknownDtype()) {
        os << "dtype=\"" << t->dtype << "\"";
        first = false;
      }
      if (!t->IsUnknownNdim()) os << (first ? "" : ", ") << "ndim=" << t->ndim;
    }
    if (t->vdevice.defined()) os << ", vdevice=\"" << VDeviceText(t->vdevice) << "\"";
    os << ")";
  } else if (const auto* tu = sinfo.as<TupleStructInfoNode>()) {
    os << "R.Tuple(";
    for (size_t i = 0; i < tu->fields.size(); ++i) os << (i ? ", " : "") << StructInfoText(tu->fields[i]);
    os << ")";
  } else if (const auto* f = sinfo.as<FuncStructInfoNode>()) {
    os << "R.Callable(";
    if (f->params) {
      os << "(";
      for (size_t i = 0; i < f->params->size(); ++i) os << (i ? ", " : "") << StructInfoText((*f->params)[i]);
      os << "), ";
    }
    os << StructInfoText(f->ret) << ")";
  } else {
    os << sinfo->GetTypeKey();
  }
  return os.str();
}

namespace {
// The device of a tensor struct info, or of the tensor fields of a tuple one.
void CollectVDevices(const StructInfo& s, std::vector<VDevice>* out) {
  if (const auto* t = s.as<TensorStructInfoNode>()) {
    if (t->vdevice.defined()) out->push_back(t->vdevice);
  } else if (const auto* tu = s.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : tu->fields) {
      if (const auto* ft = f.as<TensorStructInfoNode>()) {
        if (ft->vdevice.defined()) out->push_back(ft->vdevice);
      }
    }
  }
}

StructInfo OnVDevice(const StructInfo& s, const VDevice& vdevice) {
  if (const auto* t = s.as<TensorStructInfoNode>()) {
    return t->vdevice.defined() ? s : StructInfo(GetRef<TensorStructInfo>(t).WithVDevice(vdevice));
  }
  if (const auto* tu = s.as<TupleStructInfoNode>()) {
    Array<StructInfo> fields;
    bool changed = false;
    for (const StructInfo& f : tu->fields) {
      StructInfo nf = f.as<TensorStructInfoNode>() ? OnVDevice(f, vdevice) : f;
      changed |= !nf.same_as(f);
      fields.push_back(nf);
    }
    return changed ? StructInfo(TupleStructInfo(fields, tu->span)) : s;
  }
  return s;
}
}  // namespace

StructInfo PropagateVDevice(const std::string& op_name, const Array<RelaxExpr>& args, const StructInfo& sinfo) {
  std::vector<VDevice> devices;
  for (const RelaxExpr& a : args) {
    if (auto s = MatchStructInfo(a)) CollectVDevices(*s, &devices);
  }
  if (devices.empty()) return sinfo;
  for (size_t i = 1; i < devices.size(); ++i) {
    TESSERA_CHECK_OR_THROW(StructuralEqual(devices[0], devices[i]), TypeError)
        << "operator '" << op_name << "': its tensor arguments are on different virtual devices ("
        << VDeviceText(devices[0]) << " and " << VDeviceText(devices[i]) << ")";
  }
  return OnVDevice(sinfo, devices[0]);
}

// ---- registration ---------------------------------------------------------------------

TESSERA_REGISTER_OBJECT_TYPE(StructInfoNode);
TESSERA_REGISTER_OBJECT_TYPE(ObjectStructInfoNode);
TESSERA_REGISTER_OBJECT_TYPE(PrimStructInfoNode);
TESSERA_REGISTER_OBJECT_TYPE(ShapeStructInfoNode);
TESSERA_REGISTER_OBJECT_TYPE(TensorStructInfoNode);
TESSERA_REGISTER_OBJECT_TYPE(TupleStructInfoNode);
TESSERA_REGISTER_OBJECT_TYPE(FuncStructInfoNode);

TESSERA_REGISTER_NODE(StructInfoNode).ignore("span", &StructInfoNode::span);
TESSERA_REGISTER_NODE(ObjectStructInfoNode);
TESSERA_REGISTER_NODE(PrimStructInfoNode).field("value", &PrimStructInfoNode::value).field("dtype", &PrimStructInfoNode::dtype);
TESSERA_REGISTER_NODE(ShapeStructInfoNode).field("values", &ShapeStructInfoNode::values).field("ndim", &ShapeStructInfoNode::ndim);
TESSERA_REGISTER_NODE(TensorStructInfoNode)
    .field("shape", &TensorStructInfoNode::shape)
    .field("dtype", &TensorStructInfoNode::dtype)
    .field("ndim", &TensorStructInfoNode::ndim)
    .field("vdevice", &TensorStructInfoNode::vdevice)
    .on_load([](const ObjectRef& o) -> ObjectRef {
      const auto* n = static_cast<const TensorStructInfoNode*>(o.get());
      TESSERA_CHECK_OR_THROW(n->ndim >= -1, ValueError) << "relax.TensorStructInfo.ndim " << n->ndim << " < -1";
      TESSERA_CHECK_OR_THROW(!n->shape || n->shape->defined(), ValueError) << "relax.TensorStructInfo.shape is a null expression";
      return o;
    });
TESSERA_REGISTER_NODE(TupleStructInfoNode).field("fields", &TupleStructInfoNode::fields).on_load([](const ObjectRef& o) -> ObjectRef {
  const auto* n = static_cast<const TupleStructInfoNode*>(o.get());
  for (size_t i = 0; i < n->fields.size(); ++i) {
    TESSERA_CHECK_OR_THROW(n->fields[i].defined(), ValueError) << "relax.TupleStructInfo.fields[" << i << "] is missing (None)";
  }
  return o;
});
// A function signature's parameters define the symbolic vars its return uses.
TESSERA_REGISTER_NODE(FuncStructInfoNode)
    .def("params", &FuncStructInfoNode::params)
    .field("ret", &FuncStructInfoNode::ret)
    .field("purity", &FuncStructInfoNode::purity)
    .on_load([](const ObjectRef& o) -> ObjectRef {
      const auto* n = static_cast<const FuncStructInfoNode*>(o.get());
      TESSERA_CHECK_OR_THROW(n->ret.defined(), ValueError) << "relax.FuncStructInfo.ret is missing (None)";
      return o;
    });

TESSERA_REGISTER_GLOBAL("relax.ObjectStructInfo").set_body_typed([]() { return ObjectStructInfo::Make(); });
TESSERA_REGISTER_GLOBAL("relax.PrimStructInfo").set_body_typed([](Any dtype, Any value) -> StructInfo {
  if (!value.is_none()) {
    PrimExpr v = value.cast<PrimExpr>();
    if (!dtype.is_none()) {
      DataType dt = dtype.cast<DataType>();
      if (const int64_t* c = AsConstInt(v)) v = MakeConst(dt, static_cast<double>(*c));
      TESSERA_CHECK_OR_THROW(v.dtype() == dt, TypeError)
          << "PrimStructInfo: value of dtype " << v.dtype() << " given with dtype " << dt;
    }
    return PrimStructInfo::FromValue(v);
  }
  TESSERA_CHECK_OR_THROW(!dtype.is_none(), TypeError) << "PrimStructInfo needs a dtype or a value";
  return PrimStructInfo(dtype.cast<DataType>());
});
TESSERA_REGISTER_GLOBAL("relax.ShapeStructInfo").set_body_typed([](Any values, int ndim) -> StructInfo {
  if (!values.is_none()) {
    Array<PrimExpr> vals = values.cast<Array<PrimExpr>>();
    TESSERA_CHECK_OR_THROW(ndim == -1 || ndim == static_cast<int>(vals.size()), ValueError)
        << "ShapeStructInfo: ndim " << ndim << " does not match " << vals.size() << " values";
    Array<PrimExpr> dims;
    for (const PrimExpr& v : vals) {
      const int64_t* c = v.defined() ? AsConstInt(v) : nullptr;
      dims.push_back(c ? PrimExpr(IntImm(DataType::Int(64), *c)) : v);
    }
    return ShapeStructInfo(dims);
  }
  return ShapeStructInfo(ndim);
});
TESSERA_REGISTER_GLOBAL("relax.TensorStructInfo")
    .set_body_typed([](Any shape, DataType dtype, int ndim, Any vdevice) -> StructInfo {
      TESSERA_CHECK_OR_THROW(vdevice.is_none() || vdevice.as<VDeviceNode>(), TypeError)
          << "TensorStructInfo: vdevice must be a tvm.ir.VDevice or None";
      VDevice vdev = vdevice.is_none() ? VDevice() : vdevice.cast<VDevice>();
      if (!shape.is_none()) {
        RelaxExpr s = shape.cast<RelaxExpr>();
        TensorStructInfo t(s, dtype);
        TESSERA_CHECK_OR_THROW(ndim == -1 || ndim == t->ndim, ValueError)
            << "TensorStructInfo: ndim " << ndim << " does not match the shape's " << t->ndim;
        return t.WithVDevice(vdev);
      }
      return TensorStructInfo(dtype, ndim).WithVDevice(vdev);
    });
TESSERA_REGISTER_GLOBAL("relax.TupleStructInfo").set_body_typed([](Array<StructInfo> fields) {
  return TupleStructInfo(fields);
});
TESSERA_REGISTER_GLOBAL("relax.FuncStructInfo").set_body_typed([](Array<StructInfo> params, StructInfo ret, bool purity) {
  return FuncStructInfo(params, ret, purity);
});
TESSERA_REGISTER_GLOBAL("relax.FuncStructInfoOpaqueFunc").set_body_typed([](Any ret, bool purity) {
  return FuncStructInfo::OpaqueFunc(ret.is_none() ? StructInfo() : ret.cast<StructInfo>(), purity);
});
TESSERA_REGISTER_GLOBAL("relax.StructInfoIsBaseOf").set_body_typed([](StructInfo base, StructInfo derived) {
  return IsBaseOf(base, derived);
});
TESSERA_REGISTER_GLOBAL("relax.analysis.StructInfoBaseCheck").set_body_typed([](StructInfo base, StructInfo derived) {
  return static_cast<int>(StructInfoBaseCheck(base, derived));
});
TESSERA_REGISTER_GLOBAL("relax.analysis.StructInfoLCA").set_body_typed([](StructInfo a, StructInfo b) {
  return StructInfoLCA(a, b);
});
TESSERA_REGISTER_GLOBAL("relax.StructInfoText").set_body_typed([](StructInfo s) { return StructInfoText(s); });

}  // namespace relax
}  // namespace tessera
