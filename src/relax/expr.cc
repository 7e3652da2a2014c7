// Constructors and node registrations of the Relax expressions, bindings
// and blocks (see expr.h), plus their "relax.*" constructor globals for Python.
#include "relax/expr.h"

#include <unordered_set>

#include "ir/structural_equal.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {

std::string ExprKindName(const ObjectRef& e) {
  if (!e.defined()) return "None";
  std::string key = e->GetTypeKey();
  if (key.rfind("relax.expr.", 0) == 0) return "relax." + key.substr(11);
  return key;
}

ShapeExpr::ShapeExpr(Array<PrimExpr> values, Span span) {
  Array<PrimExpr> checked;
  for (size_t i = 0; i < values.size(); ++i) {
    PrimExpr v = values[i];
    TESSERA_CHECK_OR_THROW(v.defined(), TypeError) << "ShapeExpr: dim " << i << " is None";
    TESSERA_CHECK_OR_THROW(v.dtype().is_int() || v.dtype().is_uint(), TypeError)
        << "ShapeExpr: dim " << i << " must be an integer expression, got dtype " << v.dtype();
    // Dims are int64, as in TVM.
    if (const int64_t* c = AsConstInt(v)) {
      if (v.dtype() != DataType::Int(64)) v = IntImm(DataType::Int(64), *c);
    }
    checked.push_back(v);
  }
  auto n = make_object<ShapeExprNode>();
  n->values = std::move(checked);
  n->span = std::move(span);
  n->struct_info_ = ShapeStructInfo(n->values);
  data_ = std::move(n);
}

Var::Var(std::string name_hint, std::optional<StructInfo> struct_info, Span span) {
  auto n = make_object<VarNode>();
  n->name_hint = std::move(name_hint);
  if (struct_info) n->struct_info_ = *struct_info;
  n->span = std::move(span);
  data_ = std::move(n);
}

DataflowVar::DataflowVar(std::string name_hint, std::optional<StructInfo> struct_info, Span span) {
  auto n = make_object<DataflowVarNode>();
  n->name_hint = std::move(name_hint);
  if (struct_info) n->struct_info_ = *struct_info;
  n->span = std::move(span);
  data_ = std::move(n);
}

Constant::Constant(NDArray data, std::optional<StructInfo> struct_info, Span span) {
  TESSERA_CHECK_OR_THROW(data.defined(), TypeError) << "relax.Constant: data is None";
  auto n = make_object<ConstantNode>();
  Array<PrimExpr> dims;
  for (int64_t d : data.Shape()) dims.push_back(IntImm(DataType::Int(64), d));
  n->struct_info_ = struct_info ? *struct_info : StructInfo(TensorStructInfo(ShapeExpr(dims), data.dtype()));
  n->data = std::move(data);
  n->span = std::move(span);
  data_ = std::move(n);
}

Tuple::Tuple(Array<RelaxExpr> fields, Span span) {
  for (size_t i = 0; i < fields.size(); ++i) {
    TESSERA_CHECK_OR_THROW(fields[i].defined(), TypeError) << "relax.Tuple: field " << i << " is None";
  }
  auto n = make_object<TupleNode>();
  // Known when every field's is.
  bool known = true;
  Array<StructInfo> sinfo;
  for (const RelaxExpr& f : fields) {
    if (!f->struct_info_.defined()) {
      known = false;
      break;
    }
    sinfo.push_back(Downcast<StructInfo>(f->struct_info_));
  }
  if (known) n->struct_info_ = TupleStructInfo(sinfo);
  n->fields = std::move(fields);
  n->span = std::move(span);
  data_ = std::move(n);
}

TupleGetItem::TupleGetItem(RelaxExpr tuple, int index, Span span) {
  TESSERA_CHECK_OR_THROW(tuple.defined(), TypeError) << "relax.TupleGetItem: tuple is None";
  TESSERA_CHECK_OR_THROW(index >= 0, IndexError) << "relax.TupleGetItem: negative index " << index;
  auto n = make_object<TupleGetItemNode>();
  n->tuple = std::move(tuple);
  n->index = index;
  n->span = std::move(span);
  data_ = std::move(n);
}

