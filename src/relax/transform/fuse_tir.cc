// FuseTIR: every Relax function marked {"Primitive": 1} (FuseOps' groups,
// or hand-made ones) whose body is call_tir bindings becomes one PrimFunc of
// the same name: its tensor parameters (tuples flattened) and results are the
// PrimFunc's buffers, each intermediate a T.alloc_buffer of the root block,
// and the callees' bodies run one after another with their buffers and
// symbolic dims substituted and every loop/block/let variable and internal
// buffer renewed (one PrimFunc may be inlined twice; block names are kept
// unique). Symbolic dims of the callees are solved from the arguments' shapes
// (plain-variable dims first, then the others are checked). Dims that no
// buffer defines become trailing int64 parameters passed as tir_vars. Calls of
// the function become one call_tir; structurally equal fused PrimFuncs are
// shared; the primitive functions and the PrimFuncs only they used are removed.
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/expr_string.h"
#include "ir/int_value.h"
#include "ir/structural_equal.h"
#include "relax/expr_functor.h"
#include "relax/transform/fusion.h"
#include "relax/transform/lowering.h"
#include "relax/transform/optimization.h"
#include "relax/transform/utils.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace relax {
namespace {

bool IsPrimitive(const FunctionNode* fn) {
  auto attr = fn->attrs.Get("Primitive");
  if (!attr) return false;
  auto v = IntValue(*attr);
  return v && *v != 0;
}

// Copies a PrimFunc body with its buffers and variables substituted and every
// variable and buffer it defines replaced by a fresh one.
class InlineRenewer : public tir::StmtExprMutator {
 public:
  InlineRenewer(std::unordered_map<const Object*, PrimExpr> vars,
                std::unordered_map<const Object*, tir::Buffer> buffers, std::unordered_set<std::string>* block_names)
      : vars_(std::move(vars)), buffers_(std::move(buffers)), block_names_(block_names) {}

  tir::Buffer Renew(const tir::Buffer& b) {
    auto it = buffers_.find(b.get());
    if (it != buffers_.end()) return it->second;
    tir::Var data = b->data.copy_with_suffix("");
    bool changed = false;
    Array<PrimExpr> shape = VisitExprs(b->shape, &changed);
    Array<PrimExpr> strides = VisitExprs(b->strides, &changed);
    PrimExpr offset = b->elem_offset.defined() ? VisitExpr(b->elem_offset) : b->elem_offset;
    tir::Buffer nb = tir::CopyAxisSeparators(b, tir::Buffer(data, b->dtype, shape, strides, offset, b->name, b->scope,
                                                            b->data_alignment, b->offset_factor, b->span));
    buffers_[b.get()] = nb;
    vars_[b->data.get()] = data;
    return nb;
  }

 private:
  using tir::StmtExprMutator::VisitExpr_;
  using tir::StmtExprMutator::VisitStmt_;

  tir::Var Fresh(const tir::Var& v) {
    tir::Var nv = v.copy_with_suffix("");
    vars_[v.get()] = nv;
    return nv;
  }
  PrimExpr VisitExpr_(const tir::VarNode* op) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? GetRef<PrimExpr>(op) : it->second;
  }
  PrimExpr VisitExpr_(const tir::SizeVarNode* op) override { return VisitExpr_(static_cast<const tir::VarNode*>(op)); }
  tir::Buffer VisitBufferUse(const tir::Buffer& b) override { return Renew(b); }
  PrimExpr VisitExpr_(const tir::LetNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    tir::Var v = Fresh(op->var);
    return tir::Let(v, value, VisitExpr(op->body), op->span);
  }
  tir::Stmt VisitStmt_(const tir::LetStmtNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    tir::Var v = Fresh(op->var);
    return tir::LetStmt(v, value, VisitStmt(op->body), op->span);
  }
  tir::Stmt VisitStmt_(const tir::ForNode* op) override {
    PrimExpr min = VisitExpr(op->min), extent = VisitExpr(op->extent);
    tir::Var v = Fresh(op->loop_var);
    return tir::For(v, min, extent, op->kind, VisitStmt(op->body), op->thread_binding, op->annotations, op->span);
  }
  tir::Stmt VisitStmt_(const tir::BlockNode* op) override {
    Array<tir::IterVar> ivs;
    for (const tir::IterVar& iv : op->iter_vars) {
      Range dom = Range::FromMinExtent(VisitExpr(iv->dom->min), VisitExpr(iv->dom->extent));
      ivs.push_back(tir::IterVar(dom, Fresh(iv->var), iv->iter_type, iv->thread_tag, iv->span));
    }
    Array<tir::Buffer> allocs;
    for (const tir::Buffer& b : op->alloc_buffers) allocs.push_back(Renew(b));
    Array<tir::MatchBufferRegion> matches;
    for (const tir::MatchBufferRegion& m : op->match_buffers) {
      tir::BufferRegion source = VisitBufferRegion(m->source);
      matches.push_back(tir::MatchBufferRegion(Renew(m->buffer), source));
    }
    Array<tir::BufferRegion> reads, writes;
    for (const tir::BufferRegion& r : op->reads) reads.push_back(VisitBufferRegion(r));
    for (const tir::BufferRegion& w : op->writes) writes.push_back(VisitBufferRegion(w));
    std::optional<tir::Stmt> init;
    if (op->init) init = VisitStmt(*op->init);
    tir::Stmt body = VisitStmt(op->body);
    return tir::Block(ivs, reads, writes, UniqueName(op->name_hint), body, init, allocs, matches, op->annotations,
                      op->span);
  }
  std::string UniqueName(const std::string& name) {
    std::string candidate = name;
    for (int k = 1; !block_names_->insert(candidate).second; ++k) candidate = name + "_" + std::to_string(k);
    return candidate;
  }

