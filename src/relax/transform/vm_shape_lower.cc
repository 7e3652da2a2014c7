// VMShapeLower: symbolic shapes become VM builtin calls. Each function gets
// a shape heap (one int64 slot per symbolic dim or derived dim expression:
// vm.builtin.alloc_shape_heap), then checks every parameter against its
// annotation — check_tensor_info / check_shape_info / check_tuple_info /
// check_prim_value_info / check_func_info and vm.builtin.match_shape, which
// stores a dim met first into the heap and asserts the others — each with an
// error context naming the function and parameter. Derived dims (n + 1) are
// computed by a generated TIR function ("shape_func") on the heap; symbolic
// R.shape / R.prim_value values become vm.builtin.make_shape /
// make_prim_value; match_cast bindings emit the same checks. Last shape
// pass before AttachGlobalSymbol and VM code generation.
#include <algorithm>
#include <tuple>

#include "arith/expr_deep_equal.h"
#include "arith/expr_string.h"
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "relax/transform/utils.h"
#include "tir/buffer.h"
#include "tir/function.h"
#include "runtime/registry.h"
#include "runtime/stack_guard.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace relax {
namespace {

// MatchShapeCode / MakeShapeCode of the VM builtins (runtime/vm).
enum MatchShapeCode : int64_t { kNoOp = 0, kAssertEqualToImm = 1, kStoreToHeap = 2, kAssertEqualToLoad = 3 };
enum MakeShapeCode : int64_t { kUseImm = 0, kLoadShape = 1 };

// One heap slot: a symbolic var or a derived expression over them.
struct Slot {
  PrimExpr expr;
  int64_t index = 0;
  std::vector<Slot*> users;  // derived slots reading this var
  int outstanding = 0;       // vars of a derived slot not yet in the heap
  bool computed = false;
};

// A pending match of `input`'s shape (or prim value) against `pattern`.
struct MatchTodo {
  RelaxExpr input;
  Array<PrimExpr> pattern;
  std::string err_ctx;
};

StructInfo VoidSInfo() { return TupleStructInfo(Array<StructInfo>{}); }

class ShapeLowerer : public ExprMutator {
 public:
  // Shape functions are added to a copy of `mod` (ContextModule()).
  ShapeLowerer(const IRModule& mod, bool emit_err_ctx) : ExprMutator(mod.ShallowCopy()), emit_err_ctx_(emit_err_ctx) {}
  using ExprMutator::VisitExpr_;

  IRModule ContextModule() const { return builder_->GetContextIRModule(); }

  Function Lower(const GlobalVar& gv, const Function& func) {
    fn_name_ = gv->name_hint;
    slots_.clear();
    ready_.clear();
    CollectSlots(func);
    LinkDerivedSlots();

    builder_->BeginScope(func->params);
    std::vector<BindingBlock> blocks;
    // Parameter checks.
    builder_->BeginBindingBlock();
    shape_heap_ = EmitShapeHeap();
    size_t num_input = func->params.size();
    if (auto n = func->attrs.Get("num_input")) {
      TESSERA_CHECK_OR_THROW(n->kind() == Any::Kind::kInt || n->as<IntImmNode>(), TypeError)
          << "VMShapeLower: attribute 'num_input' of function '" << fn_name_ << "' must be an int, got "
          << n->type_name();
      num_input = static_cast<size_t>(n->kind() == Any::Kind::kInt ? n->raw_int() : n->as<IntImmNode>()->value);
    }
    std::vector<MatchTodo> todos;
    for (size_t i = 0; i < func->params.size(); ++i) {
      const Var& p = func->params[i];
      StructInfo sinfo = GetStructInfo(p);
      std::string err = "ErrorContext(fn=" + fn_name_ + ", loc=param[" + std::to_string(i) + "], param=" +
                        p->name_hint + ", annotation=" + StructInfoText(sinfo) + ")";
      CheckMatchCast(sinfo, p, /*always_check=*/true, /*dynamic_only=*/i >= num_input, err, &todos);
    }
    RunMatches(todos);
    blocks.push_back(builder_->EndBlock());

    // Body.
    RelaxExpr body = VisitExpr(func->body);
    const auto* seq = body.as<SeqExprNode>();
    TESSERA_ICHECK(seq != nullptr) << "normalized function body is not a SeqExpr";
    for (const BindingBlock& b : seq->blocks) blocks.push_back(b);

    // Return value check.
    builder_->BeginBindingBlock();
    std::vector<MatchTodo> ret_todos;
    std::string err = "ErrorContext(fn=" + fn_name_ + ", loc=return, annotation=" +
                      StructInfoText(func->ret_struct_info) + ")";
    CheckMatchCast(func->ret_struct_info, seq->body, false, false, err, &ret_todos);
    RunMatch(ret_todos, true);
    blocks.push_back(builder_->EndBlock());

    RelaxExpr new_body = builder_->Normalize(SeqExpr(MergeBlocks(blocks), seq->body));
    builder_->EndScope();
    Function result(func->params, new_body, func->ret_struct_info, func->is_pure, func->attrs, func->span);
    result->struct_info_ = func->struct_info_;
    return result;
  }

