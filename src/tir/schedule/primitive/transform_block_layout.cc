// transform_block_layout (TVM's): re-lays out a block's iteration space by a
// bijective affine index map: the block's new iteration variables are the
// map's outputs (each spatial or reduction as the variables it mixes), its
// body reads the old variables through the inverse map, and one new loop per
// new variable replaces its loop nest. Its instruction kind
// ("TransformBlockLayout"), the Schedule method and the FFI entry. TIR schedule layer.
#include <string>
#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"
#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

const char* kPrim = "transform_block_layout";

// Simplifies the indices of loads and stores and the declared regions of
// one block (the substituted inverse map leaves sums of div/mod terms).
class AccessSimplifier : public StmtExprMutator {
 public:
  explicit AccessSimplifier(arith::Analyzer* ana) : ana_(ana) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    return BufferLoad(load->buffer, Simplify(load->indices), load->span);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    return BufferStore(store->buffer, store->value, Simplify(store->indices), store->span);
  }
  Array<BufferRegion> Regions(const Array<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const BufferRegion& r : regions) {
      std::vector<Range> rs;
      for (const Range& x : r->region) rs.push_back(Range::FromMinExtent(ana_->Simplify(x->min), ana_->Simplify(x->extent)));
      out.push_back(BufferRegion(r->buffer, Array<Range>(rs)));
    }
    return Array<BufferRegion>(out);
  }

 private:
  Array<PrimExpr> Simplify(const Array<PrimExpr>& xs) {
    std::vector<PrimExpr> out;
    for (const PrimExpr& x : xs) out.push_back(ana_->Simplify(x));
    return Array<PrimExpr>(out);
  }
  arith::Analyzer* ana_;
};

