// The R.* functions of TVMScript's Relax dialect as the parser evaluates
// them: annotations (R.Tensor, R.Shape, R.Tuple, R.Prim, R.Object,
// R.Callable), structure (R.dataflow, R.output, R.func_attr), calls
// (R.call_tir with out_sinfo= or the old positional shape + dtype form,
// R.call_dps_packed, R.call_pure_packed, R.call_packed), bindings
// (R.match_cast), values (R.const, R.shape, R.prim_value, R.str, R.dtype,
// R.tuple, R.ExternFunc) and every registered operator "relax.<name>" as
// R.<name>(args..., attr=value, sinfo_args=...). Part of the Relax dialect
// (parser/relax, relax_builder.h); argument errors are ParseErrors at the
// argument.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "ir/global_info.h"
#include "ir/op.h"
#include "relax/op/op_common.h"
#include "script/parser/core/arg_binder.h"
#include "script/parser/ir/module_builder.h"
#include "script/parser/relax/relax_builder.h"
#include "target/target.h"

namespace tessera {
namespace script {

namespace {

using Args = ArgBinder<RelaxBuilder>;

using Handler = Any (*)(RelaxBuilder&, CallArgs&);

relax::Expr OpCall(const char* name, Array<relax::Expr> args, Array<relax::StructInfo> sinfo_args = {},
                   ObjectRef attrs = ObjectRef()) {
  return relax::Call(Op::Get(name), std::move(args), std::move(attrs), std::move(sinfo_args));
}

// `args` of call_tir / call_dps_packed: a tuple (a single expression is wrapped).
relax::Expr ArgTuple(RelaxBuilder& b, const Any& v, const Pos& pos) {
  relax::Expr e = b.ToExpr(v, pos, "the arguments");
  if (e.as<relax::TupleNode>()) return e;
  if (std::optional<relax::StructInfo> s = relax::MatchStructInfo(e); s && s->as<relax::TupleStructInfoNode>()) return e;
  return relax::Tuple(Array<relax::Expr>{e});
}

// An ExternFunc from a name or an R.ExternFunc value.
relax::Expr ExternFuncOf(RelaxBuilder& b, const Any& v, const Pos& pos) {
  if (const auto* s = v.as<StringObj>()) return relax::ExternFunc(s->data);
  if (v.as<relax::ExternFuncNode>()) return GetRef<relax::Expr>(v.as<RelaxExprNode>());
  if (const auto* s = v.as<relax::StringImmNode>()) return relax::ExternFunc(s->value);
  b.Error(pos, "expected the name of a registered function (a string) but got a " + b.TypeName(v));
}

// A struct info, or a list of them (a tuple of outputs).
relax::StructInfo OutSInfo(RelaxBuilder& b, const Any& v, const Pos& pos) {
  if (const auto* arr = v.as<ArrayObj>()) {
    Array<relax::StructInfo> fields;
    for (const Any& x : arr->data) fields.push_back(b.ToStructInfo(x, pos));
    return relax::TupleStructInfo(fields);
  }
  return b.ToStructInfo(v, pos);
}

Array<relax::StructInfo> SInfoArgs(RelaxBuilder& b, const Any& v, const Pos& pos) {
  Array<relax::StructInfo> out;
  if (const auto* arr = v.as<ArrayObj>()) {
    for (const Any& x : arr->data) out.push_back(b.ToStructInfo(x, pos));
  } else if (!v.is_none()) {
    out.push_back(b.ToStructInfo(v, pos));
  }
  return out;
}

Array<PrimExpr> Dims(RelaxBuilder& b, const Any& v, const Pos& pos) {
  const auto* arr = v.as<ArrayObj>();
  if (arr == nullptr) b.Error(pos, "expected a shape (a tuple or list of dimensions) but got a " + b.TypeName(v));
  Array<PrimExpr> dims;
  for (const Any& d : arr->data) dims.push_back(b.ToDim(d, pos));
  return dims;
}

// ---- annotations -----------------------------------------------------------------------
// vdevice="kind[:vdevice_id[:memory_scope]]", as the printer writes it: a VDevice of that target
// kind (TVM's number indexes the module's global_infos, which Tessera does not keep).
VDevice ParseVDevice(RelaxBuilder& b, const Any& v, const Pos& pos) {
  std::string text = b.ToStr(v, pos, "vdevice");
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ':') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (parts.empty() || parts.size() > 3 || parts[0].empty()) {
    b.Error(pos, "vdevice must read \"kind[:vdevice_id[:memory_scope]]\", got \"" + text + "\"");
  }
  auto n = make_object<VDeviceNode>();
  if (parts[0] != "none") n->target = b.Guard(pos, [&] { return ObjectRef(Target(parts[0])); });
  if (parts.size() > 1) {
    const std::string& id = parts[1];
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos || id.size() > 9) {
      b.Error(pos, "vdevice \"" + text + "\": the device id must be a non-negative integer");
    }
    n->vdevice_id = std::stoi(id);
  }
  if (parts.size() > 2) n->memory_scope = parts[2];
  return VDevice(ObjectPtr<Object>(std::move(n)));
}

Any Tensor(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"shape", "dtype", "vdevice", "ndim"}, 0);
  Any shape = a.get("shape");
  Any dtype_value = a.get("dtype");
  Pos dtype_pos = a.pos("dtype");
  if (shape.as<StringObj>() && !a.has("dtype")) {  // R.Tensor("float32")
    dtype_value = shape;
    dtype_pos = a.pos("shape");
    shape = Any();
  }
  VDevice vdevice;
  if (a.has("vdevice")) vdevice = ParseVDevice(b, a.get("vdevice"), a.pos("vdevice"));
  DataType dtype = b.ToDType(dtype_value, dtype_pos);
  int64_t ndim = a.has("ndim") ? b.ev().ToInt(a.get("ndim"), a.pos("ndim"), "ndim") : -1;
  if (ndim < -1) b.Error(a.pos("ndim"), "ndim must be -1 (unknown) or at least 0, got " + std::to_string(ndim));
  if (shape.is_none()) {
    return relax::StructInfo(relax::TensorStructInfo(dtype, static_cast<int>(ndim)).WithVDevice(vdevice));
  }
  relax::Expr shape_expr;
  if (shape.as<ArrayObj>()) {
    shape_expr = relax::ShapeExpr(Dims(b, shape, a.pos("shape")));
  } else {
    shape_expr = b.ToExpr(shape, a.pos("shape"), "a shape");
  }
  relax::TensorStructInfo t = b.Guard(a.pos("shape"), [&] { return relax::TensorStructInfo(shape_expr, dtype); });
  if (ndim != -1 && t->ndim != ndim) {
    b.Error(a.pos("ndim"), "ndim=" + std::to_string(ndim) + " disagrees with the shape's " + std::to_string(t->ndim) +
                               " dimensions");
  }
  return relax::StructInfo(t.WithVDevice(vdevice));
}