Call::Call(RelaxExpr op, Array<RelaxExpr> args, ObjectRef attrs, Array<StructInfo> sinfo_args, Span span) {
  TESSERA_CHECK_OR_THROW(op.defined(), TypeError) << "relax.Call: op is None";
  for (size_t i = 0; i < args.size(); ++i) {
    TESSERA_CHECK_OR_THROW(args[i].defined(), TypeError) << "relax.Call: argument " << i << " is None";
  }
  for (size_t i = 0; i < sinfo_args.size(); ++i) {
    TESSERA_CHECK_OR_THROW(sinfo_args[i].defined(), TypeError) << "relax.Call: sinfo_args[" << i << "] is None";
  }
  auto n = make_object<CallNode>();
  n->op = std::move(op);
  n->args = std::move(args);
  n->attrs = std::move(attrs);
  n->sinfo_args = std::move(sinfo_args);
  n->span = std::move(span);
  data_ = std::move(n);
}

PrimValue::PrimValue(PrimExpr value, Span span) {
  TESSERA_CHECK_OR_THROW(value.defined(), TypeError) << "relax.PrimValue: value is None";
  auto n = make_object<PrimValueNode>();
  n->struct_info_ = PrimStructInfo::FromValue(value);
  n->value = std::move(value);
  n->span = std::move(span);
  data_ = std::move(n);
}
PrimValue PrimValue::Int64(int64_t v) { return PrimValue(IntImm(DataType::Int(64), v)); }

StringImm::StringImm(std::string value, Span span) {
  auto n = make_object<StringImmNode>();
  n->value = std::move(value);
  n->span = std::move(span);
  n->struct_info_ = ObjectStructInfo::Make();
  data_ = std::move(n);
}

DataTypeImm::DataTypeImm(DataType value, Span span) {
  auto n = make_object<DataTypeImmNode>();
  n->value = value;
  n->span = std::move(span);
  n->struct_info_ = ObjectStructInfo::Make();
  data_ = std::move(n);
}

ExternFunc::ExternFunc(std::string global_symbol, std::optional<StructInfo> struct_info, Span span) {
  TESSERA_CHECK_OR_THROW(!global_symbol.empty(), ValueError) << "relax.ExternFunc: empty global_symbol";
  auto n = make_object<ExternFuncNode>();
  n->global_symbol = std::move(global_symbol);
  n->struct_info_ = struct_info ? *struct_info : StructInfo(FuncStructInfo::OpaqueFunc());
  n->span = std::move(span);
  data_ = std::move(n);
}

VarBinding::VarBinding(Var var, RelaxExpr value, Span span) {
  TESSERA_CHECK_OR_THROW(var.defined(), TypeError) << "relax.VarBinding: var is None";
  TESSERA_CHECK_OR_THROW(value.defined(), TypeError)
      << "relax.VarBinding: value of '" << var->name_hint << "' is None";
  auto n = make_object<VarBindingNode>();
  n->var = std::move(var);
  n->value = std::move(value);
  n->span = std::move(span);
  data_ = std::move(n);
}

MatchCast::MatchCast(Var var, RelaxExpr value, StructInfo struct_info, Span span) {
  TESSERA_CHECK_OR_THROW(var.defined(), TypeError) << "relax.MatchCast: var is None";
  TESSERA_CHECK_OR_THROW(value.defined(), TypeError)
      << "relax.MatchCast: value of '" << var->name_hint << "' is None";
  TESSERA_CHECK_OR_THROW(struct_info.defined(), TypeError)
      << "relax.MatchCast: struct_info of '" << var->name_hint << "' is None";
  auto n = make_object<MatchCastNode>();
  n->var = std::move(var);
  n->value = std::move(value);
  n->struct_info = std::move(struct_info);
  n->span = std::move(span);
  data_ = std::move(n);
}

