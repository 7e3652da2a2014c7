// Relax expressions, struct info and constants as TVMScript (part of
// RelaxPrinter, see relax_printer.h): variables by name, `R.call_tir(cls.f,
// (x,), out_sinfo=...)`, `R.call_dps_packed("f", ...)`, op calls `R.add(x, y)`
// with attributes as keywords and `sinfo_args=(...)`, tuples, `t[0]`,
// `R.shape([1, n])`, `R.prim_value(...)`, `R.str("...")`, `R.dtype("...")`,
// scalar constants as `R.const(1.5, "float32")` and other tensors as
// metadata["relax.expr.Constant"][i]; struct info as R.Tensor / R.Shape /
// R.Tuple / R.Prim / R.Object / R.Callable. Script layer (printer).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/op.h"
#include "ir/structural_equal.h"
#include "runtime/stack_guard.h"
#include "script/printer/python_literal.h"
#include "script/printer/relax_printer.h"
#include "script/printer/tir_printer.h"
#include "target/target.h"
#include "tir/functor.h"

namespace tessera {
namespace script {
namespace printer {

namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

// A Python tuple display: `()`, `(a,)`, `(a, b)`.
std::string TupleText(const std::vector<std::string>& items) {
  if (items.size() == 1) return "(" + items[0] + ",)";
  return "(" + Join(items) + ")";
}

bool IsOp(const relax::Expr& e, const char* name) {
  const auto* op = e.as<OpNode>();
  return op != nullptr && op->name == name;
}

// A 0-d CPU tensor of a type R.const prints as a Python scalar.
std::optional<std::string> ScalarText(const NDArray& data) {
  if (data.ndim() != 0 || data.device().device_type != kDLCPU) return std::nullopt;
  DataType t = data.dtype();
  const void* p = data.DataPtr();
  if (t.is_bool()) return std::string(*static_cast<const uint8_t*>(p) ? "True" : "False");
  if (t.is_int() && t.lanes() == 1) {
    switch (t.bits()) {
      case 8: return std::to_string(*static_cast<const int8_t*>(p));
      case 16: return std::to_string(*static_cast<const int16_t*>(p));
      case 32: return std::to_string(*static_cast<const int32_t*>(p));
      case 64: {
        int64_t v = *static_cast<const int64_t*>(p);
        if (v == std::numeric_limits<int64_t>::min()) return std::nullopt;  // no literal spells it
        return std::to_string(v);
      }
      default: return std::nullopt;
    }
  }
  if (t.is_float() && t.lanes() == 1 && (t.bits() == 32 || t.bits() == 64)) {
    double v = t.bits() == 32 ? static_cast<double>(*static_cast<const float*>(p)) : *static_cast<const double*>(p);
    return PyFloatLiteral(v);  // float("inf") / float("nan") for values without a literal: the parser reads them
  }
  return std::nullopt;
}

}  // namespace

RelaxPrinter::RelaxPrinter(PrinterContext* ctx) : ctx_(ctx), cfg_(ctx->cfg), names_(ctx->names) {}

// ---- PrimExprs and symbolic variables ---------------------------------------------
void RelaxPrinter::DefineSymbolicVars(const PrimExpr& e) {
  tir::PostOrderVisit(e, [&](const ObjectRef& n) {
    const auto* v = n.as<tir::VarNode>();
    if (v == nullptr || names_.IsDefined(v)) return;
    const std::string& name = names_.DefineInScope(func_scope_, v, v->name_hint, "v");
    if (in_signature_) signature_vars_.insert(v);
    prelude_.append(static_cast<size_t>(prelude_indent_ * cfg_.indent_spaces), ' ');
    prelude_ += name + " = " + cfg_.tir_prefix + "." + v->dtype.str() + "()\n";    ctx_->tir_prefix_used = true;
  });
}

std::string RelaxPrinter::PrintPrim(const PrimExpr& e) {
  DefineSymbolicVars(e);
  bool saved = ctx_->int64_bare;
  ctx_->int64_bare = true;
  std::string text = TIRPrinter(ctx_).PrintPrimExpr(e);
  ctx_->int64_bare = saved;
  if (text.find(cfg_.tir_prefix + ".") != std::string::npos) ctx_->tir_prefix_used = true;
  return text;
}

std::string RelaxPrinter::PrintShapeDim(const PrimExpr& e) {
  std::string text = PrintPrim(e);
  if (!in_signature_) return text;
  bool over_signature_var = false;
  tir::PostOrderVisit(e, [&](const ObjectRef& n) {
    over_signature_var = over_signature_var || signature_vars_.count(n.get()) > 0;
  });
  if (!over_signature_var) return text;
  // Quoted: the span marks of the expression's parts cannot stay inside the
  // literal; the whole string is the dimension's span.
  std::string plain;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == SpanMarks::kOpen) {
      while (i < text.size() && text[i] != SpanMarks::kOpenEnd) ++i;
    } else if (text[i] != SpanMarks::kClose) {
      plain += text[i];
    }
  }
  return Mark(e, PyStringLiteral(plain));
}

