// FoldConstant (relax.transform.FoldConstant): evaluates at compile time the
// calls whose inputs are all known. call_tir of a PrimFunc with constant
// arguments is built for llvm and run; in dataflow blocks, a high-level op
// with constant inputs is legalized (relax.transform.LegalizeOps on a
// one-call module) and its PrimFunc run the same way; shape_of a tensor of
// static shape becomes that shape, and shape_to_tensor / tensor_to_shape
// convert between known shapes and constants. A var bound to
// a result is replaced by it in every use and its binding dropped.
// Kernels are built with -bound-check, so a bad access on the constants
// raises instead of crashing. Limits: a result over kMaxFoldedElements elements (all outputs together)
// is not folded, nor a creation op (no tensor input) over kMaxCreatedElements.
#include <unordered_map>

#include "codegen/build_module.h"
#include "relax/transform/function_pass.h"
#include "relax/transform/optimization.h"
#include "relax/transform/utils.h"
#include "runtime/module.h"
#include "runtime/registry.h"
#include "runtime/stack_guard.h"
#include "target/target.h"
#include "tir/function.h"

namespace tessera {
namespace relax {
namespace {

constexpr int64_t kMaxFoldedElements = int64_t{1} << 26;
// A creation op (zeros, full, arange, ...) is cheaper to run than to store.
constexpr int64_t kMaxCreatedElements = 1024;

// The static shape of a tensor struct info, or nullopt when a dim is unknown.
std::optional<std::vector<int64_t>> StaticShape(const TensorStructInfoNode* t) {
  if (t == nullptr || t->IsUnknownDtype()) return std::nullopt;
  auto dims = t->GetShape();
  if (!dims) return std::nullopt;
  std::vector<int64_t> shape;
  for (const PrimExpr& d : *dims) {
    const auto* imm = d.as<IntImmNode>();
    if (imm == nullptr || imm->value < 0) return std::nullopt;
    shape.push_back(imm->value);
  }
  return shape;
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d != 0 && n > kMaxFoldedElements / d) return kMaxFoldedElements + 1;
    n *= d;
  }
  return n;
}

class ConstantFolder : public BindingNamingMutator {
 public:
  explicit ConstantFolder(IRModule mod) : BindingNamingMutator(mod), mod_(mod) {}
  using BindingNamingMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const VarNode* op) override {
    auto it = known_.find(op);
    return it != known_.end() ? it->second : ExprMutator::VisitExpr_(op);
  }
  RelaxExpr VisitExpr_(const DataflowVarNode* op) override { return VisitExpr_(static_cast<const VarNode*>(op)); }

  void VisitBinding_(const VarBindingNode* binding) override {
    bound_to_ = binding->var->name_hint;
    RelaxExpr value = VisitExpr(binding->value);
    if (const auto* call = value.as<CallNode>()) {
      if (auto folded = Fold(GetRef<Call>(call))) value = builder_->Normalize(*folded);
    }
    if (value->IsInstance<ConstantNode>() || IsKnownShape(value)) {
      known_[binding->var.get()] = value;  // every use reads the value; the binding goes
      return;
    }
    ReEmitBinding(binding, value);
  }

 private:
  static bool IsKnownShape(const RelaxExpr& e) {
    const auto* shape = e.as<ShapeExprNode>();
    if (shape == nullptr) return false;
    for (const PrimExpr& v : shape->values) {
      if (!v->IsInstance<IntImmNode>()) return false;
    }
    return true;
  }

  std::optional<RelaxExpr> Fold(const Call& call) {
    static const Op& call_tir = Op::Get("relax.call_tir");
    if (call->op.same_as(call_tir)) return FoldCallTIR(call, mod_, {});
    const auto* op = call->op.as<OpNode>();
    if (op != nullptr && op->name == "relax.shape_of") return ShapeOf(call);
    // High-level ops are folded in dataflow blocks only (as TVM's pass).
    if (op == nullptr || !builder_->CurrentBlockIsDataFlow() || HasSideEffect(call)) return std::nullopt;
    if (op->name == "relax.tensor_to_shape") return TensorToShape(call);
    if (op->name == "relax.shape_to_tensor") return ShapeToTensor(call);
    return FoldByLegalization(call);
  }

  // shape_of a tensor whose shape is known statically: that shape.
  static std::optional<RelaxExpr> ShapeOf(const Call& call) {
    if (call->args.size() != 1) return std::nullopt;
    const auto* t = GetStructInfo(call->args[0]).as<TensorStructInfoNode>();
    auto shape = t == nullptr ? std::nullopt : t->GetShape();
    if (!shape) return std::nullopt;
    ShapeExpr known(*shape);
    if (!IsKnownShape(known)) return std::nullopt;
    return known;
  }

