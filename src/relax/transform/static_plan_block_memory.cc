// StaticPlanBlockMemory: storage reuse between the intermediate tensors of a
// binding block. Each R.builtin.alloc_tensor whose tensor is only read and
// written by calls of PrimFuncs / packed functions of the same block gets a
// storage token; tokens whose lifetimes (allocation to last use as a call
// argument) do not overlap share one R.memory.alloc_storage, and the
// allocation becomes R.memory.alloc_tensor(storage, 0, shape, dtype).
// Tensors that escape (returned, captured, passed to anything else, used in
// another block) keep their own allocation. Sizes come from static shapes,
// or from the "tir_var_upper_bound" function attribute for symbolic dims;
// other symbolic sizes are shared only between provably equal sizes.
// Runs after CallTIRRewrite, before LowerAllocTensor.
#include <limits>
#include <map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "relax/transform/utils.h"
#include "runtime/stack_guard.h"
#include "tir/function.h"
#include "tir/op.h"

namespace tessera {
namespace relax {
namespace {

constexpr const char* kUpperBoundAttr = "tir_var_upper_bound";
constexpr const char* kNonNegativeAttr = "tir_non_negative_var";
constexpr const char* kPlanDynamicOutputAttr = "relax.memory_plan_dynamic_func_output";

// One planned storage block (an R.memory.alloc_storage).
struct Storage {
  PrimExpr bytes;
  int64_t const_bytes = -1;  // -1: symbolic
  DataType dtype;
  std::string scope;
  int refs = 0;  // pending uses of the tensor currently placed in it
};

// One intermediate tensor allocation (an R.builtin.alloc_tensor).
struct Token {
  PrimExpr bytes;
  int64_t const_bytes = -1;
  DataType dtype;
  std::string scope;
  const BindingBlockNode* block = nullptr;
  int uses = 0;  // times it is a call argument in its block
  bool discarded = false;
  Storage* storage = nullptr;
};

// The tokens a value holds, mirroring its tuple structure.
struct Tokens {
  Token* leaf = nullptr;
  std::vector<Tokens> fields;
  bool is_tuple = false;
  template <typename F>
  void ForEach(F f) const {
    CheckStack("relax tuple (memory planning)");
    if (leaf != nullptr) f(leaf);
    for (const Tokens& t : fields) t.ForEach(f);
  }
};

bool IsOp(const RelaxExpr& op, const char* name) {
  return Op::Exists(name) && op.same_as(Op::Get(name));
}

// Ops returning a view of their first argument's storage.
bool IsInplaceMemoryOp(const RelaxExpr& op) {
  return IsOp(op, "relax.reshape") || IsOp(op, "relax.memory.view") || IsOp(op, "relax.memory.ensure_zero_offset");
}

// Bytes of a tensor of `shape` and `dtype`: constant factors folded.
PrimExpr TensorBytes(const Array<PrimExpr>& shape, DataType dtype, int64_t* const_bytes) {
  int64_t coeff = static_cast<int64_t>(dtype.bytes()) * dtype.lanes();
  std::optional<PrimExpr> symbolic;
  for (const PrimExpr& dim : shape) {
    if (const int64_t* c = AsConstInt(dim)) {
      coeff *= *c;
    } else {
      PrimExpr d = dim.dtype() == DataType::Int(64) ? dim : tir::cast(DataType::Int(64), dim);
      symbolic = symbolic ? tir::mul(*symbolic, d) : d;
    }
  }
  PrimExpr c = IntImm(DataType::Int(64), coeff);
  *const_bytes = symbolic ? -1 : coeff;
  return symbolic ? tir::mul(c, *symbolic) : c;
}

// Binds the symbolic dims of `func`'s signature named in the function's
// "tir_var_upper_bound" attribute to [0, bound] in `ana`.
void BindUpperBounds(const Function& func, const std::string& fn_name, arith::Analyzer* ana) {
  std::unordered_map<std::string, int64_t> bounds;
  std::unordered_set<std::string> non_negative;
  if (auto attr = func->attrs.Get(kUpperBoundAttr)) {
    const auto* map = attr->as<MapObj>();
    TESSERA_CHECK_OR_THROW(map != nullptr, TypeError)
        << "StaticPlanBlockMemory: attribute '" << kUpperBoundAttr << "' of function '" << fn_name
        << "' must map symbolic variable names to positive integers, got " << attr->type_name();
    for (const auto& [key, value] : map->data) {
      const auto* name = key.as<StringObj>();
      TESSERA_CHECK_OR_THROW(name != nullptr, TypeError)
          << "StaticPlanBlockMemory: a key of attribute '" << kUpperBoundAttr << "' of function '" << fn_name
          << "' is a " << key.type_name() << ", not a variable name";
      std::optional<int64_t> bound;
      if (value.kind() == Any::Kind::kInt) bound = value.raw_int();
      if (const auto* imm = value.as<IntImmNode>()) bound = imm->value;
      TESSERA_CHECK_OR_THROW(bound.has_value() && *bound > 0, ValueError)
          << "StaticPlanBlockMemory: the upper bound of '" << name->data << "' in attribute '" << kUpperBoundAttr
          << "' of function '" << fn_name << "' must be a positive integer, got " << value.repr();
      bounds[name->data] = *bound;
    }
  }
  if (auto attr = func->attrs.Get(kNonNegativeAttr)) {
    const auto* arr = attr->as<ArrayObj>();
    TESSERA_CHECK_OR_THROW(arr != nullptr, TypeError)
        << "StaticPlanBlockMemory: attribute '" << kNonNegativeAttr << "' of function '" << fn_name
        << "' must be a list of variable names, got " << attr->type_name();
    for (const Any& v : Array<Any>(GetRef<ObjectRef>(arr).data())) {
      const auto* name = v.as<StringObj>();
      TESSERA_CHECK_OR_THROW(name != nullptr, TypeError)
          << "StaticPlanBlockMemory: an entry of attribute '" << kNonNegativeAttr << "' of function '" << fn_name
          << "' is a " << v.type_name() << ", not a variable name";
      non_negative.insert(name->data);
    }
  }
  if (bounds.empty() && non_negative.empty()) return;
  std::vector<tir::Var> vars;
  for (const Var& p : func->params) {
    for (const tir::Var& v : TIRVarsInStructInfo(GetStructInfo(p))) vars.push_back(v);
  }
  if (func->ret_struct_info.defined()) {
    for (const tir::Var& v : TIRVarsInStructInfo(func->ret_struct_info)) vars.push_back(v);
  }
  for (const tir::Var& v : vars) {
    auto it = bounds.find(v->name_hint);
    if (it != bounds.end()) {
      ana->Bind(v, Range::FromMinExtent(IntImm(v.dtype(), 0), IntImm(v.dtype(), it->second + 1)), true);
    } else if (non_negative.count(v->name_hint)) {
      ana->const_int_bound.Update(v, arith::ConstIntBound(0, arith::ConstIntBound::kPosInf), true);
    }
  }
}

// `shape` with each dim replaced by its constant upper bound when one is known.
Array<PrimExpr> UpperBoundShape(const Array<PrimExpr>& shape, arith::Analyzer* ana) {
  Array<PrimExpr> out;
  for (const PrimExpr& dim : shape) {
    if (dim->IsInstance<IntImmNode>()) {
      out.push_back(dim);
      continue;
    }
    int64_t max = ana->const_int_bound(dim)->max_value;
    out.push_back(max == arith::ConstIntBound::kPosInf ? dim : PrimExpr(IntImm(DataType::Int(64), max)));
  }
  return out;
}

// The storage scope argument of an R.builtin.alloc_tensor ("global" when omitted).
std::string StorageScope(const CallNode* call) {
  const auto* s = call->args.size() > 3 ? call->args[3].as<StringImmNode>() : nullptr;
  return s != nullptr ? s->value : "global";
}

bool IsStaticShape(const Array<PrimExpr>& shape) {
  for (const PrimExpr& d : shape) {
    if (!d->IsInstance<IntImmNode>()) return false;
  }
  return true;
}

// Analysis: the tokens of one function and their uses, then the
// simulation assigning storages.
class StoragePlanner {
 public:
  StoragePlanner(IRModule mod, arith::Analyzer* ana) : mod_(std::move(mod)), ana_(ana) {}

