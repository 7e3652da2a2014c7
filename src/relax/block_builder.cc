// BlockBuilder and its normalizer (see block_builder.h for the guarantees).
// Normalization dispatches on the node kind; nested non-leaf arguments are
// emitted into the innermost open block; struct info comes from the op's
// "FInferStructInfo" attribute or the callee's FuncStructInfo.
#include "relax/block_builder.h"

#include <algorithm>
#include <sstream>

#include "runtime/registry.h"
#include "runtime/stack_guard.h"
#include "tir/function.h"
#include "tir/functor.h"

namespace tessera {
namespace relax {

BlockBuilder BlockBuilder::Create(std::optional<IRModule> mod) {
  auto n = make_object<BlockBuilderNode>();
  n->context_mod_ = mod ? *mod : IRModule::Empty();
  for (const auto& kv : n->context_mod_->functions.items()) {
    n->name_counts_[kv.first->name_hint] = 0;
    n->func_to_gv_[kv.second.get()] = kv.first;
  }
  return BlockBuilder(ObjectPtr<Object>(std::move(n)));
}

std::string BlockBuilderNode::GetUniqueName(const std::string& prefix, bool replace_dots) {
  std::string name = prefix;
  for (char& c : name) {
    if (c == '.' && replace_dots) c = '_';
  }
  auto it = name_counts_.find(name);
  if (it == name_counts_.end()) {
    name_counts_[name] = 0;
    return name;
  }
  std::string candidate;
  do {
    candidate = name + std::to_string(++it->second);
  } while (name_counts_.count(candidate));
  name_counts_[candidate] = 0;
  return candidate;
}

GlobalVar BlockBuilderNode::AddFunction(const BaseFunc& func, const std::string& name_hint) {
  TESSERA_CHECK_OR_THROW(func.defined(), TypeError) << "BlockBuilder.add_func: function is None";
  auto it = func_to_gv_.find(func.get());
  if (it != func_to_gv_.end()) return it->second;
  BaseFunc f = func;
  if (f.as<FunctionNode>() && !f->struct_info_.defined()) f = Downcast<BaseFunc>(Normalize(f));
  // A function keeps the name asked for, dots included ("f.x" and "f_x" are
  // two functions; TVM turns the first into "f_x" too): the executable exports
  // each under its GlobalVar's name (AttachGlobalSymbol).
  GlobalVar gv(GetUniqueName(name_hint, /*replace_dots=*/false));
  if (f->struct_info_.defined()) gv->struct_info_ = f->struct_info_;
  context_mod_.CopyOnWrite()->Add(gv, f);  // a module the caller still holds is not changed (as TVM)
  func_to_gv_[f.get()] = gv;
  return gv;
}

void BlockBuilderNode::UpdateFunction(const GlobalVar& gv, const BaseFunc& func) {
  TESSERA_CHECK_OR_THROW(func.defined(), TypeError) << "BlockBuilder.update_func: function is None";
  BaseFunc f = func;
  if (f.as<FunctionNode>() && !f->struct_info_.defined()) f = Downcast<BaseFunc>(Normalize(f));
  auto old = context_mod_->functions.Get(gv);
  if (old.has_value()) {
    func_to_gv_.erase(old->get());
  } else {
    // As TVM, a GlobalVar not in the module is added (a pass rebuilding a module
    // function by function into a fresh builder); its name must be free.
    TESSERA_CHECK_OR_THROW(!context_mod_->FindGlobalVar(gv->name_hint).has_value(), ValueError)
        << "BlockBuilder.update_func: the module already has another GlobalVar named '" << gv->name_hint << "'";
    name_counts_.try_emplace(gv->name_hint, 0);
  }
  context_mod_.CopyOnWrite()->Update(gv, f);
  if (f->struct_info_.defined()) gv->struct_info_ = f->struct_info_;
  func_to_gv_[f.get()] = gv;
}

void BlockBuilderNode::BeginScope(const std::optional<Array<Var>>& params) {
  ScopeFrame frame;
  if (!scope_stack_.empty()) frame.symbolic_vars = scope_stack_.back().symbolic_vars;
  scope_stack_.push_back(std::move(frame));
  if (params) {
    for (const Var& p : *params) {
      TESSERA_CHECK_OR_THROW(p.defined(), TypeError) << "BlockBuilder: a parameter is None";
      if (p->struct_info_.defined()) DefineSymbolicVars(Downcast<StructInfo>(p->struct_info_));
    }
  }
}

void BlockBuilderNode::EndScope() {
  TESSERA_CHECK_OR_THROW(!scope_stack_.empty(), ValueError) << "BlockBuilder.end_scope without begin_scope";
  scope_stack_.pop_back();
}

void BlockBuilderNode::DefineSymbolicVars(const StructInfo& sinfo) {
  if (scope_stack_.empty()) return;  // outside any scope every symbolic var counts as defined
  for (const tir::Var& v : TIRVarsInStructInfo(sinfo)) scope_stack_.back().symbolic_vars.insert(v.get());
}

bool BlockBuilderNode::IsSymbolicVarDefined(const tir::Var& v) const {
  // Outside any scope (a builder used on a fragment) nothing is erased, as TVM.
  return scope_stack_.empty() || scope_stack_.back().symbolic_vars.count(v.get()) > 0;
}

void BlockBuilderNode::BeginDataflowBlock() { block_stack_.push_back(BlockFrame{{}, true}); }
void BlockBuilderNode::BeginBindingBlock() { block_stack_.push_back(BlockFrame{{}, false}); }

BindingBlock BlockBuilderNode::EndBlock() {
  TESSERA_CHECK_OR_THROW(!block_stack_.empty(), ValueError) << "BlockBuilder.end_block: no block is open";
  BlockFrame frame = std::move(block_stack_.back());
  block_stack_.pop_back();
  Array<Binding> bindings;
  for (Binding& b : frame.bindings) bindings.push_back(std::move(b));
  if (frame.is_dataflow) return DataflowBlock(bindings);
  return BindingBlock(bindings);
}

bool BlockBuilderNode::CurrentBlockIsDataFlow() const { return !block_stack_.empty() && block_stack_.back().is_dataflow; }

BlockBuilderNode::BlockFrame* BlockBuilderNode::CurrentFrame(const char* what) {
  TESSERA_CHECK_OR_THROW(!block_stack_.empty(), ValueError)
      << "BlockBuilder." << what << ": no block is open (use bb.function(...) / bb.dataflow(), or "
      << "begin_binding_block)";
  return &block_stack_.back();
}

Var BlockBuilderNode::CreateVar(bool is_dataflow, std::string name_hint, const StructInfo& sinfo) {
  if (name_hint.empty()) name_hint = is_dataflow ? "lv" : "gv";
  std::string name = GetUniqueName(name_hint);
  if (is_dataflow) return DataflowVar(name, sinfo);
  return Var(name, sinfo);
}

template <typename F>
auto BlockBuilderNode::Transaction(F f) -> decltype(f()) {
  size_t blocks = block_stack_.size();
  size_t bindings = block_stack_.empty() ? 0 : block_stack_.back().bindings.size();
  size_t scopes = scope_stack_.size();
  try {
    return f();
  } catch (...) {
    block_stack_.resize(std::min(block_stack_.size(), blocks));
    if (!block_stack_.empty() && block_stack_.size() == blocks) {
      auto& b = block_stack_.back().bindings;
      b.resize(std::min(b.size(), bindings));
    }
    if (scope_stack_.size() > scopes) scope_stack_.resize(scopes);
    throw;
  }
}

Var BlockBuilderNode::Emit(const RelaxExpr& expr, const std::string& name_hint) {
  TESSERA_CHECK_OR_THROW(expr.defined(), TypeError) << "BlockBuilder.emit: expression is None";
  BlockFrame* frame = CurrentFrame("emit");
  RelaxExpr value = Transaction([&] { return Normalize(expr); });
  frame = CurrentFrame("emit");  // normalization may have grown the stack vector
  Var var = CreateVar(frame->is_dataflow, name_hint, GetStructInfo(value));
  frame->bindings.push_back(VarBinding(var, value));
  binding_table_[var.get()] = value;
  return var;
}

Var BlockBuilderNode::EmitMatchCast(const RelaxExpr& value, const StructInfo& sinfo, const std::string& name_hint) {
  TESSERA_CHECK_OR_THROW(value.defined(), TypeError) << "BlockBuilder.match_cast: value is None";
  TESSERA_CHECK_OR_THROW(sinfo.defined(), TypeError) << "BlockBuilder.match_cast: struct_info is None";
  CurrentFrame("match_cast");
  RelaxExpr v = Transaction([&] { return NormalizeArgument(value); });
  StructInfo vs = GetStructInfo(v);
  // A cast that can never succeed (different kinds, dtype or ndim) is refused now.
  if (StructInfoBaseCheck(sinfo, vs) == BaseCheckResult::kFailL0 &&
      StructInfoBaseCheck(vs, sinfo) == BaseCheckResult::kFailL0) {
    TESSERA_THROW(TypeError) << "match_cast" << (name_hint.empty() ? "" : " '" + name_hint + "'")
                             << ": value of struct info " << StructInfoText(vs) << " can never match "
                             << StructInfoText(sinfo);
  }
  BlockFrame* frame = CurrentFrame("match_cast");
  DefineSymbolicVars(sinfo);
  Var var = CreateVar(frame->is_dataflow, name_hint, sinfo);
  frame->bindings.push_back(MatchCast(var, v, sinfo));
  binding_table_[var.get()] = v;
  return var;
}

Var BlockBuilderNode::EmitOutput(const RelaxExpr& output, const std::string& name_hint) {
  TESSERA_CHECK_OR_THROW(output.defined(), TypeError) << "BlockBuilder.emit_output: output is None";
  BlockFrame* frame = CurrentFrame("emit_output");
  TESSERA_CHECK_OR_THROW(frame->is_dataflow, ValueError)
      << "BlockBuilder.emit_output is only allowed inside a dataflow block";
  RelaxExpr value = Transaction([&] { return Normalize(output); });
  frame = CurrentFrame("emit_output");
  Var var = CreateVar(false, name_hint, GetStructInfo(value));
  frame->bindings.push_back(VarBinding(var, value));
  binding_table_[var.get()] = value;
  return var;
}

void BlockBuilderNode::EmitNormalized(const Binding& binding) {
  TESSERA_CHECK_OR_THROW(binding.defined(), TypeError) << "BlockBuilder.emit_normalized: binding is None";
  BlockFrame* frame = CurrentFrame("emit_normalized");
  if (const auto* vb = binding.as<VarBindingNode>()) {
    TESSERA_CHECK_OR_THROW(vb->var->struct_info_.defined(), TypeError)
        << "BlockBuilder.emit_normalized: var '" << vb->var->name_hint << "' has no struct info";
    binding_table_[vb->var.get()] = vb->value;
  } else if (const auto* mc = binding.as<MatchCastNode>()) {
    DefineSymbolicVars(mc->struct_info);
    binding_table_[mc->var.get()] = mc->value;
  }
  if (frame->is_dataflow == false) {
    TESSERA_CHECK_OR_THROW(!binding->var.as<DataflowVarNode>(), ValueError)
        << "BlockBuilder.emit_normalized: dataflow var '" << binding->var->name_hint
        << "' bound outside a dataflow block";
  }
  name_counts_.emplace(binding->var->name_hint, 0);
  frame->bindings.push_back(binding);
}

std::optional<RelaxExpr> BlockBuilderNode::LookupBinding(const Var& var) const {
  auto it = binding_table_.find(var.get());
  if (it == binding_table_.end()) return std::nullopt;
  return it->second;
}

// ---- normalization ------------------------------------------------------------------------

namespace {

std::string CalleeName(const RelaxExpr& op) {
  if (const auto* o = op.as<OpNode>()) return o->name;
  if (const auto* g = op.as<GlobalVarNode>()) return g->name_hint;
  if (const auto* v = op.as<VarNode>()) return v->name_hint;
  if (const auto* e = op.as<ExternFuncNode>()) return e->global_symbol;
  return ExprKindName(op);
}

// Unifies the symbolic dims of a parameter's struct info with an argument's.
class DimUnifier {
 public:
  DimUnifier(const std::string& callee) : callee_(callee) {}