  RelaxExpr VisitExpr_(const FunctionNode* op) override {
    TESSERA_THROW(NotImplementedError) << "VMShapeLower: the local function bound to '" << bound_to_ << "' in '"
                                       << fn_name_ << "' is not supported; lift local functions to the module first";
  }

  void VisitBinding_(const VarBindingNode* binding) override {
    bound_to_ = binding->var->name_hint;
    ExprMutator::VisitBinding_(binding);
  }

  void VisitBinding_(const MatchCastNode* binding) override {
    RelaxExpr value = builder_->NormalizeArgument(VisitExpr(binding->value));
    std::vector<MatchTodo> todos;
    CheckMatchCast(binding->struct_info, value, false, false,
                   "ErrorContext(match_cast, struct_info=" + StructInfoText(binding->struct_info) + ")", &todos);
    RunMatches(todos);
    ExprMutator::VisitBinding_(binding);
  }

  // Dims stored inside a branch are known only on that path: each branch
  // starts from, and the If ends with, the heap state before it.
  RelaxExpr VisitExpr_(const IfNode* op) override {
    RelaxExpr cond = VisitExpr(op->cond);
    std::vector<std::pair<bool, int>> saved = SaveSlots();
    RelaxExpr t = VisitWithNewScope(op->true_branch);
    RestoreSlots(saved);
    RelaxExpr f = VisitWithNewScope(op->false_branch);
    RestoreSlots(saved);
    if (cond.same_as(op->cond) && t.same_as(op->true_branch) && f.same_as(op->false_branch)) {
      return GetRef<RelaxExpr>(op);
    }
    return If(cond, t, f, op->span);
  }

  RelaxExpr VisitExpr_(const ShapeExprNode* shape) override {
    bool is_static = true;
    for (const PrimExpr& v : shape->values) is_static &= v->IsInstance<IntImmNode>();
    if (is_static) return GetRef<RelaxExpr>(shape);
    Array<RelaxExpr> args{shape_heap_, PrimValue::Int64(static_cast<int64_t>(shape->values.size()))};
    for (const PrimExpr& v : shape->values) AppendMakeArg(v, &args);
    return Call(ExternFunc("vm.builtin.make_shape"), args, ObjectRef(),
                {ShapeStructInfo(static_cast<int>(shape->values.size()))});
  }

  RelaxExpr VisitExpr_(const PrimValueNode* pv) override {
    if (pv->value->IsInstance<IntImmNode>() || pv->value->IsInstance<FloatImmNode>()) return GetRef<RelaxExpr>(pv);
    Array<RelaxExpr> args{shape_heap_};
    AppendMakeArg(pv->value, &args);
    return Call(ExternFunc("vm.builtin.make_prim_value"), args, ObjectRef(),
                {GetStructInfo(GetRef<RelaxExpr>(pv))});
  }