// ---- struct info ---------------------------------------------------------------------
std::string RelaxPrinter::PrintStructInfo(const relax::StructInfo& s) {
  using namespace relax;  // NOLINT
  CheckStack("relax struct info");  // tuple struct info nests as deep as the tuples
  if (!s.defined()) return R("Object");
  if (s.as<ObjectStructInfoNode>()) return R("Object");
  if (const auto* p = s.as<PrimStructInfoNode>()) {
    if (p->value.defined()) return R("Prim(value=") + PrintShapeDim(p->value) + ")";
    return R("Prim(") + PyStringLiteral(p->dtype.str()) + ")";
  }
  if (const auto* sh = s.as<ShapeStructInfoNode>()) {
    if (sh->values.has_value()) {
      std::vector<std::string> dims;
      for (PrimExpr d : *sh->values) dims.push_back(PrintShapeDim(d));
      return R("Shape([") + Join(dims) + "])";
    }
    return R("Shape(ndim=") + std::to_string(sh->ndim) + ")";
  }
  if (const auto* t = s.as<TensorStructInfoNode>()) {
    std::vector<std::string> args;
    if (t->shape.has_value()) {
      if (const auto* se = t->shape->as<ShapeExprNode>()) {
        std::vector<std::string> dims;
        for (PrimExpr d : se->values) dims.push_back(PrintShapeDim(d));
        args.push_back(TupleText(dims));
      } else {
        args.push_back(PrintExpr(*t->shape));
      }
    }
    if (!t->IsUnknownDtype()) args.push_back("dtype=" + PyStringLiteral(t->dtype.str()));
    if (!t->shape.has_value() && !t->IsUnknownNdim()) args.push_back("ndim=" + std::to_string(t->ndim));
    if (t->vdevice.defined()) {
      // TVM's "kind:index" names an entry of the module's global_infos, which Tessera does not keep:
      // here the index is the vdevice_id (docs/compatibility.md), which the parser reads back.
      const auto* target = t->vdevice->target.as<TargetNode>();
      std::string text = (target ? target->kind : std::string("none")) + ":" + std::to_string(t->vdevice->vdevice_id);
      if (t->vdevice->memory_scope != "global") text += ":" + t->vdevice->memory_scope;
      args.push_back("vdevice=" + PyStringLiteral(text));
    }
    if (args.empty()) return R("Tensor");
    return R("Tensor(") + Join(args) + ")";
  }
  if (const auto* tup = s.as<TupleStructInfoNode>()) {
    if (tup->fields.empty()) return R("Tuple");
    std::vector<std::string> fields;
    for (StructInfo f : tup->fields) fields.push_back(PrintStructInfo(f));
    return R("Tuple(") + Join(fields) + ")";
  }
  if (const auto* f = s.as<FuncStructInfoNode>()) {
    std::string purity = f->purity ? "" : ", purity=False";
    if (f->IsOpaque()) {
      if (!f->ret.defined() || f->ret.as<ObjectStructInfoNode>()) return R("Callable") + (f->purity ? "" : "(purity=False)");
      return R("Callable(ret=") + PrintStructInfo(f->ret) + purity + ")";
    }
    std::vector<std::string> params;
    for (StructInfo p : *f->params) params.push_back(PrintStructInfo(p));
    return R("Callable(") + TupleText(params) + ", " + PrintStructInfo(f->ret) + purity + ")";
  }
  TESSERA_THROW(TypeError) << "no TVMScript form for a " << s->GetTypeKey();
}

// ---- expressions -----------------------------------------------------------------------
std::string RelaxPrinter::VarUse(const relax::VarNode* v) {
  if (const std::string* name = names_.Find(v)) return *name;
  // A free variable (a fragment, or ill-formed IR): named where it is first
  // used, with its annotation as a definition in the prelude.
  std::string ann = v->struct_info_.defined() ? PrintStructInfo(Downcast<relax::StructInfo>(v->struct_info_)) : "";
  const std::string& name = names_.DefineInScope(func_scope_, v, v->name_hint, "v");
  prelude_.append(static_cast<size_t>(prelude_indent_ * cfg_.indent_spaces), ' ');
  prelude_ += name + (ann.empty() ? std::string(" = None") : ": " + ann) + "\n";
  return name;
}

