// VerifyGPUCode (`ms.postproc.VerifyGPUCode`): rejects a candidate whose GPU
// kernels exceed the target's limits (threads per block, shared memory per
// block, virtual threads, vector bytes), read on the scheduled TIR: a kernel
// is the nest under an outermost thread binding. A shared buffer allocated
// outside the kernels (where cache_read puts it) counts with what one thread
// block writes of it (the blockIdx loops fixed, every other loop of the
// kernel relaxed), the size the build compacts it to. CUDA-like targets
// only; the interface is verify_postproc.h. MetaSchedule layer.
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "ir/type.h"
#include "meta_schedule/postproc/verify_postproc.h"
#include "runtime/registry.h"
#include "tir/function.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace meta_schedule {

GPUCodeLimits GPUCodeLimits::FromTarget(const Target& target) {
  bool gpu = false;
  for (const std::string& key : target->keys) gpu |= key == "gpu";
  TESSERA_CHECK_OR_THROW(gpu, ValueError) << "VerifyGPUCode needs a GPU target (keys include \"gpu\"), got "
                                          << target->str;
  GPUCodeLimits limits;
  if (auto v = target.GetInt("max_threads_per_block")) limits.max_threads_per_block = *v;
  else if (auto w = target.GetInt("max_num_threads")) limits.max_threads_per_block = *w;
  if (auto v = target.GetInt("max_shared_memory_per_block")) limits.max_shared_memory_per_block = *v;
  return limits;
}

namespace {

struct Kernel {
  std::map<std::string, int64_t> threads;  // thread tag -> extent
  int64_t shared_bytes = 0;
};

int64_t ConstExtent(const PrimExpr& e) {
  const auto* imm = e.as<IntImmNode>();
  return imm ? imm->value : -1;
}

int64_t AllocBytes(DataType dtype, const Array<PrimExpr>& extents) {
  int64_t n = dtype.bytes();
  for (size_t i = 0; i < extents.size(); ++i) {
    int64_t e = ConstExtent(extents[i]);
    if (e < 0) return -1;
    n *= e;
  }
  return n;
}

bool IsShared(const std::string& scope) { return scope == "shared" || scope == "shared.dyn"; }

// A shared buffer allocated outside the kernel (cache_read allocates at the
// root): its size for one thread block, as the build compacts it. Accesses
// are recorded with the loops above them; the buffer is allocated at the
// innermost loop enclosing every access, so the loops below that one and the
// thread loops (threadIdx, vthread) anywhere are relaxed, the other loops
// (blockIdx, serial loops around the accesses) stay fixed.
class SharedFootprint {
 public:
  void Note(const tir::BlockRealizeNode* realize, const std::vector<const tir::ForNode*>& loops,
            const std::set<const tir::BufferNode*>& inside) {
    Map<tir::Var, PrimExpr> bindings;
    for (size_t i = 0; i < realize->block->iter_vars.size(); ++i) {
      bindings.Set(realize->block->iter_vars[i]->var, realize->iter_values[i]);
    }
    for (const auto* regions : {&realize->block->reads, &realize->block->writes}) {
      for (const tir::BufferRegion& r : *regions) {
        if (!IsShared(r->buffer.scope()) || inside.count(r->buffer.get())) continue;
        Access a{loops, {}};
        for (const Range& d : r->region) {
          a.region.push_back(
              Range::FromMinExtent(tir::Substitute(d->min, bindings), tir::Substitute(d->extent, bindings)));
        }
        accesses_[r->buffer.get()].push_back(std::move(a));
      }
    }
  }

