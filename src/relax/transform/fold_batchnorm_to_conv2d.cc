// FoldBatchnormToConv2d (relax.transform.FoldBatchnormToConv2d): inference
// batch_norm over a conv2d whose weight is a constant (NCHW/OIHW, float32 or
// float64), optionally with a constant per-channel bias added between them
// (the PyTorch importer's form: conv2d, add(reshape(bias)), batch_norm, [0]),
// becomes one conv2d with the scaled weight plus a constant bias, the
// constants computed here; runs before LegalizeOps in relax.build's pipeline.
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "relax/expr_functor.h"
#include "relax/op/nn/nn_attrs.h"
#include "relax/transform/function_pass.h"
#include "relax/transform/optimization.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace {

bool IsOp(const RelaxExpr& e, const char* name, const CallNode** out) {
  const auto* call = e.as<CallNode>();
  if (call == nullptr) return false;
  const auto* op = call->op.as<OpNode>();
  if (op == nullptr || op->name != name) return false;
  *out = call;
  return true;
}

// A constant float32/float64 contiguous CPU array (its data readable here).
const ConstantNode* FloatConstant(const RelaxExpr& e) {
  const auto* c = e.as<ConstantNode>();
  if (c == nullptr) return nullptr;
  const NDArray& a = c->data;
  DataType t = a.dtype();
  if (t.lanes() != 1 || !t.is_float() || (t.bits() != 32 && t.bits() != 64)) return nullptr;
  if (a.device().device_type != kDLCPU || !IsContiguous(*a.dltensor())) return nullptr;
  return c;
}

double At(const NDArray& a, int64_t i) {
  return a.dtype().bits() == 32 ? static_cast<const float*>(a.DataPtr())[i] : static_cast<const double*>(a.DataPtr())[i];
}

void Put(const NDArray& a, int64_t i, double v) {
  if (a.dtype().bits() == 32) {
    static_cast<float*>(a.DataPtr())[i] = static_cast<float>(v);
  } else {
    static_cast<double*>(a.DataPtr())[i] = v;
  }
}

// Dim 1 of a tensor of static rank >= 2 (-1 when unknown).
int64_t Channels(const RelaxExpr& e) {
  const auto* t = GetStructInfo(e).as<TensorStructInfoNode>();
  const auto* shape = t != nullptr && t->shape ? t->shape->as<ShapeExprNode>() : nullptr;
  if (shape == nullptr || shape->values.size() < 2) return -1;
  return ConstIntValue(shape->values[1]).value_or(-1);
}

// One match: `item = bn[0]`, `bn = batch_norm(data, ...)`, `data = conv` or
// `data = add(conv, bias)`, `conv = conv2d(x, W)`.
struct Match {
  const CallNode* conv = nullptr;
  const ConstantNode* bias = nullptr;  // may be null
  const CallNode* bn = nullptr;
  std::vector<const Object*> dropped;  // the bindings' vars that disappear
};

class Folder : public ExprMutator {
 public:
  using ExprMutator::ExprMutator;
  using ExprMutator::VisitBinding_;

  Function Run(const Function& func) {
    CountUses(func);
    PostOrderVisit(func->body, [&](const RelaxExpr& e) {
      if (const auto* seq = e.as<SeqExprNode>()) {
        for (const BindingBlock& block : seq->blocks) {
          for (const Binding& b : block->bindings) {
            if (const auto* vb = b.as<VarBindingNode>()) values_[vb->var.get()] = vb->value;
          }
        }
      }
    });
    PostOrderVisit(func->body, [&](const RelaxExpr& e) {
      if (const auto* seq = e.as<SeqExprNode>()) {
        for (const BindingBlock& block : seq->blocks) {
          for (const Binding& b : block->bindings) {
            if (const auto* vb = b.as<VarBindingNode>()) FindMatch(vb);
          }
        }
      }
    });
    if (matches_.empty()) return func;
    return Downcast<Function>(VisitExpr(func));
  }

  void VisitBinding_(const VarBindingNode* binding) override {
    if (dropped_.count(binding->var.get())) return;
    auto it = matches_.find(binding->var.get());
    if (it == matches_.end()) return ExprMutator::VisitBinding_(binding);
    const Match& m = it->second;
    auto [weight, bias] = Fold(m);
    Call conv(m.conv->op, {VisitExpr(m.conv->args[0]), Constant(weight)}, m.conv->attrs, m.conv->sinfo_args,
              m.conv->span);
    Var conv_var = builder_->Emit(builder_->Normalize(conv), "conv");
    ReEmitBinding(binding, builder_->Normalize(Call(Op::Get("relax.add"), {conv_var, Constant(bias)})));
  }

 private:
  // How often each var is read (per reference in a call, tuple, binding or return).
  void CountUses(const Function& func) {
    std::function<void(const RelaxExpr&)> count = [&](const RelaxExpr& e) {
      if (const auto* v = e.as<VarNode>()) ++uses_[v];
    };
    PostOrderVisit(func->body, [&](const RelaxExpr& e) {
      if (const auto* call = e.as<CallNode>()) {
        for (const RelaxExpr& a : call->args) count(a);
      } else if (const auto* t = e.as<TupleNode>()) {
        for (const RelaxExpr& f : t->fields) count(f);
      } else if (const auto* item = e.as<TupleGetItemNode>()) {
        count(item->tuple);
      } else if (const auto* seq = e.as<SeqExprNode>()) {
        count(seq->body);
        for (const BindingBlock& block : seq->blocks) {
          for (const Binding& b : block->bindings) {
            if (const auto* vb = b.as<VarBindingNode>()) count(vb->value);
            if (const auto* mc = b.as<MatchCastNode>()) count(mc->value);
          }
        }
      } else if (const auto* iff = e.as<IfNode>()) {
        count(iff->cond);
        count(iff->true_branch);
        count(iff->false_branch);
      }
    });
  }