 private:
  // ---- slots -----------------------------------------------------------------
  Slot* FindSlot(const PrimExpr& e) {
    for (auto& s : slots_) {
      if (arith::ExprDeepEqual(s->expr, e)) return s.get();
    }
    return nullptr;
  }
  void AddSlot(const PrimExpr& e) {
    if (!e.defined() || e->IsInstance<IntImmNode>() || FindSlot(e) != nullptr) return;
    auto s = std::make_unique<Slot>();
    s->expr = e;
    s->index = static_cast<int64_t>(slots_.size());
    slots_.push_back(std::move(s));
  }
  void CollectSInfo(const StructInfo& sinfo) {
    CheckStack("relax struct info (shape lowering)");
    if (!sinfo.defined()) return;
    if (const auto* t = sinfo.as<TensorStructInfoNode>()) {
      if (t->shape.has_value()) CollectExpr(*t->shape);
    } else if (const auto* s = sinfo.as<ShapeStructInfoNode>()) {
      if (s->values) {
        for (const PrimExpr& v : *s->values) AddSlot(v);
      }
    } else if (const auto* p = sinfo.as<PrimStructInfoNode>()) {
      AddSlot(p->value);
    } else if (const auto* tup = sinfo.as<TupleStructInfoNode>()) {
      for (const StructInfo& f : tup->fields) CollectSInfo(f);
    }
  }
  void CollectExpr(const RelaxExpr& e) {
    CheckStack("relax expression (shape lowering)");
    if (const auto* shape = e.as<ShapeExprNode>()) {
      for (const PrimExpr& v : shape->values) AddSlot(v);
    } else if (const auto* pv = e.as<PrimValueNode>()) {
      AddSlot(pv->value);
    } else if (const auto* call = e.as<CallNode>()) {
      for (const StructInfo& s : call->sinfo_args) CollectSInfo(s);
      for (const RelaxExpr& a : call->args) CollectExpr(a);
    } else if (const auto* tuple = e.as<TupleNode>()) {
      for (const RelaxExpr& f : tuple->fields) CollectExpr(f);
    } else if (const auto* ife = e.as<IfNode>()) {
      CollectExpr(ife->true_branch);
      CollectExpr(ife->false_branch);
    } else if (const auto* seq = e.as<SeqExprNode>()) {
      for (const BindingBlock& block : seq->blocks) {
        for (const Binding& b : block->bindings) {
          if (const auto* mc = b.as<MatchCastNode>()) {
            CollectSInfo(mc->struct_info);
          } else {
            CollectExpr(b.as<VarBindingNode>()->value);
          }
        }
      }
      CollectExpr(seq->body);
    }
  }
  void CollectSlots(const Function& func) {
    for (const Var& p : func->params) CollectSInfo(GetStructInfo(p));
    CollectExpr(func->body);
    CollectSInfo(func->ret_struct_info);
  }
  std::vector<std::pair<bool, int>> SaveSlots() const {
    std::vector<std::pair<bool, int>> out;
    for (const auto& s : slots_) out.emplace_back(s->computed, s->outstanding);
    return out;
  }
  void RestoreSlots(const std::vector<std::pair<bool, int>>& saved) {
    for (size_t i = 0; i < slots_.size(); ++i) std::tie(slots_[i]->computed, slots_[i]->outstanding) = saved[i];
  }
  // Each derived slot waits for the slots of its variables.
  void LinkDerivedSlots() {
    for (auto& s : slots_) {
      if (s->expr->IsInstance<tir::VarNode>()) continue;
      std::vector<const tir::VarNode*> vars;
      tir::PostOrderVisit(s->expr, [&](const ObjectRef& n) {
        if (const auto* v = n.as<tir::VarNode>()) {
          if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
        }
      });
      for (const tir::VarNode* v : vars) {
        Slot* vs = FindSlot(GetRef<tir::Var>(v));
        TESSERA_CHECK_OR_THROW(vs != nullptr, ValueError)
            << "VMShapeLower: symbolic variable '" << v->name_hint << "' used in '" << fn_name_
            << "' is defined by no parameter or match_cast";
        vs->users.push_back(s.get());
      }
      s->outstanding = static_cast<int>(vars.size());
    }
  }