  std::unordered_map<const Object*, PrimExpr> vars_;
  std::unordered_map<const Object*, tir::Buffer> buffers_;
  std::unordered_set<std::string>* block_names_;
};

// The buffers a Relax value stands for: one for a tensor, one tree per tuple field.
struct BufferTree {
  std::optional<tir::Buffer> buffer;
  std::vector<BufferTree> fields;
  void Flatten(std::vector<tir::Buffer>* out) const {
    if (buffer) out->push_back(*buffer);
    for (const BufferTree& f : fields) f.Flatten(out);
  }
};

// Builds the PrimFunc of one primitive Relax function.
class FusedPrimFuncBuilder {
 public:
  FusedPrimFuncBuilder(const IRModule& mod, const std::string& name, const Function& func)
      : mod_(mod), name_(name), func_(func) {}

  tir::PrimFunc Build() {
    for (const Var& p : func_->params) param_trees_.push_back(FromParam(GetStructInfo(p), p->name_hint, p));
    const auto* seq = func_->body.as<SeqExprNode>();
    TESSERA_CHECK_OR_THROW(seq != nullptr, ValueError) << Where() << ": the body is not a sequence of bindings";
    CreateOutputs(seq);
    for (const BindingBlock& block : seq->blocks) {
      for (const Binding& b : block->bindings) VisitBinding(b);
    }
    TESSERA_CHECK_OR_THROW(output_names_.empty(), ValueError)
        << Where() << ": " << output_names_.begin()->second << " is not the output of a call_tir in the function";
    // Dims no buffer shape defines as a plain variable come in as scalars.
    std::unordered_set<const Object*> defined;
    for (const tir::Var& p : params_) {
      if (auto buf = buffer_map_.Get(p)) {
        for (const PrimExpr& d : (*buf)->shape) {
          if (d.as<tir::VarNode>()) defined.insert(d.get());
        }
      }
    }
    for (const auto& [relax_dim, prim_dim] : dims_) {
      if (defined.count(prim_dim.get())) continue;
      params_.push_back(prim_dim);
      scalar_dims_.push_back(relax_dim);
    }
    tir::Block root({}, {}, {}, "root", tir::SeqStmt::Flatten(stmts_), std::nullopt, allocs_);
    Attrs attrs;
    attrs.Set("tir.noalias", IntImm(DataType::Bool(), 1));
    return tir::PrimFunc(params_, tir::BlockRealize({}, IntImm(DataType::Bool(), 1), root), buffer_map_, attrs);
  }

  // The Relax-level symbolic dims the PrimFunc takes as trailing scalars (the caller passes them as tir_vars).
  std::vector<tir::Var> scalar_dims_;

 private:
  std::string Where() const { return "FuseTIR: fused function '" + name_ + "'"; }

  // A Relax dim in the PrimFunc's own variables (fresh int64 copies).
  PrimExpr Dim(const PrimExpr& e) {
    return tir::Substitute(e, [&](const tir::Var& v) -> std::optional<PrimExpr> {
      for (const auto& [relax_dim, prim_dim] : dims_) {
        if (relax_dim.same_as(v)) return prim_dim;
      }
      tir::Var fresh = v.copy_with_suffix("");
      dims_.push_back({v, fresh});
      return fresh;
    });
  }

  tir::Buffer MakeBuffer(const StructInfo& sinfo, const std::string& name, const std::string& what) {
    const auto* t = sinfo.as<TensorStructInfoNode>();
    auto shape = t ? t->GetShape() : std::nullopt;
    TESSERA_CHECK_OR_THROW(t != nullptr && shape && !t->IsUnknownDtype(), ValueError)
        << Where() << ": " << what << " is " << StructInfoText(sinfo)
        << "; fusing needs tensors of known shape and dtype";
    Array<PrimExpr> dims;
    for (const PrimExpr& d : *shape) dims.push_back(Dim(d));
    return tir::decl_buffer(dims, t->dtype, name);
  }

