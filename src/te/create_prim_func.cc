// te.create_prim_func: topological order of the ops, buffers for tensors,
// one block per compute (see create_prim_func.h).
#include "te/create_prim_func.h"

#include <unordered_map>
#include <unordered_set>

#include "runtime/registry.h"
#include "runtime/stack_guard.h"
#include "tir/analysis/block_access_region.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace te {

using namespace tir;  // NOLINT

namespace {

// Variables appearing in expressions.
class VarCollector : public ExprVisitor {
 public:
  std::unordered_set<const VarNode*> vars;
  void VisitExpr_(const VarNode* op) override { vars.insert(op); }
};

// An index dimension (shape entry, loop bound) in the index dtype: integer
// constants are retyped; other expressions must already have it.
PrimExpr ConvertDim(const PrimExpr& e, const std::optional<DataType>& index_dtype, const std::string& where) {
  if (!index_dtype || e->dtype == *index_dtype) return e;
  if (const auto* imm = e.as<IntImmNode>()) return IntImm(*index_dtype, imm->value);
  TESSERA_THROW(NotImplementedError) << "create_prim_func: index_dtype_override=" << *index_dtype << " but " << where
                                     << " has a symbolic dimension of dtype " << e->dtype
                                     << "; only constant dimensions are converted";
}

// Rewrites a compute body into TIR: axis variables become block variables,
// ProducerLoads become BufferLoads; any other free variable must be allowed.
// With an index dtype, integer constants in indices take it and integer
// operands of differing widths are widened (so int64 block variables mix
// with int32 constants written in the compute).
class BodyRewriter : public ExprMutator {
 public:
  BodyRewriter(const std::unordered_map<const OperationNode*, Buffer>& buffers,
               const std::unordered_set<const VarNode*>& allowed, const std::string& compute,
               std::optional<DataType> index_dtype)
      : buffers_(buffers), allowed_(allowed), compute_(compute), index_dtype_(index_dtype) {}
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  const std::optional<DataType>& index_dtype() const { return index_dtype_; }
  const std::string& compute() const { return compute_; }

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vmap.find(op);
    if (it != vmap.end()) return it->second;
    TESSERA_CHECK_OR_THROW(allowed_.count(op), ValueError)
        << "compute " << compute_ << " uses variable " << op->name_hint
        << ", which is none of its axes: a te.reduce_axis must be used inside a reduction (te.sum/max/min) of "
           "the compute, and a symbolic size must appear in the shape of a tensor passed to create_prim_func";
    return GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const IntImmNode* op) override {
    if (index_dtype_ && in_index_ && op->dtype.is_int() && op->dtype != *index_dtype_) {
      return IntImm(*index_dtype_, op->value);
    }
    return GetRef<PrimExpr>(op);
  }
#define TESSERA_TE_BINARY(Name)                                              \
  PrimExpr VisitExpr_(const Name##Node* op) override {                        \
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);                      \
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op);    \
    Widen(a, b);                                                              \
    return Name(a, b);                                                        \
  }
  TESSERA_TE_BINARY(Add) TESSERA_TE_BINARY(Sub) TESSERA_TE_BINARY(Mul) TESSERA_TE_BINARY(Div)
  TESSERA_TE_BINARY(Mod) TESSERA_TE_BINARY(FloorDiv) TESSERA_TE_BINARY(FloorMod) TESSERA_TE_BINARY(Min)
  TESSERA_TE_BINARY(Max) TESSERA_TE_BINARY(EQ) TESSERA_TE_BINARY(NE) TESSERA_TE_BINARY(LT)
  TESSERA_TE_BINARY(LE) TESSERA_TE_BINARY(GT) TESSERA_TE_BINARY(GE)
#undef TESSERA_TE_BINARY

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    Array<PrimExpr> idx;
    for (PrimExpr i : op->indices) idx.push_back(VisitIndex(i));
    return BufferLoad(op->buffer, idx);
  }
  PrimExpr VisitExprDefault_(const Object* op) override {
    if (const auto* load = dynamic_cast<const ProducerLoadNode*>(op)) {
      auto it = buffers_.find(load->producer->op.get());
      TESSERA_ICHECK(it != buffers_.end()) << "no buffer for tensor " << load->producer->op->name;
      Array<PrimExpr> idx;
      for (PrimExpr i : load->indices) idx.push_back(VisitIndex(i));
      return BufferLoad(it->second, idx);
    }
    if (dynamic_cast<const ReduceNode*>(op)) {
      TESSERA_THROW(ValueError) << "compute " << compute_ << ": a reduction must be the whole body of the compute";
    }
    return ExprMutator::VisitExprDefault_(op);
  }

 private:
  PrimExpr VisitIndex(const PrimExpr& i) {
    bool saved = in_index_;
    in_index_ = true;
    PrimExpr r = VisitExpr(i);
    in_index_ = saved;
    if (index_dtype_ && r->dtype.is_int() && r->dtype != *index_dtype_) r = cast(*index_dtype_, r);
    return r;
  }
  static void Widen(PrimExpr& a, PrimExpr& b) {
    DataType ta = a->dtype, tb = b->dtype;
    if (ta == tb || !ta.is_int() || !tb.is_int() || ta.lanes() != 1 || tb.lanes() != 1) return;
    if (ta.bits() < tb.bits()) {
      a = cast(tb, a);
    } else {
      b = cast(ta, b);
    }
  }
  const std::unordered_map<const OperationNode*, Buffer>& buffers_;
  const std::unordered_set<const VarNode*>& allowed_;
  std::string compute_;
  std::optional<DataType> index_dtype_;
  bool in_index_ = false;
};