void TransformBlockLayout(const Schedule& sch, const BlockRV& block_rv, const IndexMap& index_map) {
  BlockLocation loc = sch.LocateBlock(block_rv, kPrim);
  const std::string func = sch->blocks.at(block_rv.get()).func;
  PrimFunc f = sch.FuncOf(func);
  const BlockNode* b = loc.block;
  const std::string bname = "block \"" + b->name_hint + "\"";

  // The loops above the block hold only it, start at 0, and bind its
  // iteration variables one each, in order (TVM's trivial binding).
  for (size_t i = 0; i < loc.loops.size(); ++i) {
    const ForNode* loop = loc.loops[i];
    const Object* inner = i + 1 < loc.loops.size() ? static_cast<const Object*>(loc.loops[i + 1])
                                                    : static_cast<const Object*>(loc.realize);
    if (loop->body.get() != inner) {
      ThrowScheduleError(kPrim, "loop " + loop->loop_var->name_hint + " above " + bname +
                                    " holds other statements; the loops must hold only the block",
                         f, {loop});
    }
    const int64_t* m = AsConstInt(loop->min);
    if (m == nullptr || *m != 0) {
      ThrowScheduleError(kPrim, "loop " + loop->loop_var->name_hint + " above " + bname + " does not start at 0", f,
                         {loop});
    }
  }
  bool trivial = loc.loops.size() == b->iter_vars.size();
  for (size_t i = 0; trivial && i < loc.loops.size(); ++i) {
    trivial = loc.realize->iter_values[i].get() == loc.loops[i]->loop_var.get();
  }
  if (!trivial) {
    ThrowScheduleError(kPrim, bname + " does not have a trivial binding: each iteration variable must be bound to "
                                      "one loop above it, in order",
                       f, {b});
  }
  if (index_map->initial_indices.size() != b->iter_vars.size()) {
    ThrowScheduleError(kPrim, "the index map takes " + std::to_string(index_map->initial_indices.size()) +
                                  " indices but " + bname + " has " + std::to_string(b->iter_vars.size()) +
                                  " iteration variables",
                       f, {b});
  }
  std::vector<PrimExpr> old_vars, extents;
  std::unordered_map<const VarNode*, int> iter_type;
  arith::Analyzer ana;
  for (const IterVar& iv : b->iter_vars) {
    const int64_t* m = AsConstInt(iv->dom->min);
    if (m == nullptr || *m != 0) {
      ThrowScheduleError(kPrim, "iteration variable " + iv->var->name_hint + " of " + bname + " does not start at 0",
                         f, {b});
    }
    old_vars.push_back(iv->var);
    extents.push_back(iv->dom->extent);
    iter_type[iv->var.get()] = iv->iter_type;
    ana.Bind(iv->var, iv->dom);
  }
  Array<PrimExpr> mapped, new_extents;
  IndexMap inverse;
  try {
    mapped = index_map.MapIndices(Array<PrimExpr>(old_vars));
    inverse = index_map.Inverse(Array<PrimExpr>(extents));
    new_extents = index_map.MapShape(Array<PrimExpr>(extents));
  } catch (const Error& e) {
    ThrowScheduleError(kPrim, "the index map " + index_map.AsLambda() + " cannot re-lay out " + bname + ": " +
                                  e.what(),
                       f, {b});
  }
  // New iteration variables, typed by the old ones each output mixes.
  std::vector<IterVar> new_iters;
  std::vector<PrimExpr> new_vars;
  arith::Analyzer new_ana;
  for (size_t i = 0; i < mapped.size(); ++i) {
    DataType t = mapped[i].dtype();
    Var v("v" + std::to_string(i), t);
    PrimExpr ext = new_ana.Simplify(cast(t, new_extents[i]));
    int type = kDataPar;
    const int64_t* c = AsConstInt(ext);
    if (c == nullptr || *c != 1) {
      int found = -1;
      PostOrderVisit(mapped[i], [&](const ObjectRef& n) {
        const auto* var = n.as<VarNode>();
        if (var == nullptr || !iter_type.count(var)) return;
        int k = iter_type.at(var);
        found = found == -1 || found == k ? k : -2;
      });
      if (found == -2 || (found != kDataPar && found != kCommReduce)) {
        ThrowScheduleError(kPrim, "output " + std::to_string(i) + " of the index map " + index_map.AsLambda() +
                                      " mixes iteration variables of different kinds (spatial and reduction) of " +
                                      bname,
                           f, {b});
      }
      type = found;
    }
    Range dom = Range::FromMinExtent(IntImm(t, 0), ext);
    new_iters.push_back(IterVar(dom, v, type));
    new_vars.push_back(v);
    // The accesses are simplified knowing the new variables' ranges (as
    // TVM: `co // 64` with co < 64 folds to 0); a unit-extent variable is
    // not bound, so it stays a variable, as in TVM.
    if (c == nullptr || *c != 1) new_ana.Bind(v, dom);
  }
  Array<PrimExpr> old_in_new = inverse.MapIndices(Array<PrimExpr>(new_vars));
  Map<Var, PrimExpr> subst;
  for (size_t i = 0; i < old_vars.size(); ++i) subst.Set(Downcast<Var>(old_vars[i]), old_in_new[i]);
  // An output that is an old variable itself gives it back directly (the
  // derived inverse folds a unit-extent variable to 0; TVM keeps it).
  for (size_t i = 0; i < mapped.size(); ++i) {
    if (const auto* v = mapped[i].as<VarNode>()) {
      if (iter_type.count(v)) subst.Set(GetRef<Var>(v), new_vars[i]);
    }
  }

  AccessSimplifier simplifier(&new_ana);
  Block nb = GetRef<Block>(b);
  {
    auto* n = nb.CopyOnWrite();
    n->iter_vars = Array<IterVar>(new_iters);
    n->body = simplifier.VisitStmt(Substitute(b->body, subst));
    if (b->init) n->init = simplifier.VisitStmt(Substitute(*b->init, subst));
    auto substitute_regions = [&](const Array<BufferRegion>& regions) {
      std::vector<BufferRegion> out;
      for (const BufferRegion& r : regions) {
        std::vector<Range> rs;
        for (const Range& x : r->region) {
          rs.push_back(Range::FromMinExtent(Substitute(x->min, subst), Substitute(x->extent, subst)));
        }
        out.push_back(BufferRegion(r->buffer, Array<Range>(rs)));
      }
      return simplifier.Regions(Array<BufferRegion>(out));
    };
    n->reads = substitute_regions(b->reads);
    n->writes = substitute_regions(b->writes);
  }
  std::vector<Var> loop_vars;
  for (size_t i = 0; i < new_iters.size(); ++i) loop_vars.emplace_back("ax" + std::to_string(i), new_iters[i]->var.dtype());
  // The predicate is in the old loops' variables (the bindings are
  // trivial: old loop k binds old iterator k): rewrite it in the new loops
  // through the inverse map. (TVM keeps it as is, leaving the old loop
  // variables undefined.)
  PrimExpr predicate = loc.realize->predicate;
  if (!IsConstInt(predicate, 1)) {
    Map<Var, PrimExpr> to_loops;
    for (size_t i = 0; i < new_vars.size(); ++i) to_loops.Set(Downcast<Var>(new_vars[i]), loop_vars[i]);
    Map<Var, PrimExpr> old_loops;
    for (size_t k = 0; k < old_vars.size(); ++k) {
      if (const auto* lv = loc.realize->iter_values[k].as<VarNode>()) {
        old_loops.Set(GetRef<Var>(lv), Substitute(old_in_new[k], to_loops));
      }
    }
    predicate = new_ana.Simplify(Substitute(predicate, old_loops));
  }
  Stmt body = BlockRealize(Array<PrimExpr>(std::vector<PrimExpr>(loop_vars.begin(), loop_vars.end())),
                           predicate, nb, loc.realize->span);
  for (size_t i = loop_vars.size(); i-- > 0;) {
    body = For(loop_vars[i], IntImm(loop_vars[i].dtype(), 0), new_iters[i]->dom->extent, ForKind::kSerial, body);
  }
  const Object* top = loc.loops.empty() ? static_cast<const Object*>(loc.realize) : loc.loops[0];
  sch.Commit(func, ReplaceInFunc(f, top, body));
  sch.Record("TransformBlockLayout", {block_rv}, {index_map}, {});
}

}  // namespace

void Schedule::TransformBlockLayout(const BlockRV& block, const IndexMap& index_map) const {
  tir::TransformBlockLayout(*this, block, index_map);
}

// attrs: the IndexMap (JSON: its ToJSON text).
TESSERA_REGISTER_INST_KIND("TransformBlockLayout")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      TransformBlockLayout(sch, in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<IndexMap>());
      return Array<Any>();
    })
    .set_as_python([](const std::vector<std::string>& in, const Attrs& attrs, const std::optional<std::string>&,
                      const std::vector<std::string>&) {
      return "sch.transform_block_layout(block=" + in.at(0) + ", index_map=" + attrs.at_any(0).cast<IndexMap>().AsLambda() +
             ")";
    })
    .set_attrs_as_json([](const Attrs& attrs) { return Array<Any>{attrs.at_any(0).cast<IndexMap>().ToJSON()}; })
    .set_attrs_from_json([](const Attrs& attrs) {
      TESSERA_CHECK_OR_THROW(attrs.size() == 1, ValueError)
          << "TransformBlockLayout needs 1 attribute, got " << attrs.size();
      return Array<Any>{IndexMap::FromJSON(attrs.at_any(0).cast<std::string>())};
    });

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.TransformBlockLayout")
    .set_body_typed([](Schedule s, BlockRV b, IndexMap m) { TransformBlockLayout(s, b, m); });

}  // namespace tir
}  // namespace tessera
