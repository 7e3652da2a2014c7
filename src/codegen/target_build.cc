// Backend dispatch by target kind (see target_build.h).
#include "codegen/target_build.h"

#include <map>

#include "runtime/registry.h"

namespace tessera {
namespace codegen {

Module BuildForTarget(const IRModule& lowered, const Target& target) {
  const std::string prefix = "target.build.";
  std::optional<PackedFunc> backend = Registry::Get(prefix + target->kind);
  if (!backend) {
    // A kind whose backend is a build option: say so, and what to use instead.
    static const std::map<std::string, std::pair<std::string, std::string>> kOptional = {
        {"llvm", {"TESSERA_USE_LLVM", "LLVM"}}};
    if (auto opt = kOptional.find(target->kind); opt != kOptional.end()) {
      const std::string host = DefaultHostTarget()->kind;
      TESSERA_THROW(NotImplementedError)
          << "target kind '" << target->kind << "' is not built into this Tessera: it was built without "
          << opt->second.second << " (CMake option -D" << opt->second.first << "=OFF); use target \"" << host
          << "\" (tvm.target.default_host(), the C source backend compiled by the system C compiler) or rebuild "
          << "with -D" << opt->second.first << "=ON";
    }
    std::string known;
    for (const std::string& name : Registry::ListNames()) {
      if (name.rfind(prefix, 0) == 0) known += (known.empty() ? "" : ", ") + name.substr(prefix.size());
    }
    TESSERA_THROW(NotImplementedError) << "no code generator for target kind '" << target->kind
                                       << "' (no backend registered as " << prefix << target->kind
                                       << "; backends: " << (known.empty() ? "none" : known) << ")";
  }
  return (*backend)(lowered, target).cast<Module>();
}

// codegen.ExportDataLibrary(path, symbol, bytes): a library holding only
// `bytes` (a VM executable without kernels), written by the host backend.
TESSERA_REGISTER_GLOBAL("codegen.ExportDataLibrary")
    .set_body_typed([](std::string path, std::string symbol, std::string bytes) {
      Module empty = BuildForTarget(IRModule::Empty(), DefaultHostTarget());
      empty->ExportLibraryWithData(path, {{symbol, bytes}});
    });

}  // namespace codegen
}  // namespace tessera