  void AddBufferParam(const tir::Buffer& buf) {
    tir::Var handle("var_" + buf->name, DataType::Handle());
    params_.push_back(handle);
    buffer_map_.Set(handle, buf);
  }

  BufferTree FromParam(const StructInfo& sinfo, const std::string& name, const Var& param) {
    BufferTree tree;
    if (const auto* tuple = sinfo.as<TupleStructInfoNode>()) {
      for (size_t i = 0; i < tuple->fields.size(); ++i) {
        tree.fields.push_back(FromParam(tuple->fields[i], name + "_" + std::to_string(i), param));
      }
    } else if (const auto* shape = sinfo.as<ShapeStructInfoNode>()) {
      if (shape->values) {
        for (const PrimExpr& v : *shape->values) Dim(v);
      }
    } else {
      tree.buffer = MakeBuffer(sinfo, name, "parameter '" + param->name_hint + "'");
      AddBufferParam(*tree.buffer);
    }
    values_[param.get()] = tree;
    return tree;
  }

  // Where a returned value comes from: (producing var, tuple index or -1), through aliases.
  std::pair<const Object*, int> Source(const RelaxExpr& e) const {
    const Object* v = e.get();
    int index = -1;
    for (;;) {
      auto alias = aliases_.find(v);
      if (alias != aliases_.end()) {
        v = alias->second;
        continue;
      }
      auto item = items_.find(v);
      if (item != items_.end() && index < 0) {
        index = item->second.second;
        v = item->second.first;
        continue;
      }
      return {v, index};
    }
  }

  void CreateOutputs(const SeqExprNode* seq) {
    for (const BindingBlock& block : seq->blocks) {
      for (const Binding& b : block->bindings) {
        const auto* vb = b.as<VarBindingNode>();
        if (vb == nullptr) continue;
        if (vb->value->IsInstance<VarNode>()) aliases_[vb->var.get()] = vb->value.get();
        if (const auto* tgi = vb->value.as<TupleGetItemNode>()) items_[vb->var.get()] = {tgi->tuple.get(), tgi->index};
      }
    }
    std::vector<RelaxExpr> results;
    if (const auto* tuple = seq->body.as<TupleNode>()) {
      results.assign(tuple->fields.begin(), tuple->fields.end());
    } else {
      results.push_back(seq->body);
    }
    for (const RelaxExpr& r : results) {
      const auto* var = r.as<VarNode>();
      TESSERA_CHECK_OR_THROW(var != nullptr, ValueError)
          << Where() << ": a result is " << ExprKindName(r) << "; results must be variables bound in the function";
      auto source = Source(r);
      std::string what = "result '" + var->name_hint + "'";
      TESSERA_CHECK_OR_THROW(!values_.count(source.first) && !outputs_.count(source), ValueError)
          << Where() << ": " << what << " is a parameter or another result; fused results must be computed by call_tir";
      StructInfo sinfo = GetStructInfo(r);
      const auto* tuple = sinfo.as<TupleStructInfoNode>();
      if (tuple == nullptr) {
        AddOutput(source, MakeBuffer(sinfo, var->name_hint, what), what);
        continue;
      }
      // The whole tuple result of a multi-output call_tir (not nested in other results: call_tir's outputs are flat).
      TESSERA_CHECK_OR_THROW(results.size() == 1 && source.second < 0, ValueError)
          << Where() << ": " << what << " is " << StructInfoText(sinfo)
          << "; a tuple result must be the function's only result";
      for (size_t k = 0; k < tuple->fields.size(); ++k) {
        std::string name = var->name_hint + "_" + std::to_string(k);
        AddOutput({source.first, static_cast<int>(k)}, MakeBuffer(tuple->fields[k], name, what), what);
      }
    }
  }

  void AddOutput(std::pair<const Object*, int> source, const tir::Buffer& buf, const std::string& what) {
    outputs_[source] = buf;
    output_names_[source] = what;
    AddBufferParam(buf);
  }

