// VerifyGPUCode (`ms.postproc.VerifyGPUCode`): rejects a candidate whose GPU
// kernels exceed the target's limits (threads per block, shared memory per
// block, virtual threads, vector bytes), read on the scheduled TIR: a kernel
// is the nest under an outermost thread binding; a shared buffer allocated
// outside the kernels counts with what one thread block touches
// (shared_footprint.h). CUDA-like targets only;
// the interface is verify_postproc.h. MetaSchedule layer.
#include <functional>
#include <map>

#include "ir/type.h"
#include "meta_schedule/postproc/shared_footprint.h"
#include "meta_schedule/postproc/verify_postproc.h"
#include "runtime/registry.h"
#include "tir/function.h"
#include "tir/functor.h"

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
    SharedFootprint footprint;  // shared buffers allocated outside the kernels
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
      if (opens) footprint.Close(&current->shared_bytes, fail);
      if (opens) current = nullptr;
    };
    auto add_shared = [&](int64_t bytes, const std::string& name) {
      if (current == nullptr) return;
      if (bytes < 0) fail("shared buffer " + name + " has a non-constant size");
      else current->shared_bytes += bytes;
    };
    std::function<void(const tir::Stmt&)> walk = [&](const tir::Stmt& s) {
      if (!s.defined()) return;
      if (const auto* loop = s.as<tir::ForNode>()) {
        const bool in_kernel = current != nullptr || loop->kind == tir::ForKind::kThreadBinding;
        SharedFootprint::Loop in_loop(&footprint, loop, in_kernel);
        if (loop->kind == tir::ForKind::kThreadBinding && loop->thread_binding) {
          bind((*loop->thread_binding)->thread_tag, ConstExtent(loop->extent), [&] { walk(loop->body); });
          return;
        }
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
          if (IsShared(b.scope())) add_shared(AllocBytes(b->dtype, b->shape), b->name);
        }
        footprint.Note(current != nullptr, realize);
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
      int64_t vthreads = 1;  // every vthread axis together
      for (const auto& [tag, extent] : k.threads) vthreads *= tag.rfind("vthread", 0) == 0 ? extent : 1;
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
