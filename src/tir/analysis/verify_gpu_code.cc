// VerifyGPUCode (see verify_gpu_code.h), and its Python faces:
// tir.analysis.verify_gpu_code(func, constraints) and the pass
// tir.transform.VerifyGPUCode(constraints).
#include "tir/analysis/verify_gpu_code.h"

#include <map>
#include <unordered_map>

#include "meta_schedule/postproc/verify_postproc.h"
#include "runtime/registry.h"
#include "tir/analysis/buffer_scopes.h"
#include "tir/functor.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {
namespace {

struct Kernel {
  std::map<std::string, int64_t> threads;  // tag -> largest constant extent
  int64_t shared_bytes = 0, local_bytes = 0;
};

class Checker : public StmtExprVisitor {
 public:
  Checker(const Stmt& body, const GPULimits& limits, std::string name)
      : limits_(limits), name_(std::move(name)), scopes_(BufferScopes(body)) {}

  std::vector<Kernel> kernels_;
  std::string error_;
  bool whole_function_ = false;

  void Fail(const std::string& msg) {
    if (error_.empty()) error_ = msg;
  }

  void Run(const Stmt& body) {
    if (whole_function_) {
      kernels_.emplace_back();
      in_kernel_ = true;
    }
    VisitStmt(body);
  }

  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;
  void VisitStmt_(const ForNode* op) override {
    if (op->kind == ForKind::kThreadBinding && op->thread_binding) {
      Bind((*op->thread_binding)->thread_tag, op->extent, [&] { StmtExprVisitor::VisitStmt_(op); });
      return;
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AttrStmtNode* op) override {
    if (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread") {
      std::string tag = "vthread";
      if (const auto* iv = op->node.as<IterVarNode>(); iv && !iv->thread_tag.empty()) tag = iv->thread_tag;
      Bind(tag, op->value, [&] { StmtExprVisitor::VisitStmt_(op); });
      return;
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AllocateNode* op) override {
    if (in_kernel_) {
      std::string scope = ScopeOf(scopes_, op->buffer_var.get());
      int64_t bytes = op->dtype.bytes() * op->dtype.lanes();
      for (const PrimExpr& e : op->extents) {
        std::optional<int64_t> c = ConstIntValue(e);
        bytes = c && bytes >= 0 ? bytes * *c : -1;
      }
      if (scope == "shared" || scope == "shared.dyn") {
        if (bytes >= 0) kernels_.back().shared_bytes += bytes;
        else if (scope == "shared") Fail("shared buffer " + op->buffer_var->name_hint + " of " + name_ +
                                         " has a non-constant size (a symbolic size needs scope \"shared.dyn\")");
      } else if (scope == "local" && bytes > 0) {
        kernels_.back().local_bytes += bytes;
      }
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Vector(op->value.dtype(), op->buffer->name);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Vector(op->dtype, op->buffer->name);
    StmtExprVisitor::VisitExpr_(op);
  }

 private:
  void Bind(const std::string& tag, const PrimExpr& extent, const std::function<void()>& body) {
    bool opens = !in_kernel_;
    if (opens) {
      kernels_.emplace_back();
      in_kernel_ = true;
    }
    if (std::optional<int64_t> c = ConstIntValue(extent)) {
      int64_t& slot = kernels_.back().threads[tag];
      slot = std::max(slot, *c);
    }
    body();
    if (opens) in_kernel_ = false;
  }
  void Vector(DataType t, const std::string& buffer) {
    int64_t bytes = static_cast<int64_t>(t.bytes()) * t.lanes();
    if (in_kernel_ && t.lanes() > 1 && bytes > limits_.max_vector_bytes) {
      Fail("an access to " + buffer + " in " + name_ + " moves " + std::to_string(bytes) + " bytes (" + t.str() +
           "), more than " + std::to_string(limits_.max_vector_bytes));
    }
  }

  const GPULimits& limits_;
  std::string name_;
  std::unordered_map<const VarNode*, std::string> scopes_;
  bool in_kernel_ = false;
};

}  // namespace

GPULimits GPULimits::FromTarget(const Target& target) {
  meta_schedule::GPUCodeLimits t = meta_schedule::GPUCodeLimits::FromTarget(target);
  GPULimits l;
  l.max_threads_per_block = t.max_threads_per_block;
  l.max_shared_memory_per_block = t.max_shared_memory_per_block;
  return l;
}

std::string VerifyGPUCode(const PrimFunc& func, const GPULimits& limits, const std::string& name) {
  std::string fname = name;
  if (fname.empty()) {
    if (auto sym = func.GetAttr("global_symbol")) fname = sym->try_cast<std::string>().value_or("");
  }
  if (fname.empty()) fname = "<function>";
  Checker c(func->body, limits, fname);
  if (auto g = func.GetAttr("tir.is_global_func")) c.whole_function_ = g->try_cast<bool>().value_or(false);
  c.Run(func->body);
  if (static_cast<int64_t>(c.kernels_.size()) > limits.max_kernels) {
    c.Fail(fname + " has " + std::to_string(c.kernels_.size()) + " kernels, more than " +
           std::to_string(limits.max_kernels));
  }
  for (const Kernel& k : c.kernels_) {
    int64_t threads = 1, vthreads = 1;
    const std::pair<const char*, int64_t> dims[] = {
        {"threadIdx.x", limits.max_thread_x}, {"threadIdx.y", limits.max_thread_y}, {"threadIdx.z", limits.max_thread_z}};
    for (const auto& [tag, limit] : dims) {
      auto it = k.threads.find(tag);
      if (it == k.threads.end()) continue;
      threads *= it->second;
      if (it->second > limit) {
        c.Fail("a kernel of " + fname + " binds " + std::to_string(it->second) + " threads to " + tag +
               ", more than " + std::to_string(limit));
      }
    }
    for (const auto& [tag, extent] : k.threads) {
      if (tag.rfind("vthread", 0) == 0) vthreads *= extent;
    }
    if (threads > limits.max_threads_per_block) {
      c.Fail("a kernel of " + fname + " uses " + std::to_string(threads) + " threads per block, more than " +
             std::to_string(limits.max_threads_per_block));
    }
    if (vthreads > limits.max_vthread) {
      c.Fail("a kernel of " + fname + " uses " + std::to_string(vthreads) + " virtual threads, more than " +
             std::to_string(limits.max_vthread));
    }
    if (k.shared_bytes > limits.max_shared_memory_per_block) {
      c.Fail("a kernel of " + fname + " allocates " + std::to_string(k.shared_bytes) +
             " bytes of shared memory, more than " + std::to_string(limits.max_shared_memory_per_block));
    }
    if (k.local_bytes > limits.max_local_memory_per_block) {
      c.Fail("a kernel of " + fname + " allocates " + std::to_string(k.local_bytes) +
             " bytes of local memory, more than " + std::to_string(limits.max_local_memory_per_block));
    }
  }
  return c.error_;
}

namespace {

// Only the given constraints are checked (TVM's semantics); an unknown key is a ValueError naming it.
GPULimits LimitsOf(const Map<String, Any>& constraints) {
  GPULimits l;
  const std::pair<const char*, int64_t*> keys[] = {
      {"max_threads_per_block", &l.max_threads_per_block},
      {"max_shared_memory_per_block", &l.max_shared_memory_per_block},
      {"max_local_memory_per_block", &l.max_local_memory_per_block},
      {"max_thread_x", &l.max_thread_x},
      {"max_thread_y", &l.max_thread_y},
      {"max_thread_z", &l.max_thread_z},
      {"max_vthread", &l.max_vthread},
      {"max_vector_bytes", &l.max_vector_bytes},
      {"max_kernels", &l.max_kernels}};
  for (const auto& [key, value] : constraints.items()) {
    int64_t* slot = nullptr;
    for (const auto& [name, field] : keys) {
      if (std::string(key) == name) slot = field;
    }
    if (slot == nullptr) {
      std::string known;
      for (const auto& [name, field] : keys) known += (known.empty() ? "" : ", ") + std::string(name);
      TESSERA_THROW(ValueError) << "verify_gpu_code: unknown constraint \"" << std::string(key) << "\" (known: " << known
                                << ")";
    }
    auto v = value.try_cast<int64_t>();
    TESSERA_CHECK_OR_THROW(v.has_value(), TypeError)
        << "verify_gpu_code: constraint \"" << std::string(key) << "\" must be an integer";
    *slot = *v;
  }
  return l;
}

}  // namespace

namespace transform {

tessera::transform::Pass VerifyGPUCode(Map<String, Any> constraints) {
  GPULimits limits = LimitsOf(constraints);  // bad keys fail at construction
  return CreatePrimFuncPass(
      [limits](PrimFunc f, IRModule, tessera::transform::PassContext) {
        std::string why = tir::VerifyGPUCode(f, limits);
        TESSERA_CHECK_OR_THROW(why.empty(), ValueError) << "VerifyGPUCode: " << why;
        return f;
      },
      0, "VerifyGPUCode");
}

}  // namespace transform

TESSERA_REGISTER_GLOBAL("tir.analysis.verify_gpu_code")
    .set_body_typed([](PrimFunc func, Map<String, Any> constraints) {
      return VerifyGPUCode(func, LimitsOf(constraints)).empty();
    });
TESSERA_REGISTER_GLOBAL("tir.transform.VerifyGPUCode").set_body_typed([](Map<String, Any> constraints) {
  return transform::VerifyGPUCode(constraints);
});

}  // namespace tir
}  // namespace tessera