  // ---- emission ---------------------------------------------------------------
  StringImm ErrCtx(const std::string& err) const { return StringImm(emit_err_ctx_ ? err : ""); }

  Var EmitPacked(const char* name, Array<RelaxExpr> args, StructInfo sinfo, const std::string& hint = "_") {
    return builder_->Emit(Call(ExternFunc(name), args, ObjectRef(), {sinfo}), hint);
  }

  RelaxExpr EmitShapeHeap() {
    if (slots_.empty()) return builder_->Emit(Call(Op::Get("relax.null_value"), {}), "shape_heap");
    TensorStructInfo heap_sinfo(DataType::Int(64), 1);
    return builder_->Emit(Call(Op::Get("relax.call_builtin_with_ctx"),
                               {ExternFunc("vm.builtin.alloc_shape_heap"),
                                Tuple({PrimValue::Int64(static_cast<int64_t>(slots_.size()))})},
                               ObjectRef(), {heap_sinfo}),
                          "shape_heap");
  }

  void AppendMakeArg(const PrimExpr& e, Array<RelaxExpr>* args) {
    if (const int64_t* c = AsConstInt(e)) {
      args->push_back(PrimValue::Int64(kUseImm));
      args->push_back(PrimValue::Int64(*c));
      return;
    }
    Slot* s = FindSlot(e);
    TESSERA_CHECK_OR_THROW(s != nullptr && s->computed, ValueError)
        << "VMShapeLower: the symbolic value " << arith::ExprToString(e) << " in '" << fn_name_
        << "' is used before the parameters or match_casts that define its variables";
    args->push_back(PrimValue::Int64(kLoadShape));
    args->push_back(PrimValue::Int64(s->index));
  }

  std::pair<int64_t, int64_t> MatchArg(const PrimExpr& e, bool require_computed) {
    if (const int64_t* c = AsConstInt(e)) return {kAssertEqualToImm, *c};
    Slot* s = FindSlot(e);
    TESSERA_ICHECK(s != nullptr) << "no heap slot for " << arith::ExprToString(e);
    if (s->computed) return {kAssertEqualToLoad, s->index};
    TESSERA_CHECK_OR_THROW(!require_computed, ValueError)
        << "VMShapeLower: the symbolic value " << arith::ExprToString(e) << " in '" << fn_name_
        << "' cannot be computed from the parameters and match_casts before it is checked";
    if (e->IsInstance<tir::VarNode>()) {
      s->computed = true;
      ready_.push_back(s);
      return {kStoreToHeap, s->index};
    }
    return {kNoOp, 0};
  }

  // Emits the matches; returns those still waiting for derived slots.
  std::vector<MatchTodo> RunMatch(const std::vector<MatchTodo>& todos, bool require_computed) {
    std::vector<MatchTodo> outstanding;
    for (const MatchTodo& t : todos) {
      bool prim = GetStructInfo(t.input)->IsInstance<PrimStructInfoNode>();
      Array<RelaxExpr> args{t.input, shape_heap_};
      if (!prim) args.push_back(PrimValue::Int64(static_cast<int64_t>(t.pattern.size())));
      bool all_nop = true, any_nop = false;
      for (const PrimExpr& e : t.pattern) {
        auto [code, value] = MatchArg(e, require_computed);
        all_nop &= code == kNoOp;
        any_nop |= code == kNoOp;
        args.push_back(PrimValue::Int64(code));
        args.push_back(PrimValue::Int64(value));
      }
      args.push_back(ErrCtx(t.err_ctx));
      if (any_nop) outstanding.push_back(t);
      if (!all_nop) EmitPacked(prim ? "vm.builtin.match_prim_value" : "vm.builtin.match_shape", args, VoidSInfo());
    }
    return outstanding;
  }
  // Store the vars, compute what they make computable, check the rest.
  void RunMatches(const std::vector<MatchTodo>& todos) {
    std::vector<MatchTodo> rest = RunMatch(todos, false);
    EmitDerivedComputation();
    RunMatch(rest, true);
  }