  void VisitBinding(const Binding& b) {
    const auto* vb = b.as<VarBindingNode>();
    TESSERA_CHECK_OR_THROW(vb != nullptr, ValueError)
        << Where() << ": binding '" << b->var->name_hint << "' is a match_cast, which cannot be fused into a PrimFunc";
    static const Op& call_tir = Op::Get("relax.call_tir");
    const RelaxExpr& value = vb->value;
    if (const auto* call = value.as<CallNode>(); call != nullptr && call->op.same_as(call_tir)) {
      InlineCall(vb, call);
    } else if (const auto* tgi = value.as<TupleGetItemNode>()) {
      const BufferTree& tuple = Lookup(tgi->tuple, vb);
      TESSERA_CHECK_OR_THROW(tgi->index >= 0 && static_cast<size_t>(tgi->index) < tuple.fields.size(), ValueError)
          << Where() << ": binding '" << vb->var->name_hint << "' takes field " << tgi->index << " of a value with "
          << tuple.fields.size() << " fields";
      values_[vb->var.get()] = tuple.fields[tgi->index];
    } else if (value->IsInstance<VarNode>()) {
      values_[vb->var.get()] = Lookup(value, vb);
    } else if (const auto* tuple = value.as<TupleNode>()) {
      BufferTree tree;
      for (const RelaxExpr& f : tuple->fields) tree.fields.push_back(Lookup(f, vb));
      values_[vb->var.get()] = tree;
    } else {
      TESSERA_THROW(ValueError) << Where() << ": binding '" << vb->var->name_hint << "' is " << ExprKindName(value)
                                << (value.as<CallNode>() ? " (not call_tir)" : "")
                                << "; only call_tir, tuples and their items can be fused into a PrimFunc";
    }
  }

  const BufferTree& Lookup(const RelaxExpr& e, const VarBindingNode* vb) {
    if (const auto* tuple = e.as<TupleNode>(); tuple != nullptr && !values_.count(e.get())) {
      // A tuple literal used in place (a nested field, or a call_tir's argument tuple).
      BufferTree tree;
      for (const RelaxExpr& f : tuple->fields) tree.fields.push_back(Lookup(f, vb));
      values_[e.get()] = tree;
    }
    auto it = values_.find(e.get());
    TESSERA_CHECK_OR_THROW(it != values_.end(), ValueError)
        << Where() << ": binding '" << vb->var->name_hint << "' uses " << ExprKindName(e)
        << (e.as<VarNode>() ? " '" + e.as<VarNode>()->name_hint + "'" : std::string())
        << ", which is neither a parameter nor a tensor bound in the function (pass constants as parameters)";
    return it->second;
  }

  std::string Desc(const VarBindingNode* vb, const std::string& callee) const {
    return Where() + ", binding '" + vb->var->name_hint + "' (call_tir of '" + callee + "')";
  }

  // Binds the single unknown variable of `dim` (a product or sum with known
  // terms) so that dim == value; leaves anything else to the final check.
  static void SolveDim(const PrimExpr& dim, const PrimExpr& value, std::unordered_map<const Object*, PrimExpr>* vars,
                       arith::Analyzer* analyzer) {
    auto known = [&](const PrimExpr& e) {
      bool all = true;
      tir::PostOrderVisit(e, [&](const ObjectRef& n) {
        if (const auto* v = n.as<tir::VarNode>()) all = all && vars->count(v);
      });
      return all;
    };
    auto subst = [&](const PrimExpr& e) {
      return tir::Substitute(e, [&](const tir::Var& v) -> std::optional<PrimExpr> { return vars->at(v.get()); });
    };
    if (known(dim)) return;
    PrimExpr target = value.dtype() == dim.dtype() ? value : PrimExpr(tir::Cast(dim.dtype(), value));
    if (const auto* v = dim.as<tir::VarNode>()) {
      (*vars)[v] = analyzer->Simplify(target);
    } else if (const auto* mul = dim.as<tir::MulNode>()) {
      if (known(mul->a)) SolveDim(mul->b, tir::FloorDiv(target, subst(mul->a)), vars, analyzer);
      else if (known(mul->b)) SolveDim(mul->a, tir::FloorDiv(target, subst(mul->b)), vars, analyzer);
    } else if (const auto* add = dim.as<tir::AddNode>()) {
      if (known(add->a)) SolveDim(add->b, tir::Sub(target, subst(add->a)), vars, analyzer);
      else if (known(add->b)) SolveDim(add->a, tir::Sub(target, subst(add->b)), vars, analyzer);
    } else if (const auto* sub = dim.as<tir::SubNode>()) {
      if (known(sub->b)) SolveDim(sub->a, tir::Add(target, subst(sub->b)), vars, analyzer);
    }
  }

