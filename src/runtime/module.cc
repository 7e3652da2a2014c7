// Module base behaviour, the library module (exported shared objects loaded
// with dlopen) and the FFI of modules (see module.h).
#include "runtime/module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>

#include "runtime/kernel_abi.h"
#include "runtime/library_file.h"
#include "runtime/registry.h"
#include "runtime/thread_pool.h"

namespace tessera {

std::string ModuleNode::GetSource(const std::string& format) const {
  TESSERA_THROW(ValueError) << "a " << type_key() << " module has no source in format '" << format << "'";
}

void ModuleNode::ExportLibrary(const std::string& path) const {
  TESSERA_THROW(NotImplementedError) << "a " << type_key() << " module cannot be exported (to " << path << ")";
}

void ModuleNode::ExportLibraryWithData(const std::string& path,
                                       const std::vector<std::pair<std::string, std::string>>&) const {
  TESSERA_THROW(NotImplementedError) << "a " << type_key() << " module cannot be exported with data (to " << path
                                     << "); only modules built in this process (llvm, c) can";
}

std::string ModuleNode::SaveToBinary() const {
  TESSERA_THROW(NotImplementedError) << "a " << type_key() << " module cannot be embedded in an exported library";
}

namespace {

// The symbol holding the imported modules of an exported library:
// per module "<type_key>\n<size>\n<bytes>".
constexpr const char* kImportsSymbol = "__tessera_imports";

std::string EncodeImports(const std::vector<Module>& imports) {
  std::string out;
  for (const Module& m : imports) {
    std::string bytes = m->SaveToBinary();
    out += m->type_key() + "\n" + std::to_string(bytes.size()) + "\n" + bytes;
  }
  return out;
}

std::vector<Module> DecodeImports(const std::string& data, const std::string& path) {
  std::vector<Module> out;
  size_t at = 0;
  while (at < data.size()) {
    size_t nl1 = data.find('\n', at);
    size_t nl2 = nl1 == std::string::npos ? nl1 : data.find('\n', nl1 + 1);
    TESSERA_CHECK_OR_THROW(nl2 != std::string::npos, ValueError) << path << " has corrupted imported modules";
    std::string key = data.substr(at, nl1 - at);
    size_t size = 0;
    try {
      size = std::stoull(data.substr(nl1 + 1, nl2 - nl1 - 1));
    } catch (const std::exception&) {
      TESSERA_THROW(ValueError) << path << " has corrupted imported modules";
    }
    TESSERA_CHECK_OR_THROW(size <= data.size() - nl2 - 1, ValueError) << path << " has corrupted imported modules";
    auto loader = Registry::Get("runtime.module.loadbinary_" + key);
    TESSERA_CHECK_OR_THROW(loader.has_value(), ValueError)
        << path << " embeds a " << key << " module, which this runtime cannot load";
    out.push_back((*loader)(std::string(data.substr(nl2 + 1, size))).cast<Module>());
    at = nl2 + 1 + size;
  }
  return out;
}

}  // namespace

void ExportModuleLibrary(const Module& mod, const std::string& path,
                         std::vector<std::pair<std::string, std::string>> data) {
  if (!mod->imports.empty()) data.emplace_back(kImportsSymbol, EncodeImports(mod->imports));
  if (data.empty()) {
    mod->ExportLibrary(path);
  } else {
    mod->ExportLibraryWithData(path, data);
  }
}

PackedFunc Module::GetFunctionOrThrow(const std::string& name) const {
  const ModuleNode* n = get();
  if (auto f = n->GetFunction(name)) return *f;
  for (const Module& m : n->imports) {
    if (auto f = m->GetFunction(name)) return *f;
  }
  std::string names;
  for (const std::string& s : n->ListFunctions()) names += (names.empty() ? "" : ", ") + s;
  TESSERA_THROW(ValueError) << "the module has no function '" << name << "' (it has: "
                            << (names.empty() ? "nothing" : names) << ")";
}

namespace {

// A shared library written by ExportLibrary: kernels plus the JSON
// description of their parameters in the symbol `__tessera_function_info`.
class LibraryModuleNode final : public ModuleNode {
 public:
  LibraryModuleNode(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {
    auto* info_json = static_cast<const char* const*>(dlsym(handle_, "__tessera_function_info"));
    if (info_json == nullptr || *info_json == nullptr) dlclose(handle_);
    TESSERA_CHECK_OR_THROW(info_json != nullptr && *info_json != nullptr, ValueError)
        << path_ << " is not a Tessera library (no __tessera_function_info)";
    try {
      infos_ = FunctionInfo::ListFromJSON(*info_json);
    } catch (const std::exception& e) {  // tessera errors and the JSON parser's
      dlclose(handle_);
      handle_ = nullptr;
      TESSERA_THROW(ValueError) << path_ << " has corrupted function metadata (__tessera_function_info): " << e.what();
    }
  }
  ~LibraryModuleNode() override {
    if (handle_) dlclose(handle_);
  }
  std::string type_key() const override { return "library"; }
  std::optional<PackedFunc> GetFunction(const std::string& name) const override {
    for (const FunctionInfo& info : infos_) {
      if (info.name != name) continue;
      auto fn = reinterpret_cast<KernelFn>(dlsym(handle_, KernelSymbol(name).c_str()));
      TESSERA_CHECK_OR_THROW(fn != nullptr, ValueError) << path_ << " lacks the kernel symbol " << name;
      return MakeKernelFunction(info, fn, GetRef<ObjectRef>(this));
    }
    return std::nullopt;
  }
  std::vector<std::string> ListFunctions() const override {
    std::vector<std::string> out;
    for (const FunctionInfo& i : infos_) out.push_back(i.name);
    return out;
  }

 private:
  void* handle_;
  std::string path_;
  std::vector<FunctionInfo> infos_;
};

}  // namespace

Module LoadModuleFromFile(const std::string& path) {
  // dlopen maps a private, validated copy: a truncated file cannot fault
  // later, and a library exported again to `path` loads anew instead of
  // being returned from dlopen's cache of paths.
  const std::string copy = ValidatedPrivateCopy(path);
  void* handle = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  const char* err = handle == nullptr ? dlerror() : nullptr;
  std::string reason = err ? err : "unknown error";
  ::unlink(copy.c_str());
  if (handle == nullptr) {
    // dlerror names the copy; name the user's file instead.
    for (size_t at = reason.find(copy); at != std::string::npos; at = reason.find(copy)) reason.replace(at, copy.size(), path);
    TESSERA_THROW(ValueError) << "cannot load module " << path << ": " << reason;
  }
  // A VM executable exported with its kernels (runtime/vm/executable.h):
  // the executable module, importing the library, is what loads.
  const auto* exec_data = static_cast<const char*>(dlsym(handle, "__tessera_vm_executable"));
  const auto* exec_size = static_cast<const uint64_t*>(dlsym(handle, "__tessera_vm_executable_size"));
  std::string exec_bytes = exec_data && exec_size ? std::string(exec_data, *exec_size) : std::string();
  Module lib(ObjectPtr<Object>(make_object<LibraryModuleNode>(handle, path)));
  // Device modules embedded by ExportModuleLibrary become the library's imports.
  const auto* imports_data = static_cast<const char*>(dlsym(handle, kImportsSymbol));
  const auto* imports_size = static_cast<const uint64_t*>(dlsym(handle, (std::string(kImportsSymbol) + "_size").c_str()));
  if (imports_data != nullptr && imports_size != nullptr) {
    for (const Module& m : DecodeImports(std::string(imports_data, *imports_size), path)) lib.Import(m);
  }
  if (exec_data == nullptr) return lib;
  try {
    return Registry::GetOrThrow("vm.LoadExecutableFromLibrary")(lib, String(std::move(exec_bytes))).cast<Module>();
  } catch (const ValueError& e) {
    TESSERA_THROW(ValueError) << "cannot load module " << path << ": " << e.what();
  }
}

TESSERA_REGISTER_OBJECT_TYPE(ModuleNode);

// The default number of threads of parallel loops (TVM_NUM_THREADS-like).
TESSERA_REGISTER_GLOBAL("runtime.SetNumThreads").set_body_typed([](int n) {
  TESSERA_CHECK_OR_THROW(n > 0, ValueError) << "the number of threads must be positive, got " << n;
  runtime::SetDefaultNumThreads(n);
});
// Thread t of a parallel loop first runs its own t-th of the iterations (see
// thread_pool.h); returns the previous setting.
TESSERA_REGISTER_GLOBAL("runtime.SetParallelAffinity").set_body_typed([](bool on) {
  return runtime::SetParallelAffinity(on);
});
// Long polls of the pool's threads (see thread_pool.h); returns the previous setting.
TESSERA_REGISTER_GLOBAL("runtime.SetParallelLongPoll").set_body_typed([](bool on) {
  return runtime::SetParallelLongPoll(on);
});
// The pool's counters [launches, worker sleeps, caller sleeps, preempted
// polls, long polls, long polls that slept] since the last reset; reset=True
// zeroes them after reading.
TESSERA_REGISTER_GLOBAL("runtime.ParallelPoolStats").set_body_typed([](bool reset) {
  runtime::ParallelPoolStats& s = runtime::PoolStats();
  Array<int64_t> out;
  for (std::atomic<int64_t>* c : {&s.launches, &s.worker_sleeps, &s.caller_sleeps, &s.preempted_polls,
                                  &s.long_polls, &s.long_polls_slept}) {
    out.push_back(reset ? c->exchange(0) : c->load());
  }
  return out;
});
TESSERA_REGISTER_GLOBAL("runtime.GetNumThreads").set_body_typed([]() {
  return static_cast<int64_t>(runtime::DefaultNumThreads());
});

TESSERA_REGISTER_GLOBAL("runtime.ModuleGetFunction").set_body_typed([](Module m, std::string name, bool query_imports) -> Any {
  if (auto f = m->GetFunction(name)) return *f;
  if (query_imports) {
    for (const Module& imp : m->imports)
      if (auto f = imp->GetFunction(name)) return *f;
  }
  return Any();
});
TESSERA_REGISTER_GLOBAL("runtime.ModuleListFunctions").set_body_typed([](Module m) {
  auto v = m->ListFunctions();
  return Array<String>(v.begin(), v.end());
});
TESSERA_REGISTER_GLOBAL("runtime.ModuleTypeKey").set_body_typed([](Module m) { return m->type_key(); });
TESSERA_REGISTER_GLOBAL("runtime.ModuleGetSource").set_body_typed([](Module m, std::string fmt) { return m->GetSource(fmt); });
TESSERA_REGISTER_GLOBAL("runtime.ModuleExportLibrary").set_body_typed([](Module m, std::string path) {
  ExportModuleLibrary(m, path);
});
TESSERA_REGISTER_GLOBAL("runtime.ModuleImports").set_body_typed([](Module m) { return Array<Module>(m->imports); });
TESSERA_REGISTER_GLOBAL("runtime.ModuleLoadFromFile").set_body_typed([](std::string path) { return LoadModuleFromFile(path); });

}  // namespace tessera