  // Emits a call of a new TIR function computing the derived slots whose
  // variables are now all in the heap.
  void EmitDerivedComputation() {
    std::vector<Slot*> to_compute;
    for (Slot* var_slot : ready_) {
      for (Slot* user : var_slot->users) {
        if (--user->outstanding == 0) to_compute.push_back(user);
      }
    }
    ready_.clear();
    if (to_compute.empty()) return;
    tir::Var heap("heap", DataType::Handle());
    tir::Buffer buffer =
        tir::decl_buffer({IntImm(DataType::Int(64), static_cast<int64_t>(slots_.size()))}, DataType::Int(64), "H");
    std::vector<tir::Stmt> stores;
    for (Slot* s : to_compute) {
      s->computed = true;
      PrimExpr value = tir::Substitute(s->expr, [&](const tir::Var& v) -> std::optional<PrimExpr> {
        Slot* vs = FindSlot(v);
        if (vs == nullptr) return std::nullopt;
        return tir::BufferLoad(buffer, {IntImm(DataType::Int(64), vs->index)});
      });
      if (value.dtype() != DataType::Int(64)) value = tir::cast(DataType::Int(64), value);
      stores.push_back(tir::BufferStore(buffer, value, {IntImm(DataType::Int(64), s->index)}));
    }
    Map<tir::Var, tir::Buffer> buffer_map;
    buffer_map.Set(heap, buffer);
    Attrs attrs;
    attrs.Set("tir.is_host_func", Any(static_cast<int64_t>(1)));
    tir::PrimFunc shape_func({heap}, tir::SeqStmt::Flatten(stores), buffer_map, attrs);
    GlobalVar gv = builder_->AddFunction(shape_func, "shape_func");
    builder_->Emit(Call(gv, {shape_heap_}), "_");
  }

