// Group 2 of the per-store features (TVM's buffer-access group, 18 values for
// each of up to buffers_per_store buffers the store reads or writes, zero
// padded): access type, bytes and unique bytes touched, cache lines and
// unique lines, reuse type (loop-invariant / serial between stores / none),
// reuse distance in iterations and bytes, reuse count, those sizes divided by
// the reuse count, and the innermost stride. Buffers are ordered by lines,
// then bytes (descending), then name. Also records, per loop, the bytes the
// store's accesses touch in one iteration of it (read by group 3).
#include <algorithm>
#include <limits>
#include <unordered_set>

#include "meta_schedule/feature_extractor/feature_group.h"
#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {
namespace {

using namespace tir;
using MultiIndex = std::vector<PrimExpr>;

enum AccessType { kRead = 0, kWrite = 1, kReadWrite = 2 };
enum ReuseType { kLoopMultipleRead = 0, kSerialMultipleReadWrite = 1, kNoReuse = 2 };

// The coefficient of `var` in `e` when `e` is linear in it (0: absent); 1 when
// it occurs non-linearly (floordiv, floormod, products of variables...).
double VarCoefficient(const PrimExpr& e, const VarNode* var) {
  if (const auto* v = e.as<VarNode>()) return v == var ? 1.0 : 0.0;
  if (e.as<IntImmNode>() || e.as<FloatImmNode>()) return 0.0;
  if (const auto* n = e.as<AddNode>()) return VarCoefficient(n->a, var) + VarCoefficient(n->b, var);
  if (const auto* n = e.as<SubNode>()) return VarCoefficient(n->a, var) - VarCoefficient(n->b, var);
  if (const auto* n = e.as<CastNode>()) return VarCoefficient(n->value, var);
  if (const auto* n = e.as<MulNode>()) {
    if (const int64_t* c = AsConstInt(n->b)) return VarCoefficient(n->a, var) * double(*c);
    if (const int64_t* c = AsConstInt(n->a)) return VarCoefficient(n->b, var) * double(*c);
  }
  bool found = false;
  PostOrderVisit(e, [&](const ObjectRef& node) { found = found || node.get() == var; });
  return found ? 1.0 : 0.0;
}

struct BufferAccess {
  const BufferNode* buffer = nullptr;
  AccessType type = kRead;
  std::vector<MultiIndex> indices;
  std::vector<double> numel_under_loop;  // elements touched by one iteration of loop i (outermost first)
  std::vector<double> access_shape;      // extent per dimension touched by the whole nest
  double continuous_bytes = 1, min_stride = 0, innermost_stride = 0, non_strided_prod = 1;
  ReuseType reuse = kNoReuse;
  double reuse_dis_iter = 0, reuse_dis_bytes = 0, reuse_ct = 0;
  double bytes = 0, unique_bytes = 0, lines = 0, unique_lines = 0;
};

std::vector<BufferAccess> CollectAccesses(const BufferStoreNode* store) {
  std::vector<BufferAccess> out;
  auto find = [&out](const BufferNode* b) -> BufferAccess* {
    for (BufferAccess& a : out)
      if (a.buffer == b) return &a;
    return nullptr;
  };
  out.emplace_back();
  out.back().buffer = store->buffer.get();
  out.back().type = kWrite;
  out.back().indices.emplace_back(store->indices.begin(), store->indices.end());
  PostOrderVisit(store->value, [&](const ObjectRef& node) {
    const auto* load = node.as<BufferLoadNode>();
    if (!load) return;
    BufferAccess* a = find(load->buffer.get());
    if (a == nullptr) {
      out.emplace_back();
      a = &out.back();
      a->buffer = load->buffer.get();
      a->type = kRead;
    } else if (a->type == kWrite) {
      a->type = kReadWrite;  // a read-modify-write keeps the indices of its write
    }
    if (a->type != kReadWrite) a->indices.emplace_back(load->indices.begin(), load->indices.end());
  });
  return out;
}

// Per-dimension extent of the union of `indices` under the analyzer's current
// loop ranges (an unbounded dimension takes the buffer's extent).
std::vector<double> RelaxedShape(const BufferAccess& a, const std::vector<double>& buffer_shape,
                                 arith::Analyzer* analyzer, double* numel) {
  *numel = 1;
  size_t ndim = buffer_shape.size();
  std::vector<double> shape(ndim, 1.0);
  if (a.indices.empty()) return shape;
  for (size_t d = 0; d < ndim; ++d) {
    int64_t lo = arith::ConstIntBound::kPosInf, hi = arith::ConstIntBound::kNegInf;
    bool unbounded = false;
    for (const MultiIndex& idx : a.indices) {
      if (d >= idx.size()) continue;
      arith::BoundEntry b = analyzer->const_int_bound.Eval(idx[d]);
      if (b.min_value == arith::ConstIntBound::kNegInf || b.max_value == arith::ConstIntBound::kPosInf) {
        unbounded = true;
        break;
      }
      lo = std::min(lo, b.min_value);
      hi = std::max(hi, b.max_value);
    }
    double ext = unbounded ? buffer_shape[d] : (hi >= lo ? double(hi) - double(lo) + 1.0 : 0.0);
    shape[d] = ext;
    *numel *= ext;
  }
  return shape;
}

void Compute(StoreContext* ctx, std::vector<double>* out) {
  const LoopNest& nest = ctx->nest;
  const ForVec& loops = nest.loops;
  const int n_loops = static_cast<int>(loops.size());
  arith::Analyzer* analyzer = ctx->analyzer;
  std::vector<BufferAccess> accesses = CollectAccesses(ctx->store);
  std::vector<std::vector<double>> shapes;
  for (BufferAccess& a : accesses) {
    shapes.push_back(ConstBufferShape(a.buffer, analyzer));
    a.numel_under_loop.assign(n_loops, 0.0);
    a.access_shape.assign(shapes.back().size(), 1.0);
  }
  // Region touched by one iteration of each loop: loops outside it are fixed at
  // their start, it and the loops inside it range over their extents.
  ctx->touched_bytes_per_loop.assign(n_loops, 0.0);
  for (const ForNode* l : loops) analyzer->const_int_bound.Bind(l->loop_var, Range::FromMinExtent(l->min, 1), true);
  bool never_runs = false;  // a loop of constant extent <= 0 at or inside loop i
  for (int i = n_loops - 1; i >= 0; --i) {
    const ForNode* l = loops[i];
    never_runs = never_runs || LoopExtentOr1(l) == 0;
    if (!never_runs) analyzer->const_int_bound.Bind(l->loop_var, Range::FromMinExtent(l->min, l->extent), true);
    for (size_t k = 0; k < accesses.size(); ++k) {
      BufferAccess& a = accesses[k];
      double numel = 0;
      if (!never_runs) a.access_shape = RelaxedShape(a, shapes[k], analyzer, &numel);
      a.numel_under_loop[i] = std::max(0.0, numel);
      ctx->touched_bytes_per_loop[i] += a.numel_under_loop[i] * a.buffer->dtype.bytes();
      (*ctx->touched_under_loop)[l][a.buffer].push_back(a.numel_under_loop[i]);
    }
  }
  double one_iter_bytes = 0;  // one element of each buffer: the innermost iteration's footprint
  for (const BufferAccess& a : accesses) one_iter_bytes += a.buffer->dtype.bytes();
  const double line = ctx->config.cache_line_bytes;

  for (size_t k = 0; k < accesses.size(); ++k) {
    BufferAccess& a = accesses[k];
    const std::vector<double>& shape = shapes[k];
    const int ndim = static_cast<int>(shape.size());
    const double elem = a.buffer->dtype.bytes();
    // Stride: the smallest memory step of the innermost loop that moves the access.
    std::vector<double> stride(ndim, 1.0);
    for (int d = ndim - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
    for (int d = ndim - 1; d >= 0; --d) {
      if (a.access_shape[d] == shape[d]) {
        a.continuous_bytes = shape[d] * elem;
        break;
      }
    }
    int i = n_loops - 1;
    for (; i >= 0; --i) {
      double best = std::numeric_limits<double>::infinity();
      for (const MultiIndex& idx : a.indices) {
        for (int d = std::min<int>(ndim, idx.size()) - 1; d >= 0; --d) {
          double c = VarCoefficient(idx[d], loops[i]->loop_var.get());
          if (c != 0) {
            best = std::min(best, std::fabs(c) * stride[d]);
            break;
          }
        }
      }
      a.min_stride = std::isinf(best) ? 0.0 : best;
      if (a.min_stride != 0) break;
    }
    a.innermost_stride = (i == n_loops - 1) ? a.min_stride : 0.0;
    a.non_strided_prod = 1;
    for (int j = n_loops - 1; j > i; --j) a.non_strided_prod *= LoopExtentOr1(loops[j]);

    // Reuse: the innermost loop the access does not depend on (loop-invariant
    // reuse), or the innermost loop under which earlier stores touched the buffer too.
    std::unordered_set<const Object*> vars;
    for (const MultiIndex& idx : a.indices)
      for (const PrimExpr& e : idx)
        PostOrderVisit(e, [&vars](const ObjectRef& n) {
          if (n.as<VarNode>()) vars.insert(n.get());
        });
    for (int j = n_loops - 1; j >= 0; --j) {
      const ForNode* l = loops[j];
      if (!vars.count(l->loop_var.get())) {
        a.reuse = kLoopMultipleRead;
        a.reuse_ct = LoopExtentOr1(l);
        a.reuse_dis_iter = 1;
        for (int q = n_loops - 1; q > j; --q) a.reuse_dis_iter *= LoopExtentOr1(loops[q]);
        a.reuse_dis_bytes = 0;
        if (j == n_loops - 1) {
          a.reuse_dis_bytes = one_iter_bytes;
        } else {
          for (const auto& [buf, numels] : (*ctx->touched_under_loop)[loops[j + 1]])
            for (double v : numels) a.reuse_dis_bytes += v * buf->dtype.bytes();
        }
        break;
      }
      const std::vector<double>& touched = (*ctx->touched_under_loop)[l][a.buffer];
      if (touched.size() >= 2) {
        double ext = std::max(1.0, LoopExtentOr1(l));
        a.reuse = kSerialMultipleReadWrite;
        a.reuse_ct = static_cast<double>(touched.size() - 1);
        a.reuse_dis_iter = *std::min_element(touched.begin(), touched.end()) / ext;
        a.reuse_dis_bytes = 0;
        for (const auto& [buf, numels] : (*ctx->touched_under_loop)[l])
          for (double v : numels) a.reuse_dis_bytes += v * buf->dtype.bytes();
        a.reuse_dis_bytes /= ext;
        break;
      }
    }

    a.bytes = elem * nest.prod;
    if (n_loops == 0) {
      a.unique_bytes = a.lines = a.unique_lines = 1;
    } else {
      a.unique_bytes = a.numel_under_loop[0] * elem;
      double strided_iters = a.non_strided_prod > 0 ? nest.prod / a.non_strided_prod : 0.0;
      a.lines = std::max(1.0, strided_iters * std::min(1.0, a.min_stride * elem / line));
      a.unique_lines = std::max(1.0, a.unique_bytes / std::min(line, a.continuous_bytes));
    }
  }
  std::stable_sort(accesses.begin(), accesses.end(), [](const BufferAccess& x, const BufferAccess& y) {
    if (x.lines != y.lines) return x.lines > y.lines;
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    return x.buffer->name < y.buffer->name;
  });
  const int per = ctx->config.buffers_per_store;
  for (int k = 0; k < per; ++k) {
    if (k >= static_cast<int>(accesses.size())) {
      out->insert(out->end(), 18, 0.0);
      continue;
    }
    const BufferAccess& a = accesses[k];
    double ct = a.reuse_ct > 0 ? a.reuse_ct : 0.5;
    double vs[] = {a.type == kRead ? 1.0 : 0.0, a.type == kWrite ? 1.0 : 0.0, a.type == kReadWrite ? 1.0 : 0.0,
                   SLog(a.bytes), SLog(a.unique_bytes), SLog(a.lines), SLog(a.unique_lines),
                   a.reuse == kLoopMultipleRead ? 1.0 : 0.0, a.reuse == kSerialMultipleReadWrite ? 1.0 : 0.0,
                   a.reuse == kNoReuse ? 1.0 : 0.0, SLog(a.reuse_dis_iter), SLog(a.reuse_dis_bytes),
                   SLog(a.reuse_ct), SLog(a.bytes / ct), SLog(a.unique_bytes / ct), SLog(a.lines / ct),
                   SLog(a.unique_lines / ct), SLog(a.innermost_stride)};
    out->insert(out->end(), std::begin(vs), std::end(vs));
  }
}

}  // namespace

FeatureGroup BufferAccessFeatureGroup() {
  return FeatureGroup{"buffer_access", [](const PerStoreFeatureConfig& c) { return 18 * c.buffers_per_store; },
                      Compute};
}

}  // namespace meta_schedule
}  // namespace tessera