Any Shape(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"values", "ndim"}, 0);
  int64_t ndim = a.has("ndim") ? b.ev().ToInt(a.get("ndim"), a.pos("ndim"), "ndim") : -1;
  if (!a.has("values")) {
    if (ndim < -1) b.Error(a.pos("ndim"), "ndim must be -1 (unknown) or at least 0");
    return relax::StructInfo(relax::ShapeStructInfo(static_cast<int>(ndim)));
  }
  Array<PrimExpr> dims = Dims(b, a.get("values"), a.pos("values"));
  if (ndim != -1 && static_cast<int64_t>(dims.size()) != ndim) b.Error(a.pos("ndim"), "ndim disagrees with the values");
  return relax::StructInfo(relax::ShapeStructInfo(dims));
}

Any TupleSInfo(RelaxBuilder& b, CallArgs& c) {
  if (!c.kwargs.empty()) b.Error(c.kwarg_pos[0], "R.Tuple takes its fields as positional arguments");
  // R.Tuple(a, b) or, as TVM also takes, R.Tuple([a, b]).
  if (c.args.size() == 1 && c.args[0].as<ArrayObj>()) return relax::StructInfo(b.ToStructInfo(c.args[0], c.arg_pos[0]));
  Array<relax::StructInfo> fields;
  for (size_t i = 0; i < c.args.size(); ++i) fields.push_back(b.ToStructInfo(c.args[i], c.arg_pos[i]));
  return relax::StructInfo(relax::TupleStructInfo(fields));
}

Any ObjectSInfo(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {}, 0);
  return relax::StructInfo(relax::ObjectStructInfo::Make());
}

Any Prim(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"dtype", "value"}, 0);
  if (a.has("value")) {
    PrimExpr v = b.ToPrimExpr(a.get("value"), a.pos("value"), "the value");
    if (a.has("dtype") && b.ToDType(a.get("dtype"), a.pos("dtype")) != v->dtype) {
      b.Error(a.pos("dtype"), "the dtype disagrees with the value's " + v->dtype.str());
    }
    return relax::StructInfo(relax::PrimStructInfo::FromValue(v));
  }
  if (!a.has("dtype")) b.Error(c.node->pos, "R.Prim needs a dtype or a value, e.g. R.Prim(\"int64\")");
  return relax::StructInfo(relax::PrimStructInfo(b.ToDType(a.get("dtype"), a.pos("dtype"))));
}