  // The value bound to `e` when `e` is a var used exactly once.
  std::optional<RelaxExpr> SingleUseValue(const RelaxExpr& e) {
    const auto* v = e.as<VarNode>();
    if (v == nullptr || uses_[v] != 1) return std::nullopt;
    auto it = values_.find(v);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }

  void FindMatch(const VarBindingNode* binding) {
    const auto* item = binding->value.as<TupleGetItemNode>();
    if (item == nullptr || item->index != 0) return;
    Match m;
    auto bn_value = SingleUseValue(item->tuple);
    if (!bn_value || !IsOp(*bn_value, "relax.nn.batch_norm", &m.bn) || m.bn->args.size() != 5) return;
    for (size_t i = 1; i < 5; ++i) {
      if (FloatConstant(m.bn->args[i]) == nullptr) return;
    }
    auto data = SingleUseValue(m.bn->args[0]);
    if (!data) return;
    const CallNode* add = nullptr;
    if (IsOp(*data, "relax.add", &add)) {
      // The bias: a constant, or a reshape of one (the importer's form).
      m.bias = FloatConstant(add->args[1]);
      const CallNode* reshape = nullptr;
      if (auto value = SingleUseValue(add->args[1]); value && IsOp(*value, "relax.reshape", &reshape)) {
        m.bias = FloatConstant(reshape->args[0]);
        m.dropped.push_back(add->args[1].get());
      }
      const auto* sinfo = GetStructInfo(add->args[1]).as<TensorStructInfoNode>();
      const auto* shape = sinfo != nullptr && sinfo->shape ? sinfo->shape->as<ShapeExprNode>() : nullptr;
      if (m.bias == nullptr || shape == nullptr || shape->values.size() < 3) return;
      for (size_t i = 0; i < shape->values.size(); ++i) {
        int64_t want = i + 3 == shape->values.size() ? Channels(m.bn->args[0]) : 1;
        if (ConstIntValue(shape->values[i]) != std::optional<int64_t>(want)) return;
      }
      m.dropped.push_back(m.bn->args[0].get());
      data = SingleUseValue(add->args[0]);
      if (!data) return;
      m.dropped.push_back(add->args[0].get());
    } else {
      m.dropped.push_back(m.bn->args[0].get());
    }
    if (!IsOp(*data, "relax.nn.conv2d", &m.conv) || m.conv->args.size() != 2) return;
    const ConstantNode* w = FloatConstant(m.conv->args[1]);
    if (w == nullptr || w->data.ndim() != 4) return;
    Call conv = GetRef<Call>(m.conv);
    if (nn_attrs::Str(conv, "data_layout") != "NCHW" || nn_attrs::Str(conv, "kernel_layout") != "OIHW" ||
        nn_attrs::Str(conv, "out_layout") != "NCHW" || nn_attrs::Int(GetRef<Call>(m.bn), "axis") != 1) {
      return;
    }
    const auto* out = GetStructInfo(GetRef<Call>(m.conv)).as<TensorStructInfoNode>();
    if (out == nullptr || out->dtype != w->data.dtype()) return;
    int64_t k = w->data.Shape()[0];
    for (size_t i = 1; i < 5; ++i) {
      const NDArray& p = FloatConstant(m.bn->args[i])->data;
      if (p.NumElements() != k || p.dtype() != w->data.dtype()) return;
    }
    if (m.bias != nullptr && (m.bias->data.NumElements() != k || m.bias->data.dtype() != w->data.dtype())) return;
    m.dropped.push_back(item->tuple.get());
    for (const Object* v : m.dropped) dropped_.insert(v);
    matches_[binding->var.get()] = m;
  }

  // (scaled weight, bias of shape [1, K, 1, 1]).
  std::pair<NDArray, NDArray> Fold(const Match& m) const {
    const NDArray& w = m.conv->args[1].as<ConstantNode>()->data;
    auto param = [&](size_t i) { return m.bn->args[i].as<ConstantNode>()->data; };
    NDArray gamma = param(1), beta = param(2), mean = param(3), var = param(4);
    double eps = nn_attrs::Float(GetRef<Call>(m.bn), "epsilon");
    bool center = nn_attrs::Bool(GetRef<Call>(m.bn), "center");
    bool scale = nn_attrs::Bool(GetRef<Call>(m.bn), "scale");
    int64_t k = w.Shape()[0], per = w.NumElements() / k;
    NDArray nw = NDArray::Empty(w.Shape(), w.dtype(), w.device());
    NDArray nb = NDArray::Empty({1, k, 1, 1}, w.dtype(), w.device());
    for (int64_t o = 0; o < k; ++o) {
      double s = (scale ? At(gamma, o) : 1.0) / std::sqrt(At(var, o) + eps);
      double b = m.bias != nullptr ? At(m.bias->data, o) : 0.0;
      for (int64_t j = 0; j < per; ++j) Put(nw, o * per + j, At(w, o * per + j) * s);
      Put(nb, o, (b - At(mean, o)) * s + (center ? At(beta, o) : 0.0));
    }
    return {nw, nb};
  }

  std::unordered_map<const Object*, int> uses_;
  std::unordered_map<const Object*, RelaxExpr> values_;
  std::unordered_map<const Object*, Match> matches_;
  std::unordered_set<const Object*> dropped_;
};

}  // namespace

namespace transform {

Pass FoldBatchnormToConv2d() {
  return CreateFunctionPass([](Function func, IRModule mod, PassContext) { return Folder(mod).Run(func); }, 0,
                            "FoldBatchnormToConv2d");
}
TESSERA_REGISTER_PASS("relax.transform.FoldBatchnormToConv2d", FoldBatchnormToConv2d);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
