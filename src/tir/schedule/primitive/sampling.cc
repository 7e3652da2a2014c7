// The sampling primitives sample_perfect_tile, sample_categorical and
// sample_compute_location: their instruction kinds (pure; the trace records
// the decision and replay reuses it), their Schedule methods (they draw from
// the schedule's random state; no transformation of their own) and
// tir.schedule.* FFI entries. TIR schedule layer.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <unordered_set>

#include "tir/schedule/primitive/compute_location_candidates.h"
#include "tir/schedule/primitive/primitives.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

TESSERA_REGISTER_INST_KIND("SamplePerfectTile")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision& d) {
      return AsOutputs(sch.SamplePerfectTile(in.at_any(0).cast<LoopRV>(), attrs.at_any(0).cast<int>(),
                                             attrs.at_any(1).cast<int>(),
                                             d ? std::optional<Array<Any>>(d->cast<Array<Any>>()) : std::nullopt));
    })
    .set_as_python(PythonCall("sample_perfect_tile", {"loop"}, {"n", "max_innermost_factor"}, /*returns_list=*/true));
TESSERA_REGISTER_INST_KIND("SampleCategorical")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs&, const Attrs& attrs, const Decision& d) {
      return Array<Any>{sch.SampleCategorical(attrs.at_any(0).cast<Array<Any>>(), attrs.at_any(1).cast<Array<Any>>(), d)};
    })
    .set_as_python(PythonCall("sample_categorical", {}, {"candidates", "probs"}));
TESSERA_REGISTER_INST_KIND("SampleComputeLocation")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision& d) {
      return Array<Any>{sch.SampleComputeLocation(in.at_any(0).cast<BlockRV>(),
                                                  d ? std::optional<int64_t>(d->cast<int64_t>()) : std::nullopt)};
    })
    .set_as_python(PythonCall("sample_compute_location", {"block"}, {}));

// ---- Schedule methods ------------------------------------------------------------

const Var& InlineMarkVar() {
  static const Var* mark = new Var("compute_inline_mark", DataType::Int(32));
  return *mark;
}

namespace {
// TVM's GetLoopIterType: how the blocks directly below `loop` bind its
// variable (spatial, reduction, or opaque when mixed or other kinds).
int LoopIterType(const ForNode* loop) {
  int n_spatial = 0, n_reduce = 0, n_other = 0;
  for (const BlockRealizeNode* r : ChildBlocks(loop->body)) {
    for (size_t i = 0; i < r->block->iter_vars.size() && i < r->iter_values.size(); ++i) {
      if (!UsesVar(r->iter_values[i], loop->loop_var.get())) continue;
      int t = r->block->iter_vars[i]->iter_type;
      (t == kDataPar ? n_spatial : t == kCommReduce ? n_reduce : n_other)++;
    }
  }
  if (n_other || (n_spatial && n_reduce)) return kOpaque;
  return n_reduce ? kCommReduce : kDataPar;
}

// The variables a loop extent may use and still be static for the tuner: the
// function's parameters and the variables of its buffers' shapes (a symbolic
// shape), never a loop variable.
std::unordered_set<const VarNode*> FunctionVars(const PrimFunc& f) {
  std::unordered_set<const VarNode*> out;
  auto add = [&](const ObjectRef& e) {
    PostOrderVisit(e, [&](const ObjectRef& n) {
      if (const auto* v = n.as<VarNode>()) out.insert(v);
    });
  };
  for (const Var& v : f->params) out.insert(v.get());
  for (const auto& [_, buf] : f->buffer_map.items()) {
    for (const PrimExpr& d : buf->shape) add(d);
  }
  return out;
}

// Whether the nest compute_at gave block `name` in `g` below the loop of
// `loop_var` has only extents fixed for the whole function. A consumer's tile
// that crosses a row of the producer's grid (4 fused tiles of a 14-tile row)
// needs a region whose size varies with the loop (1 or 2 rows): such a
// location is not offered, as DisallowDynamicLoop would reject the candidate.
bool StaticNest(const PrimFunc& g, const std::string& name, const VarNode* loop_var) {
  std::optional<BlockLocation> loc = FindBlock(g, name);
  if (!loc) return false;
  std::unordered_set<const VarNode*> allowed = FunctionVars(g);
  bool below = false, ok = true;
  for (const ForNode* l : loc->loops) {
    if (below) {
      PostOrderVisit(l->extent, [&](const ObjectRef& n) {
        if (const auto* v = n.as<VarNode>(); v != nullptr && !allowed.count(v)) ok = false;
      });
    }
    below = below || l->loop_var.get() == loop_var;
  }
  return ok;
}

bool Succeeds(const std::function<void()>& f) {
  try {
    f();
    return true;
  } catch (const Error& e) {
    if (e.kind() != "ScheduleError") throw;
    return false;
  }
}
}  // namespace

