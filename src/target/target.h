// Target: what to compile for, parsed from TVM's target strings
// ("llvm", "llvm -mcpu=native --num-cores=4", "llvm -mattr=+avx2",
// "cuda -arch=sm_80"). Sits beside the IR; consumed by tvm.build and the
// tuner. Kinds and their options are registered in target_kind.cc; unknown
// kinds, unknown options and ill-typed values raise ValueError.
#pragma once

#include "ir/expr.h"

namespace tessera {

class TargetNode : public Object {
 public:
  std::string kind;                 // "llvm", "cuda", "c"
  Map<String, Any> attrs;           // "mcpu", "mattr", "mtriple", "num-cores", "arch", ...
  std::vector<std::string> keys;    // "cpu" or "cuda", "gpu"
  std::string str;                  // canonical spelling
  Any host;                         // the host Target of a device target (None: not given)
  TESSERA_DECLARE_FINAL_OBJECT_INFO(TargetNode, Object, "target.Target");
};

class Target : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Target, ObjectRef, TargetNode);
  explicit Target(const std::string& spec);
  std::optional<std::string> GetStr(const std::string& key) const;
  std::optional<int64_t> GetInt(const std::string& key) const;
  // A boolean option: false when absent.
  bool GetBool(const std::string& key) const;
};

// The host target: "llvm" when Tessera is built with LLVM (its backend is
// registered), else "c" (the C source backend).
Target DefaultHostTarget();

}  // namespace tessera