Any Callable(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"params", "ret", "purity"}, 0);
  bool purity = a.has("purity") ? b.ev().ToBool(a.get("purity"), a.pos("purity"), "purity") : true;
  relax::StructInfo ret = a.has("ret") ? b.ToStructInfo(a.get("ret"), a.pos("ret")) : relax::ObjectStructInfo::Make();
  if (!a.has("params")) return relax::StructInfo(relax::FuncStructInfo::OpaqueFunc(ret, purity));
  const auto* arr = a.get("params").as<ArrayObj>();
  if (arr == nullptr) b.Error(a.pos("params"), "R.Callable's params must be a tuple of annotations");
  Array<relax::StructInfo> params;
  for (const Any& p : arr->data) params.push_back(b.ToStructInfo(p, a.pos("params")));
  return relax::StructInfo(relax::FuncStructInfo(params, ret, purity));
}

// ---- structure ------------------------------------------------------------------------------
Any Dataflow(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {}, 0);
  return AsRef(make_object<DataflowScopeObj>());
}

Any Output(RelaxBuilder& b, CallArgs& c) {
  b.Output(c);
  return Any();
}

Any FuncAttr(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"attrs"}, 1);
  Any v = b.ev().ToAttrValue(a.get("attrs"), a.pos("attrs"));
  const auto* map = v.as<MapObj>();
  if (map == nullptr) b.Error(a.pos("attrs"), "R.func_attr expects a dict");
  Map<String, Any> attrs;
  for (const auto& kv : map->data) {
    attrs.Set(String(b.ToStr(kv.first, a.pos("attrs"), "an attribute name")), kv.second);
  }
  b.AddFuncAttrs(attrs, c.node->pos);
  return Any();
}

Any Function(RelaxBuilder& b, CallArgs& c) {
  b.Error(c.node->pos, "R.function is a decorator and cannot be called in a function body");
}

// ---- calls ------------------------------------------------------------------------------------
Any CallTIR(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"gvar", "args", "out_sinfo", "tir_vars", "dtype"}, 2);
  const auto* gv = a.get("gvar").as<GlobalVarNode>();
  if (gv == nullptr) {
    b.Error(a.pos("gvar"), "R.call_tir expects a T.prim_func of the module (cls.f) but got a " +
                               b.TypeName(a.get("gvar")));
  }
  const ModuleState& state = ModuleState::Of(b.ev());
  auto it = state.signatures.find(gv);
  if (it != state.signatures.end() && it->second.dialect != "T") {
    b.Error(a.pos("gvar"), "R.call_tir calls T.prim_func functions, and '" + gv->name_hint + "' is a Relax function");
  }
  if (!a.has("out_sinfo")) b.Error(c.node->pos, "R.call_tir() is missing the required argument 'out_sinfo'");
  relax::StructInfo out;
  const Any& o = a.get("out_sinfo");
  if (a.has("dtype")) {  // the old positional form: R.call_tir(f, args, (1, 128), dtype="float32")
    DataType dtype = b.ToDType(a.get("dtype"), a.pos("dtype"));
    if (o.as<ArrayObj>()) {
      out = relax::TensorStructInfo(relax::ShapeExpr(Dims(b, o, a.pos("out_sinfo"))), dtype);
    } else {
      out = relax::TensorStructInfo(b.ToExpr(o, a.pos("out_sinfo"), "a shape"), dtype);
    }
  } else {
    out = OutSInfo(b, o, a.pos("out_sinfo"));
  }
  auto is_tensor = [](const relax::StructInfo& s) { return s.as<relax::TensorStructInfoNode>() != nullptr; };
  bool ok = is_tensor(out);
  if (const auto* tup = out.as<relax::TupleStructInfoNode>()) {
    ok = !tup->fields.empty();
    for (relax::StructInfo f : tup->fields) ok = ok && is_tensor(f);
  }
  if (!ok) b.Error(a.pos("out_sinfo"), "R.call_tir's out_sinfo must be an R.Tensor or a list of them");
  Array<relax::Expr> args = {GetRef<relax::Expr>(gv), ArgTuple(b, a.get("args"), a.pos("args"))};
  if (a.has("tir_vars")) {
    const Any& tv = a.get("tir_vars");
    if (tv.as<ArrayObj>()) {
      args.push_back(relax::ShapeExpr(Dims(b, tv, a.pos("tir_vars"))));
    } else {
      args.push_back(b.ToExpr(tv, a.pos("tir_vars"), "the TIR variables"));
    }
  }
  return OpCall("relax.call_tir", args, {out});
}