  // Plans `func`: fills alloc_to_storage (planned alloc_tensor calls only).
  void Plan(const Function& func) {
    CollectSeq(func->body);
    Simulate(func->body);
  }

  std::unordered_map<const Object*, Storage*> alloc_to_storage;  // alloc_tensor call -> its storage
  std::vector<std::unique_ptr<Storage>> storages;

 private:
  // ---- phase 1: tokens and their uses -------------------------------------
  Tokens TokensOf(const RelaxExpr& e) {
    if (const auto* var = e.as<VarNode>()) {
      auto it = var_tokens_.find(var);
      return it == var_tokens_.end() ? Tokens() : it->second;
    }
    if (const auto* tuple = e.as<TupleNode>()) {
      Tokens t;
      t.is_tuple = true;
      for (const RelaxExpr& f : tuple->fields) t.fields.push_back(TokensOf(f));
      return t;
    }
    return Tokens();
  }
  static void Discard(const Tokens& t) {
    t.ForEach([](Token* tok) { tok->discarded = true; });
  }

  bool IsPrimFuncCallee(const RelaxExpr& op) const {
    const auto* gv = op.as<GlobalVarNode>();
    if (gv == nullptr) return false;
    auto f = mod_->functions.Get(GetRef<GlobalVar>(gv));
    return f && (*f)->IsInstance<tir::PrimFuncNode>();
  }
  bool IsPlanningCall(const CallNode* call) const {
    return IsPrimFuncCallee(call->op) || call->op->IsInstance<ExternFuncNode>() ||
           IsOp(call->op, "relax.vm.call_tir_dyn");
  }

