// Outlining of device kernels from host functions (see split_host_device.h).
#include "codegen/split_host_device.h"

#include <algorithm>

#include "codegen/cuda/launch_extents.h"
#include "ir/op.h"
#include "runtime/registry.h"
#include "ir/transform.h"
#include "target/target_kind.h"
#include "tir/analysis/undefined_vars.h"
#include "tir/function.h"
#include "tir/functor.h"

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

namespace {

class DeviceKernelOutliner : public StmtExprMutator {
 public:
  DeviceKernelOutliner(std::string func_name, Target target, bool is_gpu)
      : func_name_(std::move(func_name)), target_(std::move(target)), is_gpu_(is_gpu) {}

  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt_(const ForNode* op) override {
    if (op->kind != ForKind::kThreadBinding) return StmtExprMutator::VisitStmt_(op);
    if (!is_gpu_) {
      std::string axis = op->thread_binding ? (*op->thread_binding)->thread_tag : std::string("a thread axis");
      TESSERA_THROW(ValueError) << "cannot compile function " << func_name_ << " for target '" << target_->kind
                                << "': loop " << op->loop_var->name_hint << " is bound to " << axis
                                << " (build with a GPU target such as \"cuda\")";
    }
    Stmt region = GetRef<Stmt>(op);
    std::vector<Var> params = UndefinedVars(region);
    std::string name = func_name_ + "_kernel" + (kernels_.empty() ? "" : std::to_string(kernels_.size()));
    LaunchExtents launch = KernelLaunchExtents(region, func_name_);
    PrimFunc kernel(Array<Var>(params.begin(), params.end()), region);
    kernel = WithAttr(kernel, "global_symbol", String(name));
    kernel = WithAttr(kernel, "target", target_);
    kernel = WithAttr(kernel, "tir.is_global_func", true);
    kernel = WithAttr(kernel, "tir.noalias", true);
    kernel = WithAttr(kernel, "calling_conv", static_cast<int64_t>(2));
    kernel = WithAttr(kernel, "tessera.launch_tags", launch.tags);
    kernel = WithAttr(kernel, "tessera.launch_extents", launch.extents);
    kernel = WithAttr(kernel, "tessera.dyn_shmem", launch.dyn_shmem);
    kernels_.emplace_back(GlobalVar(name), kernel);
    // The launch: StringImm(symbol), grid x/y/z, block x/y/z (1 when unbound), dyn_shmem, args.
    Array<PrimExpr> call_args{StringImm(name)};
    for (const char* tag : {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"}) {
      call_args.push_back(LaunchExtentOf(launch, tag).value_or(IntImm(DataType::Int(32), 1)));
    }
    call_args.push_back(launch.dyn_shmem);
    for (const Var& v : params) call_args.push_back(v);
    return Evaluate(Call(DataType::Int(32), Op::Get("tir.tessera_launch_kernel"), call_args));
  }

  std::vector<std::pair<GlobalVar, PrimFunc>> kernels_;

 private:
  std::string func_name_;
  Target target_;
  bool is_gpu_;
};

}  // namespace

namespace {

// The target of `func` from its "target" attribute (a Target or a target string).
std::optional<Target> TargetOf(const PrimFunc& func) {
  auto attr = func.GetAttr("target");
  if (!attr || attr->is_none()) return std::nullopt;
  if (auto t = attr->try_cast<Target>()) return *t;
  if (auto s = attr->try_cast<std::string>()) return Target(*s);
  TESSERA_THROW(TypeError) << "SplitHostDevice: the \"target\" attribute of a function must be a Target or a target string";
}

}  // namespace

IRModule SplitHostDevice(const IRModule& mod) {
  IRModule out = mod.ShallowCopy();
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    const auto* prim = mod->Lookup(gv).as<PrimFuncNode>();
    if (prim == nullptr) continue;
    PrimFunc func = GetRef<PrimFunc>(prim);
    std::optional<Target> target = TargetOf(func);
    if (!target) continue;
    bool is_gpu = std::find((*target)->keys.begin(), (*target)->keys.end(), "gpu") != (*target)->keys.end();
    std::string name = gv->name_hint;
    if (auto sym = func.GetAttr("global_symbol")) name = sym->try_cast<std::string>().value_or(name);
    DeviceKernelOutliner outliner(name, *target, is_gpu);
    Stmt body = outliner.VisitStmt(func->body);
    if (outliner.kernels_.empty()) continue;
    func.CopyOnWrite()->body = body;
    const TargetKindInfo* kind = FindTargetKind((*target)->kind);
    func = WithAttr(func, kAttrDeviceType, static_cast<int64_t>(kind ? kind->device_type : kDLCUDA));
    out.mutable_node()->Update(gv, func);
    for (const auto& [kgv, kernel] : outliner.kernels_) {
      TESSERA_CHECK_OR_THROW(!out->FindGlobalVar(kgv->name_hint), ValueError)
          << "SplitHostDevice: the module already has a function named " << kgv->name_hint;
      out.mutable_node()->Add(kgv, kernel);
    }
  }
  return out;
}

bool IsLaunchKernel(const CallNode* call) {
  static const Object* op = Op::Get("tir.tessera_launch_kernel").get();
  return call != nullptr && call->op.get() == op;
}

LaunchKernelCall ParseLaunchKernel(const CallNode* call, const std::string& func_name) {
  const auto* sym = call->args.size() >= 8 ? call->args[0].as<StringImmNode>() : nullptr;
  TESSERA_CHECK_OR_THROW(sym != nullptr, ValueError)
      << "function " << func_name
      << ": tir.tessera_launch_kernel takes (kernel name, gx, gy, gz, bx, by, bz, dyn_shmem, args...)";
  LaunchKernelCall out;
  out.kernel = sym->value;
  for (size_t i = 1; i < 8; ++i) out.dims.push_back(call->args[i]);
  for (size_t i = 8; i < call->args.size(); ++i) out.args.push_back(call->args[i]);
  return out;
}

TESSERA_REGISTER_OP("tir.tessera_launch_kernel")
    .set_num_inputs(-1)
    .describe("launch a device kernel: (kernel symbol, gx, gy, gz, bx, by, bz, dyn_shmem, args...)");

namespace transform {

Pass SplitHostDevice() {
  return tessera::transform::CreateModulePass([](IRModule mod, PassContext) { return codegen::SplitHostDevice(mod); }, 0,
                          "SplitHostDevice");
}

}  // namespace transform

TESSERA_REGISTER_PASS("tir.transform.SplitHostDevice", transform::SplitHostDevice);

}  // namespace codegen
}  // namespace tessera
