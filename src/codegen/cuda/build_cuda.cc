// The "cuda" backend: target.build.cuda takes the lowered module (tvm.build
// ran the default TIR pipeline), binds the target (with its host) to every
// function, splits each into host code and device kernels (SplitHostDevice),
// compiles the kernels to CUDA C (CodeGenCUDASource) and then PTX/cubin
// (NVRTCCompile) into a CUDAModule, and the host functions through the host
// target's own backend (target.build.llvm or target.build.c); the host module
// imports the CUDA module and launches its kernels. Codegen layer.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "codegen/bind_target.h"
#include "codegen/cuda/codegen_cuda.h"
#include "codegen/cuda/nvrtc.h"
#include "codegen/split_host_device.h"
#include "codegen/target_build.h"
#include "runtime/cuda/cuda_module.h"
#include "runtime/device_api.h"
#include "runtime/registry.h"
#include "target/target_kind.h"
#include "tir/function.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform/lower_thread_allreduce.h"
#include "tir/transform/narrow_index_type.h"
#include "tir/transform/thread_sync.h"

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

namespace {

// The host target: the target's host, else the default host (llvm, or c without LLVM).
Target HostOf(const Target& target) {
  if (auto host = target->host.is_none() ? std::nullopt : target->host.try_cast<Target>()) {
    const TargetKindInfo* kind = FindTargetKind((*host)->kind);
    TESSERA_CHECK_OR_THROW(kind != nullptr && kind->device_type == kDLCPU, ValueError)
        << "tvm.build: the host of target '" << target->str << "' must be a CPU target (llvm or c), got '"
        << (*host)->str << "'";
    return *host;
  }
  return DefaultHostTarget();
}

bool IsKernel(const PrimFunc& func) {
  auto cc = func.GetAttr("calling_conv");
  return cc && cc->try_cast<int64_t>().value_or(0) == 2;
}

// TVM's VerifyMemory: after the split, the host part of a function for a GPU
// target must not touch buffer memory (it lives on the device).
class HostMemoryAccess : public StmtExprVisitor {
 public:
  std::string found;
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;
  void VisitExpr_(const BufferLoadNode* op) override {
    if (found.empty()) found = op->buffer->name;
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (found.empty()) found = op->buffer->name;
  }
};

void CheckHostPart(const std::string& name, const PrimFunc& func, const Target& target) {
  HostMemoryAccess v;
  v.VisitStmt(func->body);
  if (v.found.empty()) return;
  TESSERA_THROW(ValueError) << "cannot build function " << name << " for target '" << target->str
                            << "': it accesses buffer " << v.found
                            << " outside any loop bound to a GPU thread axis, so the access would run on the host "
                               "but the buffer lives on the device. Did you forget to bind? (bind the loops to "
                               "blockIdx.x / threadIdx.x with sch.bind)";
}

// A buffer the host part allocates (one that several kernels share) lives on
// the device: the Allocate becomes TesseraDeviceWorkspaceAlloc / Free
// (runtime/kernel_abi.h) around its body, never host stack or heap memory.
class HostAllocationsOnDevice : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt_(const AllocateNode* op) override {
    Stmt body = VisitStmt(op->body);
    PrimExpr bytes = IntImm(DataType::Int(64), op->dtype.bytes() * op->dtype.lanes());
    for (const PrimExpr& e : op->extents) bytes = bytes * cast(DataType::Int(64), e);
    PrimExpr alloc = Call(DataType::Handle(), Op::Get("tir.call_extern"),
                          {StringImm("TesseraDeviceWorkspaceAlloc"), bytes});
    Stmt free = Evaluate(Call(DataType::Void(), Op::Get("tir.call_extern"),
                              {StringImm("TesseraDeviceWorkspaceFree"), op->buffer_var}));
    return LetStmt(op->buffer_var, alloc, SeqStmt({body, free}));
  }
};