std::vector<ComputeLocationCandidate> CollectComputeLocation(const Schedule& sch, const BlockRV& block) {
  BlockLocation loc = sch.LocateBlock(block, "sample_compute_location");
  const std::string func = sch->blocks.at(block.get()).func;
  PrimFunc f = sch.FuncOf(func);
  std::vector<ComputeLocationCandidate> out;
  if (Succeeds([&] { tir::ComputeInline(f, loc); })) out.push_back({-2, InlineMarkVar()});
  out.push_back({-1, Var()});
  auto index = sch.IndexOf(func);
  const std::vector<const BlockLocation*>& consumers = index->Consumers(loc.block);
  if (consumers.empty()) return out;
  // The deepest loop holding every consumer (their common loop prefix; a
  // lone consumer's innermost loop).
  const std::vector<const ForNode*>& first = consumers[0]->loops;
  size_t common = first.size();
  for (const BlockLocation* c : consumers) {
    size_t k = 0;
    while (k < common && k < c->loops.size() && c->loops[k] == first[k]) ++k;
    common = k;
  }
  if (common == 0) return out;
  size_t n_candidate = common;
  std::vector<int> types(n_candidate);
  int last_datapar = -1;
  for (size_t i = 0; i < n_candidate; ++i) {
    types[i] = LoopIterType(first[i]);
    if (types[i] == kDataPar) last_datapar = static_cast<int>(i);
  }
  bool visited_reduce = false;
  for (size_t i = 0; i < n_candidate; ++i) {
    if (IsConstInt(first[i]->extent, 1)) continue;
    if (types[i] == kDataPar) {
      if (visited_reduce) break;
    } else {
      visited_reduce = true;
      if (static_cast<int>(i) > last_datapar) break;
    }
    const LoopLocation* lloc = index->FindLoop(first[i]->loop_var.get());
    // Only locations where compute_at succeeds with a static nest (StaticNest).
    PrimFunc moved;
    if (lloc && Succeeds([&] { moved = tir::ComputeAt(f, loc, *lloc, /*preserve_unit_loops=*/true); }) &&
        StaticNest(moved, loc.block->name_hint, first[i]->loop_var.get())) {
      out.push_back({static_cast<int64_t>(i), first[i]->loop_var});
    }
  }
  return out;
}

LoopRV Schedule::SampleComputeLocation(const BlockRV& block, const std::optional<int64_t>& decision) const {
  std::vector<ComputeLocationCandidate> candidates = CollectComputeLocation(*this, block);
  const std::string func = get()->blocks.at(block.get()).func;
  size_t pick = 0;
  if (decision) {
    // As TVM: a decision that is no longer a candidate falls back to the
    // candidate before it, or to root when there is none.
    size_t at = 0;  // first candidate whose index is >= the decision (indices ascend)
    while (at < candidates.size() && candidates[at].index < *decision) ++at;
    if (at < candidates.size() && candidates[at].index == *decision) {
      pick = at;
    } else if (at > 0) {
      pick = at - 1;
    } else {
      pick = candidates[0].index == -1 ? 0 : 1;  // root
    }
  } else {
    pick = static_cast<size_t>(NextRandom() % candidates.size());
  }
  const ComputeLocationCandidate& c = candidates[pick];
  LoopRV rv = LoopRV::Make();
  self()->loops[rv.get()] = {func, c.loop};
  Record("SampleComputeLocation", {block}, {}, {rv}, Any(c.index));
  return rv;
}