  // tensor_to_shape of a 1-D integer constant: the shape it holds.
  static std::optional<RelaxExpr> TensorToShape(const Call& call) {
    const auto* c = call->args.empty() ? nullptr : call->args[0].as<ConstantNode>();
    if (c == nullptr || c->data.Shape().size() != 1 || c->data.device().device_type != kDLCPU) return std::nullopt;
    DataType dt = c->data.dtype();
    if (!(dt == DataType::Int(64) || dt == DataType::Int(32))) return std::nullopt;
    int64_t n = c->data.Shape()[0];
    Array<PrimExpr> values;
    if (dt == DataType::Int(64)) {
      std::vector<int64_t> buf(n);
      c->data.CopyToBytes(buf.data(), n * sizeof(int64_t));
      for (int64_t v : buf) values.push_back(IntImm(DataType::Int(64), v));
    } else {
      std::vector<int32_t> buf(n);
      c->data.CopyToBytes(buf.data(), n * sizeof(int32_t));
      for (int32_t v : buf) values.push_back(IntImm(DataType::Int(64), v));
    }
    return ShapeExpr(values);
  }

  // shape_to_tensor of a shape whose dims are all known: an int64 constant.
  static std::optional<RelaxExpr> ShapeToTensor(const Call& call) {
    if (call->args.empty() || !IsKnownShape(call->args[0])) return std::nullopt;
    const auto* shape = call->args[0].as<ShapeExprNode>();
    std::vector<int64_t> buf;
    for (const PrimExpr& v : shape->values) buf.push_back(v.as<IntImmNode>()->value);
    NDArray out = NDArray::Empty({static_cast<int64_t>(buf.size())}, DataType::Int(64), CPU());
    out.CopyFromBytes(buf.data(), buf.size() * sizeof(int64_t));
    return Constant(out);
  }

  // A high-level op whose tensor inputs are constants: legalized on its own
  // (the constants as parameters), folded when that gives one call_tir.
  std::optional<RelaxExpr> FoldByLegalization(const Call& call) {
    static const Op& call_tir = Op::Get("relax.call_tir");
    if (!Downcast<Op>(call->op).GetAttr("FLegalize")) return std::nullopt;
    auto legalize = Registry::Get("relax.transform.LegalizeOps");
    if (!legalize) return std::nullopt;
    Array<Var> params;
    std::unordered_map<const Object*, Constant> param_value;
    bool ok = true;
    std::function<RelaxExpr(const RelaxExpr&)> lift = [&](const RelaxExpr& arg) -> RelaxExpr {
      CheckStack("call argument (FoldConstant)");
      if (const auto* c = arg.as<ConstantNode>()) {
        Var p("c" + std::to_string(params.size()), GetStructInfo(arg));
        params.push_back(p);
        param_value.emplace(p.get(), GetRef<Constant>(c));
        return p;
      }
      if (const auto* t = arg.as<TupleNode>()) {
        Array<RelaxExpr> fields;
        for (const RelaxExpr& f : t->fields) fields.push_back(lift(f));
        return Tuple(fields);
      }
      if (arg->IsInstance<PrimValueNode>() || arg->IsInstance<StringImmNode>() ||
          arg->IsInstance<DataTypeImmNode>() || IsKnownShape(arg)) {
        return arg;
      }
      ok = false;  // a var or an expression not known at compile time
      return arg;
    };
    Array<RelaxExpr> args;
    for (const RelaxExpr& a : call->args) args.push_back(lift(a));
    if (!ok) return std::nullopt;
    const auto* out = GetStructInfo(call).as<TensorStructInfoNode>();
    auto out_shape = StaticShape(out);
    if (!out_shape) return std::nullopt;
    int64_t limit = params.empty() ? kMaxCreatedElements : kMaxFoldedElements;
    if (NumElements(*out_shape) > limit) return std::nullopt;

    Call lone(call->op, args, call->attrs, call->sinfo_args, call->span);
    Var result("lv", GetStructInfo(call));
    Function main(params, SeqExpr({BindingBlock({VarBinding(result, lone)})}, result), GetStructInfo(call));
    IRModule one(Map<GlobalVar, BaseFunc>{{GlobalVar("main"), Downcast<Function>(BlockBuilder::Create()->Normalize(main))}});
    IRModule legalized;
    try {
      legalized = legalize->operator()().cast<tessera::transform::Pass>()(one);
    } catch (const Error&) {
      return std::nullopt;  // LegalizeOps itself reports the op when it runs on the module
    }
    const auto* func = legalized->Lookup(legalized->GetGlobalVar("main")).as<FunctionNode>();
    const auto* seq = func == nullptr ? nullptr : func->body.as<SeqExprNode>();
    if (seq == nullptr || seq->blocks.size() != 1 || seq->blocks[0]->bindings.size() != 1) return std::nullopt;
    const auto* vb = seq->blocks[0]->bindings[0].as<VarBindingNode>();
    const auto* tir_call = vb == nullptr ? nullptr : vb->value.as<CallNode>();
    if (tir_call == nullptr || !tir_call->op.same_as(call_tir)) return std::nullopt;
    return FoldCallTIR(GetRef<Call>(tir_call), legalized, param_value);
  }