  void CollectSeq(const RelaxExpr& e) {
    CheckStack("relax expression (memory planning)");
    const auto* seq = e.as<SeqExprNode>();
    if (seq == nullptr) {
      CollectUse(e);
      return;
    }
    for (const BindingBlock& block : seq->blocks) {
      const BindingBlockNode* saved = block_;
      block_ = block.get();
      for (const Binding& b : block->bindings) CollectBinding(b);
      block_ = saved;
    }
    Discard(TokensOf(seq->body));
  }

  // A value used in a way the planner does not follow: its tokens escape.
  void CollectUse(const RelaxExpr& e) {
    if (const auto* fn = e.as<FunctionNode>()) {
      CollectSeq(fn->body);
    } else if (const auto* ife = e.as<IfNode>()) {
      Discard(TokensOf(ife->cond));
      CollectSeq(ife->true_branch);
      CollectSeq(ife->false_branch);
    } else if (const auto* call = e.as<CallNode>()) {
      Discard(TokensOf(call->op));
      for (const RelaxExpr& a : call->args) Discard(TokensOf(a));
    } else if (const auto* item = e.as<TupleGetItemNode>()) {
      Discard(TokensOf(item->tuple));
    } else {
      Discard(TokensOf(e));
    }
  }

  void CollectBinding(const Binding& b) {
    if (const auto* mc = b.as<MatchCastNode>()) {
      Discard(TokensOf(mc->value));
      return;
    }
    const auto* vb = b.as<VarBindingNode>();
    const RelaxExpr& value = vb->value;
    if (value->IsInstance<VarNode>() || value->IsInstance<TupleNode>()) {
      var_tokens_[vb->var.get()] = TokensOf(value);
      return;
    }
    if (const auto* item = value.as<TupleGetItemNode>()) {
      Tokens t = TokensOf(item->tuple);
      if (t.is_tuple && item->index >= 0 && item->index < static_cast<int>(t.fields.size())) {
        var_tokens_[vb->var.get()] = t.fields[item->index];
      }
      return;
    }
    const auto* call = value.as<CallNode>();
    if (call == nullptr) {
      CollectUse(value);
      return;
    }
    if (IsOp(call->op, "relax.builtin.alloc_tensor")) {
      if (Token* tok = MakeToken(call)) {
        Tokens t;
        t.leaf = tok;
        var_tokens_[vb->var.get()] = t;
      }
      return;
    }
    if (IsInplaceMemoryOp(call->op) && !call->args.empty()) {
      var_tokens_[vb->var.get()] = TokensOf(call->args[0]);
      return;
    }
    if (IsPlanningCall(call)) {
      for (const RelaxExpr& a : call->args) {
        TokensOf(a).ForEach([this](Token* tok) {
          if (tok->block != block_) tok->discarded = true;
          ++tok->uses;
        });
      }
      return;
    }
    CollectUse(value);
  }

  Token* MakeToken(const CallNode* call) {
    const auto* sinfo = call->struct_info_.as<TensorStructInfoNode>();
    if (sinfo == nullptr || sinfo->IsUnknownDtype() || !sinfo->shape.has_value()) return nullptr;
    const auto* shape = (*sinfo->shape).as<ShapeExprNode>();
    if (shape == nullptr) return nullptr;
    auto tok = std::make_unique<Token>();
    tok->bytes = TensorBytes(UpperBoundShape(shape->values, ana_), sinfo->dtype, &tok->const_bytes);
    tok->dtype = sinfo->dtype;
    tok->scope = StorageScope(call);
    tok->block = block_;
    Token* raw = tok.get();
    tokens_.push_back(std::move(tok));
    alloc_tokens_[call] = raw;
    return raw;
  }

