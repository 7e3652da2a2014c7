// SharedFootprint (see shared_footprint.h). MetaSchedule layer.
#include "meta_schedule/postproc/shared_footprint.h"

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace meta_schedule {
namespace {

bool IsShared(const std::string& scope) { return scope == "shared" || scope == "shared.dyn"; }

int64_t ConstValue(const PrimExpr& e) {
  const auto* imm = e.as<IntImmNode>();
  return imm ? imm->value : -1;
}

}  // namespace

SharedFootprint::Loop::Loop(SharedFootprint* footprint, const tir::ForNode* loop, bool in_kernel)
    : footprint_(footprint), pushed_(in_kernel) {
  if (pushed_) footprint_->loops_.push_back(loop);
}

SharedFootprint::Loop::~Loop() {
  if (pushed_) footprint_->loops_.pop_back();
}

void SharedFootprint::Note(bool in_kernel, const tir::BlockRealizeNode* realize) {
  if (!in_kernel) return;
  for (const tir::Buffer& b : realize->block->alloc_buffers) {
    if (IsShared(b.scope())) inside_.insert(b.get());
  }
  Map<tir::Var, PrimExpr> bindings;
  for (size_t i = 0; i < realize->block->iter_vars.size(); ++i) {
    bindings.Set(realize->block->iter_vars[i]->var, realize->iter_values[i]);
  }
  for (const auto* regions : {&realize->block->reads, &realize->block->writes}) {
    for (const tir::BufferRegion& r : *regions) {
      if (!IsShared(r->buffer.scope()) || inside_.count(r->buffer.get())) continue;
      Access a{loops_, {}};
      for (const Range& d : r->region) {
        a.region.push_back(
            Range::FromMinExtent(tir::Substitute(d->min, bindings), tir::Substitute(d->extent, bindings)));
      }
      accesses_[r->buffer.get()].push_back(std::move(a));
    }
  }
}

void SharedFootprint::Close(int64_t* shared_bytes, const std::function<void(const std::string&)>& fail) {
  arith::Analyzer analyzer;
  for (const auto& [buf, accesses] : accesses_) {
    size_t common = accesses[0].loops.size();  // the loops around every access
    for (const Access& a : accesses) {
      size_t k = 0;
      while (k < common && k < a.loops.size() && a.loops[k] == accesses[0].loops[k]) ++k;
      common = k;
    }
    std::vector<arith::IntSet> sets;
    for (const Access& a : accesses) {
      Map<tir::Var, arith::IntSet> relaxed;
      for (size_t k = 0; k < a.loops.size(); ++k) {
        const tir::ForNode* l = a.loops[k];
        bool thread = l->thread_binding && (*l->thread_binding)->thread_tag.rfind("blockIdx", 0) != 0;
        if (k >= common || thread) relaxed.Set(l->loop_var, arith::IntSet::FromMinExtent(l->min, l->extent));
      }
      for (size_t d = 0; d < a.region.size(); ++d) {
        arith::IntSet set = arith::EvalSet(a.region[d], relaxed, &analyzer);
        if (sets.size() <= d) sets.push_back(set);
        else sets[d] = arith::Union({sets[d], set}, &analyzer);
      }
    }
    int64_t bytes = buf->dtype.bytes();
    for (size_t d = 0; d < sets.size() && bytes >= 0; ++d) {
      int64_t e = -1;
      if (sets[d].HasLowerBound() && sets[d].HasUpperBound()) {
        e = ConstValue(analyzer.Simplify(tir::sub(sets[d].max(), sets[d].min())));
        if (e >= 0) e += 1;
      }
      if (e < 0 && d < buf->shape.size()) e = ConstValue(buf->shape[d]);  // the whole dimension
      bytes = e < 0 ? -1 : bytes * e;
    }
    if (bytes < 0) fail("shared buffer " + buf->name + " has a non-constant size");
    else *shared_bytes += bytes;
  }
  inside_.clear();
  accesses_.clear();
}

}  // namespace meta_schedule
}  // namespace tessera