Any CallDPSPacked(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"func", "args", "out_sinfo"}, 3);
  relax::Expr f = ExternFuncOf(b, a.get("func"), a.pos("func"));
  relax::StructInfo out = OutSInfo(b, a.get("out_sinfo"), a.pos("out_sinfo"));
  return OpCall("relax.call_dps_packed", {f, ArgTuple(b, a.get("args"), a.pos("args"))}, {out});
}

// R.call_packed / R.call_pure_packed: (func, *args, sinfo_args=...).
Array<relax::Expr> PackedArgs(RelaxBuilder& b, CallArgs& c, Array<relax::StructInfo>* sinfo_args) {
  if (c.args.empty()) b.Error(c.node->pos, c.func + "() is missing the name of the function to call");
  for (size_t k = 0; k < c.kwargs.size(); ++k) {
    if (c.kwargs[k].first != "sinfo_args") {
      b.Error(c.kwarg_pos[k], c.func + "() got an unexpected keyword argument '" + c.kwargs[k].first + "'");
    }
    *sinfo_args = SInfoArgs(b, c.kwargs[k].second, c.kwarg_pos[k]);
  }
  if (sinfo_args->empty()) {
    b.Error(c.node->pos, c.func + "() needs sinfo_args=, the struct info of its result (e.g. R.Tensor((4,), \"float32\"))");
  }
  Array<relax::Expr> args = {ExternFuncOf(b, c.args[0], c.arg_pos[0])};
  for (size_t i = 1; i < c.args.size(); ++i) args.push_back(b.ToExpr(c.args[i], c.arg_pos[i]));
  return args;
}

Any CallPurePacked(RelaxBuilder& b, CallArgs& c) {
  Array<relax::StructInfo> sinfo;
  Array<relax::Expr> args = PackedArgs(b, c, &sinfo);
  return OpCall("relax.call_pure_packed", args, sinfo);
}

Any CallPacked(RelaxBuilder& b, CallArgs& c) {
  Array<relax::StructInfo> sinfo;
  Array<relax::Expr> args = PackedArgs(b, c, &sinfo);
  relax::Expr f = args[0];
  Array<relax::Expr> rest;
  for (size_t i = 1; i < args.size(); ++i) rest.push_back(args[i]);
  return relax::Expr(relax::Call(f, rest, ObjectRef(), sinfo));
}

// R.print(*values, format=""): the format string is the call's first argument.
Any Print(RelaxBuilder& b, CallArgs& c) {
  Array<relax::Expr> args = {relax::StringImm("")};
  for (size_t k = 0; k < c.kwargs.size(); ++k) {
    if (c.kwargs[k].first != "format") {
      b.Error(c.kwarg_pos[k], "R.print() got an unexpected keyword argument '" + c.kwargs[k].first + "'");
    }
    const Any& f = c.kwargs[k].second;
    args.Set(0, f.as<relax::StringImmNode>() ? GetRef<relax::Expr>(f.as<RelaxExprNode>())
                                              : relax::Expr(relax::StringImm(b.ToStr(f, c.kwarg_pos[k], "the format"))));
  }
  for (size_t i = 0; i < c.args.size(); ++i) args.push_back(b.ToExpr(c.args[i], c.arg_pos[i], "a value to print"));
  return OpCall("relax.print", args);
}

// R.assert_op(condition, format_args=None, format=""): the call's operands are the condition, the
// format string, then the format arguments (one expression or a list of them).
Any AssertOp(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"condition", "format_args", "format"}, 1);
  Array<relax::Expr> args = {b.ToExpr(a.get("condition"), a.pos("condition"), "the condition"),
                             relax::StringImm("")};
  if (a.has("format")) {
    const Any& f = a.get("format");
    args.Set(1, f.as<relax::StringImmNode>() ? GetRef<relax::Expr>(f.as<RelaxExprNode>())
                                              : relax::Expr(relax::StringImm(b.ToStr(f, a.pos("format"), "the format"))));
  }
  if (a.has("format_args") && !a.get("format_args").is_none()) {
    const Any& v = a.get("format_args");
    if (const auto* arr = v.as<ArrayObj>()) {
      for (const Any& x : arr->data) args.push_back(b.ToExpr(x, a.pos("format_args"), "a format argument"));
    } else {
      args.push_back(b.ToExpr(v, a.pos("format_args"), "a format argument"));
    }
  }
  return OpCall("relax.assert_op", args);
}