  void InlineCall(const VarBindingNode* vb, const CallNode* call) {
    const auto* gv = call->args.size() >= 2 ? call->args[0].as<GlobalVarNode>() : nullptr;
    TESSERA_CHECK_OR_THROW(gv != nullptr, ValueError) << Where() << ": binding '" << vb->var->name_hint
                                                      << "' calls call_tir without a module function";
    auto callee_fn = mod_->functions.Get(GetRef<GlobalVar>(gv));
    const auto* inner = callee_fn ? (*callee_fn).as<tir::PrimFuncNode>() : nullptr;
    TESSERA_CHECK_OR_THROW(inner != nullptr, ValueError) << Desc(vb, gv->name_hint) << ": the callee is not a PrimFunc";
    used_prim_funcs_.insert(gv->name_hint);
    // Buffers: the arguments (tuples flattened), then the outputs.
    std::vector<tir::Buffer> bufs;
    std::vector<RelaxExpr> arg_list;
    if (const auto* t = call->args[1].as<TupleNode>()) {
      arg_list.assign(t->fields.begin(), t->fields.end());
    } else {
      arg_list.push_back(call->args[1]);
    }
    for (const RelaxExpr& a : arg_list) Lookup(a, vb).Flatten(&bufs);
    size_t num_inputs = bufs.size();
    BufferTree result;
    StructInfo out_sinfo = GetStructInfo(vb->var);
    auto out_buffer = [&](const StructInfo& sinfo, int index) {
      auto it = outputs_.find({vb->var.get(), index});
      if (it != outputs_.end()) {
        output_names_.erase(it->first);
        return it->second;
      }
      std::string name = vb->var->name_hint + (index >= 0 ? "_" + std::to_string(index) : std::string());
      tir::Buffer buf = MakeBuffer(sinfo, name, "the output of binding '" + vb->var->name_hint + "'");
      allocs_.push_back(buf);
      return buf;
    };
    if (const auto* tuple = out_sinfo.as<TupleStructInfoNode>()) {
      for (size_t k = 0; k < tuple->fields.size(); ++k) {
        BufferTree f;
        f.buffer = out_buffer(tuple->fields[k], static_cast<int>(k));
        bufs.push_back(*f.buffer);
        result.fields.push_back(f);
      }
    } else {
      result.buffer = out_buffer(out_sinfo, -1);
      bufs.push_back(*result.buffer);
    }
    values_[vb->var.get()] = result;
    std::vector<PrimExpr> scalars;
    if (call->args.size() == 3) {
      auto sinfo = GetStructInfo(call->args[2]).as<ShapeStructInfoNode>();
      TESSERA_CHECK_OR_THROW(sinfo != nullptr && sinfo->values, ValueError)
          << Desc(vb, gv->name_hint) << ": tir_vars must be a shape of known values";
      for (const PrimExpr& v : *sinfo->values) scalars.push_back(Dim(v));
    }
    TESSERA_CHECK_OR_THROW(inner->params.size() == bufs.size() + scalars.size(), ValueError)
        << Desc(vb, gv->name_hint) << ": the PrimFunc has " << inner->params.size() << " parameters but the call passes "
        << num_inputs << " input(s), " << bufs.size() - num_inputs << " output(s) and " << scalars.size()
        << " tir_var(s)";
    // Solve the callee's symbolic dims: plain-variable dims first, then check the others.
    std::unordered_map<const Object*, PrimExpr> vars;
    std::unordered_map<const Object*, tir::Buffer> buffers;
    auto bind = [&](const PrimExpr& inner_dim, const PrimExpr& value) {
      const auto* v = inner_dim.as<tir::VarNode>();
      if (v == nullptr || vars.count(v)) return;
      vars[v] = v->dtype == value.dtype() ? value : PrimExpr(tir::Cast(v->dtype, value));
    };
    std::vector<std::pair<tir::Buffer, tir::Buffer>> pairs;
    for (size_t i = 0; i < bufs.size(); ++i) {
      auto inner_buf = inner->buffer_map.Get(inner->params[i]);
      std::string what = i < num_inputs ? "argument #" + std::to_string(i) : "output #" + std::to_string(i - num_inputs);
      TESSERA_CHECK_OR_THROW(inner_buf.has_value(), ValueError)
          << Desc(vb, gv->name_hint) << ": parameter " << inner->params[i]->name_hint << " (" << what
          << ") is not a buffer";
      const tir::Buffer& in = *inner_buf;
      const tir::Buffer& out = bufs[i];
      TESSERA_CHECK_OR_THROW(in->shape.size() == out->shape.size() && in->dtype == out->dtype, ValueError)
          << Desc(vb, gv->name_hint) << ": " << what << " is a " << out->shape.size() << "-d " << out->dtype
          << " tensor but the PrimFunc's buffer " << in->name << " is " << in->shape.size() << "-d " << in->dtype;
      for (size_t d = 0; d < in->shape.size(); ++d) bind(in->shape[d], out->shape[d]);
      if (in->elem_offset.defined()) bind(in->elem_offset, out->elem_offset);
      buffers[in.get()] = out;
      vars[in->data.get()] = out->data;
      pairs.push_back({in, out});
    }
    for (size_t j = 0; j < scalars.size(); ++j) bind(inner->params[bufs.size() + j], scalars[j]);
    arith::Analyzer analyzer;
    // Dims like m * n or n + 1 whose other variables are known give the last one.
    for (const auto& [in, out] : pairs) {
      for (size_t d = 0; d < in->shape.size(); ++d) SolveDim(in->shape[d], out->shape[d], &vars, &analyzer);
    }
    auto substitute = [&](const PrimExpr& e) {
      return tir::Substitute(e, [&](const tir::Var& v) -> std::optional<PrimExpr> {
        auto it = vars.find(v.get());
        if (it != vars.end()) return it->second;
        TESSERA_THROW(ValueError) << Desc(vb, gv->name_hint) << ": the value of the PrimFunc's symbolic dim "
                                  << v->name_hint << " cannot be found from the arguments' shapes";
      });
    };
    for (const auto& [in, out] : pairs) {
      for (size_t d = 0; d < in->shape.size(); ++d) {
        PrimExpr expected = substitute(in->shape[d]);
        PrimExpr actual = out->shape[d];
        if (expected.dtype() != actual.dtype()) expected = tir::Cast(actual.dtype(), expected);
        TESSERA_CHECK_OR_THROW(!analyzer.CanProve(tir::NE(expected, actual)), ValueError)
            << Desc(vb, gv->name_hint) << ": buffer " << in->name << " has dim " << d << " = "
            << arith::ExprToString(analyzer.Simplify(expected)) << " but the value passed has "
            << arith::ExprToString(actual);
      }
    }
    InlineRenewer renewer(vars, buffers, &block_names_);
    const auto* realize = inner->body.as<tir::BlockRealizeNode>();
    if (realize != nullptr && realize->block->iter_vars.empty() && realize->block->name_hint == "root") {
      for (const tir::Buffer& b : realize->block->alloc_buffers) allocs_.push_back(renewer.Renew(b));
      stmts_.push_back(renewer.VisitStmt(realize->block->body));
    } else {
      stmts_.push_back(renewer.VisitStmt(inner->body));
    }
  }

