// The LLVM view of a Target: triple, CPU, features and optimization level
// from -mtriple/-mcpu/-mattr/-opt-level, and the TargetMachine they make.
// This file also installs the "llvm" kind's target parser, which checks
// -mtriple, -mcpu and -mattr against LLVM's tables so a bad value raises
// ValueError when the Target is made (not an abort inside LLVM). Codegen layer.
#pragma once

#include <llvm/Support/CodeGen.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>

#include "target/target.h"

namespace tessera {
namespace codegen {

struct LLVMTargetSpec {
  std::string triple, cpu, features;  // features: "+avx2,-fma,..."
  int opt_level = 3;                  // -opt-level, 0-3
  bool fp_contract = true;            // fuse a*b+c (off with -fast-math-contract=false)
  llvm::CodeGenOpt::Level CodeGenLevel() const;
};

// Registers LLVM's native target once per process.
void InitLLVM();
LLVMTargetSpec SpecOf(const Target& target);
std::unique_ptr<llvm::TargetMachine> MakeTargetMachine(const Target& target);

}  // namespace codegen
}  // namespace tessera
