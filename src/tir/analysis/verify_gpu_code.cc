// tir.analysis.verify_gpu_code(func, constraints) and the pass
// tir.transform.VerifyGPUCode(constraints), as TVM has them: GPU kernels
// checked against explicit limits (max_threads_per_block, max_shared_memory_
// per_block, max_local_memory_per_block, max_thread_x/y/z, max_vthread,
// max_vector_bytes, max_kernels). The checks are meta_schedule's
// VerifyGPUCode postproc's (meta_schedule/postproc/verify_gpu_code.cc). TIR layer.
#include "meta_schedule/postproc/verify_postproc.h"
#include "runtime/registry.h"
#include "tir/function.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {
namespace {

// Only the given constraints are checked (TVM's semantics); an unknown key is a ValueError naming it.
meta_schedule::GPUCodeLimits LimitsOf(const Map<String, Any>& constraints) {
  meta_schedule::GPUCodeLimits l;
  l.max_threads_per_block = l.max_shared_memory_per_block = l.max_vthread = l.max_vector_bytes = INT64_MAX;
  l.allow_symbolic_extents = true;
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

bool Verify(const PrimFunc& func, const Map<String, Any>& constraints, std::string* why) {
  IRModule mod = IRModule::Empty();
  mod.mutable_node()->Add(GlobalVar("main"), func);
  return meta_schedule::CheckGPUCode(mod, LimitsOf(constraints), why);
}

}  // namespace

namespace transform {

tessera::transform::Pass VerifyGPUCode(Map<String, Any> constraints) {
  LimitsOf(constraints);  // bad keys fail at construction
  return CreatePrimFuncPass(
      [constraints](PrimFunc f, IRModule, tessera::transform::PassContext) {
        std::string why;
        if (!Verify(f, constraints, &why)) {
          std::string name = f.GetAttr("global_symbol") ? f.GetAttr("global_symbol")->try_cast<std::string>().value_or("")
                                                        : std::string();
          TESSERA_THROW(ValueError) << "VerifyGPUCode: function " << name << " exceeds the GPU limits: " << why;
        }
        return f;
      },
      0, "VerifyGPUCode");
}

}  // namespace transform

TESSERA_REGISTER_GLOBAL("tir.analysis.verify_gpu_code")
    .set_body_typed([](PrimFunc func, Map<String, Any> constraints) {
      std::string why;
      return Verify(func, constraints, &why);
    });
TESSERA_REGISTER_GLOBAL("tir.analysis.verify_gpu_code_reason")
    .set_body_typed([](PrimFunc func, Map<String, Any> constraints) {
      std::string why;
      Verify(func, constraints, &why);
      return why;
    });
TESSERA_REGISTER_GLOBAL("tir.transform.VerifyGPUCode").set_body_typed([](Map<String, Any> constraints) {
  return transform::VerifyGPUCode(constraints);
});

}  // namespace tir
}  // namespace tessera
