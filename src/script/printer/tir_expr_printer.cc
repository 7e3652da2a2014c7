// Expressions and attribute values as TVMScript: infix operators with the
// fewest parentheses Python needs, T.<op>(...) calls for intrinsics and for
// nodes the sugar would not rebuild exactly, constants as TVM prints them
// (128, T.int64(5), T.float32(0), T.bool(True)). Part of TIRPrinter (see
// tir_printer.h); script layer.
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "ir/op.h"
#include "runtime/reflection.h"
#include "script/printer/python_literal.h"
#include "script/printer/tir_printer.h"
#include "tir/comm_reducer.h"
#include "tir/op.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace script {
namespace printer {

using namespace tessera::tir;  // NOLINT

namespace {

using BinaryBuilder = PrimExpr (*)(PrimExpr, PrimExpr, Span);

// True when `builder(a, b)` (what the parser calls for the sugared form)
// gives back a node of the same kind over the very same operands, so that
// printing the sugar and parsing it rebuilds this node.
template <typename NodeT>
bool RebuildsSame(const BinaryOpNode* op, BinaryBuilder builder) {
  if (op->a.dtype() != op->b.dtype()) return false;
  try {
    PrimExpr r = builder(op->a, op->b, Span());
    const auto* n = r.as<NodeT>();
    return n != nullptr && n->a.same_as(op->a) && n->b.same_as(op->b);
  } catch (const std::exception&) {
    return false;
  }
}

bool IsIntLike(DataType t) { return t.is_int() || t.is_uint(); }

// `head(a, b, ...)`. The arguments come from a braced list, so the printing
// calls that produce them run left to right (names are defined in order).
std::string CallText(const std::string& head, std::initializer_list<std::string> args) {
  std::string out = head + "(";
  bool first = true;
  for (const std::string& a : args) {
    if (!first) out += ", ";
    out += a;
    first = false;
  }
  return out + ")";
}

// Intrinsics whose script form takes the result dtype as first argument.
bool DtypeFirst(const std::string& name) {
  return name == "call_extern" || name == "call_pure_extern" || name == "call_llvm_intrin" ||
         name == "call_llvm_pure_intrin" || name == "reinterpret" || name == "type_annotation";
}

}  // namespace


std::string TIRPrinter::PrintExpr(const PrimExpr& e) {
  int prec = 0;
  return PrintExprPrec(e, &prec);
}

std::string TIRPrinter::Operand(const PrimExpr& e, int min_prec) {
  int prec = 0;
  std::string s = PrintExprPrec(e, &prec);
  if (prec < min_prec) return "(" + s + ")";
  return s;
}

std::string TIRPrinter::PrintBinary(const PrimExpr& a, const PrimExpr& b, const char* op, int op_prec,
                                    int* prec) {
  *prec = op_prec;
  // Left-associative: a right operand of equal precedence needs parentheses.
  // Comparisons chain in Python, so a comparison operand always needs them.
  int left_min = op_prec == kPrecCompare ? op_prec + 1 : op_prec;
  std::string out = Operand(a, left_min);
  out += ' ';
  out += op;
  out += ' ';
  out += Operand(b, op_prec + 1);
  return out;
}

std::string TIRPrinter::PrintConst(const PrimExpr& e, int* prec) {
  *prec = kPrecAtom;
  if (const auto* n = e.as<IntImmNode>()) {
    DataType t = n->dtype;
    if (t.is_bool()) return T("bool(") + (n->value ? "True" : "False") + ")";
    if (t == DataType::Int(32) || (t == DataType::Int(64) && ctx_->int64_bare &&
                                   n->value != std::numeric_limits<int64_t>::min())) {
      if (n->value < 0) *prec = kPrecUnary;
      return std::to_string(n->value);
    }
    if (t.is_uint() && t.bits() == 64) return T(t.str()) + "(" + std::to_string(static_cast<uint64_t>(n->value)) + ")";
    if (n->value == std::numeric_limits<int64_t>::min()) {
      // -9223372036854775808 does not parse (its magnitude overflows int64);
      // the parser folds this difference back to the same IntImm.
      return T(t.str()) + "(-9223372036854775807 - 1)";
    }
    return T(t.str()) + "(" + std::to_string(n->value) + ")";
  }
  const auto* f = e.as<FloatImmNode>();
  std::string text;
  if (std::isnan(f->value)) {
    text = "\"nan\"";
  } else if (std::isinf(f->value)) {
    text = f->value > 0 ? "\"inf\"" : "\"-inf\"";
  } else {
    text = ShortestDouble(f->value);
  }
  return T(f->dtype.str()) + "(" + text + ")";
}

std::string TIRPrinter::PrintVarUse(const Var& v) {
  if (const std::string* name = names_.Find(v.get())) return *name;
  auto it = data_var_owner_.find(v.get());
  if (it != data_var_owner_.end()) {
    if (const std::string* buf = names_.Find(it->second)) return *buf + ".data";
  }
  return DefineFreeVar(v);
}

std::string TIRPrinter::PrintBufferUse(const Buffer& b) {
  if (const std::string* name = names_.Find(b.get())) return Mark(b, *name);
  return Mark(b, DefineFreeBuffer(b));
}

std::string TIRPrinter::PrintIndices(const Array<PrimExpr>& indices) {
  if (indices.empty()) return "()";
  std::string out;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (i) out += ", ";
    PrimExpr idx = indices[i];
    if (const auto* ramp = idx.as<RampNode>()) {
      if (const auto* stride = ramp->stride.as<IntImmNode>()) {
        // A vector of consecutive (or strided) indices prints as a slice.
        PrimExpr stop = add(ramp->base, mul(IntImm(ramp->stride.dtype(), ramp->lanes), ramp->stride));
        out += PrintExpr(ramp->base);
        out += ":" + PrintExpr(stop);
        if (stride->value != 1) out += ":" + PrintExpr(ramp->stride);
        continue;
      }
    }
    out += PrintExpr(idx);
  }
  return out;
}

