// LLVM target machines, the "llvm" kind's option checks and the target
// queries target.llvm_get_system_cpu/_triple/_vector_width (see llvm_target.h).
#include "codegen/llvm/llvm_target.h"

#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/SubtargetFeature.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/ADT/Triple.h>

#include <mutex>
#include <sstream>

#include "runtime/registry.h"
#include "target/target_kind.h"

namespace tessera {
namespace codegen {

void InitLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

llvm::CodeGenOpt::Level LLVMTargetSpec::CodeGenLevel() const {
  switch (opt_level) {
    case 0: return llvm::CodeGenOpt::None;
    case 1: return llvm::CodeGenOpt::Less;
    case 2: return llvm::CodeGenOpt::Default;
    default: return llvm::CodeGenOpt::Aggressive;
  }
}

LLVMTargetSpec SpecOf(const Target& target) {
  LLVMTargetSpec s;
  s.triple = target.GetStr("mtriple").value_or(llvm::sys::getProcessTriple());
  std::string cpu = target.GetStr("mcpu").value_or("native");
  // Tessera compiles for the host CPU unless told otherwise (see docs/compatibility.md).
  if (cpu == "native") {
    s.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> host;
    if (llvm::sys::getHostCPUFeatures(host)) {
      for (auto& kv : host) s.features += (s.features.empty() ? "" : ",") + std::string(kv.second ? "+" : "-") + kv.first().str();
    }
  } else {
    s.cpu = cpu;
  }
  if (auto mattr = target.GetStr("mattr")) s.features += (s.features.empty() ? "" : ",") + *mattr;
  s.opt_level = static_cast<int>(target.GetInt("opt-level").value_or(3));
  if (auto contract = target->attrs.Get("fast-math-contract")) s.fp_contract = contract->try_cast<bool>().value_or(true);
  return s;
}

std::unique_ptr<llvm::TargetMachine> MakeTargetMachine(const Target& target) {
  InitLLVM();
  LLVMTargetSpec spec = SpecOf(target);
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(spec.triple, err);
  if (t == nullptr) TESSERA_THROW(ValueError) << "unknown LLVM target triple '" << spec.triple << "': " << err;
  llvm::TargetOptions opt;
  opt.AllowFPOpFusion = spec.fp_contract ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  std::unique_ptr<llvm::TargetMachine> tm(t->createTargetMachine(spec.triple, spec.cpu, spec.features, opt,
                                                                 llvm::Reloc::PIC_, llvm::None, spec.CodeGenLevel()));
  if (!tm) TESSERA_THROW(ValueError) << "cannot create an LLVM target machine for " << target->str;
  return tm;
}

namespace {

// Checks the LLVM-specific values of an "llvm" target.
void ParseLLVMTarget(const Target& target) {
  if (auto level = target.GetInt("opt-level"); level && (*level < 0 || *level > 3)) {
    TESSERA_THROW(ValueError) << "target option -opt-level must be 0, 1, 2 or 3, not " << *level;
  }
  InitLLVM();
  std::string triple = target.GetStr("mtriple").value_or(llvm::sys::getProcessTriple());
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, err);
  if (t == nullptr) {
    TESSERA_THROW(ValueError) << "target option -mtriple=" << triple << " is not a triple this LLVM can compile for ("
                              << err << ")";
  }
  std::unique_ptr<llvm::MCSubtargetInfo> generic(t->createMCSubtargetInfo(triple, "", ""));
  TESSERA_ICHECK(generic != nullptr) << "LLVM has no subtarget information for " << triple;
  if (auto cpu = target.GetStr("mcpu"); cpu && *cpu != "native" && !generic->isCPUStringValid(*cpu)) {
    TESSERA_THROW(ValueError) << "target option -mcpu=" << *cpu << ": '" << *cpu << "' is not a CPU LLVM knows for "
                              << triple << " (use -mcpu=native or a name such as '"
                              << llvm::sys::getHostCPUName().str() << "')";
  }
  if (auto mattr = target.GetStr("mattr")) {
    std::stringstream ss(*mattr);
    std::string feature;
    while (std::getline(ss, feature, ',')) {
      if (feature.size() < 2 || (feature[0] != '+' && feature[0] != '-')) {
        TESSERA_THROW(ValueError) << "target option -mattr: feature '" << feature
                                  << "' must be written +name or -name (e.g. -mattr=+avx2,+fma)";
      }
      // A feature LLVM knows changes the feature bits when toggled; an
      // unknown one leaves them as they are.
      std::string name = feature.substr(1);
      std::unique_ptr<llvm::MCSubtargetInfo> on(t->createMCSubtargetInfo(triple, "", "+" + name));
      std::unique_ptr<llvm::MCSubtargetInfo> off(t->createMCSubtargetInfo(triple, "", "-" + name));
      if (on->getFeatureBits() == off->getFeatureBits()) {
        TESSERA_THROW(ValueError) << "target option -mattr: '" << name << "' is not a feature LLVM knows for "
                                  << triple;
      }
    }
  }
}

}  // namespace

TESSERA_REGISTER_TARGET_KIND("llvm")
    .set_target_parser([](TargetNode* node) { ParseLLVMTarget(GetRef<Target>(node)); });

// What -mcpu=native and the default -mtriple resolve to (TVM's names).
TESSERA_REGISTER_GLOBAL("target.llvm_get_system_cpu").set_body_typed([]() {
  return llvm::sys::getHostCPUName().str();
});
TESSERA_REGISTER_GLOBAL("target.llvm_get_system_triple").set_body_typed([]() {
  return llvm::sys::getProcessTriple();
});

// The SIMD register width in bits of an "llvm" target's CPU and features
// (TVM's name): 512 with AVX-512F, 256 with AVX, else 128. Read by the
// default CPU schedule (tir/transform/default_cpu_schedule.cc).
TESSERA_REGISTER_GLOBAL("target.llvm_get_vector_width").set_body_typed([](Target target) -> int64_t {
  InitLLVM();
  LLVMTargetSpec spec = SpecOf(target);
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(spec.triple, err);
  if (t == nullptr) TESSERA_THROW(ValueError) << "unknown LLVM target triple '" << spec.triple << "': " << err;
  std::unique_ptr<llvm::MCSubtargetInfo> info(t->createMCSubtargetInfo(spec.triple, spec.cpu, spec.features));
  if (info == nullptr || llvm::Triple(spec.triple).getArch() != llvm::Triple::x86_64) return 128;
  if (info->checkFeatures("+avx512f")) return 512;
  if (info->checkFeatures("+avx")) return 256;
  return 128;
});

// The default schedule and the tuner read the width through the kind.
TESSERA_REGISTER_TARGET_KIND("llvm").set_attr(kTargetKindAttrVectorWidth,
                                              Registry::GetOrThrow("target.llvm_get_vector_width"));

}  // namespace codegen
}  // namespace tessera