  // ---- phase 2: storage assignment in program order --------------------------
  void Simulate(const RelaxExpr& e) {
    CheckStack("relax expression (memory planning)");
    if (const auto* seq = e.as<SeqExprNode>()) {
      for (const BindingBlock& block : seq->blocks) {
        // A storage is defined in one block and only reused there.
        auto outer_pool = std::move(pool_);
        pool_.clear();
        for (const Binding& b : block->bindings) {
          const auto* vb = b.as<VarBindingNode>();
          if (vb == nullptr) continue;
          SimulateValue(vb->value);
        }
        pool_ = std::move(outer_pool);
      }
    }
  }
  void SimulateValue(const RelaxExpr& value) {
    if (const auto* fn = value.as<FunctionNode>()) {
      Simulate(fn->body);
      return;
    }
    if (const auto* ife = value.as<IfNode>()) {
      Simulate(ife->true_branch);
      Simulate(ife->false_branch);
      return;
    }
    const auto* call = value.as<CallNode>();
    if (call == nullptr) return;
    auto it = alloc_tokens_.find(call);
    if (it != alloc_tokens_.end()) {
      Token* tok = it->second;
      if (tok->discarded) return;
      tok->storage = tok->uses == 0 ? nullptr : Reuse(tok);
      if (tok->storage == nullptr) tok->storage = NewStorage(tok);
      tok->storage->refs = tok->uses;
      alloc_to_storage[call] = tok->storage;
      return;
    }
    if (IsInplaceMemoryOp(call->op) || !IsPlanningCall(call)) return;
    for (const RelaxExpr& a : call->args) {
      TokensOf(a).ForEach([this](Token* tok) {
        if (tok->discarded || tok->storage == nullptr) return;
        Storage* s = tok->storage;
        TESSERA_ICHECK(s->refs > 0) << "storage released twice";
        if (--s->refs == 0) pool_[{s->scope, s->dtype.code()}].emplace(std::make_pair(s->const_bytes, s));
      });
    }
  }

  Storage* NewStorage(const Token* tok) {
    auto s = std::make_unique<Storage>();
    s->bytes = tok->bytes;
    s->const_bytes = tok->const_bytes;
    s->dtype = tok->dtype;
    s->scope = tok->scope;
    storages.push_back(std::move(s));
    return storages.back().get();
  }

  // A released storage fitting `tok`, taken out of the pool, or nullptr.
  Storage* Reuse(const Token* tok) {
    auto& pool = pool_[{tok->scope, tok->dtype.code()}];
    auto key_ok = [&](Storage* s) { return s->dtype == tok->dtype; };
    if (tok->const_bytes < 0) {
      auto [begin, end] = pool.equal_range(-1);
      for (auto it = begin; it != end; ++it) {
        if (key_ok(it->second) && ana_->CanProveEqual(it->second->bytes, tok->bytes)) {
          Storage* s = it->second;
          pool.erase(it);
          return s;
        }
      }
      return nullptr;
    }
    const int64_t size = tok->const_bytes;
    // Smallest block at least as large, within a factor of kMatchRange...
    auto lo = pool.lower_bound(size / kMatchRange);
    auto mid = pool.lower_bound(size);
    auto hi = pool.upper_bound(size > std::numeric_limits<int64_t>::max() / kMatchRange
                                   ? std::numeric_limits<int64_t>::max()
                                   : size * kMatchRange);
    for (auto it = mid; it != hi; ++it) {
      if (!key_ok(it->second)) continue;
      Storage* s = it->second;
      pool.erase(it);
      return s;
    }
    // ...else the largest smaller one, grown to the size.
    for (auto it = mid; it != lo;) {
      --it;
      if (!key_ok(it->second)) continue;
      Storage* s = it->second;
      pool.erase(it);
      s->const_bytes = size;
      s->bytes = IntImm(DataType::Int(64), size);
      return s;
    }
    return nullptr;
  }