  // call_tir whose arguments are constants (or params standing for them): run.
  std::optional<RelaxExpr> FoldCallTIR(const Call& call, const IRModule& mod,
                                       const std::unordered_map<const Object*, Constant>& param_value) {
    if (call->args.size() != 2) return std::nullopt;  // symbolic tir_vars
    const auto* gv = call->args[0].as<GlobalVarNode>();
    const auto* in = call->args[1].as<TupleNode>();
    if (gv == nullptr || in == nullptr) return std::nullopt;
    auto callee_gv = mod->FindGlobalVar(gv->name_hint);  // by name: the call may hold another module's GlobalVar
    if (!callee_gv) return std::nullopt;
    BaseFunc callee = mod->Lookup(*callee_gv);
    if (!callee->IsInstance<tir::PrimFuncNode>()) return std::nullopt;
    std::vector<Any> values;
    for (const RelaxExpr& arg : in->fields) {
      const ConstantNode* c = arg.as<ConstantNode>();
      if (auto it = param_value.find(arg.get()); it != param_value.end()) c = it->second.get();
      if (c == nullptr || c->data.device().device_type != kDLCPU) return std::nullopt;
      values.emplace_back(c->data);
    }
    // Outputs: a tensor or a tuple of tensors, each of static shape.
    if (call->sinfo_args.size() != 1) return std::nullopt;
    std::vector<const TensorStructInfoNode*> outs;
    if (const auto* t = call->sinfo_args[0].as<TensorStructInfoNode>()) {
      outs.push_back(t);
    } else if (const auto* tuple = call->sinfo_args[0].as<TupleStructInfoNode>()) {
      for (const StructInfo& f : tuple->fields) outs.push_back(f.as<TensorStructInfoNode>());
    } else {
      return std::nullopt;
    }
    int64_t total = 0;
    std::vector<NDArray> results;
    for (const TensorStructInfoNode* t : outs) {
      auto shape = StaticShape(t);
      if (!shape) return std::nullopt;
      total += NumElements(*shape);
      if (total > kMaxFoldedElements) return std::nullopt;
      results.push_back(NDArray::Empty(*shape, t->dtype, CPU()));
    }
    for (const NDArray& r : results) values.emplace_back(r);

    const std::string what = "FoldConstant: PrimFunc '" + gv->name_hint + "' (call_tir bound to '" + bound_to_ + "')";
    PackedFunc kernel = Compile(GetRef<GlobalVar>(gv), Downcast<tir::PrimFunc>(callee), what);
    try {
      kernel.CallPacked(PackedArgs(values.data(), static_cast<int>(values.size())));
    } catch (const Error& e) {
      TESSERA_THROW(RuntimeError) << what << " failed while evaluated on constant inputs: " << e.what();
    }
    if (call->sinfo_args[0]->IsInstance<TensorStructInfoNode>()) return Constant(results[0]);
    Array<RelaxExpr> fields;
    for (const NDArray& r : results) fields.push_back(Constant(r));
    return Tuple(fields);
  }

  // The compiled PrimFunc (structurally equal PrimFuncs are built once per pass run).
  PackedFunc Compile(const GlobalVar& gv, const tir::PrimFunc& func, const std::string& what) {
    auto it = compiled_.find(func);
    if (it != compiled_.end()) return it->second;
    std::string symbol = "__fold_" + gv->name_hint;
    tir::PrimFunc named = WithAttr(func, "global_symbol", String(symbol));
    PackedFunc kernel;
    try {
      // -bound-check: an out-of-bounds access or a division by zero on the constants raises
      // (naming the buffer or expression) instead of taking the compiler down.
      Module built = codegen::Build(IRModule(Map<GlobalVar, BaseFunc>{{GlobalVar(symbol), named}}),
                                    Target("llvm -bound-check"));
      kernel = built.GetFunctionOrThrow(symbol);  // the JIT links here
    } catch (const Error& e) {
      ThrowErrorOfKind(e.kind(), what + " cannot be built for llvm to fold it: " + e.what());
    }
    compiled_.emplace(func, kernel);
    return kernel;
  }

  IRModule mod_;
  std::unordered_map<const Object*, RelaxExpr> known_;  // var -> the constant or shape it is bound to
  std::unordered_map<ObjectRef, PackedFunc, StructuralKeyHash, StructuralKeyEqual> compiled_;
};

}  // namespace

namespace transform {

Pass FoldConstant() {
  return CreateFunctionPass(
      [](Function func, IRModule mod, PassContext) {
        return Downcast<Function>(ConstantFolder(mod).VisitExpr(func));
      },
      0, "FoldConstant");
}
TESSERA_REGISTER_PASS("relax.transform.FoldConstant", FoldConstant);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