 public:
  std::unordered_set<std::string> used_prim_funcs_;
  std::vector<BufferTree> param_trees_;

 private:
  IRModule mod_;
  std::string name_;
  Function func_;
  std::vector<std::pair<tir::Var, tir::Var>> dims_;  // (Relax dim, the PrimFunc's copy)
  Array<tir::Var> params_;
  Map<tir::Var, tir::Buffer> buffer_map_;
  std::unordered_map<const Object*, BufferTree> values_;
  std::unordered_map<const Object*, const Object*> aliases_;
  std::unordered_map<const Object*, std::pair<const Object*, int>> items_;
  struct PairHash {
    size_t operator()(const std::pair<const Object*, int>& p) const {
      return std::hash<const Object*>()(p.first) * 31 + std::hash<int>()(p.second);
    }
  };
  std::unordered_map<std::pair<const Object*, int>, tir::Buffer, PairHash> outputs_;
  // Results not yet written by a call_tir (each must be by the end).
  std::unordered_map<std::pair<const Object*, int>, std::string, PairHash> output_names_;
  Array<tir::Buffer> allocs_;
  std::vector<tir::Stmt> stmts_;
  std::unordered_set<std::string> block_names_;
};

struct FusedFunc {
  GlobalVar gv;                        // of the PrimFunc
  std::vector<tir::Var> scalar_dims;   // Relax dims passed as tir_vars
  std::vector<BufferTree> param_trees; // per Relax parameter
};

// Binds the primitive function's symbolic dims to the caller's values.
void MatchDims(const StructInfo& param, const StructInfo& arg, std::unordered_map<const Object*, PrimExpr>* out) {
  auto bind_all = [&](const Array<PrimExpr>& p, const Array<PrimExpr>& a) {
    for (size_t i = 0; i < p.size() && i < a.size(); ++i) {
      if (p[i].as<tir::VarNode>() && !out->count(p[i].get())) (*out)[p[i].get()] = a[i];
    }
  };
  if (const auto* pt = param.as<TensorStructInfoNode>()) {
    const auto* at = arg.as<TensorStructInfoNode>();
    auto ps = pt->GetShape();
    auto as = at ? at->GetShape() : std::nullopt;
    if (ps && as) bind_all(*ps, *as);
  } else if (const auto* ps = param.as<ShapeStructInfoNode>()) {
    const auto* as = arg.as<ShapeStructInfoNode>();
    if (ps->values && as && as->values) bind_all(*ps->values, *as->values);
  } else if (const auto* ptu = param.as<TupleStructInfoNode>()) {
    const auto* atu = arg.as<TupleStructInfoNode>();
    for (size_t i = 0; atu && i < ptu->fields.size() && i < atu->fields.size(); ++i) {
      MatchDims(ptu->fields[i], atu->fields[i], out);
    }
  }
}