bool IsConstTrue(const PrimExpr& e) {
  const auto* imm = e.as<IntImmNode>();
  return imm != nullptr && imm->value != 0;
}

// Ops reachable from the arguments, producers before consumers.
std::vector<Operation> PostOrder(const Array<Tensor>& args) {
  std::vector<Operation> order;
  std::unordered_set<const OperationNode*> done, on_stack;
  for (Tensor root : args) {
    // Iterative DFS: (op, inputs expanded?)
    std::vector<std::pair<Operation, bool>> stack{{root->op, false}};
    while (!stack.empty()) {
      auto [op, expanded] = stack.back();
      stack.pop_back();
      if (done.count(op.get())) continue;
      if (expanded) {
        done.insert(op.get());
        order.push_back(op);
        continue;
      }
      stack.push_back({op, true});
      std::vector<Tensor> inputs = InputTensors(op);
      for (auto it = inputs.rbegin(); it != inputs.rend(); ++it) {
        if (!done.count((*it)->op.get())) stack.push_back({(*it)->op, false});
      }
    }
  }
  return order;
}

Stmt MakeBlockNest(const ComputeOpNode* op, const Buffer& out, BodyRewriter& rw) {
  Array<IterVar> block_vars;
  Array<PrimExpr> bindings, idx;
  std::vector<std::pair<Var, Range>> loops;
  auto add_axis = [&](const IterVar& iv, int kind) {
    std::string where = "compute " + rw.compute() + " axis " + iv->var->name_hint;
    PrimExpr min = ConvertDim(rw(iv->dom->min), rw.index_dtype(), where);
    PrimExpr extent = ConvertDim(rw(iv->dom->extent), rw.index_dtype(), where);
    DataType dt = rw.index_dtype() ? *rw.index_dtype() : iv->var->dtype;
    Var loop(iv->var->name_hint, dt);
    Var bv("v_" + iv->var->name_hint, dt);
    block_vars.push_back(IterVar(Range::FromMinExtent(min, extent), bv, kind));
    bindings.push_back(loop);
    loops.push_back({loop, Range::FromMinExtent(min, extent)});
    rw.vmap[iv->var.get()] = bv;
    return bv;
  };
  for (IterVar iv : op->axis) idx.push_back(add_axis(iv, kDataPar));
  for (IterVar iv : op->reduce_axis) add_axis(iv, kCommReduce);

  PrimExpr body_expr = op->body[0];
  Stmt body;
  std::optional<Stmt> init;
  if (const auto* r = body_expr.as<ReduceNode>()) {
    PrimExpr src = rw(r->source[0]);
    PrimExpr cond = rw(r->condition);
    PrimExpr start = r->init.empty() ? r->combiner->identity_element[0] : rw(r->init[0]);
    init = BufferStore(out, start, idx);
    body = BufferStore(out, CombineReducer(r->combiner, BufferLoad(out, idx), src), idx);
    if (!IsConstTrue(cond)) body = IfThenElse(cond, body);
  } else {
    body = BufferStore(out, rw(body_expr), idx);
  }
  Block block(block_vars, {}, {}, op->name, body, init);
  auto [reads, writes] = InferBlockAccessRegions(block);
  block.CopyOnWrite()->reads = reads;
  block.CopyOnWrite()->writes = writes;
  Stmt nest = BlockRealize(bindings, IntImm(DataType::Bool(), 1), block);
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    nest = For(it->first, it->second->min, it->second->extent, ForKind::kSerial, nest);
  }
  return nest;
}

}  // namespace

namespace {

// The PrimFunc of `tensors`, with the scalar parameters `scalars[i]` (a tir
// Var) placed before the tensor of position `scalars[i].first` (TVM's
// create_prim_func takes scalar Vars among its arguments).
PrimFunc CreatePrimFuncWithScalars(const Array<Tensor>& args, const std::vector<std::pair<size_t, Var>>& scalars,
                                   std::optional<DataType> index_dtype_override);

}  // namespace

PrimFunc CreatePrimFunc(const Array<Tensor>& args, std::optional<DataType> index_dtype_override) {
  return CreatePrimFuncWithScalars(args, {}, index_dtype_override);
}

