// RewriteParallelVectorizeUnroll (TVM's postproc of that name): realizes the
// root-block annotations of ParallelizeVectorizeUnroll and removes them. For
// each block directly under an annotated root: the outer spatial loops are
// fused and made parallel while their extent product stays within
// meta_schedule.parallel (the loop that crosses it included, as TVM); the
// innermost spatial loops whose accesses stay contiguous are fused and
// vectorized up to meta_schedule.vectorize; both on every loop: fused,
// split by the vector extent, outer parallel, inner vectorized; the
// unroll value becomes pragma_auto_unroll_max_step / pragma_unroll_explicit
// on the outermost loop of each non-spatial block. Loops that are already
// parallel, vectorized, unrolled, bound or annotated are left alone (TVM
// checks bindings and annotations only). A step a primitive refuses for a
// block is skipped (its loops stay as they are) instead of rejecting the
// candidate. Meta-schedule layer.
#include <climits>

#include "arith/analyzer.h"
#include "arith/linear_form.h"
#include "meta_schedule/postproc/postproc.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

namespace {

struct Parsed {
  int64_t max_parallel_extent = -1;
  int64_t max_vectorize_extent = -1;
  int64_t unroll_explicit = -1;
  int64_t unroll_implicit = -1;
  int num_parallel_loops = -1;
  int num_vectorize_loops = -1;
};

std::optional<int64_t> IntValue(const Any& v) {
  if (const auto* imm = v.as<IntImmNode>()) return imm->value;
  if (v.kind() == Any::Kind::kInt) return v.raw_int();
  return std::nullopt;
}

bool Parse(const BlockNode* block, Parsed* parsed) {
  bool found = false;
  *parsed = Parsed();
  for (const auto& [k, v] : block->annotations.items()) {
    std::string key = k;
    int64_t* slot = key == kParallel         ? &parsed->max_parallel_extent
                    : key == kVectorize      ? &parsed->max_vectorize_extent
                    : key == kUnrollExplicit ? &parsed->unroll_explicit
                    : key == kUnrollImplicit ? &parsed->unroll_implicit
                                             : nullptr;
    if (!slot) continue;
    found = true;
    if (auto value = IntValue(v)) *slot = *value;
  }
  return found;
}

bool Untouched(const ForNode* loop) {
  return loop->kind == ForKind::kSerial && loop->annotations.empty() && !loop->thread_binding.has_value();
}

// The stride of `loop_var` in `index` (0: unused; -1: not a linear use).
int64_t Stride(const PrimExpr& index, const VarNode* loop_var) {
  if (!UsesVar(index, loop_var)) return 0;
  std::optional<arith::LinearForm> form = arith::ToLinearForm(index);
  if (!form) return -1;
  for (const auto& [atom, coeff] : form->terms) {
    if (atom.get() == loop_var) return coeff;
    if (UsesVar(atom, loop_var)) return -1;
  }
  return -1;
}

// How many innermost loops the accesses of the block allow to fuse into
// one contiguous vector (TVM's max_fusible).
int MaxFusible(const BlockLocation& loc, const std::vector<const ForNode*>& loops) {
  Map<Var, PrimExpr> binding;
  for (size_t i = 0; i < loc.block->iter_vars.size(); ++i) {
    binding.Set(loc.block->iter_vars[i]->var, loc.realize->iter_values[i]);
  }
  std::vector<BufferRegion> accesses(loc.block->reads.begin(), loc.block->reads.end());
  accesses.insert(accesses.end(), loc.block->writes.begin(), loc.block->writes.end());
  arith::Analyzer analyzer;
  int max_fusible = INT_MAX;
  for (const BufferRegion& access : accesses) {
    std::vector<int64_t> strides;
    for (const ForNode* loop : loops) {
      int64_t stride = 0, buffer_stride = 1;
      for (int i = static_cast<int>(access->region.size()) - 1; i >= 0; --i) {
        PrimExpr idx = analyzer.Simplify(Substitute(access->region[i]->min, binding));
        int64_t coeff = Stride(idx, loop->loop_var.get());
        if (coeff == -1) return 0;
        if (coeff != 0) {
          stride = coeff * buffer_stride;
          break;
        }
        const auto* dim = access->buffer->shape[i].as<IntImmNode>();
        if (!dim) return 0;
        buffer_stride *= dim->value;
      }
      strides.push_back(stride);
    }
    int fusible = 0, prev = -1;
    for (int i = static_cast<int>(strides.size()) - 1; i >= 0; --i) {
      if (strides[i] == 0) {
        ++fusible;
      } else if (prev == -1) {
        if (strides[i] != 1 && fusible != 0) break;
        ++fusible;
        prev = i;
      } else {
        std::optional<int64_t> ext = ConstExtent(loops[prev]);
        if (!ext || strides[i] != strides[prev] * *ext) break;
        ++fusible;
        prev = i;
      }
    }
    max_fusible = std::min(max_fusible, fusible);
  }
  return max_fusible;
}

void Adjust(const BlockLocation& loc, Parsed* parsed) {
  if (parsed->max_parallel_extent == -1 && parsed->max_vectorize_extent == -1) return;
  const std::vector<const ForNode*>& loops = loc.loops;
  const int n = static_cast<int>(loops.size());
  std::vector<int> types = LoopIterTypesUnder(loc);  // every block under each loop, as TVM
  int max_fusible = MaxFusible(loc, loops);
  int rewritable = 0;
  for (int i = 0; i < n; ++i) {
    if (Untouched(loops[i]) && types[i] == kDataPar && IsSingleStmt(loops[i]->body) && ConstExtent(loops[i])) {
      ++rewritable;
    }
  }
  if (parsed->max_parallel_extent != -1) {
    int& num = parsed->num_parallel_loops = 0;
    int64_t prod = 1;
    for (int i = 0; i < n && types[i] == kDataPar; ++i) {
      std::optional<int64_t> ext = ConstExtent(loops[i]);
      if (!Untouched(loops[i]) || !ext) break;
      ++num;
      prod *= *ext;
      if (prod > parsed->max_parallel_extent || !IsSingleStmt(loops[i]->body)) break;
    }
    if (prod == 1) num = -1;
  }
  if (parsed->max_vectorize_extent != -1) {
    int& num = parsed->num_vectorize_loops = 0;
    int64_t prod = 1;
    for (int i = n - 1; i >= 0 && types[i] == kDataPar && num < max_fusible; --i) {
      std::optional<int64_t> ext = ConstExtent(loops[i]);
      if (!Untouched(loops[i]) || !IsSingleStmt(loops[i]->body) || !ext) break;
      prod *= *ext;
      if (prod > parsed->max_vectorize_extent) break;
      ++num;
    }
    if (prod == 1) num = -1;
  }
  if (parsed->num_parallel_loops != -1 && parsed->num_vectorize_loops != -1) {
    if (rewritable == n && max_fusible == n) {
      parsed->num_parallel_loops = n;
      parsed->num_vectorize_loops = n;
    } else {
      parsed->num_parallel_loops = std::min(parsed->num_parallel_loops, n - parsed->num_vectorize_loops);
    }
  }
}

// Runs `steps`; a ScheduleError (a primitive refusing) ends them there.
template <typename F>
void TrySteps(F&& steps) {
  try {
    steps();
  } catch (const Error& e) {
    if (e.kind() != "ScheduleError") throw;
  }
}

}  // namespace