  void Match(const StructInfo& param, const StructInfo& arg, size_t index) {
    index_ = index;
    MatchSInfo(param, arg);
  }
  std::optional<PrimExpr> Lookup(const tir::Var& v) const {
    auto it = map_.find(v.get());
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }

 private:
  [[noreturn]] void Mismatch(const std::string& what, const StructInfo& param, const StructInfo& arg,
                             bool type_error) {
    std::ostringstream os;
    os << "call to '" << callee_ << "': argument " << index_ << " " << what << ": expected "
       << StructInfoText(param) << ", got " << StructInfoText(arg);
    if (type_error) throw TypeError(os.str());
    throw ValueError(os.str());
  }

  void MatchDim(const PrimExpr& p, const PrimExpr& a, const StructInfo& ps, const StructInfo& as) {
    if (const auto* v = p.as<tir::VarNode>()) {
      auto it = map_.find(v);
      if (it == map_.end()) {
        map_[v] = a;
        return;
      }
      const int64_t* x = AsConstInt(it->second);
      const int64_t* y = AsConstInt(a);
      if (x && y && *x != *y) {
        Mismatch("has a conflicting value " + std::to_string(*y) + " for symbolic dim '" + v->name_hint +
                     "' (bound to " + std::to_string(*x) + " before)",
                 ps, as, false);
      }
      return;
    }
    PrimExpr pe = tir::Substitute(p, [&](const tir::Var& v) { return Lookup(v); });
    const int64_t* x = AsConstInt(pe);
    const int64_t* y = AsConstInt(a);
    if (x && y && *x != *y) Mismatch("has a different shape", ps, as, false);
  }