class CallRewriter : public ExprMutator {
 public:
  CallRewriter(const IRModule& mod, const std::unordered_map<const Object*, FusedFunc>& fused)
      : ExprMutator(mod), fused_(fused) {}
  using ExprMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const CallNode* op) override {
    RelaxExpr expr = ExprMutator::VisitExpr_(op);
    const auto* call = expr.as<CallNode>();
    auto it = call ? fused_.find(call->op.get()) : fused_.end();
    if (it == fused_.end()) return expr;
    const FusedFunc& f = it->second;
    const auto* callee = Downcast<GlobalVar>(call->op).get();
    const auto* fn_sinfo = callee->struct_info_.as<FuncStructInfoNode>();
    TESSERA_CHECK_OR_THROW(call->args.size() == f.param_trees.size(), ValueError)
        << "FuseTIR: the call of '" << callee->name_hint << "' passes " << call->args.size() << " arguments for "
        << f.param_trees.size() << " parameters";
    Array<RelaxExpr> args;
    std::unordered_map<const Object*, PrimExpr> dims;
    for (size_t i = 0; i < call->args.size(); ++i) {
      Flatten(call->args[i], f.param_trees[i], &args);
      if (fn_sinfo && fn_sinfo->params && i < fn_sinfo->params->size()) {
        MatchDims((*fn_sinfo->params)[i], GetStructInfo(call->args[i]), &dims);
      }
    }
    static const Op& call_tir = Op::Get("relax.call_tir");
    Array<RelaxExpr> call_args{f.gv, Tuple(args)};
    if (!f.scalar_dims.empty()) {
      Array<PrimExpr> values;
      for (const tir::Var& v : f.scalar_dims) {
        auto d = dims.find(v.get());
        TESSERA_CHECK_OR_THROW(d != dims.end(), ValueError)
            << "FuseTIR: the call of '" << callee->name_hint << "' does not determine its symbolic dim "
            << v->name_hint;
        values.push_back(d->second);
      }
      call_args.push_back(ShapeExpr(values));
    }
    return Call(call_tir, call_args, ObjectRef(), {GetStructInfo(GetRef<Call>(op))}, op->span);
  }

 private:
  // The tensors of `arg` (tuple fields fetched by TupleGetItem) as the PrimFunc takes them.
  void Flatten(const RelaxExpr& arg, const BufferTree& tree, Array<RelaxExpr>* out) {
    if (tree.buffer) {
      out->push_back(arg);
      return;
    }
    for (size_t k = 0; k < tree.fields.size(); ++k) {
      RelaxExpr field = arg.as<TupleNode>() ? arg.as<TupleNode>()->fields[k]
                                            : RelaxExpr(builder_->Emit(TupleGetItem(arg, static_cast<int>(k))));
      Flatten(field, tree.fields[k], out);
    }
  }
  const std::unordered_map<const Object*, FusedFunc>& fused_;
};

// Constants written inside a primitive function (FuseOpsByPattern with
// bind_constants=True) become trailing parameters, and every call of the
// function passes them: the fused PrimFunc then reads them as buffers.
class ConstantsToParams : public ExprMutatorBase {
 public:
  std::vector<std::pair<const ConstantNode*, Var>> lifted;
  RelaxExpr VisitExpr_(const ConstantNode* op) override {
    for (const auto& [c, v] : lifted) {
      if (c == op) return v;
    }
    Var v("const" + std::to_string(lifted.size()), GetStructInfo(GetRef<RelaxExpr>(op)));
    lifted.emplace_back(op, v);
    return v;
  }
};

class AppendConstantArgs : public ExprMutatorBase {
 public:
  explicit AppendConstantArgs(const std::unordered_map<const Object*, Array<RelaxExpr>>& extra) : extra_(extra) {}
  RelaxExpr VisitExpr_(const CallNode* op) override {
    RelaxExpr e = ExprMutatorBase::VisitExpr_(op);
    const auto* call = e.as<CallNode>();
    auto it = call ? extra_.find(call->op.get()) : extra_.end();
    if (it == extra_.end()) return e;
    Array<RelaxExpr> args = call->args;
    for (const RelaxExpr& c : it->second) args.push_back(c);
    Call updated(call->op, args, call->attrs, call->sinfo_args, call->span);
    updated->struct_info_ = call->struct_info_;  // the call's result is unchanged
    return updated;
  }

 private:
  const std::unordered_map<const Object*, Array<RelaxExpr>>& extra_;
};