Any MatchCast(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"value", "struct_info"}, 2);
  auto m = make_object<MatchCastValueObj>();
  m->value = b.ToExpr(a.get("value"), a.pos("value"), "the value");
  m->struct_info = b.ToStructInfo(a.get("struct_info"), a.pos("struct_info"));
  return AsRef(m);
}

// ---- values -------------------------------------------------------------------------------------
Any Const(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"value", "dtype"}, 1);
  std::optional<DataType> dtype;
  if (a.has("dtype")) dtype = b.ToDType(a.get("dtype"), a.pos("dtype"));
  if (a.get("value").as<NDArrayObj>()) {
    NDArray data = a.get("value").cast<NDArray>();
    if (dtype && *dtype != data.dtype()) b.Error(a.pos("dtype"), "the dtype disagrees with the array's " + data.dtype().str());
    return relax::Expr(relax::Constant(data));
  }
  return relax::Expr(MakeConstant(b, a.get("value"), dtype, a.pos("value")));
}

Any ShapeValue(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"value"}, 1);
  return relax::Expr(relax::ShapeExpr(Dims(b, a.get("value"), a.pos("value"))));
}

Any PrimValue(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"value"}, 1);
  return relax::Expr(relax::PrimValue(b.ToPrimExpr(a.get("value"), a.pos("value"), "the value")));
}

Any Str(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"value"}, 1);
  return relax::Expr(relax::StringImm(b.ToStr(a.get("value"), a.pos("value"), "the string")));
}

Any DType(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"value"}, 1);
  return relax::Expr(relax::DataTypeImm(b.ToDType(a.get("value"), a.pos("value"))));
}

Any TupleValue(RelaxBuilder& b, CallArgs& c) {
  if (!c.kwargs.empty()) b.Error(c.kwarg_pos[0], "R.tuple takes its fields as positional arguments");
  Array<relax::Expr> fields;
  for (size_t i = 0; i < c.args.size(); ++i) fields.push_back(b.ToExpr(c.args[i], c.arg_pos[i], "a tuple field"));
  return relax::Expr(relax::Tuple(fields));
}

Any ExternFuncValue(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"global_symbol"}, 1);
  return relax::Expr(relax::ExternFunc(b.ToStr(a.get("global_symbol"), a.pos("global_symbol"), "the function name")));
}

Any TupleGetItemValue(RelaxBuilder& b, CallArgs& c) {
  Args a(b, c, {"tuple_value", "index"}, 2);
  relax::Expr tuple = b.ToExpr(a.get("tuple_value"), a.pos("tuple_value"), "the tuple");
  int64_t index = b.ev().ToInt(a.get("index"), a.pos("index"), "the index");
  return b.Guard(a.pos("index"), [&] { return relax::Expr(relax::TupleGetItem(tuple, static_cast<int>(index))); });
}

// An operator with an operand signature ("TScriptOperandSignature", SetOperandSignature in
// src/relax/op/op_attrs.cc): its operands bound by position or keyword, missing ones from their
// defaults, plain Python values converted by each operand's kind.
Any OperandSignatureOp(RelaxBuilder& b, CallArgs& c, const Op& op, const Array<Any>& sig) {
  const std::string fname = "R." + op->name.substr(6);
  const size_t n = sig.size();
  std::vector<std::string> names, kinds;
  for (const Any& item : sig) {
    Array<Any> it = item.cast<Array<Any>>();
    names.push_back(it[0].cast<std::string>());
    kinds.push_back(it[1].cast<std::string>());
  }
  if (c.args.size() > n) {
    b.Error(c.arg_pos[n], fname + " takes at most " + std::to_string(n) + " arguments, got " +
                              std::to_string(c.args.size()));
  }
  std::vector<std::optional<std::pair<Any, Pos>>> given(n);
  for (size_t i = 0; i < c.args.size(); ++i) given[i] = std::make_pair(c.args[i], c.arg_pos[i]);
  for (size_t k = 0; k < c.kwargs.size(); ++k) {
    auto at = std::find(names.begin(), names.end(), c.kwargs[k].first);
    if (at == names.end()) {
      b.Error(c.kwarg_pos[k], fname + "() got an unexpected keyword argument '" + c.kwargs[k].first + "'");
    }
    size_t i = static_cast<size_t>(at - names.begin());
    if (given[i]) b.Error(c.kwarg_pos[k], fname + "() got multiple values for argument '" + names[i] + "'");
    given[i] = std::make_pair(c.kwargs[k].second, c.kwarg_pos[k]);
  }
  Array<relax::Expr> args;
  for (size_t i = 0; i < n; ++i) {
    Array<Any> it = sig[i].cast<Array<Any>>();
    if (!given[i] && it.size() < 3) b.Error(c.node->pos, fname + "() missing required argument '" + names[i] + "'");
    const Any v = given[i] ? given[i]->first : it[2];
    const Pos pos = given[i] ? given[i]->second : c.node->pos;
    const std::string what = "argument '" + names[i] + "' of " + fname;
    if (kinds[i] == "prim" && v.kind() == Any::Kind::kInt) {
      args.push_back(relax::PrimValue(IntImm(DataType::Int(64), v.raw_int())));
    } else if (kinds[i] == "dtype" && v.as<StringObj>()) {
      args.push_back(b.Guard(pos, [&] { return relax::Expr(relax::DataTypeImm(DataType(v.cast<std::string>()))); }));
    } else {
      args.push_back(b.ToExpr(v, pos, what));
    }
  }
  return relax::Expr(relax::Call(op, args, ObjectRef(), {}));
}