// The architecture and format NVRTC compiles for: the target's -arch, else
// the GPU's own; a cubin when it is for the GPU present, else PTX (which the
// driver compiles for newer GPUs too). Without GPU nor -arch: PTX for sm_80.
// A target -arch older than this NVRTC supports (CUDA 13 starts at sm_75;
// "nvidia/tesla-p100" says sm_60) is compiled for the GPU present when that
// GPU is at least as new, else for the oldest architecture NVRTC has above
// it: the -arch is the least capability the kernel may assume.
std::pair<std::string, std::string> ArchAndFormat(const Target& target) {
  std::string device_arch;
  DeviceAPI* api = DeviceAPI::Get(kDLCUDA);
  if (api->Exists(0)) {
    Any v = api->GetAttr(Device{kDLCUDA, 0}, "compute_version");
    if (auto s = v.try_cast<std::string>()) {
      std::string cv = *s;
      cv.erase(std::remove(cv.begin(), cv.end(), '.'), cv.end());
      device_arch = "sm_" + cv;
    }
  }
  std::optional<std::string> arch = target.GetStr("arch");
  if (!arch || arch->empty()) {
    if (device_arch.empty()) return {"sm_80", "ptx"};
    return {device_arch, "cubin"};
  }
  if (*arch == device_arch) return {*arch, "cubin"};
  std::vector<int> supported = NVRTCSupportedArchs();
  int want = ParseCUDAArch(*arch).number;
  if (!supported.empty() &&
      std::find(supported.begin(), supported.end(), want) == supported.end()) {
    if (!device_arch.empty() && ParseCUDAArch(device_arch).number >= want) return {device_arch, "cubin"};
    for (int a : supported) {
      if (a >= want) return {"sm_" + std::to_string(a), "ptx"};
    }
  }
  return {*arch, "ptx"};
}

std::string KernelName(const GlobalVar& gv, const PrimFunc& func) {
  if (auto sym = func.GetAttr("global_symbol")) return sym->try_cast<std::string>().value_or(gv->name_hint);
  return gv->name_hint;
}

CUDAKernelInfo KernelInfoOf(const std::string& name, const PrimFunc& func) {
  CUDAKernelInfo info;
  info.name = name;
  for (const Var& p : func->params) info.params.push_back(p.dtype());
  if (auto tags = func.GetAttr("tessera.launch_tags")) {
    for (const String& t : tags->cast<Array<String>>()) info.launch_tags.push_back(t);
  }
  if (auto dyn = func.GetAttr("tessera.dyn_shmem")) {
    PrimExpr bytes = dyn->cast<PrimExpr>();
    info.dyn_shmem_arg = !IsConstInt(bytes, 0);
  }
  return info;
}

// Barriers where threads of a block share memory (tir.transform.ThreadSync).
IRModule InsertThreadSync(IRModule device) {
  for (const char* scope : {"shared", "shared.dyn"}) device = tir::transform::ThreadSync(scope)(device);
  return device;
}

}  // namespace

Module BuildCUDA(const IRModule& lowered, const Target& target) {
  Target host_target = HostOf(target);
  IRModule mod = codegen::transform::BindTarget(target)(lowered);
  mod = SplitHostDevice(mod);
  IRModule device = IRModule::Empty();
  IRModule host = IRModule::Empty();
  std::vector<CUDAKernelInfo> kernels;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    BaseFunc f = mod->Lookup(gv);
    const auto* prim = f.as<PrimFuncNode>();
    if (prim == nullptr) {
      host.mutable_node()->Add(gv, f);  // non-TIR functions go to the host backend (which skips them)
      continue;
    }
    PrimFunc func = GetRef<PrimFunc>(prim);
    if (IsKernel(func)) {
      kernels.push_back(KernelInfoOf(KernelName(gv, func), func));
      device.mutable_node()->Add(gv, func);
      continue;
    }
    if (!func.GetAttr("tir.is_host_func")) CheckHostPart(KernelName(gv, func), func, target);
    if (func.GetAttr(kAttrDeviceType)) func.CopyOnWrite()->body = HostAllocationsOnDevice().VisitStmt(func->body);
    host.mutable_node()->Add(gv, WithAttr(func, "target", host_target));
  }
  // The device module: CUDA C, compiled by NVRTC (an empty one when no function has kernels).
  std::string source;
  NVRTCResult compiled{"", "ptx", ""};
  if (!kernels.empty()) {
    device = tir::transform::LowerThreadAllreduce()(device);
    device = InsertThreadSync(tir::transform::NarrowIndexType()(device));  // int64 indices in int32 where they fit
    source = CodeGenCUDASource(device, target);
    auto [arch, format] = ArchAndFormat(target);
    compiled = NVRTCCompile(source, arch, format);
  }
  Module cuda = CUDAModuleCreate(source, compiled.binary, compiled.format, std::move(kernels));
  Module host_mod = BuildForTarget(host, host_target);
  host_mod.Import(cuda);
  return host_mod;
}

TESSERA_REGISTER_GLOBAL("target.build.cuda").set_body_typed([](IRModule mod, Target target) {
  return BuildCUDA(mod, target);
});

}  // namespace codegen
}  // namespace tessera