  void MatchSInfo(const StructInfo& param, const StructInfo& arg) {
    CheckStack("relax struct info");
    if (param.as<ObjectStructInfoNode>() || arg.as<ObjectStructInfoNode>()) return;
    if (const auto* p = param.as<TensorStructInfoNode>()) {
      const auto* a = arg.as<TensorStructInfoNode>();
      if (!a) Mismatch("is not a tensor", param, arg, true);
      if (!p->IsUnknownDtype() && !a->IsUnknownDtype() && p->dtype != a->dtype) {
        Mismatch("has dtype " + a->dtype.str() + " instead of " + p->dtype.str(), param, arg, true);
      }
      if (!p->IsUnknownNdim() && !a->IsUnknownNdim() && p->ndim != a->ndim) {
        Mismatch("has ndim " + std::to_string(a->ndim) + " instead of " + std::to_string(p->ndim), param, arg,
                 false);
      }
      auto ps = p->GetShape();
      auto as = a->GetShape();
      if (ps && as && ps->size() == as->size()) {
        for (size_t i = 0; i < ps->size(); ++i) MatchDim((*ps)[i], (*as)[i], param, arg);
      }
      return;
    }
    if (const auto* p = param.as<ShapeStructInfoNode>()) {
      const auto* a = arg.as<ShapeStructInfoNode>();
      if (!a) Mismatch("is not a shape", param, arg, true);
      if (p->ndim >= 0 && a->ndim >= 0 && p->ndim != a->ndim) Mismatch("has a different ndim", param, arg, false);
      if (p->values && a->values && p->values->size() == a->values->size()) {
        for (size_t i = 0; i < p->values->size(); ++i) MatchDim((*p->values)[i], (*a->values)[i], param, arg);
      }
      return;
    }
    if (const auto* p = param.as<PrimStructInfoNode>()) {
      const auto* a = arg.as<PrimStructInfoNode>();
      if (!a) Mismatch("is not a scalar", param, arg, true);
      if (p->dtype != a->dtype) Mismatch("has a different dtype", param, arg, true);
      if (p->value.defined() && a->value.defined()) MatchDim(p->value, a->value, param, arg);
      return;
    }
    if (const auto* p = param.as<TupleStructInfoNode>()) {
      const auto* a = arg.as<TupleStructInfoNode>();
      if (!a) Mismatch("is not a tuple", param, arg, true);
      if (p->fields.size() != a->fields.size()) Mismatch("has a different tuple size", param, arg, true);
      for (size_t i = 0; i < p->fields.size(); ++i) MatchSInfo(p->fields[i], a->fields[i]);
      return;
    }
    if (param.as<FuncStructInfoNode>()) {
      if (!arg.as<FuncStructInfoNode>()) Mismatch("is not a function", param, arg, true);
      return;
    }
  }