std::string RelaxPrinter::GlobalVarUse(const GlobalVarNode* gv) {
  const std::string* name = ctx_->FunctionName(gv);
  if (name == nullptr || !ctx_->in_module) return name ? *name : SanitizeIdentifier(gv->name_hint, "f");
  if (!cls_defined_) {
    cls_defined_ = true;
    prelude_.append(static_cast<size_t>(prelude_indent_ * cfg_.indent_spaces), ' ');
    prelude_ += "cls = Module\n";
  }
  return "cls." + *name;
}

std::string RelaxPrinter::PrintExpr(const relax::Expr& e) { return Mark(e, PrintExprImpl(e)); }

std::string RelaxPrinter::PrintCallee(const relax::Expr& e) {
  if (const auto* ext = e.as<relax::ExternFuncNode>()) return PyStringLiteral(ext->global_symbol);
  return PrintExpr(e);
}

std::string RelaxPrinter::PrintConstant(const relax::ConstantNode* c) {
  if (std::optional<std::string> scalar = ScalarText(c->data)) {
    return R("const(") + *scalar + ", " + PyStringLiteral(c->data.dtype().str()) + ")";
  }
  size_t index = ctx_->MetadataIndex(GetRef<relax::Constant>(c));
  return "metadata[" + PyStringLiteral(c->GetTypeKey()) + "][" + std::to_string(index) + "]";
}

std::string RelaxPrinter::PrintExprImpl(const relax::Expr& e) {
  using namespace relax;  // NOLINT
  TESSERA_CHECK_OR_THROW(e.defined(), TypeError) << "cannot print an undefined Relax expression";
  CheckStack("relax expression");  // nested calls, tuples, If branches recurse through here
  if (const auto* v = e.as<VarNode>()) return VarUse(v);
  if (const auto* gv = e.as<GlobalVarNode>()) return GlobalVarUse(gv);
  if (const auto* c = e.as<ConstantNode>()) return PrintConstant(c);
  if (const auto* t = e.as<TupleNode>()) {
    if (t->fields.empty()) return R("tuple()");
    std::vector<std::string> fields;
    for (Expr f : t->fields) fields.push_back(PrintExpr(f));
    return TupleText(fields);
  }
  if (const auto* g = e.as<TupleGetItemNode>()) return PrintExpr(g->tuple) + "[" + std::to_string(g->index) + "]";
  if (const auto* s = e.as<ShapeExprNode>()) {
    std::vector<std::string> dims;
    for (PrimExpr d : s->values) dims.push_back(PrintShapeDim(d));
    return R("shape([") + Join(dims) + "])";
  }
  if (const auto* p = e.as<PrimValueNode>()) return R("prim_value(") + PrintPrim(p->value) + ")";
  if (const auto* s = e.as<StringImmNode>()) return R("str(") + PyStringLiteral(s->value) + ")";
  if (const auto* d = e.as<DataTypeImmNode>()) return R("dtype(") + PyStringLiteral(d->value.str()) + ")";
  if (const auto* f = e.as<ExternFuncNode>()) return R("ExternFunc(") + PyStringLiteral(f->global_symbol) + ")";
  if (const auto* c = e.as<CallNode>()) return PrintCall(c);
  if (const auto* op = e.as<OpNode>()) {
    if (op->name.rfind("relax.", 0) == 0) return R(op->name.substr(6));
    return op->name;
  }
  TESSERA_THROW(TypeError) << "no TVMScript form for a " << e->GetTypeKey() << " inside a Relax expression";
}

std::string RelaxPrinter::PrintAttrKwargs(const ObjectRef& attrs, const relax::CallNode* call) {
  if (!attrs.defined()) return "";
  const auto* map = attrs.as<MapObj>();
  TESSERA_CHECK_OR_THROW(map != nullptr, TypeError)
      << "no TVMScript form for call attributes of type " << attrs->GetTypeKey();
  // Keyword order: the op's attribute signature (TVM's field order) when it has one
  // (src/relax/op/op_attrs.cc), then the other keys alphabetically.
  std::vector<std::string> order;
  if (const auto* op = call != nullptr ? call->op.as<OpNode>() : nullptr) {
    static const OpAttrMap<Array<Any>> sigs = Op::GetAttrMap<Array<Any>>("TScriptAttrSignature");
    if (sigs.count(GetRef<Op>(op))) {
      for (const Any& item : sigs[GetRef<Op>(op)]) order.push_back(item.cast<Array<Any>>()[0].cast<std::string>());
    }
  }
  auto rank = [&order](const std::string& k) {
    return static_cast<size_t>(std::find(order.begin(), order.end(), k) - order.begin());
  };
  std::vector<std::pair<std::string, Any>> sorted;
  for (const auto& kv : map->data) sorted.emplace_back(kv.first.cast<std::string>(), kv.second);
  std::sort(sorted.begin(), sorted.end(), [&rank](const auto& a, const auto& b) {
    size_t ra = rank(a.first), rb = rank(b.first);
    return ra != rb ? ra < rb : a.first < b.first;
  });
  std::string out;
  for (const auto& kv : sorted) {
    std::string value;
    const auto* imm = kv.second.as<IntImmNode>();
    if (imm != nullptr && imm->dtype.is_bool()) {
      value = imm->value ? "True" : "False";  // parsed back as a bool IntImm
    } else if (const auto* e = kv.second.as<RelaxExprNode>(); e && !kv.second.as<OpNode>()) {
      value = PrintExpr(GetRef<relax::Expr>(e));
    } else {
      bool saved = ctx_->int64_bare;
      ctx_->int64_bare = true;
      value = TIRPrinter(ctx_).PrintValueFragment(kv.second);
      ctx_->int64_bare = saved;
      if (value.find(cfg_.tir_prefix + ".") != std::string::npos) ctx_->tir_prefix_used = true;
    }
    out += ", " + kv.first + "=" + value;
  }
  return out;
}