std::string TIRPrinter::PrintRegion(const BufferRegion& region) {
  std::string out = PrintBufferUse(region->buffer) + "[";
  if (region->region.empty()) out += "()";
  for (size_t i = 0; i < region->region.size(); ++i) {
    if (i) out += ", ";
    Range r = region->region[i];
    out += PrintExpr(r->min);
    if (!IsConstInt(r->extent, 1)) out += ":" + PrintExpr(add(r->min, r->extent));
  }
  return out + "]";
}

std::string TIRPrinter::PrintTuple(const Array<PrimExpr>& items) {
  std::string out = "(";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += PrintExpr(items[i]);
  }
  if (items.size() == 1) out += ",";
  return out + ")";
}

std::string TIRPrinter::PrintCall(const CallNode* op) {
  std::string head;
  std::string args;
  if (const auto* o = op->op.as<OpNode>()) {
    std::string name = o->name;
    if (name.rfind("tir.", 0) == 0) name = name.substr(4);
    head = T(name);
    if (DtypeFirst(name) || GetRef<Op>(o).GetAttr("TScriptDtypeFirst")) args = PyStringLiteral(op->dtype.str());
  } else if (const auto* gv = op->op.as<GlobalVarNode>()) {
    head = GlobalVarText(gv);
  } else {
    head = T("call_unknown");
  }
  for (size_t i = 0; i < op->args.size(); ++i) {
    if (!args.empty()) args += ", ";
    args += PrintExpr(op->args[i]);
  }
  return head + "(" + args + ")";
}

std::string TIRPrinter::GlobalVarText(const GlobalVarNode* gv) const {
  // Inside a module the module printer named every function (keywords renamed).
  if (const std::string* name = ctx_->FunctionName(gv)) return ctx_->in_module ? "cls." + *name : *name;
  std::string name = SanitizeIdentifier(gv->name_hint, "main");
  if (IsPythonKeyword(name)) name += "_1";
  return ctx_->in_module ? "cls." + name : name;
}