  std::string callee_;
  size_t index_ = 0;
  std::unordered_map<const Object*, PrimExpr> map_;
};

}  // namespace

StructInfo DeriveCallRetStructInfo(const FuncStructInfo& finfo, const Call& call, const std::string& callee_name) {
  if (finfo->IsOpaque()) {
    // An opaque callee (R.call_packed's ExternFunc) returns what sinfo_args say, else its declared return.
    TESSERA_CHECK_OR_THROW(call->sinfo_args.size() <= 1, TypeError)
        << "call to opaque function '" << callee_name << "' takes at most one sinfo_args entry, got "
        << call->sinfo_args.size();
    return call->sinfo_args.empty() ? finfo->ret : call->sinfo_args[0];
  }
  const Array<StructInfo>& params = *finfo->params;
  if (params.size() != call->args.size()) {
    TESSERA_THROW(TypeError) << "call to '" << callee_name << "' expects " << params.size() << " argument"
                             << (params.size() == 1 ? "" : "s") << ", got " << call->args.size();
  }
  DimUnifier unifier(callee_name);
  for (size_t i = 0; i < params.size(); ++i) unifier.Match(params[i], GetStructInfo(call->args[i]), i);
  StructInfo ret = SubstituteStructInfo(finfo->ret, [&](const tir::Var& v) { return unifier.Lookup(v); });
  return ret;
}

RelaxExpr BlockBuilderNode::NormalizeTransaction(const RelaxExpr& expr) {
  return Transaction([&] { return Normalize(expr); });
}

RelaxExpr BlockBuilderNode::NormalizeArgument(const RelaxExpr& expr) {
  if (!IsLeafOrTuple(expr) && !block_stack_.empty()) {
    auto it = block_stack_.back().bound_args.find(expr.get());
    if (it != block_stack_.back().bound_args.end()) return it->second.second;
  }
  RelaxExpr e = Normalize(expr);
  if (IsLeafOrTuple(e)) return e;
  BlockFrame* frame = CurrentFrame("normalize (binding a nested expression)");
  Var var = CreateVar(frame->is_dataflow, "", GetStructInfo(e));
  frame->bindings.push_back(VarBinding(var, e));
  binding_table_[var.get()] = e;
  frame->bound_args.emplace(expr.get(), std::make_pair(expr, var));
  return var;
}

namespace {

// Copies `e`'s struct info onto a fresh node only when it has none.
template <typename T>
T WithSInfo(T e, const StructInfo& sinfo) {
  if (!e->struct_info_.defined()) e->struct_info_ = sinfo;
  return e;
}

// Whether an operator's result lives where its tensor arguments do (the
// computing operators); calls of kernels, builtins, allocations and device
// moves state their results' devices themselves.
bool InheritsVDevice(const std::string& op_name) {
  for (const char* prefix : {"relax.call_", "relax.invoke_", "relax.make_closure", "relax.builtin.", "relax.memory.",
                             "relax.vm.", "relax.to_vdevice", "relax.hint_on_device"}) {
    if (op_name.rfind(prefix, 0) == 0) return false;
  }
  return true;
}

}  // namespace

RelaxExpr BlockBuilderNode::Normalize(const RelaxExpr& expr) {
  TESSERA_CHECK_OR_THROW(expr.defined(), TypeError) << "BlockBuilder.normalize: expression is None";
  if (normalized_.count(expr.get())) return expr;
  RelaxExpr out = NormalizeImpl(expr);
  if (out.as<TupleNode>() || out.as<SeqExprNode>() || out.as<IfNode>()) normalized_.emplace(out.get(), out);
  return out;
}

RelaxExpr BlockBuilderNode::NormalizeImpl(const RelaxExpr& expr) {
  CheckStack("relax normalizer");
  BlockBuilder self = GetRef<BlockBuilder>(static_cast<const BlockBuilderNode*>(this));

  if (const auto* v = expr.as<VarNode>()) {
    TESSERA_CHECK_OR_THROW(v->struct_info_.defined(), TypeError)
        << "relax var '" << v->name_hint << "' has no struct info (annotate it or bind it through the builder)";
    return expr;
  }
  if (const auto* gv = expr.as<GlobalVarNode>()) {
    if (!gv->struct_info_.defined()) {
      if (auto f = context_mod_->functions.Get(Downcast<GlobalVar>(expr))) {
        if ((*f)->struct_info_.defined()) {
          gv->struct_info_ = (*f)->struct_info_;
        } else if (f->as<tir::PrimFuncNode>()) {
          gv->struct_info_ = FuncStructInfo::OpaqueFunc(ObjectStructInfo::Make(), false);
        }
      }
    }
    return expr;
  }
  if (expr.as<OpNode>()) return expr;
  if (expr.as<ConstantNode>() || expr.as<ShapeExprNode>() || expr.as<PrimValueNode>() || expr.as<StringImmNode>() ||
      expr.as<DataTypeImmNode>() || expr.as<ExternFuncNode>()) {
    return expr;  // their constructors set the struct info
  }
  if (const auto* t = expr.as<TupleNode>()) {
    Array<RelaxExpr> fields;
    Array<StructInfo> sinfo;
    bool same = true;
    for (const RelaxExpr& f : t->fields) {
      RelaxExpr nf = NormalizeArgument(f);
      same &= nf.same_as(f);
      fields.push_back(nf);
      sinfo.push_back(GetStructInfo(nf));
    }
    Tuple out = same ? Downcast<Tuple>(expr) : Tuple(fields, t->span);
    return WithSInfo(out, TupleStructInfo(sinfo));
  }
  if (const auto* g = expr.as<TupleGetItemNode>()) {
    RelaxExpr tup = NormalizeArgument(g->tuple);
    StructInfo ts = GetStructInfo(tup);
    StructInfo sinfo = ObjectStructInfo::Make();
    if (const auto* tsi = ts.as<TupleStructInfoNode>()) {
      TESSERA_CHECK_OR_THROW(g->index < static_cast<int>(tsi->fields.size()), IndexError)
          << "TupleGetItem: index " << g->index << " out of range for a tuple of " << tsi->fields.size()
          << " fields";
      sinfo = tsi->fields[g->index];
    } else {
      TESSERA_CHECK_OR_THROW(ts.as<ObjectStructInfoNode>(), TypeError)
          << "TupleGetItem: the value indexed is not a tuple (struct info " << StructInfoText(ts) << ")";
    }
    TupleGetItem out = tup.same_as(g->tuple) ? Downcast<TupleGetItem>(expr) : TupleGetItem(tup, g->index, g->span);
    return WithSInfo(out, sinfo);
  }
  if (const auto* c = expr.as<CallNode>()) {
    RelaxExpr op = c->op.as<OpNode>() ? c->op : NormalizeArgument(c->op);
    Array<RelaxExpr> args;
    bool same = op.same_as(c->op);
    for (const RelaxExpr& a : c->args) {
      RelaxExpr na = NormalizeArgument(a);
      same &= na.same_as(a);
      args.push_back(na);
    }
    Call call = same ? Downcast<Call>(expr) : Call(op, args, c->attrs, c->sinfo_args, c->span);
    if (call->struct_info_.defined()) return call;
    StructInfo sinfo;
    if (const auto* o = op.as<OpNode>()) {
      static const OpAttrMap<PackedFunc> finfer = Op::GetAttrMap<PackedFunc>("FInferStructInfo");
      Op opref = Downcast<Op>(op);
      TESSERA_CHECK_OR_THROW(finfer.count(opref), ValueError)
          << "operator '" << o->name << "' has no FInferStructInfo: it cannot be used in Relax";
      sinfo = finfer[opref](call, self).cast<StructInfo>();
      if (InheritsVDevice(o->name)) sinfo = PropagateVDevice(o->name, call->args, sinfo);
    } else {
      StructInfo fs = op->struct_info_.defined() ? Downcast<StructInfo>(op->struct_info_) : StructInfo();
      if (const auto* f = fs.as<FuncStructInfoNode>()) {
        sinfo = DeriveCallRetStructInfo(GetRef<FuncStructInfo>(f), call, CalleeName(op));
      } else if (!fs.defined() || fs.as<ObjectStructInfoNode>()) {
        sinfo = c->sinfo_args.size() == 1 ? c->sinfo_args[0] : StructInfo(ObjectStructInfo::Make());
      } else {
        TESSERA_THROW(TypeError) << "call of '" << CalleeName(op) << "', which is not a function (struct info "
                                 << StructInfoText(fs) << ")";
      }
    }
    // As TVM, a call keeps its inferred struct info; erasure of symbolic
    // vars not defined in scope happens at SeqExpr / If / function boundaries.
    call->struct_info_ = sinfo;
    return call;
  }
  if (const auto* s = expr.as<SeqExprNode>()) {
    Array<BindingBlock> blocks;
    bool same = true;
    for (const BindingBlock& block : s->blocks) {
      bool dataflow = block.as<DataflowBlockNode>() != nullptr;
      if (dataflow) {
        BeginDataflowBlock();
      } else {
        BeginBindingBlock();
      }
      for (const Binding& b : block->bindings) {
        CheckStack("relax normalizer");
        if (const auto* vb = b.as<VarBindingNode>()) {
          RelaxExpr value = Normalize(vb->value);
          StructInfo vs = GetStructInfo(value);
          if (!vb->var->struct_info_.defined()) {
            vb->var->struct_info_ = vs;
          } else {
            StructInfo annotated = Downcast<StructInfo>(vb->var->struct_info_);
            TESSERA_CHECK_OR_THROW(StructInfoBaseCheck(annotated, vs) != BaseCheckResult::kFailL0, TypeError)
                << "binding '" << vb->var->name_hint << "': the value's struct info " << StructInfoText(vs)
                << " does not match the annotation " << StructInfoText(annotated);
          }
          Binding nb = value.same_as(vb->value) ? b : Binding(VarBinding(vb->var, value, vb->span));
          same &= nb.same_as(b);
          EmitNormalized(nb);
        } else if (const auto* mc = b.as<MatchCastNode>()) {
          RelaxExpr value = NormalizeArgument(mc->value);
          StructInfo vs = GetStructInfo(value);
          if (StructInfoBaseCheck(mc->struct_info, vs) == BaseCheckResult::kFailL0 &&
              StructInfoBaseCheck(vs, mc->struct_info) == BaseCheckResult::kFailL0) {
            TESSERA_THROW(TypeError) << "match_cast '" << mc->var->name_hint << "': value of struct info "
                                     << StructInfoText(vs) << " can never match " << StructInfoText(mc->struct_info);
          }
          if (!mc->var->struct_info_.defined()) mc->var->struct_info_ = mc->struct_info;
          Binding nb = value.same_as(mc->value) ? b : Binding(MatchCast(mc->var, value, mc->struct_info, mc->span));
          same &= nb.same_as(b);
          EmitNormalized(nb);
        } else {
          TESSERA_THROW(TypeError) << "relax.SeqExpr: unknown binding kind " << b->GetTypeKey();
        }
      }
      BindingBlock nb = EndBlock();
      if (nb->bindings.empty()) {
        same = false;
        continue;
      }
      // Keep the block object when nothing changed in it.
      if (nb->bindings.size() == block->bindings.size()) {
        bool all_same = true;
        for (size_t i = 0; i < nb->bindings.size(); ++i) all_same &= nb->bindings[i].same_as(block->bindings[i]);
        if (all_same) nb = block;
      }
      same &= nb.same_as(block);
      blocks.push_back(nb);
    }
    // Bindings the body needs go into a block of their own (dataflow when the enclosing one is).
    if (CurrentBlockIsDataFlow()) {
      BeginDataflowBlock();
    } else {
      BeginBindingBlock();
    }
    RelaxExpr body = NormalizeArgument(s->body);
    BindingBlock prologue = EndBlock();
    if (!prologue->bindings.empty()) blocks.push_back(prologue);
    same &= body.same_as(s->body) && prologue->bindings.empty();
    SeqExpr out = same ? Downcast<SeqExpr>(expr) : SeqExpr(blocks, body, s->span);
    out->struct_info_ = EraseToWellDefined(GetStructInfo(body), [&](const tir::Var& v) {
      return IsSymbolicVarDefined(v);
    });
    return out;
  }
  if (const auto* i = expr.as<IfNode>()) {
    RelaxExpr cond = NormalizeArgument(i->cond);
    StructInfo cs = GetStructInfo(cond);
    if (const auto* t = cs.as<TensorStructInfoNode>()) {
      TESSERA_CHECK_OR_THROW(t->IsUnknownNdim() || t->ndim == 0, ValueError)
          << "If: the condition must be a scalar (0-d) tensor, got " << StructInfoText(cs);
    } else if (const auto* p = cs.as<PrimStructInfoNode>()) {
      TESSERA_CHECK_OR_THROW(p->dtype.is_bool() || p->dtype.is_int() || p->dtype.is_uint(), TypeError)
          << "If: the condition must be boolean, got " << StructInfoText(cs);
    } else {
      TESSERA_THROW(TypeError) << "If: the condition must be a tensor or a boolean, got " << StructInfoText(cs);
    }
    RelaxExpr t = NormalizeBody(i->true_branch);
    RelaxExpr f = NormalizeBody(i->false_branch);
    bool same = cond.same_as(i->cond) && t.same_as(i->true_branch) && f.same_as(i->false_branch);
    If out = same ? Downcast<If>(expr) : If(cond, t, f, i->span);
    out->struct_info_ = StructInfoLCA(GetStructInfo(t), GetStructInfo(f));
    return out;
  }
  if (const auto* fn = expr.as<FunctionNode>()) {
    BeginScope(fn->params);
    RelaxExpr body;
    try {
      body = NormalizeBody(fn->body);
    } catch (...) {
      EndScope();
      throw;
    }
    EndScope();
    StructInfo body_sinfo = GetStructInfo(body);
    Array<StructInfo> params;
    for (const Var& p : fn->params) params.push_back(GetStructInfo(p));
    StructInfo ret = fn->ret_struct_info;
    if (ret.defined()) {
      TESSERA_CHECK_OR_THROW(StructInfoBaseCheck(ret, body_sinfo) != BaseCheckResult::kFailL0, TypeError)
          << "function" << (fn->attrs.Get("global_symbol") ? " '" + fn->attrs.Get("global_symbol")->cast<std::string>() + "'" : "")
          << ": the body's struct info " << StructInfoText(body_sinfo)
          << " does not match the annotated return " << StructInfoText(ret);
    }
    Function out = body.same_as(fn->body) && ret.defined()
                       ? Downcast<Function>(expr)
                       : Function(fn->params, body, ret.defined() ? std::optional<StructInfo>(ret) : std::nullopt,
                                  fn->is_pure, fn->attrs, fn->span);
    if (!out->struct_info_.defined()) out->struct_info_ = FuncStructInfo(params, out->ret_struct_info, fn->is_pure);
    return out;
  }
  TESSERA_THROW(TypeError) << "BlockBuilder.normalize: " << expr->GetTypeKey() << " is not a Relax expression";
}

RelaxExpr BlockBuilderNode::NormalizeBody(const RelaxExpr& body) {
  BeginScope(std::nullopt);
  try {
    RelaxExpr out;
    if (body.as<SeqExprNode>()) {
      out = Normalize(body);
    } else {
      BeginBindingBlock();
      RelaxExpr e = NormalizeArgument(body);
      BindingBlock block = EndBlock();
      Array<BindingBlock> blocks;
      if (!block->bindings.empty()) blocks.push_back(block);
      SeqExpr seq(blocks, e, body->span);
      seq->struct_info_ = GetStructInfo(e);
      out = seq;
    }
    EndScope();
    // Symbolic vars defined inside (by match_cast) are not visible outside.
    if (HasStructInfo(out)) {
      out->struct_info_ = EraseToWellDefined(GetStructInfo(out), [&](const tir::Var& v) { return IsSymbolicVarDefined(v); });
    }
    return out;
  } catch (...) {
    EndScope();
    throw;
  }
}

TESSERA_REGISTER_OBJECT_TYPE(BlockBuilderNode);

// ---- Python API ----------------------------------------------------------------------------

TESSERA_REGISTER_GLOBAL("relax.BlockBuilderCreate").set_body_typed([](std::optional<IRModule> mod) {
  return BlockBuilder::Create(mod);
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderBeginDataflowBlock").set_body_typed([](BlockBuilder bb) {
  bb->BeginDataflowBlock();
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderBeginBindingBlock").set_body_typed([](BlockBuilder bb) {
  bb->BeginBindingBlock();
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderEndBlock").set_body_typed([](BlockBuilder bb) { return bb->EndBlock(); });
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderBeginScope").set_body_typed([](BlockBuilder bb, std::optional<Array<Var>> params) {
  bb->BeginScope(params);
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderEndScope").set_body_typed([](BlockBuilder bb) { bb->EndScope(); });
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderEmit").set_body_typed([](BlockBuilder bb, RelaxExpr e, std::string name) {
  return bb->Emit(e, name);
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderEmitMatchCast")
    .set_body_typed([](BlockBuilder bb, RelaxExpr e, StructInfo s, std::string name) {
      return bb->EmitMatchCast(e, s, name);
    });
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderEmitOutput").set_body_typed([](BlockBuilder bb, RelaxExpr e, std::string name) {
  return bb->EmitOutput(e, name);
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderEmitNormalized").set_body_typed([](BlockBuilder bb, Binding b) {
  bb->EmitNormalized(b);
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderNormalize").set_body_typed([](BlockBuilder bb, RelaxExpr e) {
  return bb->NormalizeTransaction(e);
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderNormalizeArgument").set_body_typed([](BlockBuilder bb, RelaxExpr e) {
  return bb->NormalizeArgument(e);
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderAddFunction").set_body_typed([](BlockBuilder bb, BaseFunc f, std::string name) {
  return bb->AddFunction(f, name);
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderUpdateFunction").set_body_typed([](BlockBuilder bb, GlobalVar gv, BaseFunc f) {
  bb->UpdateFunction(gv, f);
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderGetContextIRModule").set_body_typed([](BlockBuilder bb) {
  return bb->GetContextIRModule();
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderGetUniqueName").set_body_typed([](BlockBuilder bb, std::string prefix) {
  return bb->GetUniqueName(prefix);
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderCurrentBlockIsDataFlow").set_body_typed([](BlockBuilder bb) {
  return bb->CurrentBlockIsDataFlow();
});
TESSERA_REGISTER_GLOBAL("relax.BlockBuilderLookupBinding").set_body_typed([](BlockBuilder bb, Var v) -> Any {
  auto r = bb->LookupBinding(v);
  if (!r) return Any();
  return Any(*r);
});

}  // namespace relax
}  // namespace tessera
