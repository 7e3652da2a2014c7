// LLVM optimization, JIT and library export (see llvm_module.h).
#include "codegen/llvm/llvm_module.h"

#include "codegen/llvm/llvm_target.h"
#include "runtime/interrupt.h"
#include "runtime/library_file.h"
#include "runtime/process.h"
#include "runtime/registry.h"

#include <dlfcn.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <mutex>

namespace tessera {
namespace codegen {
namespace {

llvm::OptimizationLevel OptLevel(int level) {
  switch (level) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 2: return llvm::OptimizationLevel::O2;
    default: return llvm::OptimizationLevel::O3;
  }
}

void Optimize(llvm::Module* module, llvm::TargetMachine* tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = false;
  llvm::PassBuilder pb(tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = opt_level == 0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                               : pb.buildPerModuleDefaultPipeline(OptLevel(opt_level));
  mpm.run(*module, mam);
}

std::string EmitToString(llvm::Module* module, llvm::TargetMachine* tm, llvm::CodeGenFileType kind) {
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, kind)) {
    TESSERA_THROW(RuntimeError) << "LLVM cannot emit this file type for the target";
  }
  pm.run(*module);
  return std::string(buffer.begin(), buffer.end());
}

class LLVMModuleNode final : public ModuleNode {
 public:
  LLVMModuleNode(std::unique_ptr<llvm::orc::LLJIT> jit, std::vector<FunctionInfo> infos, std::string ir, Target target)
      : jit_(std::move(jit)), infos_(std::move(infos)), ir_(std::move(ir)), target_(std::move(target)) {
    // -num-cores travels with each function, into exported libraries too.
    int cores = static_cast<int>(target_.GetInt("num-cores").value_or(0));
    for (FunctionInfo& info : infos_) info.num_threads = cores;
  }

  std::string type_key() const override { return "llvm"; }

  std::optional<PackedFunc> GetFunction(const std::string& name) const override {
    for (const FunctionInfo& info : infos_) {
      if (info.name != name) continue;
      std::lock_guard<std::mutex> lock(mu_);
      auto sym = jit_->lookup(KernelSymbol(name));
      if (!sym) {
        std::string msg = llvm::toString(sym.takeError());
        TESSERA_THROW(RuntimeError) << "JIT lookup of " << name << " failed: " << msg;
      }
      auto fn = reinterpret_cast<KernelFn>(sym->getAddress());
      return MakeKernelFunction(info, fn, GetRef<ObjectRef>(this));
    }
    return std::nullopt;
  }

  std::vector<std::string> ListFunctions() const override {
    std::vector<std::string> out;
    for (const FunctionInfo& i : infos_) out.push_back(i.name);
    return out;
  }

  std::string GetSource(const std::string& format) const override {
    if (format == "ll" || format == "llvm" || format.empty()) return ir_;
    if (format == "asm" || format == "s") {
      llvm::LLVMContext ctx;
      auto module = Reparse(&ctx);
      auto tm = MakeTargetMachine(target_);
      return EmitToString(module.get(), tm.get(), llvm::CGFT_AssemblyFile);
    }
    return ModuleNode::GetSource(format);
  }

  void ExportLibrary(const std::string& path) const override { ExportLibraryWithData(path, {}); }