  // ---- checks of a value against a struct info ------------------------------------
  void CheckMatchCast(const StructInfo& sinfo, const RelaxExpr& value, bool always_check, bool dynamic_only,
                      const std::string& err, std::vector<MatchTodo>* todos) {
    CheckStack("relax struct info (shape lowering)");
    if (!sinfo.defined()) return;
    StructInfo vsinfo = GetStructInfo(value);
    if (!always_check && IsBaseOf(sinfo, vsinfo)) return;
    if (sinfo->IsInstance<ObjectStructInfoNode>()) return;
    if (const auto* p = sinfo.as<PrimStructInfoNode>()) {
      if (always_check || !IsBaseOf(PrimStructInfo(p->dtype), vsinfo)) {
        EmitPacked("vm.builtin.check_prim_value_info", {value, DataTypeImm(p->dtype), ErrCtx(err)}, VoidSInfo());
      }
      if (p->value.defined()) todos->push_back({value, {p->value}, err});
      return;
    }
    if (const auto* s = sinfo.as<ShapeStructInfoNode>()) {
      if (always_check || !IsBaseOf(ShapeStructInfo(s->ndim), vsinfo)) {
        EmitPacked("vm.builtin.check_shape_info", {value, PrimValue::Int64(s->ndim), ErrCtx(err)}, VoidSInfo());
      }
      if (s->values) todos->push_back({value, *s->values, err});
      return;
    }
    if (const auto* t = sinfo.as<TensorStructInfoNode>()) {
      const ShapeExprNode* shape = t->shape.has_value() ? (*t->shape).as<ShapeExprNode>() : nullptr;
      TESSERA_CHECK_OR_THROW(!t->shape.has_value() || shape != nullptr, NotImplementedError)
          << "VMShapeLower: " << err << ": a tensor annotation whose shape is a shape variable is not supported";
      if (dynamic_only) {
        bool is_static = true;
        if (shape != nullptr) {
          for (const PrimExpr& v : shape->values) is_static &= v->IsInstance<IntImmNode>();
        }
        if (is_static) return;
      }
      if (always_check || !IsBaseOf(TensorStructInfo(t->dtype, t->ndim), vsinfo)) {
        EmitPacked("vm.builtin.check_tensor_info",
                   {value, PrimValue::Int64(t->ndim), DataTypeImm(t->dtype), ErrCtx(err)}, VoidSInfo());
      }
      if (shape != nullptr) todos->push_back({value, shape->values, err});
      return;
    }
    if (const auto* tup = sinfo.as<TupleStructInfoNode>()) {
      const auto* vt = vsinfo.as<TupleStructInfoNode>();
      TESSERA_CHECK_OR_THROW(vt == nullptr || vt->fields.size() == tup->fields.size(), TypeError)
          << "VMShapeLower: " << err << ": a tuple of " << vt->fields.size() << " fields cannot match "
          << StructInfoText(sinfo);
      if (always_check || vt == nullptr) {
        EmitPacked("vm.builtin.check_tuple_info",
                   {value, PrimValue::Int64(static_cast<int64_t>(tup->fields.size())), ErrCtx(err)}, VoidSInfo());
      }
      for (size_t i = 0; i < tup->fields.size(); ++i) {
        RelaxExpr field;
        if (const auto* te = value.as<TupleNode>()) {
          field = te->fields[i];
        } else if (vt != nullptr) {
          field = builder_->Emit(TupleGetItem(value, static_cast<int>(i)));
        } else {
          field = EmitPacked("vm.builtin.tuple_getitem", {value, PrimValue::Int64(static_cast<int64_t>(i))},
                             ObjectStructInfo::Make(), "");
        }
        CheckMatchCast(tup->fields[i], field, always_check, dynamic_only, err, todos);
      }
      return;
    }
    if (sinfo->IsInstance<FuncStructInfoNode>()) {
      if (!always_check && vsinfo->IsInstance<FuncStructInfoNode>()) return;
      EmitPacked("vm.builtin.check_func_info", {value, ErrCtx(err)}, VoidSInfo());
      return;
    }
  }

  // Adjacent non-dataflow blocks merged, empty ones dropped.
  static Array<BindingBlock> MergeBlocks(const std::vector<BindingBlock>& blocks) {
    Array<BindingBlock> out;
    std::vector<Binding> pending;
    auto flush = [&]() {
      if (!pending.empty()) out.push_back(BindingBlock(Array<Binding>(pending)));
      pending.clear();
    };
    for (const BindingBlock& b : blocks) {
      if (b->IsInstance<DataflowBlockNode>()) {
        flush();
        out.push_back(b);
      } else {
        for (const Binding& x : b->bindings) pending.push_back(x);
      }
    }
    flush();
    return out;
  }

  bool emit_err_ctx_;
  std::string fn_name_;
  std::string bound_to_;
  RelaxExpr shape_heap_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> ready_;
};

}  // namespace

namespace transform {

Pass VMShapeLower(bool emit_err_ctx) {
  return tessera::transform::CreateModulePass(
      [emit_err_ctx](IRModule mod, tessera::transform::PassContext) {
        ShapeLowerer lowerer(mod, emit_err_ctx);
        IRModule updated = UpdateRelaxFunctions(
            mod, [&](const GlobalVar& gv, const Function& f) { return lowerer.Lower(gv, f); });
        // Add the generated shape functions.
        IRModule ctx = lowerer.ContextModule();
        for (const auto& [gv, func] : ctx->functions.items()) {
          if (!updated->functions.Get(gv)) updated.mutable_node()->Add(gv, func);
        }
        return updated;
      },
      0, "VMShapeLower");
}
TESSERA_REGISTER_PASS("relax.transform.VMShapeLower", [] { return VMShapeLower(true); });
TESSERA_REGISTER_GLOBAL("relax.transform.VMShapeLowerWith").set_body_typed([](bool emit_err_ctx) {
  return VMShapeLower(emit_err_ctx);
});

}  // namespace transform
}  // namespace relax
}  // namespace tessera