std::string RelaxPrinter::PrintCall(const relax::CallNode* call) {
  using namespace relax;  // NOLINT
  // call_tir / call_dps_packed: callee, argument tuple, out_sinfo (a list for
  // several outputs) and call_tir's tir_vars.
  bool is_call_tir = IsOp(call->op, "relax.call_tir");
  if ((is_call_tir || IsOp(call->op, "relax.call_dps_packed")) && (call->args.size() == 2 || call->args.size() == 3) &&
      call->sinfo_args.size() == 1) {
    std::string text = R(is_call_tir ? "call_tir(" : "call_dps_packed(") + PrintCallee(call->args[0]) + ", " +
                       PrintExpr(call->args[1]) + ", out_sinfo=";
    StructInfo out = call->sinfo_args[0];
    if (const auto* tup = out.as<TupleStructInfoNode>()) {
      std::vector<std::string> fields;
      for (StructInfo f : tup->fields) fields.push_back(PrintStructInfo(f));
      text += "[" + Join(fields) + "]";
    } else {
      text += PrintStructInfo(out);
    }
    if (call->args.size() == 3) text += ", tir_vars=" + PrintExpr(call->args[2]);
    return text + ")";
  }
  // R.print: the first argument is the format string.
  if (IsOp(call->op, "relax.print") && !call->args.empty() && call->args[0].as<StringImmNode>() && !call->attrs.defined()) {
    std::vector<std::string> args;
    for (size_t i = 1; i < call->args.size(); ++i) args.push_back(PrintExpr(call->args[i]));
    args.push_back("format=" + PyStringLiteral(call->args[0].as<StringImmNode>()->value));
    return R("print(") + Join(args) + ")";
  }
  // R.assert_op(condition, [format_args...], format=...): operands condition, format string, format args.
  if (IsOp(call->op, "relax.assert_op") && call->args.size() >= 2 && call->args[1].as<StringImmNode>() &&
      !call->attrs.defined()) {
    std::vector<std::string> args = {PrintExpr(call->args[0])};
    std::vector<std::string> fmt_args;
    for (size_t i = 2; i < call->args.size(); ++i) fmt_args.push_back(PrintExpr(call->args[i]));
    if (!fmt_args.empty()) args.push_back("[" + Join(fmt_args) + "]");
    args.push_back("format=" + PyStringLiteral(call->args[1].as<StringImmNode>()->value));
    return R("assert_op(") + Join(args) + ")";
  }
  std::string head;
  std::vector<std::string> args;
  if (const auto* ext = call->op.as<ExternFuncNode>()) {
    head = R("call_packed");
    args.push_back(PyStringLiteral(ext->global_symbol));
  } else if (const auto* op = call->op.as<OpNode>()) {
    head = op->name.rfind("relax.", 0) == 0 ? R(op->name.substr(6)) : op->name;
  } else if (call->op.as<VarNode>() || call->op.as<GlobalVarNode>()) {
    head = PrintExpr(call->op);
  } else {
    TESSERA_THROW(TypeError) << "no TVMScript form for a call of a " << call->op->GetTypeKey();
  }
  for (size_t i = 0; i < call->args.size(); ++i) {
    args.push_back(i == 0 ? PrintCallee(call->args[i]) : PrintExpr(call->args[i]));
  }
  std::string text = head + "(" + Join(args);
  std::string kwargs = PrintAttrKwargs(call->attrs, call);
  if (!call->sinfo_args.empty()) {
    std::vector<std::string> sinfos;
    for (StructInfo s : call->sinfo_args) sinfos.push_back(PrintStructInfo(s));
    kwargs += ", sinfo_args=" + TupleText(sinfos);
  }
  if (args.empty() && !kwargs.empty()) kwargs = kwargs.substr(2);
  return text + kwargs + ")";
}

}  // namespace printer
}  // namespace script
}  // namespace tessera