// Any registered operator relax.<name>: positional arguments, attributes as
// keywords, sinfo_args= for operators that take struct info. An op with an
// attribute signature ("TScriptAttrSignature", src/relax/op/op_attrs.cc) also
// takes its attributes positionally after its num_inputs operands, as TVM's
// Python signature does (`R.permute_dims(x, [1, 0])`); missing ones get their
// defaults and unknown keywords are refused.
Any GenericOp(RelaxBuilder& b, CallArgs& c, const std::string& op_name) {
  Op op = Op::Get(op_name);
  static const OpAttrMap<Array<Any>> operand_sigs = Op::GetAttrMap<Array<Any>>("TScriptOperandSignature");
  if (operand_sigs.count(op)) return OperandSignatureOp(b, c, op, operand_sigs[op]);
  static const OpAttrMap<Array<Any>> sigs = Op::GetAttrMap<Array<Any>>("TScriptAttrSignature");
  std::optional<Array<Any>> sig;
  if (sigs.count(op)) sig = sigs[op];
  size_t num_operands = c.args.size();
  if (sig && op->num_inputs >= 0 && c.args.size() > static_cast<size_t>(op->num_inputs)) {
    num_operands = static_cast<size_t>(op->num_inputs);
    if (c.args.size() - num_operands > sig->size()) {
      b.Error(c.arg_pos[num_operands + sig->size()],
              "R." + op_name.substr(6) + " takes " + std::to_string(num_operands) + " operand(s) and " +
                  std::to_string(sig->size()) + " attribute(s), got " + std::to_string(c.args.size()) +
                  " positional arguments");
    }
  }
  auto to_attr = [&b](const Any& v, const Pos& pos) -> Any {
    return (v.is_object() && v.as<RelaxExprNode>()) ? v : b.ev().ToAttrValue(v, pos);
  };
  // Operands that are shapes ("TScriptShapeOperands") may be written as a tuple of dims: R.reshape(x, (2, n)).
  static const OpAttrMap<Array<Any>> shape_operands = Op::GetAttrMap<Array<Any>>("TScriptShapeOperands");
  std::vector<int64_t> shape_idx;
  if (shape_operands.count(op)) {
    for (const Any& i : shape_operands[op]) shape_idx.push_back(i.cast<int64_t>());
  }
  // Scalar operands ("TScriptPrimOperands"): a plain number is a PrimValue there, not a constant tensor.
  static const OpAttrMap<Array<Any>> prim_operands = Op::GetAttrMap<Array<Any>>("TScriptPrimOperands");
  std::vector<int64_t> prim_idx;
  if (prim_operands.count(op)) {
    for (const Any& i : prim_operands[op]) prim_idx.push_back(i.cast<int64_t>());
  }
  Array<relax::Expr> args;
  for (size_t i = 0; i < num_operands; ++i) {
    bool is_shape = std::find(shape_idx.begin(), shape_idx.end(), static_cast<int64_t>(i)) != shape_idx.end();
    bool is_prim = std::find(prim_idx.begin(), prim_idx.end(), static_cast<int64_t>(i)) != prim_idx.end();
    const Any::Kind kind = c.args[i].kind();
    if (is_shape && c.args[i].as<ArrayObj>()) {
      args.push_back(relax::ShapeExpr(Dims(b, c.args[i], c.arg_pos[i])));
    } else if (is_prim && (kind == Any::Kind::kInt || kind == Any::Kind::kFloat || kind == Any::Kind::kBool)) {
      args.push_back(relax::PrimValue(b.ToPrimExpr(c.args[i], c.arg_pos[i], "a scalar")));
    } else {
      args.push_back(b.ToExpr(c.args[i], c.arg_pos[i]));
    }
  }
  Array<relax::StructInfo> sinfo_args;
  Map<String, Any> attrs;
  bool has_attrs = false;
  std::vector<std::string> names;
  if (sig) {
    for (const Any& item : *sig) names.push_back(item.cast<Array<Any>>()[0].cast<std::string>());
  }
  for (size_t i = num_operands; i < c.args.size(); ++i) {
    attrs.Set(String(names[i - num_operands]), to_attr(c.args[i], c.arg_pos[i]));
    has_attrs = true;
  }
  for (size_t k = 0; k < c.kwargs.size(); ++k) {
    const std::string& key = c.kwargs[k].first;
    if (key == "sinfo_args") {
      sinfo_args = SInfoArgs(b, c.kwargs[k].second, c.kwarg_pos[k]);
      continue;
    }
    if (sig && std::find(names.begin(), names.end(), key) == names.end()) {
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      b.Error(c.kwarg_pos[k], "R." + op_name.substr(6) + " has no attribute '" + key + "' (attributes: " +
                                  (known.empty() ? std::string("none") : known) + ")");
    }
    if (attrs.count(String(key))) b.Error(c.kwarg_pos[k], "attribute '" + key + "' is given twice");
    attrs.Set(String(key), to_attr(c.kwargs[k].second, c.kwarg_pos[k]));
    has_attrs = true;
  }
  if (sig) {  // defaults and canonical values: the one attrs constructor (src/relax/op/op_attrs.cc)
    try {
      attrs = relax::MakeOpAttrs(op, attrs);
    } catch (const Error& e) {
      std::string msg = e.what();
      if (msg.rfind(op_name, 0) == 0) msg = "R." + op_name.substr(6) + msg.substr(op_name.size());
      b.Error(c.node->pos, msg);
    }
    has_attrs = has_attrs || !attrs.empty();
  }
  return relax::Expr(relax::Call(op, args, has_attrs ? ObjectRef(attrs) : ObjectRef(), sinfo_args));
}