  void ExportLibraryWithData(const std::string& path,
                             const std::vector<std::pair<std::string, std::string>>& data) const override {
    llvm::LLVMContext ctx;
    auto module = Reparse(&ctx);
    for (const auto& [symbol, bytes] : data) {
      llvm::Constant* arr = llvm::ConstantDataArray::get(
          ctx, llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
      new llvm::GlobalVariable(*module, arr->getType(), true, llvm::GlobalValue::ExternalLinkage, arr, symbol);
      llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
      new llvm::GlobalVariable(*module, i64, true, llvm::GlobalValue::ExternalLinkage,
                               llvm::ConstantInt::get(i64, bytes.size()), symbol + "_size");
    }
    // Embed the parameter descriptions for LoadModuleFromFile.
    std::string json = FunctionInfo::ListToJSON(infos_);
    llvm::Constant* str = llvm::ConstantDataArray::getString(ctx, json);
    auto* str_var = new llvm::GlobalVariable(*module, str->getType(), true, llvm::GlobalValue::PrivateLinkage, str,
                                             "__tessera_function_info_str");
    llvm::Type* i8p = llvm::Type::getInt8PtrTy(ctx);
    auto* ptr = llvm::ConstantExpr::getPointerCast(str_var, i8p);
    new llvm::GlobalVariable(*module, i8p, true, llvm::GlobalValue::ExternalLinkage, ptr, "__tessera_function_info");
    auto tm = MakeTargetMachine(target_);
    std::string obj = EmitToString(module.get(), tm.get(), llvm::CGFT_ObjectFile);
    // Paths reach the linker as argv entries (never through a shell); one
    // starting with '-' is made relative ("./-x") so it cannot read as an option.
    std::string out_path = path.size() > 0 && path[0] == '-' ? "./" + path : path;
    std::string obj_path = out_path + ".tessera.o";
    {
      std::ofstream out(obj_path, std::ios::binary);
      if (!out) TESSERA_THROW(ValueError) << "export_library: cannot write " << obj_path;
      out.write(obj.data(), static_cast<std::streamsize>(obj.size()));
    }
    const char* cc_env = std::getenv("CXX");
    std::vector<std::string> argv = SplitCommandWords(cc_env && *cc_env ? cc_env : "c++", "the CXX environment variable");
    for (const char* a : {"-shared", "-o"}) argv.emplace_back(a);
    argv.push_back(out_path);
    argv.push_back(obj_path);
    for (std::string& a : RuntimeLinkArgs()) argv.push_back(std::move(a));
    ProcessResult linked;
    try {
      linked = RunProcess(argv);
    } catch (...) {
      std::remove(obj_path.c_str());
      throw;
    }
    std::remove(obj_path.c_str());
    if (linked.exit_code != 0) {
      TESSERA_THROW(RuntimeError) << "export_library: linking " << path << " with " << argv[0] << " failed"
                                  << (linked.term_signal ? " (signal " + std::to_string(linked.term_signal) + ")" : "")
                                  << ":\n" << linked.output;
    }
    SealLibraryFile(path);  // load_module refuses any later change to the file
  }

 private:
  std::unique_ptr<llvm::Module> Reparse(llvm::LLVMContext* ctx) const {
    llvm::SMDiagnostic diag;
    auto module = llvm::parseIR(llvm::MemoryBufferRef(ir_, "tessera"), diag, *ctx);
    TESSERA_ICHECK(module != nullptr) << "cannot re-read generated IR: " << diag.getMessage().str();
    return module;
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::vector<FunctionInfo> infos_;
  std::string ir_;
  Target target_;
  mutable std::mutex mu_;
};

}  // namespace

void ConfigureLLVMModule(llvm::Module* module, const Target& target) {
  auto tm = MakeTargetMachine(target);
  module->setTargetTriple(tm->getTargetTriple().str());
  module->setDataLayout(tm->createDataLayout());
}

Module CreateLLVMModule(std::unique_ptr<llvm::LLVMContext> ctx, std::unique_ptr<llvm::Module> module,
                        std::vector<FunctionInfo> infos, const Target& target) {
  auto tm = MakeTargetMachine(target);
  LLVMTargetSpec spec = SpecOf(target);
  Optimize(module.get(), tm.get(), spec.opt_level);
  std::string ir;
  {
    llvm::raw_string_ostream os(ir);
    module->print(os, nullptr);
  }
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(spec.triple)};
  jtmb.setCPU(spec.cpu);
  if (!spec.features.empty()) {
    llvm::SubtargetFeatures features(spec.features);
    jtmb.addFeatures(features.getFeatures());
  }
  jtmb.setCodeGenOptLevel(spec.CodeGenLevel());
  llvm::TargetOptions opt;
  opt.AllowFPOpFusion = spec.fp_contract ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  jtmb.setOptions(opt);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create();
  if (!jit) TESSERA_THROW(RuntimeError) << "cannot create the LLVM JIT: " << llvm::toString(jit.takeError());
  auto& dylib = (*jit)->getMainJITDylib();
  // The runtime entry points kernels call; libm and other process symbols.
  llvm::orc::SymbolMap runtime_syms;
  auto add = [&](const char* name, void* addr) {
    runtime_syms[(*jit)->mangleAndIntern(name)] =
        llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(addr), llvm::JITSymbolFlags::Exported);
  };
  add("TesseraParallelFor", reinterpret_cast<void*>(&TesseraParallelFor));
  add("TesseraWorkspaceAlloc", reinterpret_cast<void*>(&TesseraWorkspaceAlloc));
  add("TesseraWorkspaceFree", reinterpret_cast<void*>(&TesseraWorkspaceFree));
  add("TesseraSetLastError", reinterpret_cast<void*>(&TesseraSetLastError));
  add("TesseraSetIndexError", reinterpret_cast<void*>(&TesseraSetIndexError));
  add("TesseraLaunchKernel", reinterpret_cast<void*>(&TesseraLaunchKernel));
  add("TesseraDeviceWorkspaceAlloc", reinterpret_cast<void*>(&TesseraDeviceWorkspaceAlloc));
  add("TesseraDeviceWorkspaceFree", reinterpret_cast<void*>(&TesseraDeviceWorkspaceFree));
  add("TesseraInterruptRequested", const_cast<sig_atomic_t*>(&TesseraInterruptRequested));
  if (auto err = dylib.define(llvm::orc::absoluteSymbols(runtime_syms))) {
    TESSERA_THROW(RuntimeError) << "JIT setup failed: " << llvm::toString(std::move(err));
  }
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!gen) TESSERA_THROW(RuntimeError) << "JIT setup failed: " << llvm::toString(gen.takeError());
  dylib.addGenerator(std::move(*gen));
  if (auto err = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx)))) {
    TESSERA_THROW(RuntimeError) << "JIT compilation failed: " << llvm::toString(std::move(err));
  }
  auto node = make_object<LLVMModuleNode>(std::move(*jit), std::move(infos), std::move(ir), target);
  return Module(ObjectPtr<Object>(std::move(node)));
}

}  // namespace codegen
}  // namespace tessera