static void CheckBindings(const Array<Binding>& bindings, const char* what) {
  for (size_t i = 0; i < bindings.size(); ++i) {
    TESSERA_CHECK_OR_THROW(bindings[i].defined(), TypeError) << what << ": binding " << i << " is None";
  }
}

BindingBlock::BindingBlock(Array<Binding> bindings, Span span) {
  CheckBindings(bindings, "relax.BindingBlock");
  auto n = make_object<BindingBlockNode>();
  n->bindings = std::move(bindings);
  n->span = std::move(span);
  data_ = std::move(n);
}

DataflowBlock::DataflowBlock(Array<Binding> bindings, Span span) {
  CheckBindings(bindings, "relax.DataflowBlock");
  auto n = make_object<DataflowBlockNode>();
  n->bindings = std::move(bindings);
  n->span = std::move(span);
  data_ = std::move(n);
}

SeqExpr::SeqExpr(Array<BindingBlock> blocks, RelaxExpr body, Span span) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    TESSERA_CHECK_OR_THROW(blocks[i].defined(), TypeError) << "relax.SeqExpr: block " << i << " is None";
  }
  TESSERA_CHECK_OR_THROW(body.defined(), TypeError) << "relax.SeqExpr: body is None";
  auto n = make_object<SeqExprNode>();
  n->blocks = std::move(blocks);
  if (body->struct_info_.defined() && n->blocks.empty()) n->struct_info_ = body->struct_info_;
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = std::move(n);
}

If::If(RelaxExpr cond, RelaxExpr true_branch, RelaxExpr false_branch, Span span) {
  TESSERA_CHECK_OR_THROW(cond.defined(), TypeError) << "relax.If: cond is None";
  TESSERA_CHECK_OR_THROW(true_branch.defined(), TypeError) << "relax.If: true_branch is None";
  TESSERA_CHECK_OR_THROW(false_branch.defined(), TypeError) << "relax.If: false_branch is None";
  // As TVM: each branch is a SeqExpr (a plain expression becomes one with no
  // bindings), so every branch is a scope the normalizer and passes treat alike.
  auto as_seq = [](RelaxExpr e) -> RelaxExpr {
    if (e.as<SeqExprNode>()) return e;
    return SeqExpr(Array<BindingBlock>(), e, e->span);
  };
  auto n = make_object<IfNode>();
  n->cond = std::move(cond);
  n->true_branch = as_seq(std::move(true_branch));
  n->false_branch = as_seq(std::move(false_branch));
  n->span = std::move(span);
  data_ = std::move(n);
}

Function::Function(Array<Var> params, RelaxExpr body, std::optional<StructInfo> ret_struct_info, bool is_pure,
                   Attrs attrs, Span span) {
  Array<StructInfo> param_sinfo;
  for (size_t i = 0; i < params.size(); ++i) {
    TESSERA_CHECK_OR_THROW(params[i].defined(), TypeError) << "relax.Function: parameter " << i << " is None";
    TESSERA_CHECK_OR_THROW(params[i]->struct_info_.defined(), TypeError)
        << "relax.Function: parameter '" << params[i]->name_hint << "' has no struct info (annotation)";
    param_sinfo.push_back(Downcast<StructInfo>(params[i]->struct_info_));
  }
  TESSERA_CHECK_OR_THROW(body.defined(), TypeError) << "relax.Function: body is None";
  auto n = make_object<FunctionNode>();
  n->params = std::move(params);
  // What the body's struct info says in terms of the parameters' symbolic vars.
  auto body_ret = [&]() {
    std::unordered_set<const Object*> param_vars;
    for (const StructInfo& s : param_sinfo) {
      for (const tir::Var& v : TIRVarsInStructInfo(s)) param_vars.insert(v.get());
    }
    return EraseToWellDefined(Downcast<StructInfo>(body->struct_info_),
                              [&](const tir::Var& v) { return param_vars.count(v.get()) > 0; });
  };
  if (ret_struct_info && ret_struct_info->defined()) {
    n->ret_struct_info = *ret_struct_info;
    // As TVM: a body more precise than the annotation refines the return
    // (`-> R.Tensor(ndim=2)` over a body of R.Tensor((m, n))).
    if (body->struct_info_.defined()) {
      StructInfo refined = body_ret();
      if (!StructuralEqual(Any(refined), Any(n->ret_struct_info)) &&
          StructInfoBaseCheck(n->ret_struct_info, refined) == BaseCheckResult::kPass) {
        n->ret_struct_info = refined;
      }
    }
  } else if (body->struct_info_.defined()) {
    n->ret_struct_info = body_ret();
  }
  if (n->ret_struct_info.defined()) n->struct_info_ = FuncStructInfo(param_sinfo, n->ret_struct_info, is_pure);
  n->body = std::move(body);
  n->is_pure = is_pure;
  n->attrs = std::move(attrs);
  n->span = std::move(span);
  data_ = std::move(n);
}