namespace {
// The most factors sample_perfect_tile draws (each becomes a loop of the split).
constexpr int kMaxTileFactors = 128;
// Counts saturate here; any count at the cap is larger than every random draw.
constexpr uint64_t kCountCap = uint64_t{1} << 62;

// Tilings of an extent into `parts` ordered factors whose innermost is at most
// `max_inner` (<= 0: unbounded), counted per divisor of the extent and
// unranked in lexicographic order, so one tiling is drawn without listing
// them all: time O(divisors^2 * parts), not O(number of tilings).
class TilingCounter {
 public:
  TilingCounter(int64_t extent, int parts, int64_t max_inner) : parts_(parts), max_inner_(max_inner) {
    std::vector<int64_t> high;
    for (int64_t d = 1; d <= extent / d; ++d) {
      if (extent % d) continue;
      divs_.push_back(d);
      if (d != extent / d) high.push_back(extent / d);
    }
    divs_.insert(divs_.end(), high.rbegin(), high.rend());
    // sub_[m]: (divisor index j, index of divs_[m] / divs_[j]) for divisors of divs_[m], ascending.
    sub_.resize(divs_.size());
    for (size_t m = 0; m < divs_.size(); ++m) {
      for (size_t j = 0; j <= m; ++j) {
        if (divs_[m] % divs_[j]) continue;
        sub_[m].emplace_back(j, IndexOf(divs_[m] / divs_[j]));
      }
    }
    memo_.assign(divs_.size() * static_cast<size_t>(parts + 1), kUnknown);
  }
  uint64_t Total() { return Count(divs_.size() - 1, parts_); }
  // The k-th tiling (k < Total()) in lexicographic order.
  std::vector<int64_t> Unrank(uint64_t k) {
    std::vector<int64_t> out;
    size_t m = divs_.size() - 1;
    for (int p = parts_; p > 1; --p) {
      for (const auto& [j, q] : sub_[m]) {
        uint64_t c = Count(q, p - 1);
        if (k < c) {
          out.push_back(divs_[j]);
          m = q;
          break;
        }
        k -= c;
      }
    }
    out.push_back(divs_[m]);
    return out;
  }

 private:
  static constexpr uint64_t kUnknown = ~uint64_t{0};
  size_t IndexOf(int64_t v) const {
    return static_cast<size_t>(std::lower_bound(divs_.begin(), divs_.end(), v) - divs_.begin());
  }
  uint64_t Count(size_t m, int p) {
    uint64_t& slot = memo_[m * static_cast<size_t>(parts_ + 1) + static_cast<size_t>(p)];
    if (slot != kUnknown) return slot;
    uint64_t total = 0;
    if (p == 1) {
      total = (max_inner_ <= 0 || divs_[m] <= max_inner_) ? 1 : 0;
    } else {
      for (const auto& [j, q] : sub_[m]) total = std::min(kCountCap, total + Count(q, p - 1));
    }
    return slot = total;
  }
  int parts_;
  int64_t max_inner_;
  std::vector<int64_t> divs_;
  std::vector<std::vector<std::pair<size_t, size_t>>> sub_;
  std::vector<uint64_t> memo_;
};
}  // namespace

Array<Var> Schedule::SamplePerfectTile(const LoopRV& loop, int n, int max_innermost_factor,
                                       const std::optional<Array<Any>>& decision) const {
  LoopLocation loc = LocateLoop(loop, "sample_perfect_tile");
  const std::string func = get()->loops.at(loop.get()).func;
  PrimFunc f = FuncOf(func);
  const int64_t* extent = AsConstInt(loc.loop->extent);
  if (extent == nullptr) ThrowScheduleError("sample_perfect_tile", "the loop has a symbolic extent", f);
  if (n < 1) ThrowScheduleError("sample_perfect_tile", "n must be at least 1", f);
  TESSERA_CHECK_OR_THROW(n <= kMaxTileFactors, ValueError)
      << "sample_perfect_tile: n=" << n << " factors exceeds the limit of " << kMaxTileFactors;
  if (*extent < 1) ThrowScheduleError("sample_perfect_tile", "the loop's extent " + std::to_string(*extent) + " is not positive", f);
  std::vector<int64_t> chosen;
  if (decision && !decision->empty()) {
    int64_t prod = 1;
    bool overflow = false;
    for (const Any& a : decision->to_vector()) {
      chosen.push_back(a.cast<int64_t>());
      TESSERA_CHECK_OR_THROW(chosen.back() >= 1, ValueError)
          << "sample_perfect_tile: decision factor " << chosen.back() << " is not positive";
      overflow = overflow || __builtin_mul_overflow(prod, chosen.back(), &prod);
    }
    if (overflow || static_cast<int>(chosen.size()) != n || prod != *extent) {
      ThrowScheduleError("sample_perfect_tile", "the decision does not tile the loop's extent " +
                                                    std::to_string(*extent) + " into " + std::to_string(n) + " factors",
                         f);
    }
  } else {
    TilingCounter counter(*extent, n, max_innermost_factor);
    uint64_t total = counter.Total();
    if (total == 0) ThrowScheduleError("sample_perfect_tile", "no perfect tiling satisfies max_innermost_factor", f);
    chosen = counter.Unrank(NextRandom() % total);
  }
  std::vector<Var> vars;
  std::vector<Any> outs, dec;
  for (int64_t v : chosen) {
    Var rv("v", DataType::Int(32));  // int32, as TVM's ExprRV
    self()->values[rv.get()] = v;
    vars.push_back(rv);
    outs.push_back(rv);
    dec.push_back(v);
  }
  Record("SamplePerfectTile", {loop}, {static_cast<int64_t>(n), static_cast<int64_t>(max_innermost_factor)},
         Array<Any>(outs), Any(Array<Any>(dec)));
  return Array<Var>(vars);
}

