// Global functions "arith.*" through which Python (tessera.arith) reaches
// the arith layer: an Analyzer handle object and its methods, integer sets,
// iterator-map detection and normalization.
#include <memory>

#include "arith/analyzer.h"
#include "arith/expr_deep_equal.h"
#include "arith/iter_map.h"
#include "runtime/registry.h"

namespace tessera {
namespace arith {
namespace {

using tir::Var;

// An Analyzer owned by a reference-counted object (Python's Analyzer class).
class AnalyzerObj : public Object {
 public:
  std::shared_ptr<Analyzer> analyzer = std::make_shared<Analyzer>();
  TESSERA_DECLARE_FINAL_OBJECT_INFO(AnalyzerObj, Object, "arith.Analyzer");
};
class AnalyzerRef : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(AnalyzerRef, ObjectRef, AnalyzerObj);
};

Analyzer* Get(const AnalyzerRef& ref) {
  TESSERA_CHECK_OR_THROW(ref.defined(), ValueError) << "expected an Analyzer, got None";
  return ref->analyzer.get();
}

// Domain maps accept IntSet or Range values (Range [min, min+extent)).
Map<Var, IntSet> ToIntSetMap(const Map<Var, Any>& dom) {
  Map<Var, IntSet> out;
  for (const auto& [v, value] : dom.items()) {
    TESSERA_CHECK_OR_THROW(v.defined(), ValueError) << "domain map: a key is None";
    if (auto s = value.try_cast<IntSet>(); s && s->defined()) {
      out.Set(v, *s);
    } else if (auto r = value.try_cast<Range>(); r && r->defined()) {
      out.Set(v, IntSet::FromRange(*r));
    } else {
      TESSERA_THROW(TypeError) << "domain map: the value for " << v->name_hint << " must be an IntSet or a Range, got "
                               << value.type_name();
    }
  }
  return out;
}

TESSERA_REGISTER_OBJECT_TYPE(AnalyzerObj);

TESSERA_REGISTER_GLOBAL("arith.CreateAnalyzer").set_body_typed([]() {
  return AnalyzerRef(ObjectPtr<Object>(make_object<AnalyzerObj>()));
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerSimplify").set_body_typed([](AnalyzerRef a, PrimExpr e, int steps) {
  return Get(a)->Simplify(e, steps);
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerRewriteSimplify").set_body_typed([](AnalyzerRef a, PrimExpr e) {
  return Get(a)->RewriteSimplify(e);
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerCanonicalSimplify").set_body_typed([](AnalyzerRef a, PrimExpr e) {
  return Get(a)->CanonicalSimplify(e);
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerConstIntBound").set_body_typed([](AnalyzerRef a, PrimExpr e) {
  return Get(a)->const_int_bound(e);
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerModularSet").set_body_typed([](AnalyzerRef a, PrimExpr e) {
  return Get(a)->modular_set(e);
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerCanProve").set_body_typed([](AnalyzerRef a, PrimExpr cond) {
  return Get(a)->CanProve(cond);
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerCanProveEqual").set_body_typed([](AnalyzerRef a, PrimExpr x, PrimExpr y) {
  return Get(a)->CanProveEqual(x, y);
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerCanProveGreaterEqual").set_body_typed([](AnalyzerRef a, PrimExpr x, int64_t v) {
  return Get(a)->CanProveGreaterEqual(x, v);
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerCanProveLess").set_body_typed([](AnalyzerRef a, PrimExpr x, int64_t v) {
  return Get(a)->CanProveLess(x, v);
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerBind").set_body_typed([](AnalyzerRef a, Var v, Any value, bool override) {
  TESSERA_CHECK_OR_THROW(v.defined(), ValueError) << "Analyzer.bind: the variable is None";
  if (auto r = value.try_cast<Range>(); r && r->defined() && value.is_object()) {
    Get(a)->Bind(v, *r, override);
  } else if (auto e = value.try_cast<PrimExpr>(); e && e->defined()) {
    Get(a)->Bind(v, *e, override);
  } else {
    TESSERA_THROW(TypeError) << "Analyzer.bind: expected a PrimExpr or a Range for " << v->name_hint << ", got "
                             << value.type_name();
  }
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerUpdateConstIntBound")
    .set_body_typed([](AnalyzerRef a, Var v, ConstIntBound b, bool override) {
      Get(a)->const_int_bound.Update(v, b, override);
    });
TESSERA_REGISTER_GLOBAL("arith.AnalyzerUpdateModularSet").set_body_typed([](AnalyzerRef a, Var v, ModularSet m) {
  Get(a)->modular_set.Update(v, m);
});
TESSERA_REGISTER_GLOBAL("arith.AnalyzerIntSet").set_body_typed([](AnalyzerRef a, PrimExpr e, Map<Var, Any> dom) {
  return Get(a)->int_set(e, ToIntSetMap(dom));
});

TESSERA_REGISTER_GLOBAL("arith.IntervalSet").set_body_typed([](PrimExpr mn, PrimExpr mx) {
  return IntSet(IntervalSet(mn, mx));
});
TESSERA_REGISTER_GLOBAL("arith.IntSetSinglePoint").set_body_typed([](PrimExpr p) { return IntSet::SinglePoint(p); });
TESSERA_REGISTER_GLOBAL("arith.IntSetFromRange").set_body_typed([](Range r) { return IntSet::FromRange(r); });
TESSERA_REGISTER_GLOBAL("arith.IntSetFromMinExtent").set_body_typed([](PrimExpr mn, PrimExpr ext) {
  return IntSet::FromMinExtent(mn, ext);
});
TESSERA_REGISTER_GLOBAL("arith.IntSetEverything").set_body_typed([]() { return IntSet::Everything(); });
TESSERA_REGISTER_GLOBAL("arith.IntSetNothing").set_body_typed([]() { return IntSet::Nothing(); });
TESSERA_REGISTER_GLOBAL("arith.IntSetIsNothing").set_body_typed([](IntSet s) { return s.IsNothing(); });
TESSERA_REGISTER_GLOBAL("arith.IntSetIsEverything").set_body_typed([](IntSet s) { return s.IsEverything(); });
TESSERA_REGISTER_GLOBAL("arith.IntSetIsSinglePoint").set_body_typed([](IntSet s) { return s.IsSinglePoint(); });
TESSERA_REGISTER_GLOBAL("arith.IntSetCoverRange").set_body_typed([](IntSet s, Range max_range) {
  return s.CoverRange(max_range);
});
TESSERA_REGISTER_GLOBAL("arith.IntSetIsPosInf").set_body_typed([](PrimExpr e) { return IsPosInf(e); });
TESSERA_REGISTER_GLOBAL("arith.IntSetIsNegInf").set_body_typed([](PrimExpr e) { return IsNegInf(e); });
TESSERA_REGISTER_GLOBAL("arith.EvalSet").set_body_typed([](PrimExpr e, Map<Var, Any> dom) {
  return EvalSet(e, ToIntSetMap(dom));
});
TESSERA_REGISTER_GLOBAL("arith.IntSetUnion").set_body_typed([](Array<IntSet> sets) { return Union(sets); });
TESSERA_REGISTER_GLOBAL("arith.IntSetIntersect").set_body_typed([](Array<IntSet> sets) { return Intersect(sets); });

TESSERA_REGISTER_GLOBAL("arith.IterMark").set_body_typed([](PrimExpr source, PrimExpr extent) {
  return IterMark(source, extent);
});
TESSERA_REGISTER_GLOBAL("arith.IterSplitExpr")
    .set_body_typed([](IterMark source, PrimExpr lower_factor, PrimExpr extent, PrimExpr scale) {
      return IterSplitExpr(source, lower_factor, extent, scale);
    });
TESSERA_REGISTER_GLOBAL("arith.IterSumExpr").set_body_typed([](Array<IterSplitExpr> args, PrimExpr base) {
  return IterSumExpr(args, base);
});
TESSERA_REGISTER_GLOBAL("arith.DetectIterMap")
    .set_body_typed([](Array<PrimExpr> indices, Map<Var, Range> input_iters, PrimExpr predicate, Any level,
                       bool simplify_trivial_iterators) {
      Analyzer analyzer;
      return DetectIterMap(indices, input_iters, predicate, ParseIterMapLevel(level), &analyzer,
                           simplify_trivial_iterators);
    });
TESSERA_REGISTER_GLOBAL("arith.NormalizeIterMapToExpr").set_body_typed([](PrimExpr e) {
  return NormalizeIterMapToExpr(e);
});
TESSERA_REGISTER_GLOBAL("arith.IterMapSimplify")
    .set_body_typed([](Array<PrimExpr> indices, Map<Var, Range> input_iters, PrimExpr predicate, Any level,
                       bool simplify_trivial_iterators) {
      Analyzer analyzer;
      return IterMapSimplify(indices, input_iters, predicate, ParseIterMapLevel(level), &analyzer,
                             simplify_trivial_iterators);
    });
TESSERA_REGISTER_GLOBAL("arith.ExprDeepEqual").set_body_typed([](PrimExpr a, PrimExpr b) {
  return ExprDeepEqual(a, b);
});

}  // namespace
}  // namespace arith
}  // namespace tessera