bool IsLeafOrTuple(const RelaxExpr& e) {
  if (e.as<VarNode>() || e.as<ConstantNode>() || e.as<ShapeExprNode>() || e.as<PrimValueNode>() ||
      e.as<StringImmNode>() || e.as<DataTypeImmNode>() || e.as<GlobalVarNode>() || e.as<OpNode>() ||
      e.as<ExternFuncNode>()) {
    return true;
  }
  // A tuple's fields are not looked at (as TVM): the normalizer normalizes
  // them, and the well-formedness check visits every nested tuple. Looking
  // would make each check linear in the nesting depth, and normalizing a
  // nest cubic in it.
  return e.as<TupleNode>() != nullptr;
}

// ---- registration ---------------------------------------------------------------------

TESSERA_REGISTER_OBJECT_TYPE(ShapeExprNode);
TESSERA_REGISTER_OBJECT_TYPE(VarNode);
TESSERA_REGISTER_OBJECT_TYPE(DataflowVarNode);
TESSERA_REGISTER_OBJECT_TYPE(ConstantNode);
TESSERA_REGISTER_OBJECT_TYPE(TupleNode);
TESSERA_REGISTER_OBJECT_TYPE(TupleGetItemNode);
TESSERA_REGISTER_OBJECT_TYPE(CallNode);
TESSERA_REGISTER_OBJECT_TYPE(PrimValueNode);
TESSERA_REGISTER_OBJECT_TYPE(StringImmNode);
TESSERA_REGISTER_OBJECT_TYPE(DataTypeImmNode);
TESSERA_REGISTER_OBJECT_TYPE(ExternFuncNode);
TESSERA_REGISTER_OBJECT_TYPE(BindingNode);
TESSERA_REGISTER_OBJECT_TYPE(VarBindingNode);
TESSERA_REGISTER_OBJECT_TYPE(MatchCastNode);
TESSERA_REGISTER_OBJECT_TYPE(BindingBlockNode);
TESSERA_REGISTER_OBJECT_TYPE(DataflowBlockNode);
TESSERA_REGISTER_OBJECT_TYPE(SeqExprNode);
TESSERA_REGISTER_OBJECT_TYPE(IfNode);
TESSERA_REGISTER_OBJECT_TYPE(FunctionNode);