class RewriteParallelVectorizeUnrollNode : public PostprocNode {
 public:
  bool Apply(const Schedule& sch) const final {
    for (const auto& [gv, base] : sch->mod->functions.items()) {
      const auto* f = base.as<PrimFuncNode>();
      const auto* root = f ? f->body.as<BlockRealizeNode>() : nullptr;
      Parsed parsed_root;
      if (!root || !Parse(root->block.get(), &parsed_root)) continue;
      std::string func = gv->name_hint;
      BlockRV root_rv = sch.GetBlock(root->block->name_hint, func);
      for (const char* key : {kParallel, kVectorize, kUnrollExplicit, kUnrollImplicit}) {
        if (root->block->annotations.count(key)) sch.Unannotate(root_rv, key);
      }
      for (const BlockRV& block : sch.GetChildBlocks(root_rv)) {
        Array<LoopRV> loops = sch.GetLoops(block);
        if (loops.empty()) continue;
        Parsed parsed = parsed_root;
        BlockLocation loc = Locate(sch, block);
        Adjust(loc, &parsed);
        const int n = static_cast<int>(loops.size());
        std::vector<LoopRV> rvs = loops.to_vector();
        // Each step is an optimization: one a primitive refuses for this block
        // (e.g. vectorizing a block whose bindings compute_at made non-affine,
        // a padding copy under an overlapping pooling window) leaves its loops
        // as they are; the candidate is kept (a failed primitive changes nothing).
        if (parsed.num_parallel_loops == n && parsed.num_vectorize_loops == n) {
          TrySteps([&] {
            LoopRV fused = n == 1 ? rvs[0] : sch.Fuse(Array<LoopRV>(rvs), true);
            Array<LoopRV> split =
                sch.Split(fused, {Any(), Any(IntImm(DataType::Int(32), parsed.max_vectorize_extent))}, true);
            for (int i = 0; i < n - 1; ++i) rvs[i] = split[0];
            rvs[n - 1] = split[1];
            sch.Parallel(split[0]);
            sch.Vectorize(split[1]);
          });
        } else {
          if (parsed.num_parallel_loops > 0) {
            TrySteps([&] {
              std::vector<LoopRV> outer(rvs.begin(), rvs.begin() + parsed.num_parallel_loops);
              LoopRV fused = outer.size() == 1 ? outer[0] : sch.Fuse(Array<LoopRV>(outer), true);
              for (int i = 0; i < parsed.num_parallel_loops; ++i) rvs[i] = fused;
              sch.Parallel(fused);
            });
          }
          if (parsed.num_vectorize_loops > 0) {
            TrySteps([&] {
              std::vector<LoopRV> inner(rvs.end() - parsed.num_vectorize_loops, rvs.end());
              LoopRV fused = inner.size() == 1 ? inner[0] : sch.Fuse(Array<LoopRV>(inner), true);
              for (int i = n - parsed.num_vectorize_loops; i < n; ++i) rvs[i] = fused;
              sch.Vectorize(fused);
            });
          }
        }
        if (parsed.unroll_explicit != -1 || parsed.unroll_implicit != -1) {
          int64_t max_step = parsed.unroll_explicit + parsed.unroll_implicit + 1;
          if (max_step > 0 && !IsSpatialBlock(loc.block)) {
            TrySteps([&] {
              sch.Annotate(rvs[0], kPragmaAutoUnrollMaxStep, Any(IntImm(DataType::Int(32), max_step)));
              sch.Annotate(rvs[0], kPragmaUnrollExplicit,
                           Any(IntImm(DataType::Int(32), parsed.unroll_explicit != -1 ? 1 : 0)));
            });
          }
        }
      }
    }
    return true;
  }

  Postproc Clone() const final { return Postproc(make_object<RewriteParallelVectorizeUnrollNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(RewriteParallelVectorizeUnrollNode, PostprocNode,
                                    "meta_schedule.RewriteParallelVectorizeUnroll");
};

TESSERA_REGISTER_NODE(RewriteParallelVectorizeUnrollNode);

TESSERA_REGISTER_GLOBAL("meta_schedule.PostprocRewriteParallelVectorizeUnroll").set_body_typed([]() {
  return Postproc(make_object<RewriteParallelVectorizeUnrollNode>());
});

}  // namespace meta_schedule
}  // namespace tessera