const std::unordered_map<std::string, Handler>& Table() {
  static const std::unordered_map<std::string, Handler> table = {
      {"Tensor", Tensor},
      {"Shape", Shape},
      {"Tuple", TupleSInfo},
      {"Object", ObjectSInfo},
      {"Prim", Prim},
      {"Callable", Callable},
      {"dataflow", Dataflow},
      {"output", Output},
      {"func_attr", FuncAttr},
      {"function", Function},
      {"call_tir", CallTIR},
      {"call_dps_packed", CallDPSPacked},
      {"call_pure_packed", CallPurePacked},
      {"call_packed", CallPacked},
      {"match_cast", MatchCast},
      {"print", Print},
      {"assert_op", AssertOp},
      {"const", Const},
      {"shape", ShapeValue},
      {"ShapeExpr", ShapeValue},  // TVM's R.ShapeExpr([...]) spelling of R.shape
      {"prim_value", PrimValue},
      {"str", Str},
      {"dtype", DType},
      {"tuple", TupleValue},
      {"ExternFunc", ExternFuncValue},
      {"TupleGetItem", TupleGetItemValue},  // R.TupleGetItem(t, i): t[i]
  };
  return table;
}

// Fills `data` (row-major) from nested lists, recording the shape at the first visit of each depth.
void Flatten(RelaxBuilder& b, const Any& v, size_t depth, std::vector<int64_t>* shape, std::vector<Any>* data,
             const Pos& pos) {
  if (const auto* arr = v.as<ArrayObj>()) {
    if (depth == shape->size()) {
      if (!data->empty()) b.Error(pos, "R.const: the nested lists are ragged");
      shape->push_back(static_cast<int64_t>(arr->data.size()));
    } else if (depth > shape->size() || (*shape)[depth] != static_cast<int64_t>(arr->data.size())) {
      b.Error(pos, "R.const: the nested lists are ragged");
    }
    for (const Any& x : arr->data) Flatten(b, x, depth + 1, shape, data, pos);
    return;
  }
  if (!Evaluator::IsNumber(v)) b.Error(pos, "R.const expects numbers, bools or nested lists of them, got a " + b.TypeName(v));
  if (depth != shape->size()) b.Error(pos, "R.const: the nested lists are ragged");
  data->push_back(v);
}

template <typename T>
void Store(void* base, size_t i, T value) {
  std::memcpy(static_cast<char*>(base) + i * sizeof(T), &value, sizeof(T));
}

}  // namespace