// Nodes loaded from JSON are checked for the fields their constructors
// require (a missing one is a ValueError naming node and field), so that
// the normalizer, visitors and printers never meet a null field.
namespace {
template <typename T>
void Need(const T& v, const char* node, const char* field) {
  TESSERA_CHECK_OR_THROW(v.defined(), ValueError) << node << "." << field << " is missing (None)";
}
template <typename T>
void NeedAll(const Array<T>& a, const char* node, const char* field) {
  for (size_t i = 0; i < a.size(); ++i) {
    TESSERA_CHECK_OR_THROW(a[i].defined(), ValueError) << node << "." << field << "[" << i << "] is missing (None)";
  }
}
void NeedSInfo(const RelaxExprNode* n, const char* node) {
  TESSERA_CHECK_OR_THROW(!n->struct_info_.defined() || n->struct_info_->IsInstance<StructInfoNode>(), ValueError)
      << node << ".struct_info_ is a " << n->struct_info_->GetTypeKey() << ", not a StructInfo";
}
template <typename N>
std::function<ObjectRef(const ObjectRef&)> Checked(void (*check)(const N*)) {
  return [check](const ObjectRef& loaded) -> ObjectRef {
    const auto* n = static_cast<const N*>(loaded.get());
    NeedSInfo(n, N::_type_key);
    check(n);
    return loaded;
  };
}
template <typename N>
std::function<ObjectRef(const ObjectRef&)> CheckedBinding(void (*check)(const N*)) {
  return [check](const ObjectRef& loaded) -> ObjectRef {
    const auto* n = static_cast<const N*>(loaded.get());
    Need(n->var, N::_type_key, "var");
    check(n);
    return loaded;
  };
}
}  // namespace

TESSERA_REGISTER_NODE(ShapeExprNode).field("values", &ShapeExprNode::values).on_load(Checked<ShapeExprNode>(
    [](const ShapeExprNode* n) { NeedAll(n->values, "relax.ShapeExpr", "values"); }));
// A var is compared through its definition point; its struct info is
// compared there too (re-registered as a compared field, overriding the
// ignored RelaxExpr one), so that symbolic dims in parameter annotations
// are mapped where the parameter is defined.
TESSERA_REGISTER_NODE(VarNode)
    .kind(SEqualKind::kVar)
    .ignore("name_hint", &VarNode::name_hint)
    .field("struct_info_", &RelaxExprNode::struct_info_)
    .on_load(Checked<VarNode>([](const VarNode*) {}));
TESSERA_REGISTER_NODE(DataflowVarNode).on_load(Checked<DataflowVarNode>([](const DataflowVarNode*) {}));
TESSERA_REGISTER_NODE(ConstantNode).field("data", &ConstantNode::data).on_load(Checked<ConstantNode>(
    [](const ConstantNode* n) { Need(n->data, "relax.Constant", "data"); }));
TESSERA_REGISTER_NODE(TupleNode).field("fields", &TupleNode::fields).on_load(Checked<TupleNode>(
    [](const TupleNode* n) { NeedAll(n->fields, "relax.Tuple", "fields"); }));
TESSERA_REGISTER_NODE(TupleGetItemNode)
    .field("tuple", &TupleGetItemNode::tuple)
    .field("index", &TupleGetItemNode::index)
    .on_load(Checked<TupleGetItemNode>([](const TupleGetItemNode* n) {
      Need(n->tuple, "relax.TupleGetItem", "tuple");
      TESSERA_CHECK_OR_THROW(n->index >= 0, ValueError) << "relax.TupleGetItem.index is negative";
    }));
TESSERA_REGISTER_NODE(CallNode)
    .field("op", &CallNode::op)
    .field("args", &CallNode::args)
    .field("attrs", &CallNode::attrs)
    .field("sinfo_args", &CallNode::sinfo_args)
    .on_load(Checked<CallNode>([](const CallNode* n) {
      Need(n->op, "relax.Call", "op");
      NeedAll(n->args, "relax.Call", "args");
      NeedAll(n->sinfo_args, "relax.Call", "sinfo_args");
    }));
TESSERA_REGISTER_NODE(PrimValueNode).field("value", &PrimValueNode::value).on_load(Checked<PrimValueNode>(
    [](const PrimValueNode* n) { Need(n->value, "relax.PrimValue", "value"); }));
