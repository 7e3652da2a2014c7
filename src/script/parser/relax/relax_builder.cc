// The Relax function builder (see relax_builder.h): signatures (strings in
// annotations define the function's symbolic variables, after TVM's
// prelude rule), bindings emitted through the BlockBuilder, dataflow blocks
// and their outputs, `if` on a Relax condition, `return`, and the
// conversions the R.* builtins share.
#include "script/parser/relax/relax_builder.h"

#include <cctype>

#include "ir/op.h"
#include "ir/structural_equal.h"
#include "runtime/registry.h"
#include "script/parser/ir/module_builder.h"
#include "script/parser/python_parser.h"

namespace tessera {
namespace script {

using ast::ExprKind;
using ast::StmtKind;

TESSERA_REGISTER_OBJECT_TYPE(MatchCastValueObj);
TESSERA_REGISTER_OBJECT_TYPE(DataflowScopeObj);

namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

// The decorator's keyword arguments: pure=, private=, check_well_formed=.
struct FunctionOptions {
  bool pure = true;
  bool is_private = false;
  bool check_well_formed = true;
};

FunctionOptions ReadOptions(RelaxBuilder& b, const Decorator& dec) {
  FunctionOptions opts;
  for (size_t i = 0; i < dec.call.kwargs.size(); ++i) {
    const auto& [name, value] = dec.call.kwargs[i];
    const Pos& pos = dec.call.kwarg_pos[i];
    if (name == "pure") {
      opts.pure = b.ev().ToBool(value, pos, "pure");
    } else if (name == "private") {
      opts.is_private = b.ev().ToBool(value, pos, "private");
    } else if (name == "check_well_formed") {
      opts.check_well_formed = b.ev().ToBool(value, pos, "check_well_formed");
    } else {
      b.Error(dec.kwarg_name_pos[i], "unexpected argument '" + name + "' of @R.function (expected pure=, private= "
                                     "or check_well_formed=)");
    }
  }
  return opts;
}

bool IsRelaxExpr(const Any& v) {
  return v.is_object() && v.as<RelaxExprNode>() != nullptr && v.as<OpNode>() == nullptr;
}

// `R.xxx` when `e` is a call of a member of namespace `path_root` (evaluating only the callee).
std::string CalleePath(Evaluator& ev, const ast::Expr& e) {
  if (e.kind != ExprKind::kCall || e.a->kind != ExprKind::kAttribute) return "";
  Any callee = ev.Eval(*e.a);
  const auto* ns = callee.as<NamespaceObj>();
  return ns ? ns->path : "";
}

}  // namespace

RelaxBuilder& RelaxBuilder::Of(Evaluator& ev) {
  static const int key = 0;
  return ev.State<RelaxBuilder>(&key, [&ev] {
    return std::make_unique<RelaxBuilder>(ev, DialectRegistry::Global().Find("R"));
  });
}

// ---- conversions ---------------------------------------------------------------------------
DataType RelaxBuilder::ToDType(const Any& v, const Pos& pos) {
  if (v.is_none()) return DataType::Void();
  if (v.kind() == Any::Kind::kDataType) return v.raw_dtype();
  if (const auto* imm = v.as<relax::DataTypeImmNode>()) return imm->value;
  std::string s = ev_.ToStr(v, pos, "a dtype");
  try {
    return DataType(s);
  } catch (const std::exception&) {
    Error(pos, "unknown dtype \"" + s + "\"");
  }
}

PrimExpr RelaxBuilder::ToDim(const Any& v, const Pos& pos) {
  if (Evaluator::IsIntLike(v) && v.kind() != Any::Kind::kBool) return IntImm(DataType::Int(64), v.raw_int());
  if (const auto* s = v.as<StringObj>()) {
    if (!IsIdentifier(s->data)) return StringDim(s->data, pos);
    auto it = sym_vars_.find(s->data);
    if (it != sym_vars_.end()) return it->second;
    if (!in_signature_) {
      if (std::optional<Any> bound = ev_.Lookup(s->data)) {
        if (const auto* var = bound->as<tir::VarNode>()) return GetRef<tir::Var>(var);
      }
    }
    tir::Var var(s->data, DataType::Int(64));
    sym_vars_.emplace(s->data, var);
    if (!in_signature_ && func_ != nullptr) ev_.Bind(s->data, var);
    return var;
  }
  if (const auto* e = v.as<PrimExprNode>()) {
    if (!e->dtype.is_int() && !e->dtype.is_uint()) {
      Error(pos, "a shape dimension must be an integer, got an expression of type " + e->dtype.str());
    }
    return GetRef<PrimExpr>(e);
  }
  Error(pos, "expected a shape dimension (an int, a symbolic variable or its name as a string) but got a " +
                 TypeName(v));
}

// A dimension written as an expression in a string ("n + 1", "T.max(m, 20)",
// as the printer writes dimensions over a signature's variables): evaluated
// by its own evaluator, whose free names are the function's symbolic
// variables (defined on first use in a signature).
PrimExpr RelaxBuilder::StringDim(const std::string& text, const Pos& pos) {
  Any value;
  bool is_expr = true;
  try {
    SourceFile source(text, "<dimension \"" + text + "\">");
    ast::Module module = ParsePython(source);
    is_expr = module.body.size() == 1 && module.body[0]->kind == StmtKind::kExpr;
    if (!is_expr) throw ValueError("");
    Evaluator sub(source, [this](const std::string& name) -> std::optional<Any> {
      if (DialectRegistry::Global().Find(name) != nullptr || name == "tvm") return std::nullopt;
      auto it = sym_vars_.find(name);
      if (it != sym_vars_.end()) return Any(it->second);
      if (std::optional<Any> bound = ev_.Lookup(name); bound && bound->as<tir::VarNode>()) return bound;
      if (!in_signature_ || !IsIdentifier(name)) return std::nullopt;
      tir::Var var(name, DataType::Int(64));
      sym_vars_.emplace(name, var);
      return Any(var);
    });
    value = sub.Eval(*module.body[0]->value);
  } catch (const ::tessera::Error& e) {
    if (e.kind() == "RecursionError") throw;
    if (!is_expr) Error(pos, "a string dimension must be a name or an expression, got \"" + text + "\"");
    Error(pos, "in the dimension \"" + text + "\": " + e.what());
  }
  const auto* e = value.as<PrimExprNode>();
  if (e == nullptr || !(e->dtype.is_int() || e->dtype.is_uint())) {
    Error(pos, "the dimension \"" + text + "\" is not an integer expression");
  }
  return GetRef<PrimExpr>(e);
}

PrimExpr RelaxBuilder::ToPrimExpr(const Any& v, const Pos& pos, const std::string& what) {
  switch (v.kind()) {
    case Any::Kind::kBool: return IntImm(DataType::Bool(), v.raw_int() != 0);
    case Any::Kind::kInt: return IntImm(DataType::Int(64), v.raw_int());
    case Any::Kind::kFloat: return FloatImm(DataType::Float(64), v.raw_float());
    default: break;
  }
  if (const auto* e = v.as<PrimExprNode>()) return GetRef<PrimExpr>(e);
  if (v.as<StringObj>()) return ToDim(v, pos);
  Error(pos, "expected " + what + " (a number or a PrimExpr) but got a " + TypeName(v));
}

relax::StructInfo RelaxBuilder::ToStructInfo(const Any& v, const Pos& pos) {
  if (const auto* s = v.as<relax::StructInfoNode>()) return GetRef<relax::StructInfo>(s);
  if (const auto* arr = v.as<ArrayObj>()) {  // as TVM: a Python tuple of annotations is R.Tuple(...)
    Array<relax::StructInfo> fields;
    for (const Any& x : arr->data) fields.push_back(ToStructInfo(x, pos));
    return relax::TupleStructInfo(fields);
  }
  if (const auto* ns = v.as<NamespaceObj>()) {
    if (ns->path == "R.Tensor") return relax::TensorStructInfo(DataType::Void(), relax::StructInfoNode::kUnknownNDim);
    if (ns->path == "R.Object") return relax::ObjectStructInfo::Make();
    if (ns->path == "R.Shape") return relax::ShapeStructInfo(relax::StructInfoNode::kUnknownNDim);
    if (ns->path == "R.Tuple") return relax::TupleStructInfo(Array<relax::StructInfo>());
    if (ns->path == "R.Callable") return relax::FuncStructInfo::OpaqueFunc(relax::ObjectStructInfo::Make(), true);
    if (ns->path == "R.Prim") Error(pos, "R.Prim needs a dtype or a value, e.g. R.Prim(\"int64\")");
  }
  Error(pos, "expected a Relax annotation such as R.Tensor((n, 4), \"float32\"), R.Shape, R.Tuple(...), R.Prim or "
             "R.Object, but got a " + TypeName(v));
}

relax::Expr RelaxBuilder::ToExpr(const Any& v, const Pos& pos, const std::string& what) {
  if (IsRelaxExpr(v)) return GetRef<relax::Expr>(v.as<RelaxExprNode>());
  if (const auto* arr = v.as<ArrayObj>()) {
    Array<relax::Expr> fields;
    for (const Any& x : arr->data) fields.push_back(ToExpr(x, pos, what));
    return relax::Tuple(fields);
  }
  switch (v.kind()) {
    case Any::Kind::kBool:
    case Any::Kind::kInt:
    case Any::Kind::kFloat: return MakeConstant(*this, v, std::nullopt, pos);
    case Any::Kind::kDataType: return relax::DataTypeImm(v.raw_dtype());
    default: break;
  }
  if (const auto* s = v.as<StringObj>()) return relax::StringImm(s->data);
  if (const auto* e = v.as<PrimExprNode>()) return relax::PrimValue(GetRef<PrimExpr>(e));
  if (v.as<NDArrayObj>()) return relax::Constant(v.cast<NDArray>());
  if (v.as<MatchCastValueObj>()) Error(pos, "R.match_cast(...) must be assigned directly to a variable");
  if (v.as<relax::StructInfoNode>()) {
    Error(pos, "expected " + what + " (a Relax expression) but got the annotation " +
                   relax::StructInfoText(GetRef<relax::StructInfo>(v.as<relax::StructInfoNode>())));
  }
  Error(pos, "expected " + what + " (a Relax expression) but got a " + TypeName(v));
}

relax::Expr RelaxBuilder::Normalize(const relax::Expr& e, const Pos& pos) {
  if (func_ == nullptr) Error(pos, "Relax expressions can only be built inside an R.function body");
  return Guard(pos, [&] { return func_->bb->Normalize(e); });
}

void RelaxBuilder::AddFuncAttrs(const Map<String, Any>& attrs, const Pos& pos) {
  if (func_ == nullptr) Error(pos, "R.func_attr() is only allowed in an R.function body");
  for (const auto& kv : attrs.raw()) func_->attrs.Set(kv.first.cast<String>(), kv.second);
}

// ---- signatures ---------------------------------------------------------------------------
relax::StructInfo RelaxBuilder::SignatureStructInfo(const ast::Expr& annotation) {
  return ToStructInfo(ev_.Eval(annotation), annotation.pos);
}

void RelaxBuilder::DefinePreludeVars(const ast::Stmt& def) {
  for (const ast::StmtPtr& s : def.body) {
    if (s->kind != StmtKind::kAssign || s->targets.size() != 1) continue;
    const ast::Expr& target = *s->targets[0];
    const ast::Expr& value = *s->value;
    std::vector<const ast::Expr*> names, values;
    if (target.kind == ExprKind::kName) {
      names.push_back(&target);
      values.push_back(&value);
    } else if ((target.kind == ExprKind::kTuple || target.kind == ExprKind::kList) && value.kind == ExprKind::kTuple &&
               target.items.size() == value.items.size()) {
      for (size_t i = 0; i < target.items.size(); ++i) {
        names.push_back(target.items[i].get());
        values.push_back(value.items[i].get());
      }
    } else {
      continue;
    }
    bool all_decls = true;
    for (size_t i = 0; i < names.size() && all_decls; ++i) {
      const ast::Expr& v = *values[i];
      if (!(names[i]->kind == ExprKind::kName && v.kind == ExprKind::kCall && v.items.empty() && v.kwargs.empty())) {
        all_decls = false;
        break;
      }
      // The callee may name what is only bound once the functions are
      // built (`Module.f()`, a call of another function): not a declaration.
      try {
        all_decls = NamespaceRoot(CalleePath(ev_, v)) == "T";
      } catch (const ::tessera::Error&) {
        all_decls = false;
      }
    }
    if (!all_decls) continue;
    for (size_t i = 0; i < names.size(); ++i) {
      Any var = ev_.EvalNamed(*values[i], {names[i]->str});
      if (const auto* tv = var.as<tir::VarNode>()) sym_vars_[names[i]->str] = GetRef<tir::Var>(tv);
    }
  }
}

FunctionSignature RelaxBuilder::Declare(const ast::Stmt& def, const Decorator& dec) {
  FunctionOptions opts = ReadOptions(*this, dec);
  FunctionSignature sig;
  sig.dialect = "R";
  sig.num_params = static_cast<int>(def.args.size());
  Evaluator::ScopeGuard scope(&ev_);
  std::unordered_map<std::string, tir::Var> saved;
  saved.swap(sym_vars_);
  in_signature_ = true;
  try {
    DefinePreludeVars(def);
    Array<relax::StructInfo> params;
    for (const ast::Arg& arg : def.args) {
      if (!arg.annotation) Error(arg.pos, "parameter '" + arg.name + "' of a Relax function needs an annotation");
      params.push_back(SignatureStructInfo(*arg.annotation));
    }
    relax::StructInfo ret = def.returns ? SignatureStructInfo(*def.returns) : relax::ObjectStructInfo::Make();
    sig.ret = relax::FuncStructInfo(params, ret, opts.pure);
  } catch (...) {
    in_signature_ = false;
    sym_vars_.swap(saved);
    throw;
  }
  in_signature_ = false;
  sym_vars_.swap(saved);
  return sig;
}

// ---- functions ----------------------------------------------------------------------------
void RelaxBuilder::FinishBlock() {
  relax::BindingBlock block = func_->bb->EndBlock();
  if (!block->bindings.empty()) func_->blocks.push_back(block);
}

void RelaxBuilder::RunBody(const std::vector<ast::StmtPtr>& body) {
  for (const ast::StmtPtr& s : body) {
    if (func_->ret) Error(s->pos, "unreachable statement after 'return'");
    ev_.ExecStmt(*s);
  }
}

relax::Function RelaxBuilder::BuildFunction(const ast::Stmt& def, const Decorator& dec) {
  if (def.kind != StmtKind::kFunctionDef) Error(def.pos, "@R.function decorates a function definition");
  // A nested function sees the enclosing function's symbolic variables (a
  // "n" in its signature is the outer n) and gets no global symbol.
  const bool nested = func_ != nullptr;
  FunctionOptions opts = ReadOptions(*this, dec);
  FuncFrame f;
  f.name = dec.global_name.empty() ? def.name : dec.global_name;
  Evaluator::ScopeGuard scope(&ev_);
  std::unordered_map<std::string, tir::Var> outer_sym_vars = sym_vars_;
  struct RestoreSymVars {
    RelaxBuilder* b;
    std::unordered_map<std::string, tir::Var>* saved;
    bool active;
    ~RestoreSymVars() {
      if (active) b->sym_vars_.swap(*saved);
    }
  } restore_sym{this, &outer_sym_vars, nested};
  if (!nested) sym_vars_.clear();

  // Signature: symbolic variables first (prelude, then strings in annotations).
  in_signature_ = true;
  Array<relax::Var> params;
  std::optional<relax::StructInfo> ret_sinfo;
  try {
    DefinePreludeVars(def);
    for (const ast::Arg& arg : def.args) {
      if (!arg.annotation) Error(arg.pos, "parameter '" + arg.name + "' of a Relax function needs an annotation");
      if (arg.default_value) Error(arg.default_value->pos, "Relax function parameters cannot have default values");
      params.push_back(relax::Var(arg.name, SignatureStructInfo(*arg.annotation)));
    }
    if (def.returns) ret_sinfo = SignatureStructInfo(*def.returns);
  } catch (...) {
    in_signature_ = false;
    throw;
  }
  in_signature_ = false;
  for (const auto& [name, var] : sym_vars_) ev_.Bind(name, var);
  for (size_t i = 0; i < params.size(); ++i) {
    if (sym_vars_.count(def.args[i].name)) {
      Error(def.args[i].pos, "parameter '" + def.args[i].name + "' has the name of a symbolic shape variable");
    }
    ev_.Bind(def.args[i].name, params[i]);
  }

  // Body.
  f.bb = relax::BlockBuilder::Create(std::nullopt);
  f.bb->BeginScope(params);
  f.bb->BeginBindingBlock();
  FuncFrame* saved_func = func_;
  func_ = &f;
  struct Restore {
    RelaxBuilder* b;
    FuncFrame* saved;
    ~Restore() { b->func_ = saved; }
  } restore{this, saved_func};
  Evaluator::FrameGuard frame(&ev_, this);
  RunBody(def.body);
  if (!f.ret) {
    Pos end = def.body.empty() ? def.pos : def.body.back()->pos;
    Error(end, "Relax function '" + def.name + "' must end with a 'return' statement");
  }
  FinishBlock();
  f.bb->EndScope();

  Map<String, Any> attrs = f.attrs;
  if (!nested && !opts.is_private && !attrs.count("global_symbol")) attrs.Set("global_symbol", String(f.name));
  relax::Function func = Guard(def.pos, [&] {
    relax::Function fn(params, relax::SeqExpr(f.blocks, *f.ret), std::nullopt, opts.pure, attrs);
    fn = Downcast<relax::Function>(relax::BlockBuilder::Create(std::nullopt)->Normalize(fn));
    if (!ret_sinfo) return fn;
    // As TVM: the annotated return is the function's (refined by a more
    // precise body), even when the body's struct info does not fit it.
    const relax::StructInfo body_sinfo = relax::GetStructInfo(fn->body);
    if (relax::StructInfoBaseCheck(*ret_sinfo, body_sinfo) != relax::BaseCheckResult::kFailL0) {
      return relax::Function(fn->params, fn->body, ret_sinfo, opts.pure, attrs, fn->span);
    }
    relax::FunctionNode* n = fn.CopyOnWrite();
    n->ret_struct_info = *ret_sinfo;
    Array<relax::StructInfo> param_sinfo;
    for (const relax::Var& p : n->params) param_sinfo.push_back(relax::GetStructInfo(p));
    n->struct_info_ = relax::FuncStructInfo(param_sinfo, *ret_sinfo, opts.pure);
    return fn;
  });
  // relax.analysis.well_formed (Relax core) raises, or returns False, naming
  // the culprit; the check runs once the core registers it. A nested
  // function uses the enclosing one's variables: the check of the
  // enclosing function covers it.
  std::optional<PackedFunc> well_formed = Registry::Get("relax.analysis.well_formed");
  if (!nested && opts.check_well_formed && well_formed.has_value()) {
    Any ok = Guard(def.pos, [&] { return (*well_formed)(func); });
    if (ok.kind() == Any::Kind::kBool && !ok.raw_int()) {
      Error(def.pos, "Relax function '" + def.name + "' is not well formed");
    }
  }
  return func;
}

Any RelaxBuilder::CallFunction(const GlobalVar& gv, const FunctionSignature& sig, CallArgs& call) {
  const std::string& name = gv->name_hint;
  if (!call.kwargs.empty()) Error(call.kwarg_pos[0], name + "() takes no keyword arguments");
  if (sig.num_params >= 0 && static_cast<int>(call.args.size()) != sig.num_params) {
    Error(call.node->pos, name + "() takes " + std::to_string(sig.num_params) + " argument" +
                              (sig.num_params == 1 ? "" : "s") + " but " + std::to_string(call.args.size()) +
                              (call.args.size() == 1 ? " was" : " were") + " given");
  }
  Array<relax::Expr> args;
  for (size_t i = 0; i < call.args.size(); ++i) args.push_back(ToExpr(call.args[i], call.arg_pos[i]));
  if (!gv->struct_info_.defined()) {
    if (sig.dialect == "R" && sig.ret.is_object()) {
      gv->struct_info_ = sig.ret.raw_object();
    } else if (sig.dialect == "T") {
      // A direct call of a PrimFunc (lowered Relax, after CallTIRRewrite):
      // an impure call whose result is unknown, as the normalizer types it
      // in a module.
      gv->struct_info_ = relax::FuncStructInfo::OpaqueFunc(relax::ObjectStructInfo::Make(), false);
    }
  }
  return relax::Expr(relax::Call(gv, args));
}

Any RelaxBuilder::CallValue(const Any& callee, CallArgs& call) {
  // f(x, sinfo_args=(...)): a call of a function-valued Relax variable; the
  // struct info of an opaque callee's result is declared by sinfo_args.
  Array<relax::StructInfo> sinfo_args;
  for (size_t k = 0; k < call.kwargs.size(); ++k) {
    if (call.kwargs[k].first != "sinfo_args") {
      Error(call.kwarg_pos[k], "calls of Relax values take only the keyword argument sinfo_args=, not '" +
                                   call.kwargs[k].first + "'");
    }
    const Any& v = call.kwargs[k].second;
    if (const auto* arr = v.as<ArrayObj>()) {
      for (const Any& x : arr->data) sinfo_args.push_back(ToStructInfo(x, call.kwarg_pos[k]));
    } else {
      sinfo_args.push_back(ToStructInfo(v, call.kwarg_pos[k]));
    }
  }
  relax::Expr f = ToExpr(callee, call.node->a->pos, "a callee");
  Array<relax::Expr> args;
  for (size_t i = 0; i < call.args.size(); ++i) args.push_back(ToExpr(call.args[i], call.arg_pos[i]));
  return relax::Expr(relax::Call(f, args, ObjectRef(), sinfo_args));
}

Any RelaxBuilder::Operator(const std::string& op_name, const std::string& symbol, const std::vector<Any>& operands,
                          const Pos& pos) {
  std::string full = "relax." + op_name;
  if (op_name.empty() || !Op::Exists(full)) {
    std::string what;
    for (const Any& v : operands) what += (what.empty() ? "" : " and ") + TypeName(v);
    Error(pos, "operator '" + symbol + "' on " + what + " needs a registered Relax operator" +
                   (op_name.empty() ? std::string() : " ('" + full + "' is not registered)"));
  }
  Array<relax::Expr> args;
  for (const Any& v : operands) args.push_back(ToExpr(v, pos, "an operand"));
  return relax::Expr(relax::Call(Op::Get(full), args));
}

Any RelaxBuilder::Attribute(const Any& base, const ast::Expr& e) {
  Error(e.pos, "a " + TypeName(base) + " has no attribute '" + e.str + "' in TVMScript");
}

Any RelaxBuilder::Subscript(const Any& base, const ast::Expr& e) {
  if (!IsRelaxExpr(base)) Error(e.a->pos, "a " + TypeName(base) + " cannot be subscripted");
  if (e.items.size() != 1 || e.items[0]->kind == ExprKind::kSlice) {
    Error(e.pos, "a Relax tuple takes a single integer index");
  }
  int64_t index = ev_.ToInt(ev_.Eval(*e.items[0]), e.items[0]->pos, "a tuple index");
  relax::Expr tuple = GetRef<relax::Expr>(base.as<RelaxExprNode>());
  return Guard(e.pos, [&] { return relax::Expr(relax::TupleGetItem(tuple, static_cast<int>(index))); });
}

// ---- statements -----------------------------------------------------------------------------
relax::Var RelaxBuilder::Emit(const std::string& name, const Any& value, const std::optional<relax::StructInfo>& ann,
                              const ast::Expr& target, const Pos& value_pos) {
  bool dataflow_var = func_->in_dataflow && !func_->output_targets.count(&target);
  relax::Var var;
  if (const auto* mc = value.as<MatchCastValueObj>()) {
    relax::Expr v = Normalize(mc->value, value_pos);
    if (ann && !StructuralEqual(Any(*ann), Any(mc->struct_info))) {
      Error(target.pos, "the annotation of '" + name + "' differs from the struct info of its R.match_cast");
    }
    var = dataflow_var ? relax::Var(relax::DataflowVar(name, mc->struct_info)) : relax::Var(name, mc->struct_info);
    Guard(value_pos, [&] {
      func_->bb->EmitNormalized(relax::MatchCast(var, v, mc->struct_info));
      return 0;
    });
  } else {
    relax::Expr v = Normalize(ToExpr(value, value_pos, "the value of '" + name + "'"), value_pos);
    relax::StructInfo sinfo = relax::GetStructInfo(v);
    if (ann) {
      if (relax::StructInfoBaseCheck(*ann, sinfo) == relax::BaseCheckResult::kFailL0) {
        Error(target.pos, "the annotation " + relax::StructInfoText(*ann) + " of '" + name +
                              "' does not fit its value, of struct info " + relax::StructInfoText(sinfo));
      }
      sinfo = *ann;
    }
    var = dataflow_var ? relax::Var(relax::DataflowVar(name, sinfo)) : relax::Var(name, sinfo);
    Guard(value_pos, [&] {
      func_->bb->EmitNormalized(relax::VarBinding(var, v));
      return 0;
    });
  }
  if (func_->in_dataflow) func_->block_vars.push_back(var);
  ev_.Bind(name, var);
  return var;
}

void RelaxBuilder::AssignName(Evaluator& ev, const ast::Expr& target, const Any& value, const Pos& value_pos) {
  const std::string& name = target.str;
  if (const auto* tv = value.as<tir::VarNode>()) {
    // `n = T.int64()`: a symbolic variable, the same as one of that name
    // already defined (a signature's "n").
    if (tv->name_hint != name) {
      Error(target.pos, "a symbolic variable must be bound to its own name: '" + name + "' = a variable named '" +
                            tv->name_hint + "'");
    }
    tir::Var var = GetRef<tir::Var>(tv);
    if (std::optional<Any> prev = ev.Lookup(name)) {
      if (const auto* old = prev->as<tir::VarNode>()) {
        if (old->dtype != tv->dtype) {
          Error(value_pos, "symbolic variable '" + name + "' is " + old->dtype.str() + ", redefined as " +
                               tv->dtype.str());
        }
        var = GetRef<tir::Var>(old);
      } else if (IsRelaxExpr(*prev)) {
        Error(target.pos, "'" + name + "' is a Relax variable and cannot be redefined as a symbolic variable");
      }
    }
    sym_vars_[name] = var;
    ev.Bind(name, var);
    return;
  }
  if (IsRelaxExpr(value) || value.as<MatchCastValueObj>() || value.as<ArrayObj>() || Evaluator::IsNumber(value)) {
    if (value.as<GlobalVarNode>()) {  // `f = cls.f`: an alias, as in Python
      ev.Bind(name, value);
      return;
    }
    Emit(name, value, std::nullopt, target, value_pos);
    return;
  }
  ev.Bind(name, value);  // Python-level values: `cls = Module`, strings, annotations
}

void RelaxBuilder::AnnAssign(Evaluator& ev, const ast::Stmt& s) {
  if (s.target->kind != ExprKind::kName) Error(s.target->pos, "only a name can be annotated in an R.function body");
  if (!s.value) Error(s.pos, "an annotated name needs a value in an R.function body");
  relax::StructInfo ann = ToStructInfo(ev.Eval(*s.annotation), s.annotation->pos);
  Any value = ev.EvalNamed(*s.value, {s.target->str});
  Emit(s.target->str, value, ann, *s.target, s.value->pos);
}

void RelaxBuilder::ExprStmt(Evaluator& ev, const ast::Stmt& s, const Any& value) {
  if (!IsRelaxExpr(value)) {
    if (value.as<MatchCastValueObj>()) Error(s.value->pos, "R.match_cast(...) must be assigned to a variable");
    BodyFrame::ExprStmt(ev, s, value);
  }
  relax::Expr v = Normalize(GetRef<relax::Expr>(value.as<RelaxExprNode>()), s.value->pos);
  relax::StructInfo sinfo = relax::GetStructInfo(v);
  const auto* tuple = sinfo.as<relax::TupleStructInfoNode>();
  if (tuple == nullptr || !tuple->fields.empty()) {
    Error(s.value->pos, "a Relax expression of struct info " + relax::StructInfoText(sinfo) +
                            " must be bound to a variable");
  }
  ast::Expr placeholder(ExprKind::kName, s.value->pos);
  Emit("_", Any(v), std::nullopt, placeholder, s.value->pos);
}

void RelaxBuilder::With(Evaluator& ev, const ast::Stmt& s) {
  if (s.items.size() != 1) Error(s.pos, "an R.function body allows only `with R.dataflow():`");
  const ast::WithItem& item = s.items[0];
  Any ctx = ev.Eval(*item.context);
  if (!ctx.as<DataflowScopeObj>()) {
    Error(item.context->pos, "an R.function body allows only `with R.dataflow():`, not a " + TypeName(ctx));
  }
  if (item.target) Error(item.target->pos, "`with R.dataflow()` binds no variable");
  if (func_->in_dataflow) Error(s.pos, "dataflow blocks cannot be nested");

  // Which assignments define the block's outputs: R.output(...) must be the
  // last statement; the last assignment to each name it lists is an output.
  std::unordered_set<const ast::Expr*> outputs;
  std::unordered_set<const ast::Stmt*> output_defs;
  const ast::Stmt* output_stmt = nullptr;
  for (size_t i = 0; i < s.body.size(); ++i) {
    const ast::Stmt& st = *s.body[i];
    if (st.kind == StmtKind::kIf) Error(st.pos, "'if' is not allowed in a dataflow block");
    if (st.kind == StmtKind::kWith) Error(st.pos, "dataflow blocks cannot be nested");
    if (st.kind != StmtKind::kExpr || CalleePath(ev, *st.value) != "R.output") continue;
    if (i + 1 != s.body.size()) Error(st.pos, "R.output(...) must be the last statement of a dataflow block");
    output_stmt = &st;
    for (const ast::ExprPtr& arg : st.value->items) {
      if (arg->kind != ExprKind::kName) Error(arg->pos, "R.output takes the names of variables of the block");
      const ast::Expr* last = nullptr;
      const ast::Stmt* last_def = nullptr;  // a nested `def` the output names
      for (size_t j = 0; j < i; ++j) {
        const ast::Stmt& a = *s.body[j];
        std::vector<const ast::Expr*> targets;
        if (a.kind == StmtKind::kAssign) {
          for (const ast::ExprPtr& t : a.targets) {
            if (t->kind == ExprKind::kName) targets.push_back(t.get());
            if (t->kind == ExprKind::kTuple || t->kind == ExprKind::kList) {
              for (const ast::ExprPtr& x : t->items) targets.push_back(x.get());
            }
          }
        } else if (a.kind == StmtKind::kAnnAssign) {
          targets.push_back(a.target.get());
        }
        for (const ast::Expr* t : targets) {
          if (t->kind == ExprKind::kName && t->str == arg->str) last = t, last_def = nullptr;
        }
        if (a.kind == StmtKind::kFunctionDef && a.name == arg->str) last = nullptr, last_def = &a;
      }
      if (last == nullptr && last_def == nullptr) {
        Error(arg->pos, "R.output: '" + arg->str + "' is not bound in this dataflow block");
      }
      if (last != nullptr) outputs.insert(last);
      if (last_def != nullptr) output_defs.insert(last_def);
    }
  }

  FinishBlock();
  func_->bb->BeginDataflowBlock();
  func_->in_dataflow = true;
  func_->output_targets = std::move(outputs);
  func_->output_defs = std::move(output_defs);
  func_->output_stmt = output_stmt;
  func_->block_vars.clear();
  std::vector<relax::Var> escaping;
  {
    Evaluator::ScopeGuard scope(&ev);  // the block's dataflow variables stay inside it
    for (const ast::StmtPtr& st : s.body) {
      if (func_->ret) Error(st->pos, "unreachable statement after 'return'");
      ev.ExecStmt(*st);
    }
    for (const relax::Var& v : func_->block_vars) {
      if (!v->IsInstance<relax::DataflowVarNode>()) escaping.push_back(v);
    }
  }
  FinishBlock();
  func_->in_dataflow = false;
  func_->output_targets.clear();
  func_->output_defs.clear();
  func_->output_stmt = nullptr;
  func_->block_vars.clear();
  func_->bb->BeginBindingBlock();
  for (const relax::Var& v : escaping) ev.Bind(v->name_hint, v);
}

void RelaxBuilder::Output(const CallArgs& call) {
  if (func_ == nullptr || !func_->in_dataflow) {
    Error(call.node->pos, "R.output(...) is only allowed at the end of a `with R.dataflow():` block");
  }
  if (!call.kwargs.empty()) Error(call.kwarg_pos[0], "R.output takes no keyword arguments");
  for (size_t i = 0; i < call.args.size(); ++i) {
    const auto* var = call.args[i].as<relax::VarNode>();
    if (var == nullptr) Error(call.arg_pos[i], "R.output takes variables of the block, got a " + TypeName(call.args[i]));
    bool in_block = false;
    for (const relax::Var& v : func_->block_vars) in_block = in_block || v.get() == var;
    if (!in_block || var->IsInstance<relax::DataflowVarNode>()) {
      Error(call.arg_pos[i], "R.output: '" + var->name_hint + "' is not bound in this dataflow block");
    }
  }
}

relax::Expr RelaxBuilder::BuildBranch(const std::vector<ast::StmtPtr>& body, const Pos& pos, std::string* var_name,
                                      std::optional<relax::StructInfo>* ann) {
  const ast::Stmt& last = *body.back();
  const ast::Expr* target = nullptr;
  if (last.kind == StmtKind::kAssign && last.targets.size() == 1 && last.targets[0]->kind == ExprKind::kName) {
    target = last.targets[0].get();
  } else if (last.kind == StmtKind::kAnnAssign && last.target->kind == ExprKind::kName) {
    target = last.target.get();
  }
  if (target == nullptr) {
    Error(last.pos, "the last statement of each branch of an 'if' in an R.function must assign its result to a name");
  }
  *var_name = target->str;
  std::vector<relax::BindingBlock> outer_blocks;
  outer_blocks.swap(func_->blocks);
  Evaluator::ScopeGuard scope(&ev_);
  func_->bb->BeginScope(std::nullopt);
  func_->bb->BeginBindingBlock();
  RunBody(body);
  FinishBlock();
  func_->bb->EndScope();
  std::vector<relax::BindingBlock> blocks;
  blocks.swap(func_->blocks);
  func_->blocks.swap(outer_blocks);
  (void)pos;
  // The branch's value: the last binding (to the if's variable), taken out.
  // The last statement may have bound no Relax value (e.g. `y = R.add`, a
  // function, not a call): then there is no such binding.
  const bool has_binding = !blocks.empty() && !blocks.back()->bindings.empty();
  if (!has_binding || blocks.back()->bindings.back()->var->name_hint != target->str) {
    Error(last.pos, "the last statement of each branch of an 'if' in an R.function must bind a Relax value to '" +
                        target->str + "'");
  }
  relax::BindingBlock tail = blocks.back();
  relax::Binding binding = tail->bindings[tail->bindings.size() - 1];
  const auto* vb = binding.as<relax::VarBindingNode>();
  if (vb == nullptr) Error(last.pos, "the result of an 'if' branch cannot be an R.match_cast");
  if (last.kind == StmtKind::kAnnAssign) *ann = relax::GetStructInfo(vb->var);
  Array<relax::Binding> rest;
  for (size_t i = 0; i + 1 < tail->bindings.size(); ++i) rest.push_back(tail->bindings[i]);
  blocks.pop_back();
  // A computed value (`y = R.add(x, x)`) stays bound in the branch, to a var
  // of its own that the branch yields, as the printer writes it
  // (gv = R.add(x, x); y = gv): print -> parse is a fixed point. A leaf
  // (`y = x`) is the branch's value itself.
  relax::Expr result = vb->value;
  if (!relax::IsLeafOrTuple(vb->value)) {
    relax::Var inner("gv", relax::GetStructInfo(vb->var));
    rest.push_back(relax::VarBinding(inner, vb->value));
    result = inner;
  }
  if (!rest.empty()) blocks.push_back(relax::BindingBlock(rest));
  return relax::SeqExpr(Array<relax::BindingBlock>(blocks.begin(), blocks.end()), result);
}

void RelaxBuilder::If(Evaluator& ev, const ast::Stmt& s, const Any& cond) {
  if (func_->in_dataflow) Error(s.pos, "'if' is not allowed in a dataflow block");
  const auto* prim_cond = cond.as<PrimExprNode>();
  if (prim_cond != nullptr && !prim_cond->dtype.is_bool()) {
    Error(s.value->pos, "the condition of an 'if' in an R.function must be a boolean, got a PrimExpr of type " +
                            prim_cond->dtype.str());
  }
  if (!IsRelaxExpr(cond) && prim_cond == nullptr) {
    Error(s.value->pos, "the condition of an 'if' in an R.function must be a Relax value (a bool tensor) or a "
                        "boolean PrimExpr over symbolic variables, got a " + TypeName(cond));
  }
  if (s.orelse.empty()) Error(s.pos, "an 'if' in an R.function needs an 'else' branch");
  // A PrimExpr condition (`if n == 16:`) is the R.prim_value of it, as in TVM.
  relax::Expr c = Normalize(prim_cond ? relax::Expr(relax::PrimValue(GetRef<PrimExpr>(prim_cond)))
                                      : GetRef<relax::Expr>(cond.as<RelaxExprNode>()),
                            s.value->pos);
  ++func_->if_depth;
  std::string then_name, else_name;
  std::optional<relax::StructInfo> then_ann, else_ann;
  relax::Expr then_branch = BuildBranch(s.body, s.pos, &then_name, &then_ann);
  relax::Expr else_branch = BuildBranch(s.orelse, s.pos, &else_name, &else_ann);
  --func_->if_depth;
  if (then_name != else_name) {
    Error(s.orelse.back()->pos, "both branches of an 'if' must assign the same variable ('" + then_name + "' and '" +
                                    else_name + "')");
  }
  ast::Expr placeholder(ExprKind::kName, s.pos);
  std::optional<relax::StructInfo> ann;
  if (then_ann && else_ann && StructuralEqual(Any(*then_ann), Any(*else_ann))) ann = then_ann;
  Emit(then_name, Any(relax::Expr(relax::If(c, then_branch, else_branch))), ann, placeholder, s.pos);
}

void RelaxBuilder::Definition(Evaluator& ev, const ast::Stmt& s) {
  if (s.kind != StmtKind::kFunctionDef || s.decorators.size() != 1) BodyFrame::Definition(ev, s);
  Decorator dec = ev.EvalDecorator(*s.decorators[0]);
  if (dec.path != "R.function") {
    Error(dec.pos, "a function defined in an R.function body must be an @R.function, not @" + dec.path);
  }
  FuncFrame* outer = func_;
  relax::Function inner = BuildFunction(s, dec);
  ast::Expr target(ExprKind::kName, s.pos);
  target.str = s.name;
  if (outer->output_defs.count(&s)) outer->output_targets.insert(&target);
  Emit(s.name, Any(relax::Expr(inner)), std::nullopt, target, s.pos);
  outer->output_targets.erase(&target);
}

void RelaxBuilder::Return(Evaluator& ev, const ast::Stmt& s) {
  if (func_->in_dataflow) Error(s.pos, "'return' inside a dataflow block: end the block with R.output(...) first");
  if (func_->if_depth > 0) Error(s.pos, "'return' inside an 'if' is not supported; assign the result in both branches");
  if (!s.value) Error(s.pos, "a Relax function must return a value");
  Any v = ev.Eval(*s.value);
  relax::Expr ret = ToExpr(v, s.value->pos, "the returned value");
  // A computed result (`return R.add(x, y)`) is bound first, as the printer
  // writes it (gv = R.add(x, y); return gv): print -> parse is a fixed point.
  if (!relax::IsLeafOrTuple(ret)) {
    ast::Expr placeholder(ExprKind::kName, s.pos);
    ret = Emit("gv", Any(ret), std::nullopt, placeholder, s.value->pos);
  }
  func_->ret = ret;
}

}  // namespace script
}  // namespace tessera