IRModule LiftConstantsOfPrimitives(const IRModule& mod) {
  IRModule out = mod;
  std::unordered_map<const Object*, Array<RelaxExpr>> extra;  // primitive's GlobalVar -> its constants
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    const auto* fn = mod->Lookup(gv).as<FunctionNode>();
    if (fn == nullptr || !IsPrimitive(fn) || fn->attrs.Get("Codegen")) continue;
    ConstantsToParams lift;
    RelaxExpr body = lift.VisitExpr(fn->body);
    if (lift.lifted.empty()) continue;
    Array<Var> params = fn->params;
    Array<RelaxExpr> constants;
    for (const auto& [c, v] : lift.lifted) {
      params.push_back(v);
      constants.push_back(GetRef<RelaxExpr>(c));
    }
    if (out.same_as(mod)) out = mod.ShallowCopy();
    out.mutable_node()->Update(gv, Function(params, body, fn->ret_struct_info, fn->is_pure, fn->attrs, fn->span));
    extra[gv.get()] = constants;
  }
  if (extra.empty()) return mod;
  for (const GlobalVar& gv : out->GetGlobalVars()) {
    const auto* fn = out->Lookup(gv).as<FunctionNode>();
    if (fn == nullptr || extra.count(gv.get())) continue;
    AppendConstantArgs append(extra);
    RelaxExpr updated = append.VisitExpr(GetRef<Function>(fn));
    if (!updated.same_as(GetRef<Function>(fn))) out.mutable_node()->Update(gv, Downcast<Function>(updated));
  }
  return out;
}

IRModule RunFuseTIR(const IRModule& input) {
  const IRModule mod = LiftConstantsOfPrimitives(input);
  IRModule out = mod.ShallowCopy();
  std::unordered_map<const Object*, FusedFunc> fused;  // keyed by the primitive function's GlobalVar
  std::vector<std::pair<tir::PrimFunc, GlobalVar>> made;
  std::unordered_set<std::string> inner_prim_funcs;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    const auto* fn = mod->Lookup(gv).as<FunctionNode>();
    if (fn == nullptr || !IsPrimitive(fn) || fn->attrs.Get("Codegen")) continue;
    FusedPrimFuncBuilder builder(mod, gv->name_hint, GetRef<Function>(fn));
    tir::PrimFunc prim = builder.Build();
    inner_prim_funcs.insert(builder.used_prim_funcs_.begin(), builder.used_prim_funcs_.end());
    out.mutable_node()->Remove(gv);
    GlobalVar prim_gv;
    for (const auto& [existing, existing_gv] : made) {
      if (StructuralEqual(existing, prim)) prim_gv = existing_gv;
    }
    if (!prim_gv.defined()) {
      prim_gv = GlobalVar(gv->name_hint);
      out.mutable_node()->Add(prim_gv, prim);
      made.push_back({prim, prim_gv});
    }
    fused[gv.get()] = FusedFunc{prim_gv, builder.scalar_dims_, builder.param_trees_};
  }
  if (fused.empty()) return mod;
  for (const GlobalVar& gv : out->GetGlobalVars()) {
    const auto* fn = out->Lookup(gv).as<FunctionNode>();
    if (fn == nullptr) continue;
    CallRewriter rewriter(mod, fused);
    RelaxExpr updated = rewriter.VisitExpr(GetRef<Function>(fn));
    if (!updated.same_as(GetRef<Function>(fn))) out.mutable_node()->Update(gv, Downcast<Function>(updated));
  }
  // The PrimFuncs only the primitive functions called are gone with them.
  std::unordered_set<std::string> referenced;
  for (const auto& [gv, func] : out->functions.items()) {
    if (!func->IsInstance<FunctionNode>()) continue;
    PostOrderVisit(Downcast<RelaxExpr>(func), [&](const RelaxExpr& e) {
      if (const auto* g = e.as<GlobalVarNode>()) referenced.insert(g->name_hint);
    });
  }
  for (const std::string& name : inner_prim_funcs) {
    auto gv = out->FindGlobalVar(name);
    if (gv && !referenced.count(name) && out->Lookup(*gv)->IsInstance<tir::PrimFuncNode>()) {
      out.mutable_node()->Remove(*gv);
    }
  }
  return out;
}

}  // namespace

namespace transform {

// As TVM: tuple parameters of the fused functions are expanded and unused
// parameters dropped first; unused bindings go after (functions stay: the
// fused ones are already replaced).
Pass FuseTIR() {
  Pass inner = tessera::transform::CreateModulePass(
      [](IRModule mod, tessera::transform::PassContext) {
        return UpdateRelaxFunctions(RunFuseTIR(mod), [](const GlobalVar&, const Function& f) {
          return RemoveUnusedAndIntermediates(f);
        });
      },
      0, "FuseTIRInner");
  return tessera::transform::Sequential({ExpandTupleArguments(), RemoveUnusedParameters(), inner}, "FuseTIR");
}
TESSERA_REGISTER_PASS("relax.transform.FuseTIR", FuseTIR);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