TESSERA_REGISTER_NODE(StringImmNode).field("value", &StringImmNode::value);
TESSERA_REGISTER_NODE(DataTypeImmNode).field("value", &DataTypeImmNode::value);
TESSERA_REGISTER_NODE(ExternFuncNode).field("global_symbol", &ExternFuncNode::global_symbol).field("attrs", &ExternFuncNode::attrs);
TESSERA_REGISTER_NODE(BindingNode).ignore("span", &BindingNode::span);
// The value is compared before the var is defined (the var's struct info may
// use symbolic vars the value's defines); MatchCast defines new symbolic
// vars in its struct info.
TESSERA_REGISTER_NODE(VarBindingNode)
    .field("value", &VarBindingNode::value)
    .def("var", &VarBindingNode::var)
    .on_load(CheckedBinding<VarBindingNode>([](const VarBindingNode* n) { Need(n->value, "relax.VarBinding", "value"); }));
TESSERA_REGISTER_NODE(MatchCastNode)
    .field("value", &MatchCastNode::value)
    .def("struct_info", &MatchCastNode::struct_info)
    .def("var", &MatchCastNode::var)
    .on_load(CheckedBinding<MatchCastNode>([](const MatchCastNode* n) {
      Need(n->value, "relax.MatchCast", "value");
      Need(n->struct_info, "relax.MatchCast", "struct_info");
    }));
TESSERA_REGISTER_NODE(BindingBlockNode)
    .field("bindings", &BindingBlockNode::bindings)
    .ignore("span", &BindingBlockNode::span)
    .on_load([](const ObjectRef& b) -> ObjectRef {
      NeedAll(static_cast<const BindingBlockNode*>(b.get())->bindings, "relax.BindingBlock", "bindings");
      return b;
    });
TESSERA_REGISTER_NODE(DataflowBlockNode).on_load([](const ObjectRef& b) -> ObjectRef {
  NeedAll(static_cast<const BindingBlockNode*>(b.get())->bindings, "relax.DataflowBlock", "bindings");
  return b;
});
TESSERA_REGISTER_NODE(SeqExprNode)
    .field("blocks", &SeqExprNode::blocks)
    .field("body", &SeqExprNode::body)
    .on_load(Checked<SeqExprNode>([](const SeqExprNode* n) {
      NeedAll(n->blocks, "relax.SeqExpr", "blocks");
      Need(n->body, "relax.SeqExpr", "body");
    }));
TESSERA_REGISTER_NODE(IfNode)
    .field("cond", &IfNode::cond)
    .field("true_branch", &IfNode::true_branch)
    .field("false_branch", &IfNode::false_branch)
    .on_load(Checked<IfNode>([](const IfNode* n) {
      Need(n->cond, "relax.If", "cond");
      Need(n->true_branch, "relax.If", "true_branch");
      Need(n->false_branch, "relax.If", "false_branch");
    }));
TESSERA_REGISTER_NODE(FunctionNode)
    .def("params", &FunctionNode::params)
    .field("ret_struct_info", &FunctionNode::ret_struct_info)
    .field("is_pure", &FunctionNode::is_pure)
    .field("attrs", &FunctionNode::attrs)
    .field("body", &FunctionNode::body)
    .on_load(Checked<FunctionNode>([](const FunctionNode* n) {
      NeedAll(n->params, "relax.Function", "params");
      for (const Var& p : n->params) {
        TESSERA_CHECK_OR_THROW(p->struct_info_.defined(), ValueError)
            << "relax.Function: parameter '" << p->name_hint << "' has no struct info";
      }
      Need(n->body, "relax.Function", "body");
    }));

static std::optional<StructInfo> OptSInfo(const Any& v) {
  if (v.is_none()) return std::nullopt;
  return v.cast<StructInfo>();
}