relax::Constant MakeConstant(RelaxBuilder& b, const Any& value, std::optional<DataType> dtype, const Pos& pos) {
  std::vector<int64_t> shape;
  std::vector<Any> data;
  Flatten(b, value, 0, &shape, &data, pos);
  if (!dtype) {
    bool any_float = false, all_bool = !data.empty();
    for (const Any& x : data) {
      any_float = any_float || x.kind() == Any::Kind::kFloat;
      all_bool = all_bool && x.kind() == Any::Kind::kBool;
    }
    dtype = all_bool ? DataType::Bool() : any_float ? DataType::Float(32) : DataType::Int(32);
  }
  DataType t = *dtype;
  if (t.lanes() != 1 || !(t.is_bool() || t.is_int() || t.is_uint() || t.is_float()) ||
      (t.is_float() && t.bits() != 32 && t.bits() != 64)) {
    b.Error(pos, "R.const does not support dtype " + t.str());
  }
  NDArray arr = NDArray::Empty(shape, t, Device{kDLCPU, 0});
  void* p = arr.DataPtr();
  for (size_t i = 0; i < data.size(); ++i) {
    const Any& x = data[i];
    double f = x.kind() == Any::Kind::kFloat ? x.raw_float() : static_cast<double>(x.raw_int());
    int64_t n = x.kind() == Any::Kind::kFloat ? static_cast<int64_t>(x.raw_float()) : x.raw_int();
    if (!t.is_float() && x.kind() == Any::Kind::kFloat) {
      b.Error(pos, "R.const: the float " + std::to_string(f) + " does not fit dtype " + t.str());
    }
    if (t.is_bool()) {
      Store<uint8_t>(p, i, n != 0);
    } else if (t.is_float()) {
      if (t.bits() == 32) {
        Store<float>(p, i, static_cast<float>(f));
      } else {
        Store<double>(p, i, f);
      }
    } else {
      int bits = t.bits();
      bool fits = t.is_int() ? (bits == 64 || (n >= -(int64_t{1} << (bits - 1)) && n < (int64_t{1} << (bits - 1))))
                             : (n >= 0 && (bits == 64 || n < (int64_t{1} << bits)));
      if (!fits) b.Error(pos, "R.const: " + std::to_string(n) + " does not fit dtype " + t.str());
      switch (bits) {
        case 8: Store<int8_t>(p, i, static_cast<int8_t>(n)); break;
        case 16: Store<int16_t>(p, i, static_cast<int16_t>(n)); break;
        case 32: Store<int32_t>(p, i, static_cast<int32_t>(n)); break;
        case 64: Store<int64_t>(p, i, n); break;
        default: b.Error(pos, "R.const does not support dtype " + t.str());
      }
    }
  }
  return relax::Constant(arr);
}

Any RelaxBuilder::CallBuiltin(CallArgs& call) {
  const Pos& callee_pos = call.node->kind == ast::ExprKind::kCall ? call.node->a->pos : call.node->pos;
  // The Python operator constructors, relax.op.<name>(...) (tessera.relax is the namespace "relax"),
  // are the operator relax.<name> as R.<name> is (the course writes relax.op.multiply(x, y)).
  static const std::string kPyOps = "relax.op.";
  if (call.func.rfind(kPyOps, 0) == 0 && Op::Exists("relax." + call.func.substr(kPyOps.size()))) {
    if (!InFunction()) Error(callee_pos, call.func + "() can only be used in an R.function body");
    return GenericOp(*this, call, "relax." + call.func.substr(kPyOps.size()));
  }
  // The Python helpers relax.<name>(...) that build what R.<name> builds
  // (TVM's scripts write relax.call_tir(...) as well as R.call_tir(...)).
  static const std::string kPy = "relax.";
  if (call.func.rfind(kPy, 0) == 0 && Table().count(call.func.substr(kPy.size()))) {
    return Table().at(call.func.substr(kPy.size()))(*this, call);
  }
  if (NamespaceRoot(call.func) != "R") {  // an unknown namespace inside an R.function
    Error(callee_pos, "unknown TVMScript function '" + call.func + "'");
  }
  if (call.func.size() <= 2) Error(callee_pos, "the namespace '" + call.func + "' cannot be called; call one of its functions (R.<name>(...))");
  std::string name = call.func.substr(2);
  auto it = Table().find(name);
  if (it != Table().end()) return it->second(*this, call);
  std::string op_name = "relax." + name;
  if (Op::Exists(op_name)) {
    if (!InFunction()) Error(callee_pos, call.func + "() can only be used in an R.function body");
    return GenericOp(*this, call, op_name);
  }
  Error(callee_pos, "unknown Relax function '" + call.func + "' (no operator '" + op_name + "' is registered)");
}

}  // namespace script
}  // namespace tessera