  // (buffer, bytes or -1 when not constant) of each buffer noted.
  std::vector<std::pair<const tir::BufferNode*, int64_t>> Sizes() {
    std::vector<std::pair<const tir::BufferNode*, int64_t>> out;
    for (const auto& [buf, accesses] : accesses_) {
      size_t common = accesses[0].loops.size();
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
          arith::IntSet set = arith::EvalSet(a.region[d], relaxed, &analyzer_);
          if (sets.size() <= d) sets.push_back(set);
          else sets[d] = arith::Union({sets[d], set}, &analyzer_);
        }
      }
      int64_t bytes = buf->dtype.bytes();
      for (size_t d = 0; d < sets.size() && bytes >= 0; ++d) {
        int64_t e = -1;
        if (sets[d].HasLowerBound() && sets[d].HasUpperBound()) {
          e = ConstExtent(analyzer_.Simplify(tir::sub(sets[d].max(), sets[d].min())));
          if (e >= 0) e += 1;
        }
        if (e < 0 && d < buf->shape.size()) e = ConstExtent(buf->shape[d]);  // the whole dimension
        bytes = e < 0 ? -1 : bytes * e;
      }
      out.emplace_back(buf, bytes);
    }
    return out;
  }

 private:
  struct Access {
    std::vector<const tir::ForNode*> loops;
    std::vector<Range> region;
  };
  std::map<const tir::BufferNode*, std::vector<Access>> accesses_;
  arith::Analyzer analyzer_;
};

}  // namespace

