// Outlining of device kernels from host functions (see split_host_device.h).
#include "codegen/split_host_device.h"

#include <algorithm>

#include "runtime/registry.h"
#include "ir/transform.h"
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
    PrimFunc kernel(Array<Var>(params.begin(), params.end()), region);
    kernel = WithAttr(kernel, "global_symbol", String(name));
    kernel = WithAttr(kernel, "target", target_);
    kernel = WithAttr(kernel, "tir.is_global_func", true);
    kernel = WithAttr(kernel, "tir.noalias", true);
    kernel = WithAttr(kernel, "calling_conv", static_cast<int64_t>(2));
    GlobalVar gv(name);
    kernels_.emplace_back(gv, kernel);
    Array<PrimExpr> args;
    for (const Var& v : params) args.push_back(v);
    return Evaluate(Call(DataType::Int(32), gv, args));
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
    out.mutable_node()->Update(gv, func);
    for (const auto& [kgv, kernel] : outliner.kernels_) {
      TESSERA_CHECK_OR_THROW(!out->FindGlobalVar(kgv->name_hint), ValueError)
          << "SplitHostDevice: the module already has a function named " << kgv->name_hint;
      out.mutable_node()->Add(kgv, kernel);
    }
  }
  return out;
}

namespace transform {

Pass SplitHostDevice() {
  return tessera::transform::CreateModulePass([](IRModule mod, PassContext) { return codegen::SplitHostDevice(mod); }, 0,
                          "SplitHostDevice");
}

}  // namespace transform

TESSERA_REGISTER_PASS("tir.transform.SplitHostDevice", transform::SplitHostDevice);

}  // namespace codegen
}  // namespace tessera