std::string TIRPrinter::PrintExprPrec(const PrimExpr& e, int* prec) {
  if (!ctx_->marks.enabled()) return PrintExprPrecImpl(e, prec);
  std::string open = ctx_->marks.Open(e);
  std::string text = PrintExprPrecImpl(e, prec);
  return open + text + ctx_->marks.Close();
}

std::string TIRPrinter::PrintExprPrecImpl(const PrimExpr& e, int* prec) {
  CheckStack("expression");
  *prec = kPrecAtom;
  if (!e.defined()) return "None";
  if (const auto* v = e.as<VarNode>()) return PrintVarUse(GetRef<Var>(v));
  if (e.as<IntImmNode>() || e.as<FloatImmNode>()) return PrintConst(e, prec);
  if (const auto* op = e.as<BufferLoadNode>()) {
    std::string buffer = PrintBufferUse(op->buffer);
    return buffer + "[" + PrintIndices(op->indices) + "]";
  }

  auto call2 = [&](const char* name, const PrimExpr& a, const PrimExpr& b) {
    return CallText(T(name), {PrintExpr(a), PrintExpr(b)});
  };
  if (const auto* op = e.as<AddNode>()) {
    if (RebuildsSame<AddNode>(op, &add)) return PrintBinary(op->a, op->b, "+", kPrecAdd, prec);
    return call2("Add", op->a, op->b);
  }
  if (const auto* op = e.as<SubNode>()) {
    if (RebuildsSame<SubNode>(op, &sub)) return PrintBinary(op->a, op->b, "-", kPrecAdd, prec);
    return call2("Sub", op->a, op->b);
  }
  if (const auto* op = e.as<MulNode>()) {
    if (RebuildsSame<MulNode>(op, &mul)) return PrintBinary(op->a, op->b, "*", kPrecMul, prec);
    return call2("Mul", op->a, op->b);
  }
  if (const auto* op = e.as<DivNode>()) {
    if (IsIntLike(op->a.dtype())) {
      if (RebuildsSame<DivNode>(op, &truncdiv)) return call2("truncdiv", op->a, op->b);
    } else if (RebuildsSame<DivNode>(op, &div)) {
      return PrintBinary(op->a, op->b, "/", kPrecMul, prec);
    }
    return call2("Div", op->a, op->b);
  }
  if (const auto* op = e.as<ModNode>()) {
    if (RebuildsSame<ModNode>(op, &truncmod)) return call2("truncmod", op->a, op->b);
    return call2("Mod", op->a, op->b);
  }
  if (const auto* op = e.as<FloorDivNode>()) {
    if (RebuildsSame<FloorDivNode>(op, &floordiv)) return PrintBinary(op->a, op->b, "//", kPrecMul, prec);
    return call2("FloorDiv", op->a, op->b);
  }
  if (const auto* op = e.as<FloorModNode>()) {
    if (RebuildsSame<FloorModNode>(op, &floormod)) return PrintBinary(op->a, op->b, "%", kPrecMul, prec);
    return call2("FloorMod", op->a, op->b);
  }
  if (const auto* op = e.as<MinNode>()) {
    return call2(RebuildsSame<MinNode>(op, &tir::min) ? "min" : "Min", op->a, op->b);
  }
  if (const auto* op = e.as<MaxNode>()) {
    return call2(RebuildsSame<MaxNode>(op, &tir::max) ? "max" : "Max", op->a, op->b);
  }
#define TESSERA_PRINT_COMPARE(Node, builder, sym, raw)                                                  \
  if (const auto* op = e.as<Node>()) {                                                                 \
    if (RebuildsSame<Node>(op, &builder)) return PrintBinary(op->a, op->b, sym, kPrecCompare, prec);   \
    return call2(raw, op->a, op->b);                                                                   \
  }
  TESSERA_PRINT_COMPARE(EQNode, equal, "==", "EQ")
  TESSERA_PRINT_COMPARE(NENode, not_equal, "!=", "NE")
  TESSERA_PRINT_COMPARE(LTNode, less, "<", "LT")
  TESSERA_PRINT_COMPARE(LENode, less_equal, "<=", "LE")
  TESSERA_PRINT_COMPARE(GTNode, greater, ">", "GT")
  TESSERA_PRINT_COMPARE(GENode, greater_equal, ">=", "GE")
#undef TESSERA_PRINT_COMPARE
  if (const auto* op = e.as<AndNode>()) {
    if (op->a.dtype().is_bool() && RebuildsSame<AndNode>(op, &logical_and)) {
      return PrintBinary(op->a, op->b, "and", kPrecAnd, prec);
    }
    return call2("And", op->a, op->b);
  }
  if (const auto* op = e.as<OrNode>()) {
    if (op->a.dtype().is_bool() && RebuildsSame<OrNode>(op, &logical_or)) {
      return PrintBinary(op->a, op->b, "or", kPrecOr, prec);
    }
    return call2("Or", op->a, op->b);
  }
  if (const auto* op = e.as<NotNode>()) {
    bool sugar = false;
    if (op->a.defined() && op->a.dtype().is_bool()) {
      PrimExpr r = logical_not(op->a);
      const auto* n = r.as<NotNode>();
      sugar = n != nullptr && n->a.same_as(op->a);
    }
    if (!sugar) return CallText(T("Not"), {PrintExpr(op->a)});
    *prec = kPrecNot;
    return "not " + Operand(op->a, kPrecNot);
  }
  if (const auto* op = e.as<CastNode>()) {
    return CallText(T("Cast"), {PyStringLiteral(op->dtype.str()), PrintExpr(op->value)});
  }
  if (const auto* op = e.as<CallNode>()) return PrintCall(op);
  if (const auto* op = e.as<SelectNode>()) {
    return CallText(T("Select"), {PrintExpr(op->condition), PrintExpr(op->true_value), PrintExpr(op->false_value)});
  }
  if (const auto* op = e.as<StringImmNode>()) return PyStringLiteral(op->value);
  if (const auto* op = e.as<RampNode>()) {
    return CallText(T("Ramp"), {PrintExpr(op->base), PrintExpr(op->stride), std::to_string(op->lanes)});
  }
  if (const auto* op = e.as<BroadcastNode>()) {
    return CallText(T("Broadcast"), {PrintExpr(op->value), std::to_string(op->lanes)});
  }
  if (const auto* op = e.as<LetNode>()) {
    std::string value = PrintExpr(op->value);
    std::string var = PrintVarUse(op->var);
    std::string body = PrintExpr(op->body);
    return T("Let(") + body + ", where={" + var + ": " + value + "})";
  }
  return PyStringLiteral("<" + e->GetTypeKey() + ">");
}