namespace {

PrimFunc CreatePrimFuncWithScalars(const Array<Tensor>& args, const std::vector<std::pair<size_t, Var>>& scalars,
                                   std::optional<DataType> index_dtype_override) {
  std::unordered_map<const OperationNode*, Buffer> buffers;
  std::unordered_set<const VarNode*> allowed;
  Array<Var> params;
  Map<Var, Buffer> buffer_map;
  size_t next_scalar = 0;
  auto add_scalars_before = [&](size_t pos) {
    while (next_scalar < scalars.size() && scalars[next_scalar].first == pos) {
      const Var& v = scalars[next_scalar++].second;
      params.push_back(v);
      allowed.insert(v.get());
    }
  };
  for (size_t i = 0; i < args.size(); ++i) {
    add_scalars_before(i);
    Tensor t = args[i];
    TESSERA_CHECK_OR_THROW(t.defined() && t->op.defined(), ValueError) << "argument " << i << " is undefined";
    TESSERA_CHECK_OR_THROW(!buffers.count(t->op.get()), ValueError)
        << "tensor " << t->op->name << " appears more than once in create_prim_func's argument list";
    Array<PrimExpr> shape;
    for (PrimExpr d : t->shape) shape.push_back(ConvertDim(d, index_dtype_override, "tensor " + t->op->name));
    Buffer buf = decl_buffer(shape, t->dtype, t->op->name);
    Var handle("var_" + t->op->name, DataType::Handle());
    params.push_back(handle);
    buffer_map.Set(handle, buf);
    buffers[t->op.get()] = buf;
    VarCollector vc;
    for (PrimExpr d : t->shape) vc(d);
    allowed.insert(vc.vars.begin(), vc.vars.end());
  }
  add_scalars_before(args.size());
  std::vector<Operation> order = PostOrder(args);
  Array<Buffer> allocs;
  std::vector<Stmt> nests;
  for (const Operation& op : order) {
    if (const auto* p = op.as<PlaceholderOpNode>()) {
      TESSERA_CHECK_OR_THROW(buffers.count(p), ValueError)
          << "placeholder " << p->name << " is read by the computation but is not in create_prim_func's argument list";
      continue;
    }
    const auto* c = op.as<ComputeOpNode>();
    TESSERA_CHECK_OR_THROW(c != nullptr, TypeError)
        << "create_prim_func: unsupported operation " << op->name << " (" << op->GetTypeKey() << ")";
    CheckStack("te.create_prim_func");
    if (!buffers.count(c)) {
      Array<PrimExpr> shape;
      for (IterVar iv : c->axis) {
        shape.push_back(ConvertDim(iv->dom->extent, index_dtype_override, "compute " + c->name));
      }
      Buffer buf = decl_buffer(shape, c->body[0]->dtype, c->name);
      buffers[c] = buf;
      allocs.push_back(buf);
    }
    BodyRewriter rw(buffers, allowed, c->name, index_dtype_override);
    nests.push_back(MakeBlockNest(c, buffers[c], rw));
  }
  TESSERA_CHECK_OR_THROW(!nests.empty(), ValueError)
      << "create_prim_func: the arguments compute nothing (every tensor is a placeholder)";
  Block root({}, {}, {}, "root", SeqStmt::Flatten(nests), std::nullopt, allocs);
  Stmt body = BlockRealize({}, IntImm(DataType::Bool(), 1), root);
  Attrs attrs;
  attrs.Set("global_symbol", String("main"));
  attrs.Set("tir.noalias", IntImm(DataType::Bool(), 1));
  return PrimFunc(params, body, buffer_map, attrs);
}

}  // namespace

// Arguments: te.Tensors and scalar tir Vars (parameters passed by value).
TESSERA_REGISTER_GLOBAL("te.CreatePrimFunc").set_body_typed([](Array<ObjectRef> args, std::optional<DataType> dt) {
  Array<Tensor> tensors;
  std::vector<std::pair<size_t, Var>> scalars;
  for (size_t i = 0; i < args.size(); ++i) {
    if (const auto* v = args[i].as<VarNode>()) {
      TESSERA_CHECK_OR_THROW(!v->dtype.is_handle(), TypeError)
          << "te.create_prim_func: argument " << i << " is a handle Var; only scalar Vars are parameters";
      scalars.emplace_back(tensors.size(), GetRef<Var>(v));
    } else {
      TESSERA_CHECK_OR_THROW(args[i].as<TensorNode>() != nullptr, TypeError)
          << "te.create_prim_func: argument " << i << " is a " << (args[i].defined() ? args[i]->GetTypeKey() : "None")
          << ", not a te.Tensor or a scalar tir.Var";
      tensors.push_back(Downcast<Tensor>(args[i]));
    }
  }
  return CreatePrimFuncWithScalars(tensors, scalars, dt);
});

}  // namespace te
}  // namespace tessera