  static constexpr int64_t kMatchRange = 16;
  IRModule mod_;
  arith::Analyzer* ana_;
  const BindingBlockNode* block_ = nullptr;
  std::vector<std::unique_ptr<Token>> tokens_;
  std::unordered_map<const Object*, Tokens> var_tokens_;
  std::unordered_map<const Object*, Token*> alloc_tokens_;
  std::map<std::pair<std::string, int>, std::multimap<int64_t, Storage*>> pool_;
};

// Rewrites the planned allocations of one function.
class StorageRewriter : public ExprMutator {
 public:
  StorageRewriter(const IRModule& mod, const StoragePlanner* plan, arith::Analyzer* ana, bool plan_dynamic_output)
      : ExprMutator(mod), plan_(plan), ana_(ana), plan_dynamic_output_(plan_dynamic_output) {}
  using ExprMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const CallNode* call) override {
    static const Op& alloc_tensor = Op::Get("relax.builtin.alloc_tensor");
    if (!call->op.same_as(alloc_tensor)) return ExprMutator::VisitExpr_(call);
    const auto* sinfo = call->struct_info_.as<TensorStructInfoNode>();
    auto it = plan_->alloc_to_storage.find(call);
    if (it != plan_->alloc_to_storage.end()) {
      Storage* s = it->second;
      auto sit = storage_vars_.find(s);
      Var storage_var;
      if (sit == storage_vars_.end()) {
        storage_var = EmitStorage(ShapeExpr({s->bytes}), call->args[2], s->scope, s->dtype);
        storage_vars_[s] = storage_var;
      } else {
        storage_var = sit->second;
      }
      return AllocTensor(storage_var, *sinfo->shape, sinfo->dtype);
    }
    if (plan_dynamic_output_ && sinfo != nullptr && sinfo->shape.has_value() && !sinfo->IsUnknownDtype()) {
      // Unplanned tensor of symbolic shape: storage of its upper-bound size.
      const auto* shape = (*sinfo->shape).as<ShapeExprNode>();
      if (shape != nullptr && !IsStaticShape(shape->values)) {
        Array<PrimExpr> ub = UpperBoundShape(shape->values, ana_);
        if (IsStaticShape(ub)) {
          int64_t const_bytes = 0;
          PrimExpr bytes = TensorBytes(ub, sinfo->dtype, &const_bytes);
          Var storage_var = EmitStorage(ShapeExpr({bytes}), call->args[2], StorageScope(call), sinfo->dtype);
          return AllocTensor(storage_var, *sinfo->shape, sinfo->dtype);
        }
      }
    }
    return ExprMutator::VisitExpr_(call);
  }

 private:
  Var EmitStorage(const ShapeExpr& size, const RelaxExpr& device_index, const std::string& scope, DataType dtype) {
    static const Op& alloc_storage = Op::Get("relax.memory.alloc_storage");
    return builder_->Emit(Call(alloc_storage, {size, device_index, StringImm(scope), DataTypeImm(dtype)}), "storage");
  }
  static RelaxExpr AllocTensor(const Var& storage, const RelaxExpr& shape, DataType dtype) {
    static const Op& mem_alloc_tensor = Op::Get("relax.memory.alloc_tensor");
    return Call(mem_alloc_tensor, {storage, PrimValue::Int64(0), shape, DataTypeImm(dtype)});
  }

  const StoragePlanner* plan_;
  arith::Analyzer* ana_;
  bool plan_dynamic_output_;
  std::unordered_map<const Storage*, Var> storage_vars_;
};

bool PlanDynamicOutput(const Function& func) {
  auto attr = func->attrs.Get(kPlanDynamicOutputAttr);
  if (!attr) return false;
  if (attr->kind() == Any::Kind::kBool || attr->kind() == Any::Kind::kInt) return attr->raw_int() != 0;
  if (const auto* imm = attr->as<IntImmNode>()) return imm->value != 0;
  TESSERA_THROW(TypeError) << "StaticPlanBlockMemory: attribute '" << kPlanDynamicOutputAttr
                           << "' must be a bool, got " << attr->type_name();
}

}  // namespace

namespace transform {

Pass StaticPlanBlockMemory() {
  return tessera::transform::CreateModulePass(
      [](IRModule mod, tessera::transform::PassContext) {
        return UpdateRelaxFunctions(mod, [&](const GlobalVar& gv, const Function& func) {
          arith::Analyzer ana;
          BindUpperBounds(func, gv->name_hint, &ana);
          StoragePlanner planner(mod, &ana);
          planner.Plan(func);
          bool plan_dynamic_output = PlanDynamicOutput(func);
          StorageRewriter rewriter(mod, &planner, &ana, plan_dynamic_output);
          Function result = Downcast<Function>(rewriter.VisitExpr(func));
          if (plan_dynamic_output) result.CopyOnWrite()->attrs.erase(kPlanDynamicOutputAttr);
          return result;
        });
      },
      0, "StaticPlanBlockMemory");
}
TESSERA_REGISTER_PASS("relax.transform.StaticPlanBlockMemory", StaticPlanBlockMemory);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