std::string TIRPrinter::PrintDict(const Map<String, Any>& dict) {
  std::vector<std::pair<std::string, const Any*>> items;
  items.reserve(dict.size());
  for (const auto& kv : dict.raw()) items.emplace_back(kv.first.cast<std::string>(), &kv.second);
  std::sort(items.begin(), items.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += PyStringLiteral(items[i].first) + ": " + PrintValue(*items[i].second);
  }
  return out + "}";
}

std::string TIRPrinter::PrintValue(const Any& v) {
  switch (v.kind()) {
    case Any::Kind::kNone: return "None";
    case Any::Kind::kBool: return T("bool(") + (v.raw_int() ? "True" : "False") + ")";
    case Any::Kind::kInt: return std::to_string(v.raw_int());
    case Any::Kind::kFloat: return PyFloatLiteral(v.raw_float());
    case Any::Kind::kDataType: return PyStringLiteral(v.raw_dtype().str());
    case Any::Kind::kObject: break;
    default: return PyStringLiteral(v.repr());
  }
  const ObjectRef& obj = v.raw_object();
  if (const auto* s = obj.as<StringObj>()) return PyStringLiteral(s->data);
  if (obj.as<PrimExprNode>()) return PrintExpr(PrimExpr(obj.data()));
  if (const auto* arr = obj.as<ArrayObj>()) {
    std::string out = "[";
    for (size_t i = 0; i < arr->data.size(); ++i) {
      if (i) out += ", ";
      out += PrintValue(arr->data[i]);
    }
    return out + "]";
  }
  if (const auto* map = obj.as<MapObj>()) {
    bool string_keys = std::all_of(map->data.begin(), map->data.end(),
                                   [](const auto& kv) { return kv.first.template as<StringObj>() != nullptr; });
    if (string_keys) return PrintDict(Map<String, Any>(obj.data()));
    std::string out = "{";
    for (size_t i = 0; i < map->data.size(); ++i) {
      if (i) out += ", ";
      out += PrintValue(map->data[i].first);
      out += ": " + PrintValue(map->data[i].second);
    }
    return out + "}";
  }
  if (const auto* r = obj.as<CommReducerNode>()) {
    // T.comm_reducer(lambda x, y: x + y, [T.float32(0)]): the operands are the lambda's parameters.
    NameScope scope(&names_);
    auto Join = [](const std::vector<std::string>& items) {
      std::string out;
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
      return out;
    };
    std::vector<std::string> params, results, identity;
    for (const Var& v : r->lhs) params.push_back(names_.Define(v.get(), v->name_hint));
    for (const Var& v : r->rhs) params.push_back(names_.Define(v.get(), v->name_hint));
    for (const PrimExpr& e : r->result) results.push_back(PrintExpr(e));
    for (const PrimExpr& e : r->identity_element) identity.push_back(PrintExpr(e));
    std::string body = results.size() == 1 ? results[0] : "(" + Join(results) + ")";
    return T("comm_reducer(") + "lambda " + Join(params) + ": " + body + ", [" + Join(identity) + "])";
  }
  if (obj->GetTypeKey() == "target.Target") {
    // T.target("cuda -arch=sm_80", host="llvm"), read by reflection (the target layer sits above the printer).
    auto spec = Reflection::GetField(obj.get(), "str");
    auto host = Reflection::GetField(obj.get(), "host");
    std::string out = T("target(") + PyStringLiteral(spec ? spec->cast<std::string>() : std::string());
    if (host && host->is_object()) {
      if (auto host_spec = Reflection::GetField(host->raw_object().get(), "str")) {
        out += ", host=" + PyStringLiteral(host_spec->cast<std::string>());
      }
    }
    return out + ")";
  }
  if (obj.as<BufferNode>()) return PrintBufferUse(Buffer(obj.data()));
  if (obj.as<BufferRegionNode>()) return PrintRegion(BufferRegion(obj.data()));
  if (const auto* r = obj.as<RangeNode>()) {
    return CallText(T("Range"), {PrintExpr(r->min), PrintExpr(add(r->min, r->extent))});
  }
  if (const auto* iv = obj.as<IterVarNode>()) {
    return CallText(T("iter_var"), {PrintVarUse(iv->var), iv->dom.defined() ? PrintValue(Any(iv->dom)) : "None",
                                    PyStringLiteral(IterVarTypeName(iv->iter_type)), PyStringLiteral(iv->thread_tag)});
  }
  if (const auto* gv = obj.as<GlobalVarNode>()) return GlobalVarText(gv);
  if (const auto* o = obj.as<OpNode>()) {
    std::string name = o->name.rfind("tir.", 0) == 0 ? o->name.substr(4) : o->name;
    return T(name);
  }
  return PyStringLiteral("<" + obj->GetTypeKey() + ">");
}

}  // namespace printer
}  // namespace script
}  // namespace tessera