bool CheckGPUCode(const IRModule& mod, const GPUCodeLimits& limits, std::string* why) {
  std::string error;
  auto fail = [&](const std::string& msg) {
    if (error.empty()) error = msg;
  };
  for (const auto& [gv, base] : mod->functions.items()) {
    const auto* func = base.as<tir::PrimFuncNode>();
    if (func == nullptr) continue;
    std::vector<Kernel> kernels;
    Kernel* current = nullptr;
    std::set<const tir::BufferNode*> inside;  // shared buffers allocated in the current kernel
    std::vector<const tir::ForNode*> loops;   // the loops of the current kernel around the walk
    std::optional<SharedFootprint> outside;   // shared buffers allocated outside it
    auto add_shared = [&](int64_t bytes, const std::string& name) {
      if (current == nullptr) return;
      if (bytes < 0) fail("shared buffer " + name + " has a non-constant size");
      else current->shared_bytes += bytes;
    };
    auto bind = [&](const std::string& tag, int64_t extent, const std::function<void()>& visit_body) {
      bool opens = current == nullptr;
      if (opens) {
        kernels.emplace_back();
        current = &kernels.back();
      }
      if (extent < 0) {
        fail("the extent of " + tag + " is not a constant");
      } else {
        int64_t& slot = current->threads[tag];
        slot = std::max(slot, extent);
      }
      visit_body();
      if (opens) {
        if (outside) {
          for (const auto& [buf, bytes] : outside->Sizes()) add_shared(bytes, buf->name);
        }
        current = nullptr;
        inside.clear();
        outside.reset();
      }
    };
    std::function<void(const tir::Stmt&)> walk = [&](const tir::Stmt& s) {
      if (!s.defined()) return;
      if (const auto* loop = s.as<tir::ForNode>()) {
        const bool in_kernel = current != nullptr || loop->kind == tir::ForKind::kThreadBinding;
        if (in_kernel) loops.push_back(loop);
        if (loop->kind == tir::ForKind::kThreadBinding && loop->thread_binding) {
          bind((*loop->thread_binding)->thread_tag, ConstExtent(loop->extent), [&] { walk(loop->body); });
        } else {
          if (loop->kind == tir::ForKind::kVectorized) {
            // Vector bytes: the extent times the widest element the body loads or stores.
            int64_t e = ConstExtent(loop->extent), elem = 1;
            tir::PostOrderVisit(loop->body, [&](const ObjectRef& n) {
              if (const auto* st = n.as<tir::BufferStoreNode>()) elem = std::max<int64_t>(elem, st->buffer->dtype.bytes());
              if (const auto* ld = n.as<tir::BufferLoadNode>()) elem = std::max<int64_t>(elem, ld->buffer->dtype.bytes());
            });
            if (current != nullptr && e > 0 && e * elem > limits.max_vector_bytes) {
              fail("vectorized loop " + loop->loop_var->name_hint + " of extent " + std::to_string(e) + " moves " +
                   std::to_string(e * elem) + " bytes, more than " + std::to_string(limits.max_vector_bytes));
            }
          }
          walk(loop->body);
        }
        if (in_kernel) loops.pop_back();
      } else if (const auto* attr = s.as<tir::AttrStmtNode>()) {
        if (attr->attr_key == "thread_extent" || attr->attr_key == "virtual_thread") {
          std::string tag = attr->attr_key == "virtual_thread" ? "vthread" : "";
          if (const auto* iv = attr->node.as<tir::IterVarNode>()) tag = iv->thread_tag.empty() ? tag : iv->thread_tag;
          bind(tag, ConstExtent(attr->value), [&] { walk(attr->body); });
          return;
        }
        walk(attr->body);
      } else if (const auto* seq = s.as<tir::SeqStmtNode>()) {
        for (tir::Stmt x : seq->seq) walk(x);
      } else if (const auto* ite = s.as<tir::IfThenElseNode>()) {
        walk(ite->then_case);
        if (ite->else_case) walk(*ite->else_case);
      } else if (const auto* realize = s.as<tir::BlockRealizeNode>()) {
        for (size_t i = 0; i < realize->block->alloc_buffers.size(); ++i) {
          tir::Buffer b = realize->block->alloc_buffers[i];
          if (IsShared(b.scope()) && current != nullptr) inside.insert(b.get());
          if (IsShared(b.scope())) add_shared(AllocBytes(b->dtype, b->shape), b->name);
        }
        if (current != nullptr) {
          if (!outside) outside.emplace();
          outside->Note(realize, loops, inside);
        }
        walk(realize->block->body);
      } else if (const auto* alloc = s.as<tir::AllocateNode>()) {
        const auto* ptr = alloc->buffer_var->type_annotation.as<PointerTypeNode>();
        if (ptr && IsShared(ptr->storage_scope)) add_shared(AllocBytes(alloc->dtype, alloc->extents), alloc->buffer_var->name_hint);
        walk(alloc->body);
      } else if (const auto* let = s.as<tir::LetStmtNode>()) {
        walk(let->body);
      } else if (const auto* decl = s.as<tir::DeclBufferNode>()) {
        walk(decl->body);
      }
    };
    walk(func->body);
    for (const Kernel& k : kernels) {
      int64_t threads = 1;
      for (const char* tag : {"threadIdx.x", "threadIdx.y", "threadIdx.z"}) {
        auto it = k.threads.find(tag);
        if (it != k.threads.end()) threads *= it->second;
      }
      if (threads > limits.max_threads_per_block) {
        fail("a kernel of " + gv->name_hint + " uses " + std::to_string(threads) + " threads per block, more than " +
             std::to_string(limits.max_threads_per_block));
      }
      int64_t vthreads = 1;
      for (const auto& [tag, extent] : k.threads) {
        if (tag.rfind("vthread", 0) == 0) vthreads *= extent;
      }
      if (vthreads > limits.max_vthread) {
        fail("a kernel of " + gv->name_hint + " uses " + std::to_string(vthreads) + " virtual threads, more than " +
             std::to_string(limits.max_vthread));
      }
      if (k.shared_bytes > limits.max_shared_memory_per_block) {
        fail("a kernel of " + gv->name_hint + " allocates " + std::to_string(k.shared_bytes) +
             " bytes of shared memory, more than " + std::to_string(limits.max_shared_memory_per_block));
      }
    }
  }
  if (why) *why = error;
  return error.empty();
}

// [ok, reason]
TESSERA_REGISTER_GLOBAL("meta_schedule.PostprocVerifyGPUCodeCheck").set_body_typed([](IRModule mod, Target target) {
  std::string why;
  bool ok = CheckGPUCode(mod, GPUCodeLimits::FromTarget(target), &why);
  return Array<Any>{ok, why};
});

}  // namespace meta_schedule
}  // namespace tessera