Var Schedule::SampleCategorical(const Array<Any>& candidates, const Array<Any>& probs,
                                const std::optional<Any>& decision) const {
  TESSERA_CHECK_OR_THROW(!candidates.empty() && candidates.size() == probs.size(), ValueError)
      << "sample_categorical needs as many probabilities as candidates (got " << candidates.size() << " and "
      << probs.size() << ")";
  // Every candidate is an integer and every probability a finite, non-negative
  // number, checked before anything is drawn (TypeError/ValueError naming the entry).
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Any& c = candidates.at_any(i);
    TESSERA_CHECK_OR_THROW(c.kind() == Any::Kind::kInt, TypeError)
        << "sample_categorical: candidates[" << i << "] must be an integer, got " << c.type_name();
    const Any& p = probs.at_any(i);
    TESSERA_CHECK_OR_THROW(p.try_cast<double>().has_value(), TypeError)
        << "sample_categorical: probs[" << i << "] must be a number, got " << p.type_name();
    double v = p.cast<double>();
    TESSERA_CHECK_OR_THROW(std::isfinite(v) && v >= 0, ValueError)
        << "sample_categorical: probs[" << i << "] = " << v << " is not a finite non-negative number";
  }
  int64_t index = 0;
  if (decision && !decision->is_none()) {
    TESSERA_CHECK_OR_THROW(decision->kind() == Any::Kind::kInt, TypeError)
        << "sample_categorical: decision must be an integer, got " << decision->type_name();
    index = decision->cast<int64_t>();
    TESSERA_CHECK_OR_THROW(index >= 0 && index < static_cast<int64_t>(candidates.size()), ValueError)
        << "sample_categorical decision " << index << " is out of range";
  } else {
    double total = 0;
    for (const Any& p : probs.to_vector()) total += p.cast<double>();
    TESSERA_CHECK_OR_THROW(total > 0 && std::isfinite(total), ValueError)
        << "sample_categorical probabilities sum to " << total << " (need a finite positive sum)";
    double r = static_cast<double>(NextRandom()) / static_cast<double>(kModulus) * total;
    index = static_cast<int64_t>(candidates.size()) - 1;
    for (size_t i = 0; i < probs.size(); ++i) {
      r -= probs.at_any(i).cast<double>();
      if (r < 0) {
        index = static_cast<int64_t>(i);
        break;
      }
    }
  }
  Var rv("v", DataType::Int(32));  // int32, as TVM's ExprRV
  self()->values[rv.get()] = candidates.at_any(static_cast<size_t>(index)).cast<int64_t>();
  Record("SampleCategorical", {}, {candidates, probs}, {rv}, Any(index));
  return rv;
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SampleComputeLocation")
    .set_body_typed([](Schedule s, BlockRV b, std::optional<int64_t> decision) { return s.SampleComputeLocation(b, decision); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SamplePerfectTile")
    .set_body_typed([](Schedule s, LoopRV l, int n, int max_inner, std::optional<Array<Any>> decision) {
      return s.SamplePerfectTile(l, n, max_inner, decision);
    });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SampleCategorical")
    .set_body_typed([](Schedule s, Array<Any> candidates, Array<Any> probs, std::optional<Any> decision) {
      return s.SampleCategorical(candidates, probs, decision);
    });

}  // namespace tir
}  // namespace tessera
