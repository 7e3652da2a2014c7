// Module: a container of compiled functions (`rt_mod["f"]`), the result of
// tvm.build. Implementations: the LLVM JIT module (codegen layer), the
// library module loaded from an exported .so (this layer, so a deployed
// model needs only the runtime). Modules can import others (e.g. a host
// module importing a CUDA module). Runtime layer.
#pragma once

#include <string>
#include <vector>

#include "runtime/array.h"
#include "runtime/packed_func.h"

namespace tessera {

class Module;

class ModuleNode : public Object {
 public:
  // "llvm", "library", "cuda", ...
  virtual std::string type_key() const = 0;
  // The function `name`, or nullopt.
  virtual std::optional<PackedFunc> GetFunction(const std::string& name) const = 0;
  // Names of the functions this module defines.
  virtual std::vector<std::string> ListFunctions() const = 0;
  // Source in `format` ("ll", "asm", "cu", ...); raises ValueError for unknown formats.
  virtual std::string GetSource(const std::string& format) const;
  // Writes a shared library loadable by LoadModule (runtime only).
  virtual void ExportLibrary(const std::string& path) const;
  // ExportLibrary plus read-only byte arrays: each (symbol, bytes) becomes
  // `const char symbol[]` and `const uint64_t symbol_size` in the library
  // (how a VM executable travels with its kernels). Modules that compile
  // (LLVM, C source) implement it; others raise NotImplementedError.
  virtual void ExportLibraryWithData(const std::string& path,
                                     const std::vector<std::pair<std::string, std::string>>& data) const;
  // The bytes that embed this module in an exported library (an imported
  // device module); loaded back by the global "runtime.module.loadbinary_<type_key>".
  // Raises NotImplementedError for modules that cannot be embedded.
  virtual std::string SaveToBinary() const;

  std::vector<Module> imports;
  TESSERA_DECLARE_OBJECT_INFO(ModuleNode, Object, "runtime.Module");
};

class Module : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Module, ObjectRef, ModuleNode);
  // Looks `name` up here, then in imported modules; raises ValueError
  // naming the function and what the module has.
  PackedFunc GetFunctionOrThrow(const std::string& name) const;
  // Adds `other` to this module's imports (modules are shared: every reference sees it, as TVM's Import).
  void Import(const Module& other) const { static_cast<ModuleNode*>(data_.get())->imports.push_back(other); }
};

// Exports `mod` (ExportLibrary, or ExportLibraryWithData with `data`),
// embedding its imported modules (SaveToBinary) so that LoadModuleFromFile
// restores them as the loaded library's imports.
void ExportModuleLibrary(const Module& mod, const std::string& path,
                         std::vector<std::pair<std::string, std::string>> data = {});

// Loads a library written by Module::ExportLibrary.
Module LoadModuleFromFile(const std::string& path);

}  // namespace tessera