TESSERA_REGISTER_GLOBAL("relax.ShapeExpr").set_body_typed([](Array<PrimExpr> values) { return ShapeExpr(values); });
TESSERA_REGISTER_GLOBAL("relax.Var").set_body_typed([](std::string name, Any sinfo) {
  return Var(name, OptSInfo(sinfo));
});
TESSERA_REGISTER_GLOBAL("relax.DataflowVar").set_body_typed([](std::string name, Any sinfo) {
  return DataflowVar(name, OptSInfo(sinfo));
});
TESSERA_REGISTER_GLOBAL("relax.Constant").set_body_typed([](NDArray data, Any sinfo) {
  return Constant(data, OptSInfo(sinfo));
});
TESSERA_REGISTER_GLOBAL("relax.Tuple").set_body_typed([](Array<RelaxExpr> fields) { return Tuple(fields); });
TESSERA_REGISTER_GLOBAL("relax.TupleGetItem").set_body_typed([](RelaxExpr tuple, int index) {
  return TupleGetItem(tuple, index);
});
TESSERA_REGISTER_GLOBAL("relax.Call").set_body_typed([](RelaxExpr op, Array<RelaxExpr> args, Any attrs,
                                                         std::optional<Array<StructInfo>> sinfo_args) {
  ObjectRef a;
  if (!attrs.is_none()) a = attrs.cast<ObjectRef>();
  return Call(op, args, a, sinfo_args.value_or(Array<StructInfo>()));
});
TESSERA_REGISTER_GLOBAL("relax.PrimValue").set_body_typed([](PrimExpr value) { return PrimValue(value); });
TESSERA_REGISTER_GLOBAL("relax.StringImm").set_body_typed([](std::string value) { return StringImm(value); });
TESSERA_REGISTER_GLOBAL("relax.DataTypeImm").set_body_typed([](DataType value) { return DataTypeImm(value); });
TESSERA_REGISTER_GLOBAL("relax.ExternFunc").set_body_typed([](std::string symbol, Any sinfo) {
  return ExternFunc(symbol, OptSInfo(sinfo));
});
TESSERA_REGISTER_GLOBAL("relax.VarBinding").set_body_typed([](Var var, RelaxExpr value) { return VarBinding(var, value); });
TESSERA_REGISTER_GLOBAL("relax.MatchCast").set_body_typed([](Var var, RelaxExpr value, StructInfo sinfo) {
  return MatchCast(var, value, sinfo);
});
TESSERA_REGISTER_GLOBAL("relax.BindingBlock").set_body_typed([](Array<Binding> bindings) { return BindingBlock(bindings); });
TESSERA_REGISTER_GLOBAL("relax.DataflowBlock").set_body_typed([](Array<Binding> bindings) {
  return DataflowBlock(bindings);
});
TESSERA_REGISTER_GLOBAL("relax.SeqExpr").set_body_typed([](Array<BindingBlock> blocks, RelaxExpr body) {
  return SeqExpr(blocks, body);
});
TESSERA_REGISTER_GLOBAL("relax.If").set_body_typed([](RelaxExpr cond, RelaxExpr t, RelaxExpr f) { return If(cond, t, f); });
TESSERA_REGISTER_GLOBAL("relax.Function").set_body_typed([](Array<Var> params, RelaxExpr body, Any ret_sinfo,
                                                             bool is_pure, std::optional<Attrs> attrs) {
  return Function(params, body, OptSInfo(ret_sinfo), is_pure, attrs.value_or(Attrs()));
});
TESSERA_REGISTER_GLOBAL("relax.FunctionWithFields").set_body_typed([](Function f, Any params, Any body) {
  auto* n = f.CopyOnWrite();
  if (!params.is_none()) n->params = params.cast<Array<Var>>();
  if (!body.is_none()) n->body = body.cast<RelaxExpr>();
  return f;
});
// The struct info of an expression, or None.
TESSERA_REGISTER_GLOBAL("relax.ExprStructInfo").set_body_typed([](RelaxExpr e) -> Any {
  if (!e->struct_info_.defined()) return Any();
  return Any(e->struct_info_);
});

}  // namespace relax
}  // namespace tessera
